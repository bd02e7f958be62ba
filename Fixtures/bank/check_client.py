"""HTTP helpers of the self-check (``test_server.py``): a keep-alive client and raw sockets."""

import http.client
import json
import socket

ALICE, BOB, BENCH = "token-alice", "token-bob", "token-bench"


class Client:
    """Keep-alive HTTP client bound to one tenant (``/t/<tenant>`` prefix)."""

    def __init__(self, port: int, tenant: str = ""):
        self.port = port
        self.prefix = f"/t/{tenant}" if tenant else ""
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

    def call(self, method, path, token=None, body=None, headers=None, parse=True):
        all_headers = dict(headers or {})
        if token:
            all_headers["Authorization"] = f"Bearer {token}"
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
            all_headers.setdefault("Content-Type", "application/json")
        self.conn.request(method, self.prefix + path, body=body, headers=all_headers)
        response = self.conn.getresponse()
        raw = response.read()
        parsed = None
        if parse and raw and "json" in (response.getheader("Content-Type") or ""):
            parsed = json.loads(raw)
        return response.status, response, parsed, raw

    def close(self):
        self.conn.close()

    def get(self, path, token=None, headers=None):
        return self.call("GET", path, token, headers=headers)

    def gql(self, query, token=ALICE, variables=None, operation=None):
        body = {"query": query, "variables": variables, "operationName": operation}
        return self.call("POST", "/graphql", token, body)

    def control(self, method, path, body=None):
        return self.call(method, "/__control/" + path, body=body)[2]


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


def raw_exchange(port: int, request: bytes) -> tuple:
    """Sends raw bytes, reads until the server closes; returns (bytes, error name or None)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(request)
    chunks, error = [], None
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                break
            chunks.append(data)
    except ConnectionResetError:
        error = "reset"
    finally:
        sock.close()
    return b"".join(chunks), error
