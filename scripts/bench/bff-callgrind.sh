#!/usr/bin/env bash
# Instructions per GET /dashboard of Examples/HummingbirdBFF under valgrind's callgrind: counts that stay put on a
# loaded machine, where the CPU time of `make bench-bff` does not.
#   scripts/bench/bff-callgrind.sh on|floor [COUNT]
# `on`: the cached dashboard (50 sessions, as scripts/bench/bff-sessions.lua); `floor`: the same app answering those
# bytes from a constant (BFF_FLOOR_BODY_FILE). After a warm-up of 100 requests (every session made, its token verified
# and its dashboard cached), callgrind's counters are zeroed, COUNT requests (default 600) go over one keep-alive
# connection, one after the other, and the counters are dumped: every thread's instructions (event loops, the
# cooperative pool, libcurl's thread) divided by COUNT. Keep COUNT × ~70 ms under the upstream's 60 s max-age, so the
# window holds no revalidation. The BFF's environment passes through (BFF_DASHBOARD_MEMO_SECONDS, ...).
# BFF_BIN names the binary (default: the example's release build); CALLGRIND_OUT keeps the dump (callgrind_annotate).
# valgrind 3.19 cannot read Swift's DWARF 5 (the binary is copied without its debug information; symbols stay) and
# writes into sigsuspend's mask, which libdispatch keeps read-only (a preloaded sigsuspend hands it a copy).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
MODE="${1:?usage: bff-callgrind.sh on|floor [COUNT]}"; COUNT="${2:-600}"
BFF_BIN="${BFF_BIN:-$ROOT/Examples/HummingbirdBFF/.build/release/HummingbirdBFF}"
for tool in valgrind callgrind_control cc strip; do
  command -v "$tool" >/dev/null 2>&1 || { echo "error: $tool is missing" >&2; exit 1; }
done
# shellcheck source=../lib/bff-servers.sh
source "$ROOT/scripts/lib/bff-servers.sh"
trap stop_servers EXIT
trap 'exit 130' INT TERM
cp "$BFF_BIN" "$SERVER_LOGS/bff" && strip --strip-debug "$SERVER_LOGS/bff"
cat >"$SERVER_LOGS/sigsuspend.c" <<'C'
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
int sigsuspend(const sigset_t *mask) { sigset_t copy = *mask; return (int)syscall(SYS_rt_sigsuspend, &copy, 8); }
C
cc -shared -fPIC -O2 -o "$SERVER_LOGS/sigsuspend.so" "$SERVER_LOGS/sigsuspend.c"
cat >"$SERVER_LOGS/drive.py" <<'PY'
import http.client, sys, urllib.parse
url, count = urllib.parse.urlparse(sys.argv[1]), int(sys.argv[2])
tokens = ["token-alice", "token-bob", "token-carol"]
connection = http.client.HTTPConnection(url.hostname, url.port)
seen = {}
for index in range(count):
    session = index % 50
    connection.request("GET", "/dashboard", headers={
        "Authorization": "Bearer " + tokens[session % 3], "X-Session-ID": f"bench-{session}"})
    response = connection.getresponse()
    response.read()
    key = f"{response.status} {response.getheader('Cache-Status') or '-'}"
    seen[key] = seen.get(key, 0) + 1
print(", ".join(f"{key}: {n}" for key, n in sorted(seen.items())))
PY
start_fixture
upstream="$FIXTURE_URL/t/callgrind-$MODE"
floor=()
if [ "$MODE" = floor ]; then  # the cached dashboard's bytes, from a BFF run without valgrind
  BFF_TRACING=off start_bff "$upstream"
  curl -fsS -o "$SERVER_LOGS/dashboard.json" -H "Authorization: Bearer token-alice" -H "X-Session-ID: bench-0" \
    "$BFF_URL/dashboard"
  stop_bff
  floor=(BFF_FLOOR_BODY_FILE="$SERVER_LOGS/dashboard.json")
fi
out="${CALLGRIND_OUT:-$SERVER_LOGS/callgrind.out}"
env -u UCACHE_REDIS_URL "${floor[@]}" LD_PRELOAD="$SERVER_LOGS/sigsuspend.so" UCACHE_FIXTURE_URL="$upstream" PORT=0 \
  BFF_TRACING="${BFF_TRACING:-off}" LOG_LEVEL=warning \
  valgrind --tool=callgrind --callgrind-out-file="$out" "$SERVER_LOGS/bff" \
  >"$SERVER_LOGS/bff.out" 2>"$SERVER_LOGS/bff.err" &
BFF_PID=$!
BFF_URL=$(wait_for_ready "$SERVER_LOGS/bff.out" HUMMINGBIRD_BFF_READY "$BFF_PID")
python3 "$SERVER_LOGS/drive.py" "$BFF_URL" 100 >/dev/null
callgrind_control -z "$BFF_PID" >/dev/null 2>&1
answers=$(python3 "$SERVER_LOGS/drive.py" "$BFF_URL" "$COUNT")
callgrind_control -d "$BFF_PID" >/dev/null 2>&1
instructions=$(awk '/^summary:/ { print $2 }' "$out.1")
printf 'callgrind %-5s requests=%d instructions_per_request=%d answers: %s\n' "$MODE" "$COUNT" \
  "$((instructions / COUNT))" "$answers"
