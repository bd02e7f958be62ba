# Sourced by example-smoke.sh, bench-bff.sh and run-example.sh: starts the bank fixture, the Hummingbird BFF (one
# replica, or replicas of a fleet sharing a redis-server with a password), each on a free port, and stops what it
# started. The fixture and the BFF bind port 0 and print a READY line with their URL.
# Needs: ROOT (the repository), BFF_BIN (the built example).
# Sets FIXTURE_URL; BFF_URL and BFF_PID (start_bff); REDIS_URL, REDIS_PORT (start_redis); <NAME>_URL and <NAME>_PID
# (start_replica NAME); FLEET_SECRET (the fleet secret of every replica of this shell).

SERVER_LOGS="$(mktemp -d)"
FIXTURE_PID=""
BFF_PID=""
REDIS_PID=""
REDIS_PORT=""
REDIS_PASSWORD=""
REPLICA_PIDS=()
# The fleet secret, in the form both the replication and the second level read: `hex:` and 32 random bytes.
FLEET_SECRET="hex:$(python3 -c 'import secrets; print(secrets.token_hex(32))')"

# wait_for_ready FILE PREFIX PID: prints the url= of the READY line in FILE, or fails after 60 s / if PID died.
wait_for_ready() {
  local file=$1 prefix=$2 pid=$3
  for _ in $(seq 1 600); do
    local line
    line=$(grep -m1 "^$prefix" "$file" 2>/dev/null || true)
    if [ -n "$line" ]; then
      sed -E 's/.* url=([^ ]+).*/\1/' <<<"$line"
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || { echo "error: $prefix: the process exited; its log:" >&2; cat "$file" >&2; return 1; }
    sleep 0.1
  done
  echo "error: no $prefix line within 60 s" >&2
  return 1
}

# wait_for_health URL: /health answers within 10 s.
wait_for_health() {
  for _ in $(seq 1 100); do
    curl -fsS --max-time 2 "$1/health" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "error: $1/health never answered" >&2
  return 1
}

# is_running PID: the process exists and is not a zombie waiting to be reaped.
is_running() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

# stop_process PID [GRACE]: SIGTERM, up to GRACE seconds (default 30) to stop, then SIGKILL; reaps it.
stop_process() {
  local pid=$1 grace=${2:-30}
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 $((grace * 10))); do
    is_running "$pid" || break
    sleep 0.1
  done
  if is_running "$pid"; then
    echo "warning: process $pid ignored SIGTERM for $grace s; killed" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

start_fixture() {
  python3 "$ROOT/Fixtures/bank/server.py" --port 0 >"$SERVER_LOGS/fixture.out" 2>"$SERVER_LOGS/fixture.err" &
  FIXTURE_PID=$!
  FIXTURE_URL=$(wait_for_ready "$SERVER_LOGS/fixture.out" UCACHE_FIXTURE_READY "$FIXTURE_PID")
}

# start_bff UPSTREAM [CACHE]: a single replica (no Redis) against UPSTREAM (a tenant URL of the fixture).
start_bff() {
  local upstream=$1 cache=${2:-on}
  stop_bff
  env -u UCACHE_REDIS_URL UCACHE_FIXTURE_URL="$upstream" PORT="${PORT:-0}" BFF_CACHE="$cache" \
    LOG_LEVEL="${LOG_LEVEL:-warning}" "$BFF_BIN" >"$SERVER_LOGS/bff.out" 2>"$SERVER_LOGS/bff.err" &
  BFF_PID=$!
  BFF_URL=$(wait_for_ready "$SERVER_LOGS/bff.out" HUMMINGBIRD_BFF_READY "$BFF_PID")
  wait_for_health "$BFF_URL"
}

# stop_bff: SIGTERM, then wait for the graceful stop (the hub ends its sessions).
stop_bff() {
  if [ -n "$BFF_PID" ]; then
    stop_process "$BFF_PID"
    BFF_PID=""
  fi
}

