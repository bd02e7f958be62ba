-- wrk script for scripts/bench-bff.sh's fleet run: GET /dashboard across the same 50 sessions as bff-sessions.lua,
-- spread over the replicas in BFF_REPLICAS ("host:port host:port"), as a load balancer in front of the fleet would.
-- wrk sends every request of a thread to that thread's one address, so the replicas alternate per thread (thread 1
-- on the first replica, thread 2 on the second, …); each thread walks through all 50 sessions, so every session's
-- requests alternate between the replicas. Prints the same BENCH line.
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or ""
local replicas = {}
for hostport in string.gmatch(os.getenv("BFF_REPLICAS") or "", "%S+") do
  local host, port = string.match(hostport, "^(.+):(%d+)$")
  replicas[#replicas + 1] = wrk.lookup(host, port)[1]
end
assert(#replicas > 0, "BFF_REPLICAS names no replica (host:port host:port)")

-- The sessions, the requests and the BENCH line are the single-replica run's; only each thread's address differs.
dofile(here .. "bff-sessions.lua")
local sessionsSetup = setup
local threads = 0

function setup(thread)
  thread.addr = replicas[(threads % #replicas) + 1]
  threads = threads + 1
  sessionsSetup(thread)
end
