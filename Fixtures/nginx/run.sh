#!/usr/bin/env bash
# Usage: Fixtures/nginx/run.sh PORT
# Starts nginx serving /small.json on 127.0.0.1:PORT from a temporary prefix directory
# (pid, logs, temp files all inside it) and prints the master pid on stdout.
# Stop it with Fixtures/nginx/stop.sh PID (also removes the prefix) or kill PID.
set -euo pipefail

PORT="${1:?usage: run.sh PORT}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NGINX="${NGINX:-/usr/sbin/nginx}"
PREFIX="$(mktemp -d "${TMPDIR:-/tmp}/ucache-nginx.XXXXXX")"

mkdir -p "$PREFIX/logs" "$PREFIX/tmp" "$PREFIX/html"
cp "$HERE/small.json" "$PREFIX/html/small.json"
sed "s/@PORT@/$PORT/" "$HERE/nginx.conf" > "$PREFIX/nginx.conf"
# Workers may run as another user when started as root: let them read the prefix.
chmod -R a+rX "$PREFIX"

if ! "$NGINX" -p "$PREFIX/" -c "$PREFIX/nginx.conf" 2> "$PREFIX/logs/startup.log"; then
    cat "$PREFIX/logs/startup.log" >&2
    rm -rf "$PREFIX"
    exit 1
fi

for _ in $(seq 1 50); do
    [ -s "$PREFIX/nginx.pid" ] && break
    sleep 0.1
done
if [ ! -s "$PREFIX/nginx.pid" ]; then
    echo "nginx did not write its pid file; see $PREFIX/logs" >&2
    exit 1
fi
PID="$(cat "$PREFIX/nginx.pid")"
echo "$PREFIX" > "${TMPDIR:-/tmp}/ucache-nginx-$PID.prefix"
echo "$PID"
