#!/usr/bin/env bash
# `make bench-bff`: wrk against Examples/HummingbirdBFF (release build) on loopback, GET /dashboard over 50
# sessions (scripts/bench/bff-sessions.lua), first with the cache, then with BFF_CACHE=off (every read goes to the
# bank fixture). Prints throughput, p50 and p99 of each, the fixture's request count, and the BFF's CPU time per
# request (user + system, from /proc: the figure a busy machine disturbs least), then the machine's load.
# Options (environment): DURATION (default 10s), THREADS (2), CONNECTIONS (32); BFF_EXECUTOR=eventloop runs the
# BFF's tasks on its event loops instead of Swift's cooperative pool (see Examples/HummingbirdBFF/README.md).
# Last, a session-churn run (scripts/bench/bff-churn.lua): every request a new session id, so every dashboard
# creates a session and misses; the BFF's RSS is sampled every second (start, peak, end).
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

# cpu_ticks PID: user + system clock ticks the process has used so far.
cpu_ticks() { awk '{ split($0, after, ") "); split(after[2], f, " "); print f[12] + f[13] }' "/proc/$1/stat"; }

run() { # run MODE: one wrk run against a fresh BFF and a fresh tenant
  local mode=$1 upstream="$FIXTURE_URL/t/bench-$1"
  start_bff "$upstream" "$mode"
  # Warm-up: every session's first dashboard (token verification, then the cache misses).
  for session in $(seq 0 49); do
    local tokens=(token-alice token-bob token-carol)
    curl -fsS -o /dev/null -H "Authorization: Bearer ${tokens[$((session % 3))]}" -H "X-Session-ID: bench-$session" \
      "$BFF_URL/dashboard"
  done
  local before after result ticks_before ticks_after requests
  before=$(curl -fsS "$upstream/__control/counters" | python3 -c "import json,sys; print(json.load(sys.stdin)['requests'])")
  ticks_before=$(cpu_ticks "$BFF_PID")
  result=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" -s "$ROOT/scripts/bench/bff-sessions.lua" "$BFF_URL" \
    | grep '^BENCH')
  ticks_after=$(cpu_ticks "$BFF_PID")
  after=$(curl -fsS "$upstream/__control/counters" | python3 -c "import json,sys; print(json.load(sys.stdin)['requests'])")
  requests=$(sed -E 's/.*requests=([0-9]+).*/\1/' <<<"$result")
  printf 'cache %-3s %s upstream_requests=%d bff_cpu_us_per_request=%d\n' "$mode" "${result#BENCH }" \
    "$((after - before))" "$(((ticks_after - ticks_before) * 1000000 / $(getconf CLK_TCK) / (requests > 0 ? requests : 1)))"
}

churn() { # a run where every request brings a new session; RSS sampled every second
  local upstream="$FIXTURE_URL/t/bench-churn" samples="$SERVER_LOGS/rss" result sampler
  start_bff "$upstream" on
  : >"$samples"
  (while kill -0 "$BFF_PID" 2>/dev/null; do
    awk '/^VmRSS/ { print $2 }' "/proc/$BFF_PID/status" >>"$samples" 2>/dev/null || true
    sleep 1
  done) &
  sampler=$!
  result=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" -s "$ROOT/scripts/bench/bff-churn.lua" "$BFF_URL" \
    | grep '^BENCH')
  awk '/^VmRSS/ { print $2 }' "/proc/$BFF_PID/status" >>"$samples"
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
  printf 'churn     %s rss_mib_start=%s rss_mib_peak=%s rss_mib_end=%s\n' "${result#BENCH }" \
    "$(awk 'NR == 1 { printf "%.1f", $1 / 1024 }' "$samples")" \
    "$(sort -n "$samples" | awk 'END { printf "%.1f", $1 / 1024 }')" \
    "$(awk 'END { printf "%.1f", $1 / 1024 }' "$samples")"
}

echo "GET /dashboard, 50 sessions, wrk -t$THREADS -c$CONNECTIONS -d$DURATION, loopback, $(nproc) cores; load: $(uptime | sed -E 's/.*load average: //')"
run on
run off
churn
echo "load: $(uptime | sed -E 's/.*load average: //')"
