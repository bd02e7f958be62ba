#!/bin/sh
# Makes a throwaway CA, a Redis server certificate for the given names and a client certificate, for the docker
# compose `tls` profile (tests make their own: Sources/FixtureSupport/TestCertificates.swift).
# Usage: scripts/redis-tls-certs.sh DIRECTORY [DNS-NAME ...]
set -e
directory=$1
shift
names="DNS:localhost,IP:127.0.0.1"
for name in "$@"; do names="$names,DNS:$name"; done
mkdir -p "$directory"
cd "$directory"
[ -f server.pem ] && exit 0
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out "$1"; }
key ca.key; key server.key; key client.key
openssl req -x509 -new -key ca.key -out ca.pem -days 365 -subj "/CN=UnifiedCache compose CA"
openssl req -new -key server.key -out server.csr -subj "/CN=redis"
printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$names" > server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 365 -extfile server.ext
openssl req -new -key client.key -out client.csr -subj "/CN=ucache replica"
printf 'extendedKeyUsage=clientAuth\n' > client.ext
openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem -days 365 -extfile client.ext
chmod 644 ./*.key  # read by redis-server and the tests, which run as other users in their containers
