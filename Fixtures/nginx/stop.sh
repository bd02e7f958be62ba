#!/usr/bin/env bash
# Usage: Fixtures/nginx/stop.sh PID
# Stops the nginx started by run.sh (the pid it printed) and removes its temporary prefix.
set -euo pipefail

PID="${1:?usage: stop.sh PID}"
STATE="${TMPDIR:-/tmp}/ucache-nginx-$PID.prefix"

if kill -0 "$PID" 2> /dev/null; then
    kill -TERM "$PID"
    for _ in $(seq 1 50); do
        kill -0 "$PID" 2> /dev/null || break
        sleep 0.1
    done
fi
if [ -f "$STATE" ]; then
    PREFIX="$(cat "$STATE")"
    case "$PREFIX" in
        */ucache-nginx.*) rm -rf "$PREFIX" ;;
    esac
    rm -f "$STATE"
fi
