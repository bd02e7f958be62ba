# Sourced by example-smoke.sh (its helpers: check, fetch, json, poll, counters_of, …): the fleet part of the smoke
# test. A real redis-server with a password, two replicas A and B of the example on two ports with the same
# UCACHE_REDIS_URL and UCACHE_REPLICATION_SECRET, one fixture tenant behind both; every check over real HTTP.
# Replication and the second level's writes are asynchronous: what must propagate is polled with a bound
# (PROPAGATION seconds), never waited for with a fixed sleep.

PROPAGATION="${SMOKE_PROPAGATION_SECONDS:-20}"
FLEET_TENANT="fleet$$"
FLEET_UPSTREAM="$FIXTURE_URL/t/$FLEET_TENANT"
start_redis
# A Redis URL without the fleet secret: the replica refuses to start (it would miss the other replicas' logouts).
no_secret=$(UCACHE_FIXTURE_URL="$FLEET_UPSTREAM" PORT=0 UCACHE_REDIS_URL="$REDIS_URL" \
  timeout 60 env -u UCACHE_REPLICATION_SECRET -u UCACHE_L2_SECRET "$BFF_BIN" 2>&1 >/dev/null && echo "started" || true)
check "fleet: a replica with UCACHE_REDIS_URL but no fleet secret refuses to start, naming the variable" \
  grep -q "set UCACHE_REPLICATION_SECRET" <<<"$no_secret"
start_replica A "$FLEET_UPSTREAM"
start_replica B "$FLEET_UPSTREAM"
echo "fixture tenant $FLEET_TENANT, redis 127.0.0.1:$REDIS_PORT (with a password), A $A_URL, B $B_URL"

# SESSION: the frontend's session cookie, carried to whichever replica the load balancer picks (set below).
fleet_counters() { counters_of "$FLEET_UPSTREAM"; }
# data_fetches: REST account lists and GraphQL balance queries the fixture answered (the dashboard's two reads; the
# token verification's GET /api/profile, once per token and replica, is not one of them).
data_fetches() { fleet_counters | json "d['routes'].get('GET /api/accounts', 0) + d['operations'].get('AccountBalances', 0)"; }
# metric URL NAME: the sum of NAME's samples in the replica's /metrics (0 when absent).
metric() { fetch "$1/metrics" | awk -v name="$2" '$1 == name || index($1, name "{") == 1 { sum += $2 } END { print sum + 0 }'; }
health_is() { [[ "$(fetch "$1/health")" == "$2" ]]; }
links_up() { health_is "$1" "ok replication=up second_level=up"; }
links_down() { [[ "$(fetch "$1/health")" =~ ^ok\ replication=(reconnecting|connecting)\ second_level=reconnecting$ ]]; }
dashboard() { fetch "${SESSION[@]}" "$1/dashboard"; }
balance_on() { dashboard "$1" | balance_of 101 2>/dev/null; }
# fetches_grow_on URL BEFORE: a dashboard on URL reaches the upstream (its cache no longer holds the session).
fetches_grow_on() { dashboard "$1" >/dev/null; [ "$(data_fetches)" -gt "$2" ]; }
# settled_on URL: two dashboards on URL in a row leave the upstream untouched (served from its memory).
settled_on() {
  dashboard "$1" >/dev/null
  local before; before=$(data_fetches)
  dashboard "$1" >/dev/null
  [ "$(data_fetches)" = "$before" ]
}

check "fleet: A and B report both Redis links up on /health" poll "$PROPAGATION" eval 'links_up "$A_URL" && links_up "$B_URL"'
check "fleet: /metrics shows the replication and L2 series, links up" \
  test "$(metric "$A_URL" ucache_replication_link_up) $(metric "$A_URL" ucache_l2_up)" = "1 1"

# 1. A fetches the dashboard; B's first read of the same session comes from the shared second level. An L2 read has
# a 5 ms deadline: on a loaded machine one may pass it (counted in ucache_l2_timeouts_total and served from the
# upstream, as designed); only then is the round tried again with a new session, at most 5 times.
l2_timeouts_seen=$(($(metric "$A_URL" ucache_l2_timeouts_total) + $(metric "$B_URL" ucache_l2_timeouts_total)))
on_a="{}" on_b="{}" fetched_by_a=none fetched_by_b=none l2_hits_on_b=0 written=no
for attempt in 1 2 3 4 5; do
  SESSION=(-H "Authorization: Bearer token-alice" -H "X-Session-ID: browser-$attempt")
  before_a=$(data_fetches)
  writes_before=$(metric "$A_URL" ucache_l2_writes_total)
  on_a=$(dashboard "$A_URL")
  fetched_by_a=$(($(data_fetches) - before_a))
  written=no
  l2_timeouts=$(($(metric "$A_URL" ucache_l2_timeouts_total) + $(metric "$B_URL" ucache_l2_timeouts_total)))
  if [ "$l2_timeouts" -gt "$l2_timeouts_seen" ]; then
    l2_timeouts_seen=$l2_timeouts
    echo "note: an L2 read on A passed its 5 ms deadline (attempt $attempt): nothing to write; again with a new session"
    continue
  fi
  poll "$PROPAGATION" eval '[ "$(metric "$A_URL" ucache_l2_writes_total)" -ge $((writes_before + 2)) ]' && written=yes
  before_b=$(data_fetches)
  l2_hits_before=$(metric "$B_URL" ucache_l2_hits_total)
  on_b=$(dashboard "$B_URL")
  fetched_by_b=$(($(data_fetches) - before_b))
  l2_hits_on_b=$(($(metric "$B_URL" ucache_l2_hits_total) - l2_hits_before))
  [ "$fetched_by_b" = 0 ] && break
  # A read that timed out on A leaves nothing to write (no generation read); one on B goes upstream.
  l2_timeouts=$(($(metric "$A_URL" ucache_l2_timeouts_total) + $(metric "$B_URL" ucache_l2_timeouts_total)))
  [ "$l2_timeouts" -gt "$l2_timeouts_seen" ] || break
  l2_timeouts_seen=$l2_timeouts
  echo "note: an L2 read on B passed its 5 ms deadline (attempt $attempt); again with a new session"
