-- wrk script for scripts/bench-bff.sh's fleet run: GET /dashboard across the same 50 sessions as bff-sessions.lua,
-- spread over the replicas in BFF_REPLICAS ("host:port host:port"), as a load balancer in front of the fleet would.
-- wrk sends every request of a thread to that thread's one address, so the replicas alternate per thread (thread 1
-- on the first replica, thread 2 on the second, …); each thread walks through all 50 sessions, so every session's
-- requests alternate between the replicas. Prints the same BENCH line.
local tokens = { "token-alice", "token-bob", "token-carol" }
local sessions = 50
local counter = 0
local replicas = {}
for hostport in string.gmatch(os.getenv("BFF_REPLICAS") or "", "%S+") do
  local host, port = string.match(hostport, "^(.+):(%d+)$")
  replicas[#replicas + 1] = wrk.lookup(host, port)[1]
end
assert(#replicas > 0, "BFF_REPLICAS names no replica (host:port host:port)")

function setup(thread)
  thread.addr = replicas[(counter % #replicas) + 1]
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
