#!/usr/bin/env python3
"""Entry point of the bank fixture server.

    python3 Fixtures/bank/server.py --port 0 [--host 127.0.0.1] [--exit-on-stdin-eof] [--verbose]

Prints exactly one line, ``UCACHE_FIXTURE_READY url=http://HOST:PORT port=PORT``, once the
socket listens, then serves until SIGTERM or SIGINT (exit code 0), or until stdin closes
when ``--exit-on-stdin-eof`` is given (so a crashed parent never leaves an orphan).
"""

import argparse
import os
import signal
import socket
import sys
import threading
from http.server import ThreadingHTTPServer

from handler import BankRequestHandler
from tenants import TenantRegistry


class FixtureServer(ThreadingHTTPServer):
    """Threading server: one daemon thread per connection, shared tenant registry."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def __init__(self, address, verbose: bool):
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, BankRequestHandler)
        self.verbose = verbose
        self.tenants = TenantRegistry()
        self._connection_lock = threading.Lock()
        self._last_connection_id = 0

    def next_connection_id(self) -> int:
        """A process-wide id per accepted socket; tenants count the distinct ids they saw."""
        with self._connection_lock:
            self._last_connection_id += 1
            return self._last_connection_id

    def url(self) -> str:
        host, port = self.server_address[:2]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}"


def _watch_stdin(stop: threading.Event) -> None:
    """Reads the raw descriptor (not sys.stdin, whose lock would block interpreter exit)."""
    try:
        while os.read(0, 4096):
            pass
    except (OSError, ValueError):
        pass
    stop.set()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="UnifiedCache bank fixture server (REST + GraphQL).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--exit-on-stdin-eof", action="store_true", help="stop when standard input closes")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    args = parser.parse_args(argv)

    server = FixtureServer((args.host, args.port), args.verbose)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    if args.exit_on_stdin_eof:
        threading.Thread(target=_watch_stdin, args=(stop,), daemon=True, name="stdin-watch").start()
    serving = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True,
                               name="serve")
    serving.start()
    print(f"UCACHE_FIXTURE_READY url={server.url()} port={server.server_address[1]}", flush=True)
    while not stop.wait(0.2):
        pass
    server.shutdown()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
