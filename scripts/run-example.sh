#!/usr/bin/env bash
# `make example`: the bank fixture and the Hummingbird BFF (Examples/HummingbirdBFF), each on a free port (or the
# BFF on $PORT), until Ctrl-C; then both stop (the BFF gracefully: sessions ended, connections closed).
# BFF_CACHE=off runs the BFF without the cache.
# `make example FLEET=1`: a fleet instead, as it runs in production: a redis-server with a password on a free port
# and two replicas A and B of the BFF on two free ports, joined through UCACHE_REDIS_URL and a fresh fleet secret
# (UCACHE_REPLICATION_SECRET); the curl commands printed log in on A, read on B, and log out on A.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
EXAMPLE="$ROOT/Examples/HummingbirdBFF"
swift build --package-path "$EXAMPLE" ${SWIFT_FLAGS:--Xswiftc -warnings-as-errors}
BFF_BIN="$EXAMPLE/.build/debug/HummingbirdBFF"
# shellcheck source=lib/bff-servers.sh
source "$ROOT/scripts/lib/bff-servers.sh"
trap stop_servers EXIT
trap 'exit 0' INT TERM

start_fixture
if [ "${FLEET:-0}" = 0 ]; then
  LOG_LEVEL="${LOG_LEVEL:-info}" start_bff "$FIXTURE_URL" "${BFF_CACHE:-on}"
  cat <<TEXT
bank fixture: $FIXTURE_URL
BFF:          $BFF_URL (cache ${BFF_CACHE:-on})

  curl -H 'Authorization: Bearer token-alice' $BFF_URL/dashboard
  curl -H 'Authorization: Bearer token-alice' -H 'Content-Type: application/json' \\
       -d '{"fromAccountId":"101","payeeId":"payee-alice-1","amount":10}' $BFF_URL/payments
  curl -X POST -H 'Authorization: Bearer token-alice' $BFF_URL/logout
  curl $BFF_URL/metrics
  curl $FIXTURE_URL/__control/counters        # what reached the upstream

Ctrl-C stops both.
TEXT
  tail -f "$SERVER_LOGS/bff.err" &
  TAIL_PID=$!
  trap 'kill "$TAIL_PID" 2>/dev/null || true; stop_servers' EXIT
  wait "$BFF_PID"
else
  start_redis
  LOG_LEVEL="${LOG_LEVEL:-info}" start_replica A "$FIXTURE_URL"
  LOG_LEVEL="${LOG_LEVEL:-info}" start_replica B "$FIXTURE_URL"
  cat <<TEXT
bank fixture: $FIXTURE_URL
Redis:        127.0.0.1:$REDIS_PORT (requirepass; the URL with its password is in the replicas' UCACHE_REDIS_URL)
replica A:    $A_URL
replica B:    $B_URL

  curl -H 'Authorization: Bearer token-alice' $A_URL/dashboard     # A fetches from the bank
  curl -H 'Authorization: Bearer token-alice' $B_URL/dashboard     # B reads it from Redis (L2)
  curl -H 'Authorization: Bearer token-alice' -H 'Content-Type: application/json' \\
       -d '{"fromAccountId":"101","payeeId":"payee-alice-1","amount":10}' $A_URL/payments
  curl -H 'Authorization: Bearer token-alice' $B_URL/dashboard     # B shows the new balance
  curl -X POST -H 'Authorization: Bearer token-alice' $A_URL/logout   # ends the session on B too
  curl $B_URL/health                                             # ok replication=up second_level=up
  curl -s $B_URL/metrics | grep -E '^ucache_(replication|l2)_'
  curl $FIXTURE_URL/__control/counters        # what reached the upstream

Ctrl-C stops them all.
TEXT
  tail -f "$SERVER_LOGS/A.err" "$SERVER_LOGS/B.err" &
  TAIL_PID=$!
  trap 'kill "$TAIL_PID" 2>/dev/null || true; stop_servers' EXIT
  wait "$A_PID" "$B_PID"
fi