# free_port: a TCP port nothing listens on now (redis-server cannot bind port 0 and report it).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# redis_cli ARGS...: redis-cli against the fleet's Redis (the password from the environment, not the command line).
redis_cli() {
  REDISCLI_AUTH="$REDIS_PASSWORD" redis-cli -h 127.0.0.1 -p "$REDIS_PORT" "$@"
}

# start_redis: redis-server on 127.0.0.1 with a password (requirepass), nothing persisted. The first call picks a
# free port and a random password; later calls (after kill_redis) start it again on the same port and password,
# as a restarted Redis would come back. Sets REDIS_URL (redis://:password@127.0.0.1:port).
start_redis() {
  [ -n "$REDIS_PORT" ] || REDIS_PORT=$(free_port)
  [ -n "$REDIS_PASSWORD" ] || REDIS_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
  local config="$SERVER_LOGS/redis.conf"
  (umask 077 && printf 'port %s\nbind 127.0.0.1\nrequirepass %s\nsave ""\nappendonly no\ndir %s\n' \
    "$REDIS_PORT" "$REDIS_PASSWORD" "$SERVER_LOGS" >"$config")
  redis-server "$config" >>"$SERVER_LOGS/redis.log" 2>&1 &
  REDIS_PID=$!
  REDIS_URL="redis://:$REDIS_PASSWORD@127.0.0.1:$REDIS_PORT"
  for _ in $(seq 1 100); do
    [ "$(redis_cli ping 2>/dev/null)" = PONG ] && return 0
    is_running "$REDIS_PID" || break
    sleep 0.1
  done
  echo "error: redis-server did not answer on port $REDIS_PORT; its log:" >&2
  cat "$SERVER_LOGS/redis.log" >&2
  return 1
}

# kill_redis: SIGKILL, as a crashed or OOM-killed Redis goes (no goodbye to its clients).
kill_redis() {
  if [ -n "$REDIS_PID" ]; then
    kill -KILL "$REDIS_PID" 2>/dev/null || true
    wait "$REDIS_PID" 2>/dev/null || true
    REDIS_PID=""
  fi
}

stop_redis() {
  if [ -n "$REDIS_PID" ]; then
    stop_process "$REDIS_PID" 10
    REDIS_PID=""
  fi
}

# start_replica NAME UPSTREAM: one replica of the fleet against UPSTREAM, joined through REDIS_URL and FLEET_SECRET
# (UCACHE_REDIS_URL, UCACHE_REPLICATION_SECRET). Sets <NAME>_URL and <NAME>_PID; its logs are $SERVER_LOGS/NAME.*.
start_replica() {
  local name=$1 upstream=$2 pid url
  UCACHE_FIXTURE_URL="$upstream" PORT=0 BFF_CACHE=on LOG_LEVEL="${LOG_LEVEL:-warning}" \
    UCACHE_REDIS_URL="$REDIS_URL" UCACHE_REPLICATION_SECRET="$FLEET_SECRET" \
    "$BFF_BIN" >"$SERVER_LOGS/$name.out" 2>"$SERVER_LOGS/$name.err" &
  pid=$!
  REPLICA_PIDS+=("$pid")
  printf -v "${name}_PID" %s "$pid"
  url=$(wait_for_ready "$SERVER_LOGS/$name.out" HUMMINGBIRD_BFF_READY "$pid")
  printf -v "${name}_URL" %s "$url"
  wait_for_health "$url"
}

# stop_replicas: every replica started, gracefully (their hubs end their sessions and close Redis).
stop_replicas() {
  local pid
  for pid in "${REPLICA_PIDS[@]}"; do stop_process "$pid"; done
  REPLICA_PIDS=()
}

stop_servers() {
  stop_bff
  stop_replicas
  stop_redis
  if [ -n "$FIXTURE_PID" ]; then
    stop_process "$FIXTURE_PID" 10
    FIXTURE_PID=""
  fi
  rm -rf "$SERVER_LOGS"
}
