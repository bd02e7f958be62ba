#!/usr/bin/env bash
# `make bench-bff`: wrk against Examples/HummingbirdBFF (release build) on loopback, GET /dashboard over 50
# sessions (scripts/bench/bff-sessions.lua), in the same invocation:
#   cache on   one replica with the cache;
#   floor      the same app answering the cached dashboard's bytes (captured from the cache-on replica) from a
#              constant: no cache, no token verification, no upstream (BFF_FLOOR_BODY_FILE); then a line with
#              cached ÷ floor for req/s and CPU per request;
#   fleet x2   two replicas sharing a redis-server (replication and the second level, UCACHE_REDIS_URL), wrk's
#              threads alternating between them (scripts/bench/bff-fleet.lua), each session warmed on one of them,
#              so the other's first read of it is an L2 hit;
#   cache off  one replica with BFF_CACHE=off (every read goes to the bank fixture).
# Each row: throughput, p50 and p99, the L1 hit rate (memory lookups that hit) and, for the fleet, the L2 hit rate
# (second-level reads that hit) summed over the replicas, upstream requests per dashboard, the BFFs' CPU time per
# request (user + system, from /proc: the figure a busy machine disturbs least) and Redis's; then the machine's load.
# Options (environment): DURATION (default 10s), THREADS (2), CONNECTIONS (32); BFF_EXECUTOR=eventloop runs the
# BFF's tasks on its event loops instead of Swift's cooperative pool (see Examples/HummingbirdBFF/README.md);
# BFF_TRACING (default off: no tracer; otel for swift-otel's); FLOOR_ONLY=1 runs the cached and floor rows alone;
# BFF_BIN names a built binary (another build to compare with); BFF_DASHBOARD_MEMO_SECONDS=0 serves every cached
# dashboard from its two reads instead of the session's composed dashboard. Instructions per request of the cached
# and floor rows, stable on a loaded machine: scripts/bench/bff-callgrind.sh.
# Last, a session-churn run (scripts/bench/bff-churn.lua): every request a new session id, so every dashboard
# creates a session and misses; the BFF's RSS is sampled every second (start, peak, end), and what the cache charged
# its budget is read at the end. CHURN_ONLY=1 runs the churn alone; CHURN_CACHE=off runs it with BFF_CACHE=off
# (sessions made, nothing stored: the growth that is not the cache's payload).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
EXAMPLE="$ROOT/Examples/HummingbirdBFF"
DURATION="${DURATION:-10s}"; THREADS="${THREADS:-2}"; CONNECTIONS="${CONNECTIONS:-32}"
command -v wrk >/dev/null 2>&1 || { echo "error: wrk is missing: scripts/ensure-deps.sh --bench" >&2; exit 1; }
command -v redis-server >/dev/null 2>&1 || { echo "error: redis-server is missing: scripts/ensure-deps.sh" >&2; exit 1; }
if [ -z "${BFF_BIN:-}" ]; then
  swift build -c release --package-path "$EXAMPLE" -Xswiftc -warnings-as-errors
  BFF_BIN="$EXAMPLE/.build/release/HummingbirdBFF"
fi
export BFF_TRACING="${BFF_TRACING:-off}"
# shellcheck source=lib/bff-servers.sh
source "$ROOT/scripts/lib/bff-servers.sh"
trap stop_servers EXIT
trap 'exit 130' INT TERM
start_fixture

# cpu_ticks PID: user + system clock ticks the process has used so far.
cpu_ticks() { awk '{ split($0, after, ") "); split(after[2], f, " "); print f[12] + f[13] }' "/proc/$1/stat"; }

