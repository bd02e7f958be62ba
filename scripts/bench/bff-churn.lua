-- wrk script for scripts/bench-bff.sh's churn run: GET /dashboard, every request with a session id never used
-- before (`X-Session-ID: churn-<thread>-<n>`), so each one creates a session and misses its cache: what a BFF sees
-- when sessions come and go faster than they are reused. Prints one BENCH line like bff-sessions.lua.
local tokens = { "token-alice", "token-bob", "token-carol" }
local counter = 0
local threads = 0

function setup(thread)
  thread:set("prefix", "churn-" .. threads .. "-")
  threads = threads + 1
end

function request()
  counter = counter + 1
  local headers = {
    ["Authorization"] = "Bearer " .. tokens[(counter % #tokens) + 1],
    ["X-Session-ID"] = prefix .. counter,
  }
  return wrk.format("GET", "/dashboard", headers)
end

function done(summary, latency, requests)
  local errors = summary.errors
  local failed = errors.connect + errors.read + errors.write + errors.timeout + errors.status
  io.write(string.format("BENCH requests=%d rps=%.0f p50_ms=%.2f p99_ms=%.2f errors=%d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, failed))
end
