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

-- The BENCH line, shared with the other run's script (next to this one).
dofile((debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "") .. "bff-report.lua")
