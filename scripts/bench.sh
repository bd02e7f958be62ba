#!/usr/bin/env bash
# make bench [SUITE=transport|...|all]: release build, nginx from Fixtures/nginx for the transport
# suite, then ucache-bench. Extra arguments go to ucache-bench (e.g. --json).
set -euo pipefail
cd "$(dirname "$0")/.."
suite="${1:-all}"
shift || true

swift build -c release --product ucache-bench >/dev/null
bench="$(swift build -c release --show-bin-path)/ucache-bench"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
nginx_pid=$(Fixtures/nginx/run.sh "$port")
trap 'Fixtures/nginx/stop.sh "$nginx_pid" >/dev/null 2>&1 || kill "$nginx_pid" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  python3 -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$port/small.json')" 2>/dev/null && break
  sleep 0.1
done
export UCACHE_BENCH_URL="http://127.0.0.1:$port/small.json"
export UCACHE_BENCH_COOKIE_URL="http://127.0.0.1:$port/cookie.json"
"$bench" "$suite" "$@"
