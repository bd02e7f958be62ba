-- wrk script for scripts/bench-bff.sh: GET /dashboard across 50 sessions. The fixture has three users, so each
-- session is an `X-Session-ID` bound to the user of its token (the BFF verifies the token; the id only selects
-- the session). Prints one BENCH line with throughput, p50, p99 and errors.
local tokens = { "token-alice", "token-bob", "token-carol" }
local sessions = 50
local counter = 0

function setup(thread)
  thread:set("offset", counter)
  counter = counter + 1
end

function init(args)
  counter = tonumber(offset) or 0
end

function request()
  counter = counter + 1
  local session = counter % sessions
  local headers = {
    ["Authorization"] = "Bearer " .. tokens[(session % #tokens) + 1],
    ["X-Session-ID"] = "bench-" .. session,
  }
  return wrk.format("GET", "/dashboard", headers)
end

-- The BENCH line, shared with the other run's script (next to this one).
dofile((debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "") .. "bff-report.lua")