done
check "fleet: A's first dashboard fetched REST and GraphQL once each" test "$fetched_by_a" = 2
check "fleet: A sent both answers to the second level" test "$written" = yes
check "fleet: B answers the same dashboard" test "$(canonical <<<"$on_b")" = "$(canonical <<<"$on_a")"
check "fleet: B's first dashboard came from L2: fixture counters unchanged" test "$fetched_by_b" = 0
check "fleet: B counted two L2 hits" test "$l2_hits_on_b" = 2

# 2. A payment on A changes what B answers.
payment=$(fetch "${SESSION[@]}" -H 'Content-Type: application/json' \
  -d '{"fromAccountId":"101","payeeId":"payee-alice-1","amount":10}' "$A_URL/payments")
check "fleet: the payment on A answers the new balance" test "$(json "float(d['balance'])" <<<"$payment")" = 2490.0
check "fleet: B's dashboard shows the payment made on A" poll "$PROPAGATION" eval '[ "$(balance_on "$B_URL")" = 2490.0 ]'
check "fleet: A's dashboard shows it too" test "$(balance_on "$A_URL")" = 2490.0
check "fleet: B applied A's clears" test "$(metric "$B_URL" ucache_replication_applied_total)" -ge 1

# 3. A logout on A ends the session on B: B no longer serves it from memory, it fetches afresh.
check "fleet: B serves the session from memory before the logout" poll "$PROPAGATION" settled_on "$B_URL"
before_logout=$(data_fetches)
ended_on_b=$(metric "$B_URL" 'ucache_sessions_ended_total{reason="logout"}')
check "fleet: logout on A answers 204" test "$(status_of -X POST "${SESSION[@]}" "$A_URL/logout")" = 204
check "fleet: after the logout on A, B refetches the session's dashboard" \
  poll "$PROPAGATION" fetches_grow_on "$B_URL" "$before_logout"
check "fleet: B counted the session ended by logout" \
  test "$(metric "$B_URL" 'ucache_sessions_ended_total{reason="logout"}')" -gt "$ended_on_b"

# 4. Redis killed: both replicas keep answering, from memory and the upstream, without an error.
kill_redis
check "fleet: with Redis killed, /health still answers 200 on both and reports the links reconnecting" \
  poll "$PROPAGATION" eval 'links_down "$A_URL" && links_down "$B_URL"'
outage_errors=0
for round in $(seq 1 10); do
  for url in "$A_URL" "$B_URL"; do
    [ "$(status_of "${SESSION[@]}" "$url/dashboard")" = 200 ] || outage_errors=$((outage_errors + 1))
    # A session neither replica holds: a miss in memory and in the (unreachable) second level, fetched upstream.
    [ "$(status_of -H "Authorization: Bearer token-bob" -H "X-Session-ID: outage-$round" "$url/dashboard")" = 200 ] \
      || outage_errors=$((outage_errors + 1))
  done
done
[ "$(status_of -X POST "${SESSION[@]}" "$A_URL/logout")" = 204 ] || outage_errors=$((outage_errors + 1))
check "fleet: with Redis killed, 41 requests to A and B (dashboards, new sessions, a logout): 0 errors" \
  test "$outage_errors" = 0
check "fleet: with Redis killed, B still shows the right balance" test "$(balance_on "$B_URL")" = 2490.0

# 5. Redis back on the same port: both replicas reconnect by themselves; a logout on A reaches B again.
start_redis
check "fleet: Redis back, A and B report both links up again" \
  poll "$((PROPAGATION * 2))" eval 'links_up "$A_URL" && links_up "$B_URL"'
check "fleet: B counted the gap and dropped what it held (it missed messages)" \
  test "$(metric "$B_URL" ucache_replication_gaps_recovered_total)" -ge 2
check "fleet: B serves the session from memory again" poll "$PROPAGATION" settled_on "$B_URL"
before_logout=$(data_fetches)
check "fleet: logout on A after the outage answers 204" test "$(status_of -X POST "${SESSION[@]}" "$A_URL/logout")" = 204
check "fleet: after Redis came back, a logout on A reaches B (B refetches)" \
  poll "$PROPAGATION" fetches_grow_on "$B_URL" "$before_logout"

if [ "$failed" != 0 ]; then
  for replica in A B; do
    url_variable="${replica}_URL"
    echo "--- replica $replica's Redis series"
    fetch "${!url_variable}/metrics" | grep -E '^ucache_(l2|replication)_' || true
  done
fi
stop_replicas
check "fleet: both replicas stopped gracefully on SIGTERM" \
  eval 'grep -q HUMMINGBIRD_BFF_STOPPED "$SERVER_LOGS/A.out" && grep -q HUMMINGBIRD_BFF_STOPPED "$SERVER_LOGS/B.out"'
stop_redis
