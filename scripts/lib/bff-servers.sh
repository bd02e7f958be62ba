# Sourced by example-smoke.sh and bench-bff.sh: starts the bank fixture and the Hummingbird BFF on free ports
# (both bind port 0 and print a READY line with their URL), and stops what it started.
# Needs: ROOT (the repository), BFF_BIN (the built example). Sets FIXTURE_URL, BFF_URL.

SERVER_LOGS="$(mktemp -d)"
FIXTURE_PID=""
BFF_PID=""

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

start_fixture() {
  python3 "$ROOT/Fixtures/bank/server.py" --port 0 >"$SERVER_LOGS/fixture.out" 2>"$SERVER_LOGS/fixture.err" &
  FIXTURE_PID=$!
  FIXTURE_URL=$(wait_for_ready "$SERVER_LOGS/fixture.out" UCACHE_FIXTURE_READY "$FIXTURE_PID")
}

# start_bff UPSTREAM [CACHE]: the example against UPSTREAM (a tenant URL of the fixture), cache on or off.
start_bff() {
  local upstream=$1 cache=${2:-on}
  stop_bff
  UCACHE_FIXTURE_URL="$upstream" PORT="${PORT:-0}" BFF_CACHE="$cache" LOG_LEVEL="${LOG_LEVEL:-warning}" \
    "$BFF_BIN" >"$SERVER_LOGS/bff.out" 2>"$SERVER_LOGS/bff.err" &
  BFF_PID=$!
  BFF_URL=$(wait_for_ready "$SERVER_LOGS/bff.out" HUMMINGBIRD_BFF_READY "$BFF_PID")
  for _ in $(seq 1 100); do
    curl -fsS "$BFF_URL/health" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "error: $BFF_URL/health never answered" >&2
  return 1
}

# stop_bff: SIGTERM, then wait for the graceful stop (the hub ends its sessions).
stop_bff() {
  if [ -n "$BFF_PID" ]; then
    kill -TERM "$BFF_PID" 2>/dev/null || true
    wait "$BFF_PID" 2>/dev/null || true
    BFF_PID=""
  fi
}

stop_servers() {
  stop_bff
  if [ -n "$FIXTURE_PID" ]; then
    kill -TERM "$FIXTURE_PID" 2>/dev/null || true
    wait "$FIXTURE_PID" 2>/dev/null || true
    FIXTURE_PID=""
  fi
  rm -rf "$SERVER_LOGS"
}
