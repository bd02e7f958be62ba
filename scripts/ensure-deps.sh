#!/usr/bin/env bash
# Installs what building, testing and the demo need, when it is missing:
# libcurl, hiredis and OpenSSL headers, pkg-config, redis-server (replication tests and bench), python3 with graphql-core;
# with --bench also nginx and wrk (make bench-bff); with --ci docker-compose.
set -euo pipefail
cd "$(dirname "$0")/.."

want_bench=0; want_ci=0
for arg in "$@"; do
  case "$arg" in
    --bench) want_bench=1 ;;
    --ci) want_ci=1 ;;
  esac
done

packages=()
pkg-config --exists libcurl 2>/dev/null || packages+=(libcurl4-openssl-dev)
pkg-config --exists hiredis 2>/dev/null || packages+=(libhiredis-dev)
pkg-config --exists openssl 2>/dev/null || packages+=(libssl-dev)  # libcrypto: every cryptographic primitive
command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ] || packages+=(redis-server)
command -v pkg-config >/dev/null 2>&1 || packages+=(pkg-config)
command -v curl >/dev/null 2>&1 || packages+=(curl)  # the example's smoke test talks HTTP with it
command -v python3 >/dev/null 2>&1 || packages+=(python3 python3-pip)
if [ "$want_bench" = 1 ] && ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then packages+=(nginx-light); fi
if [ "$want_bench" = 1 ] && ! command -v wrk >/dev/null 2>&1; then packages+=(wrk); fi
if [ "$want_ci" = 1 ] && ! command -v docker-compose >/dev/null 2>&1; then packages+=(docker-compose); fi

if [ ${#packages[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: missing ${packages[*]} and this system has no apt-get." >&2
    echo "Install libcurl and hiredis development headers, pkg-config, redis-server and python3 with your package" >&2
    echo "manager, then retry." >&2
    exit 1
  fi
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "error: need root or sudo to install ${packages[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "Installing ${packages[*]} ..."
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${packages[@]}" >/dev/null
fi

if ! python3 -c "import graphql, sys; sys.exit(0 if graphql.__version__ == '3.2.8' else 1)" 2>/dev/null; then
  echo "Installing Python packages from Fixtures/requirements.txt ..."
  python3 -m pip install -q -r Fixtures/requirements.txt 2>/dev/null \
    || python3 -m pip install -q --break-system-packages -r Fixtures/requirements.txt
fi
