#!/usr/bin/env bash
# Smoke test of Examples/HummingbirdBFF over real HTTP, in two parts.
# One replica (no Redis): starts the bank fixture and the BFF on free ports, then checks the dashboard is served from
# the cache the second time (the fixture's counters do not move), that a balances refresh and a payment reach the
# next dashboard (the session's composed dashboard goes with them), that logout ends the session, that a missing or
# unknown token is refused, that two users never see each other's accounts, the Prometheus text, and that a
# dashboard request puts the cache's spans on its trace, its series in the app's swift-metrics registry and its events
# in the app's log, and RFC 9211's Cache-Status on a hit; then, with swift-otel's tracer, that the upstream requests of a traced dashboard carry a W3C traceparent of its trace.
# A fleet (scripts/lib/smoke-fleet.sh): a real redis-server with a password and two replicas A and B on two ports,
# joined through UCACHE_REDIS_URL and the fleet secret; checks the shared second level, that a payment and a logout on
# A reach B, that both keep answering while Redis is killed, and that a logout on A reaches B again once it is back.
# Prints "N passed, N failed" and the failed checks last; exits non-zero on any failure; stops every process it
# started (trap EXIT), whatever happens.
# Usage: scripts/example-smoke.sh   (builds the example first unless BFF_BIN names a built binary)
#        SMOKE_PARTS=single|fleet scripts/example-smoke.sh   (one part only; default both)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
EXAMPLE="$ROOT/Examples/HummingbirdBFF"
if [ -z "${BFF_BIN:-}" ]; then
  swift build --package-path "$EXAMPLE" ${SWIFT_FLAGS:--Xswiftc -warnings-as-errors}
  BFF_BIN="$EXAMPLE/.build/debug/HummingbirdBFF"
fi
PARTS="${SMOKE_PARTS:-single fleet}"
# shellcheck source=lib/bff-servers.sh
source "$ROOT/scripts/lib/bff-servers.sh"

