#!/usr/bin/env bash
# `make example`: the bank fixture and the Hummingbird BFF (Examples/HummingbirdBFF), each on a free port (or the
# BFF on $PORT), until Ctrl-C; then both stop (the BFF gracefully: sessions ended, connections closed).
# BFF_CACHE=off runs the BFF without the cache.
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