# cache_counts URL...: "L1-hits L1-misses L2-hits L2-misses L2-writes", summed over the replicas' /metrics.
cache_counts() {
  local url
  for url; do curl -fsS "$url/metrics"; done | awk '
    /^ucache_hits_total[{]/ { h += $2 } /^ucache_misses_total[{]/ { m += $2 }
    /^ucache_l2_hits_total / { lh += $2 } /^ucache_l2_misses_total / { lm += $2 } /^ucache_l2_writes_total / { lw += $2 }
    END { print h + 0, m + 0, lh + 0, lm + 0, lw + 0 }'
}

# rate HITS MISSES: hits / (hits + misses) in percent, "n/a" when nothing was looked up.
rate() { awk -v h="$1" -v m="$2" 'BEGIN { if (h + m == 0) print "n/a"; else printf "%.2f%%", 100 * h / (h + m) }'; }

run() { # run MODE [REPLICAS]: one wrk run against fresh BFFs (one, or a fleet sharing a Redis) and a fresh tenant
  local mode=$1 replicas=${2:-1}
  local upstream="$FIXTURE_URL/t/bench-$mode-$replicas" urls=() pids=() label script name
  if [ "$mode" = floor ]; then
    BFF_FLOOR_BODY_FILE="$SERVER_LOGS/dashboard.json" start_bff "$upstream"
    urls=("$BFF_URL"); pids=("$BFF_PID"); label="floor"; script=bff-sessions.lua
  elif [ "$replicas" = 1 ]; then
    start_bff "$upstream" "$mode"
    urls=("$BFF_URL"); pids=("$BFF_PID"); label="cache $mode"; script=bff-sessions.lua
  else
    stop_bff
    start_redis
    for index in $(seq 1 "$replicas"); do
      name="R$index"
      start_replica "$name" "$upstream"
      name="${name}_URL"; urls+=("${!name}")
      name="R${index}_PID"; pids+=("${!name}")
    done
    label="fleet x$replicas "; script=bff-fleet.lua
  fi
  # Warm-up: every session's first dashboard (token verification, then the cache misses), session i on replica
  # i mod n; in the fleet, once the second level holds all of them, the run starts.
  local tokens=(token-alice token-bob token-carol)
  for session in $(seq 0 49); do
    curl -fsS -o /dev/null -H "Authorization: Bearer ${tokens[$((session % 3))]}" -H "X-Session-ID: bench-$session" \
      "${urls[$((session % replicas))]}/dashboard"
  done
  if [ "$replicas" != 1 ]; then
    for _ in $(seq 1 100); do
      [ "$(cache_counts "${urls[@]}" | awk '{ print $5 }')" -ge 100 ] && break
      sleep 0.1
    done
  fi
  local before after result ticks_before=0 ticks_after=0 redis_before=0 redis_after=0 requests pid counts_before
  local counts_after replica_addresses
  replica_addresses=$(printf '%s ' "${urls[@]#http://}")
  before=$(curl -fsS "$upstream/__control/counters" | python3 -c "import json,sys; print(json.load(sys.stdin)['requests'])")
  counts_before=$(cache_counts "${urls[@]}")
  for pid in "${pids[@]}"; do ticks_before=$((ticks_before + $(cpu_ticks "$pid"))); done
  [ "$replicas" = 1 ] || redis_before=$(cpu_ticks "$REDIS_PID")
  result=$(BFF_REPLICAS="$replica_addresses" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" \
    -s "$ROOT/scripts/bench/$script" "${urls[0]}" | grep '^BENCH')
  for pid in "${pids[@]}"; do ticks_after=$((ticks_after + $(cpu_ticks "$pid"))); done
  [ "$replicas" = 1 ] || redis_after=$(cpu_ticks "$REDIS_PID")
  counts_after=$(cache_counts "${urls[@]}")
  after=$(curl -fsS "$upstream/__control/counters" | python3 -c "import json,sys; print(json.load(sys.stdin)['requests'])")
  requests=$(sed -E 's/.*requests=([0-9]+).*/\1/' <<<"$result")
  [ "$requests" -gt 0 ] || requests=1
  # shellcheck disable=SC2086  # five numbers each
  set -- $counts_before $counts_after
  local l1 l2 per_tick=$((1000000 / $(getconf CLK_TCK)))
  l1=$(rate $(($6 - $1)) $(($7 - $2)))
  l2=$([ "$replicas" = 1 ] && echo n/a || rate $(($8 - $3)) $(($9 - $4)))
  printf '%-9s %s l1_hit_rate=%s l2_hit_rate=%s l2_hits=%d upstream_requests=%d upstream_per_dashboard=%.5f' \
    "$label" "${result#BENCH }" "$l1" "$l2" $(($8 - $3)) "$((after - before))" \
    "$(awk -v u="$((after - before))" -v r="$requests" 'BEGIN { print u / r }')"
  printf ' bff_cpu_us_per_request=%d' "$(((ticks_after - ticks_before) * per_tick / requests))"
  [ "$replicas" = 1 ] || printf ' redis_cpu_us_per_request=%d' "$(((redis_after - redis_before) * per_tick / requests))"
  printf '\n'
  # The row's figures for the ratio line: requests/s and CPU per request (ns).
  LAST_RPS=$(sed -E 's/.*rps=([0-9]+).*/\1/' <<<"$result")
  LAST_CPU_NS=$(((ticks_after - ticks_before) * per_tick * 1000 / requests))
  # The cached dashboard's bytes (the first session's), for the floor.
  [ "$label" != "cache on" ] || curl -fsS -o "$SERVER_LOGS/dashboard.json" \
    -H "Authorization: Bearer ${tokens[0]}" -H "X-Session-ID: bench-0" "${urls[0]}/dashboard"
  if [ "$replicas" != 1 ]; then
    stop_replicas
    stop_redis
  fi
}

churn() { # a run where every request brings a new session; RSS sampled every second
  local upstream="$FIXTURE_URL/t/bench-churn" samples="$SERVER_LOGS/rss" result sampler
  start_bff "$upstream" "${CHURN_CACHE:-on}"
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
  # What the cache charged its budget (payloads, sessions, their parts), to tell the cache's share of the growth.
  local charged
  charged=$(curl -fsS "$BFF_URL/metrics" | awk '/^ucache_memory_used_bytes / { print $2 }')
  printf 'churn     %s rss_mib_start=%s rss_mib_peak=%s rss_mib_end=%s charged_mib_end=%s\n' "${result#BENCH }" \
    "$(awk 'NR == 1 { printf "%.1f", $1 / 1024 }' "$samples")" \
    "$(sort -n "$samples" | awk 'END { printf "%.1f", $1 / 1024 }')" \
    "$(awk 'END { printf "%.1f", $1 / 1024 }' "$samples")" \
    "$(awk -v b="${charged:-0}" 'BEGIN { printf "%.1f", b / 1048576 }')"
}

echo "GET /dashboard, 50 sessions, wrk -t$THREADS -c$CONNECTIONS -d$DURATION, loopback, $(nproc) cores; load: $(uptime | sed -E 's/.*load average: //')"
if [ "${CHURN_ONLY:-0}" != 1 ]; then
  run on
  cached_rps=$LAST_RPS cached_cpu_ns=$LAST_CPU_NS
  run floor
  awk -v cr="$cached_rps" -v fr="$LAST_RPS" -v cc="$cached_cpu_ns" -v fc="$LAST_CPU_NS" 'BEGIN {
    printf "cached ÷ floor: req/s %.2f, CPU per request %.2f (%.1f µs vs %.1f µs)\n", cr / fr, cc / fc, cc / 1000, fc / 1000 }'
  if [ "${FLOOR_ONLY:-0}" != 1 ]; then
    run on 2
    run off
  fi
fi
[ "${FLOOR_ONLY:-0}" = 1 ] || churn
echo "load: $(uptime | sed -E 's/.*load average: //')"