passed=0; failed=0; failures=()
check() { # check NAME CONDITION-COMMAND...
  local name=$1; shift
  if "$@"; then
    passed=$((passed + 1)); echo "ok    $name"
  else
    failed=$((failed + 1)); failures+=("$name"); echo "FAIL  $name"
  fi
}
# On exit: the failed checks again, the servers' logs when something failed, then every process stopped.
finish() {
  if [ "$failed" != 0 ] || [ "${1:-0}" != 0 ]; then
    for log in "$SERVER_LOGS"/*.err "$SERVER_LOGS"/redis.log; do
      [ -s "$log" ] && { echo "--- last lines of $(basename "$log")"; tail -n 20 "$log"; }
    done
  fi
  stop_servers
}
trap 'finish $?' EXIT
trap 'exit 130' INT TERM  # a signal ends the script through the EXIT trap too
json() { python3 -c "import json,re,sys; d=json.load(sys.stdin); print($1)"; }
fetch() { curl -fsS --max-time 20 "$@" || echo "{}"; }  # a failed call fails the checks that read it, not the script
counters_of() { fetch "$1/__control/counters"; }
route_count() { json "d['routes'].get('$1', 0)"; }
operation_count() { json "d['operations'].get('$1', 0)"; }
balance_of() { json "[float(a['balance']) for a in d['accounts'] if a['id'] == '$1'][0]"; }
canonical() { json "json.dumps(d, sort_keys=True)"; }
header_of() { local name=$1; shift; curl -s --max-time 20 -o /dev/null -D - "$@" | tr -d '\r' \
  | awk -v name="$name" 'BEGIN { FS = ": " } tolower($1) == tolower(name) { print $2 }'; }
status_of() { curl -s --max-time 20 -o /dev/null -w '%{http_code}' "$@"; }
# poll SECONDS COMMAND...: COMMAND until it succeeds, every 0.2 s; fails after SECONDS (what propagates
# asynchronously, replication and reconnection, is polled with a bound instead of waited for with a fixed sleep).
poll() {
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

single_replica() {
  local TENANT="smoke$$"
  local UPSTREAM="$FIXTURE_URL/t/$TENANT"
  # Spans kept in memory (served at /debug/spans) and debug logs: the checks of the cache's spans, metrics and logs.
  # The composed dashboard is kept longer than the test runs: only clears, payments and logout may drop it here.
  BFF_TRACING=memory LOG_LEVEL=debug BFF_DASHBOARD_MEMO_SECONDS=3600 start_bff "$UPSTREAM" "${BFF_CACHE:-on}"  # BFF_CACHE=off: cache checks fail
  echo "fixture $FIXTURE_URL (tenant $TENANT), BFF $BFF_URL"

  ALICE=(-H "Authorization: Bearer token-alice")
  counters() { counters_of "$UPSTREAM"; }

  check "health answers" test "$(fetch "$BFF_URL/health")" = ok

  first=$(fetch "${ALICE[@]}" "$BFF_URL/dashboard")
  after_first=$(counters)
  check "first dashboard: alice's accounts with names and balances" \
    test "$(json "sorted((a['id'], a['name'], float(a['balance'])) for a in d['accounts'])" <<<"$first")" \
    = "[('101', 'Everyday Account', 2500.0), ('102', 'Goal Saver', 10000.0)]"
  check "first dashboard fetched REST /api/accounts once" test "$(route_count 'GET /api/accounts' <<<"$after_first")" = 1
  check "first dashboard fetched GraphQL AccountBalances once" \
    test "$(operation_count AccountBalances <<<"$after_first")" = 1

  spans=$(fetch "$BFF_URL/debug/spans")
  check "traces: the dashboard's server span has the cache's REST and GraphQL fetch spans as children" \
    test "$(json "'yes' if any(a['name'] == '/dashboard' and {'GET /api/accounts', 'query AccountBalances'} <= {b['name'] for b in d if b['parent'] == a['span'] and b['trace'] == a['trace']} for a in d) else 'no'" <<<"$spans")" = yes
  dashboard_metrics=$(fetch "$BFF_URL/metrics")
  check "metrics: the registry has the cache's misses and OpenTelemetry's http.client.request.duration (swift-metrics)" eval \
    'grep -q "^ucache_misses_total{" <<<"$dashboard_metrics" && grep -qE "^http_client_request_duration(_seconds)?_count\{" <<<"$dashboard_metrics"'
  check "logs: the dashboard's upstream calls are in the BFF's log (debug)" \
    grep -q "cache upstream call" "$SERVER_LOGS/bff.out" "$SERVER_LOGS/bff.err"

  second=$(fetch "${ALICE[@]}" "$BFF_URL/dashboard")
  after_second=$(counters)
  check "second dashboard: the same answer" test "$(canonical <<<"$second")" = "$(canonical <<<"$first")"
  check "second dashboard came from the cache: upstream counters unchanged" \
    test "$(json "d['requests']" <<<"$after_second")" = "$(json "d['requests']" <<<"$after_first")"
  check "a dashboard served from memory says so in RFC 9211's Cache-Status: ucache-l1; hit" \
    test "$(header_of Cache-Status "${ALICE[@]}" "$BFF_URL/dashboard")" = "ucache-l1; hit"
  check "a repeated dashboard is the session's composed dashboard: the value door counted its hits" \
    grep -q '^ucache_hits_total{part="values",scope="all"} [1-9]' <<<"$(fetch "$BFF_URL/metrics")"
  # The balances domain names the composed dashboard's tag: its clear drops the dashboard, which is composed again
  # from the account list (another domain, still cached) and the balances (fetched again).
  check "refreshing the balances answers 204" \
    test "$(status_of -X POST "${ALICE[@]}" "$BFF_URL/refresh/balances")" = 204
  refreshed_status=$(header_of Cache-Status "${ALICE[@]}" "$BFF_URL/dashboard")
  after_refresh=$(counters)
  check "dashboard after a balances refresh fetched GraphQL AccountBalances again" \
    test "$(operation_count AccountBalances <<<"$after_refresh")" = 2
  check "dashboard after a balances refresh read the account list from the cache" \
    test "$(route_count 'GET /api/accounts' <<<"$after_refresh")" = 1
  check "dashboard after a balances refresh says so in Cache-Status: ucache-l1; fwd=uri-miss" \
    test "$refreshed_status" = "ucache-l1; fwd=uri-miss"

  payment=$(fetch "${ALICE[@]}" -H 'Content-Type: application/json' \
    -d '{"fromAccountId":"101","payeeId":"payee-alice-1","amount":10}' "$BFF_URL/payments")
  check "payment answers the new balance" test "$(json "float(d['balance'])" <<<"$payment")" = 2490.0
  third=$(fetch "${ALICE[@]}" "$BFF_URL/dashboard")
  after_third=$(counters)
  check "dashboard after the payment shows the new balance" test "$(balance_of 101 <<<"$third")" = 2490.0
  # The mutation's answer names Account:101: the hub drops the REST entries that depend on it (refetched here), and
  # writes the new balance fields into the normalized store (read from there).
  check "dashboard after the payment refetched the invalidated REST account list" \
    test "$(route_count 'GET /api/accounts' <<<"$after_third")" = 2

  check "a payment the upstream refuses answers 422" test "$(status_of "${ALICE[@]}" -H 'Content-Type: application/json' \
    -d '{"fromAccountId":"101","payeeId":"payee-alice-1","amount":-5}' "$BFF_URL/payments")" = 422

  check "logout answers 204" test "$(status_of -X POST "${ALICE[@]}" "$BFF_URL/logout")" = 204
  check "logs: the session's end is in the BFF's log" \
    grep -q "cache session ended" "$SERVER_LOGS/bff.out" "$SERVER_LOGS/bff.err"
  check "logs: no cache log line carries the user's token" \
    test "$(cat "$SERVER_LOGS/bff.out" "$SERVER_LOGS/bff.err" | grep "cache " | grep -c "token-alice")" = 0
  fourth=$(fetch "${ALICE[@]}" "$BFF_URL/dashboard")
  after_fourth=$(counters)
  check "dashboard after logout: the same data" test "$(balance_of 101 <<<"$fourth")" = 2490.0
  check "dashboard after logout refetched REST" test "$(route_count 'GET /api/accounts' <<<"$after_fourth")" = 3
  check "dashboard after logout refetched GraphQL" \
    test "$(operation_count AccountBalances <<<"$after_fourth")" \
    -gt "$(operation_count AccountBalances <<<"$after_third")"

  bob=$(fetch -H "Authorization: Bearer token-bob" -H "X-Session-ID: shared-browser" "$BFF_URL/dashboard")
  check "bob sees his accounts only" test "$(json "sorted(a['id'] for a in d['accounts'])" <<<"$bob")" = "['201', '202']"
  alice_same_id=$(fetch "${ALICE[@]}" -H "X-Session-ID: shared-browser" "$BFF_URL/dashboard")
  check "alice with bob's session id sees her accounts only" \
    test "$(json "sorted(a['id'] for a in d['accounts'])" <<<"$alice_same_id")" = "['101', '102']"

  check "no token answers 401" test "$(status_of "$BFF_URL/dashboard")" = 401
  check "an unknown token answers 401" test "$(status_of -H "Authorization: Bearer token-mallory" "$BFF_URL/dashboard")" = 401

  metrics=$(fetch "$BFF_URL/metrics")
  check "metrics text has ucache_sessions" grep -q '^ucache_sessions' <<<"$metrics"
  check "metrics: the cache's hits are counted in the registry" grep -q '^ucache_hits_total{part="rest",scope="all"} [1-9]' <<<"$metrics"

  stop_bff
  check "the BFF stopped gracefully on SIGTERM" grep -q "HUMMINGBIRD_BFF_STOPPED" "$SERVER_LOGS/bff.out"
  traced
  resilient_domains
}

# Resilience options on the dashboard's domains (a settings file): the value door would apply them to the composed
# dashboard, whose fail-safe answer Cache-Status could not tell from a kept one, so every dashboard is composed from
# its reads instead (the reads are cache hits all the same).
resilient_domains() {
  local upstream="$FIXTURE_URL/t/resilient$$" settings="$SERVER_LOGS/resilient-settings.json" first second metrics
  printf '{"domainMap": "banking", "domains": {"balances": {"failSafeMaxDuration": 60}}}\n' >"$settings"
  UCACHE_SETTINGS="$settings" BFF_DASHBOARD_MEMO_SECONDS=3600 start_bff "$upstream"
  first=$(fetch -H "Authorization: Bearer token-alice" "$BFF_URL/dashboard")
  second=$(fetch -H "Authorization: Bearer token-alice" "$BFF_URL/dashboard")
  metrics=$(fetch "$BFF_URL/metrics")
  check "resilient domains: the second dashboard is the same answer" \
    test "$(canonical <<<"$second")" = "$(canonical <<<"$first")"
  check "resilient domains: the second dashboard read the cache, not the upstream" \
    test "$(json "d['requests']" <<<"$(counters_of "$upstream")")" = 3
  check "resilient domains: no composed dashboard is kept, every dashboard reads REST and GraphQL" eval \
    'grep -q "^ucache_hits_total{part=\"rest\",scope=\"all\"} 1$" <<<"$metrics" &&
      ! grep -q "^ucache_hits_total{part=\"values\",scope=\"all\"} [1-9]" <<<"$metrics"'
  stop_bff
}

# swift-otel's tracer (BFF_TRACING=otel, the default): a request that arrives with a W3C traceparent continues its
# trace, and the upstream requests made while serving it carry a traceparent of that trace whose parent is a span of
# the BFF (read from the fixture's record of the traceparents it received).
traced() {
  local upstream="$FIXTURE_URL/t/traced$$" trace_id=4bf92f3577b34da6a3ce929d0e0e4736 caller_span=00f067aa0ba902b7
  BFF_TRACING=otel start_bff "$upstream"
  local answer received
  answer=$(fetch -H "Authorization: Bearer token-alice" -H "traceparent: 00-$trace_id-$caller_span-01" \
    "$BFF_URL/dashboard")
  received=$(counters_of "$upstream")
  check "otel: the traced dashboard answers alice's accounts" \
    test "$(json "sorted(a['id'] for a in d['accounts'])" <<<"$answer")" = "['101', '102']"
  check "otel: every upstream request of the traced dashboard carried a well-formed traceparent of the caller's trace" \
    test "$(json "'yes' if {t['route'] for t in d['traceparents']} >= {'GET /api/accounts', 'POST /graphql'} and all(re.fullmatch('00-$trace_id-[0-9a-f]{16}-01', t['traceparent']) for t in d['traceparents']) else d['traceparents']" <<<"$received")" = yes
  check "otel: the upstream's parent span is the BFF's, not the caller's" \
    test "$(json "'yes' if d['traceparents'] and all(t['traceparent'].split('-')[2] not in ('$caller_span', '0' * 16) for t in d['traceparents']) else 'no'" <<<"$received")" = yes
  fetch -H "Authorization: Bearer token-bob" "$BFF_URL/dashboard" >/dev/null
  check "otel: a dashboard without a caller's trace starts one the upstream sees" \
    test "$(json "'yes' if [t for t in d['traceparents'] if re.fullmatch('00-(?!$trace_id)[0-9a-f]{32}-[0-9a-f]{16}-01', t['traceparent'])] else 'no'" <<<"$(counters_of "$upstream")")" = yes
  stop_bff
}

start_fixture
for part in $PARTS; do
  case "$part" in
    single) echo "== one replica"; single_replica ;;
    fleet) echo "== a fleet: two replicas and Redis"
      # shellcheck source=lib/smoke-fleet.sh
      source "$ROOT/scripts/lib/smoke-fleet.sh" ;;
    *) echo "error: SMOKE_PARTS names $part (single or fleet)" >&2; exit 2 ;;
  esac
done

echo "$passed passed, $failed failed"
for name in "${failures[@]}"; do echo "failed: $name"; done
[ "$failed" = 0 ]
