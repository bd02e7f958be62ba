#!/usr/bin/env bash
# `make bench-bff`: wrk against Examples/HummingbirdBFF (release build) on loopback, GET /dashboard over 50
# sessions (scripts/bench/bff-sessions.lua), first with the cache, then with BFF_CACHE=off (every read goes to the
# bank fixture). Prints throughput, p50 and p99 of each and the fixture's request count.
# Options (environment): DURATION (default 10s), THREADS (2), CONNECTIONS (32).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
EXAMPLE="$ROOT/Examples/HummingbirdBFF"
DURATION="${DURATION:-10s}"; THREADS="${THREADS:-2}"; CONNECTIONS="${CONNECTIONS:-32}"
command -v wrk >/dev/null 2>&1 || { echo "error: wrk is missing: scripts/ensure-deps.sh --bench" >&2; exit 1; }
swift build -c release --package-path "$EXAMPLE" -Xswiftc -warnings-as-errors
BFF_BIN="$EXAMPLE/.build/release/HummingbirdBFF"
# shellcheck source=lib/bff-servers.sh
source "$ROOT/scripts/lib/bff-servers.sh"
trap stop_servers EXIT
start_fixture

run() { # run MODE: one wrk run against a fresh BFF and a fresh tenant
  local mode=$1 upstream="$FIXTURE_URL/t/bench-$1"
  start_bff "$upstream" "$mode"
  # Warm-up: every session's first dashboard (token verification, then the cache misses).
  for session in $(seq 0 49); do
    local tokens=(token-alice token-bob token-carol)
    curl -fsS -o /dev/null -H "Authorization: Bearer ${tokens[$((session % 3))]}" -H "X-Session-ID: bench-$session" \
      "$BFF_URL/dashboard"
  done
  local before after result
  before=$(curl -fsS "$upstream/__control/counters" | python3 -c "import json,sys; print(json.load(sys.stdin)['requests'])")
  result=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" -s "$ROOT/scripts/bench/bff-sessions.lua" "$BFF_URL" \
    | grep '^BENCH')
  after=$(curl -fsS "$upstream/__control/counters" | python3 -c "import json,sys; print(json.load(sys.stdin)['requests'])")
  printf 'cache %-3s %s upstream_requests=%d\n' "$mode" "${result#BENCH }" "$((after - before))"
}

echo "GET /dashboard, 50 sessions, wrk -t$THREADS -c$CONNECTIONS -d$DURATION, loopback, $(nproc) cores"
run on
run off
