"""The HTTP/1.1 request handler: framing, tenant prefix, counting, latency, faults, writing.

One handler instance serves one TCP connection (keep-alive) on its own daemon thread, so
a delayed or dripping answer only ever holds its own connection.
"""

import re
import sys
import time
import traceback
from email.utils import formatdate
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import Optional
from urllib.parse import urlsplit

import app
import control
import fault_wire
import graphql_http
from httpio import Request, Response, bearer_token, error_response
from tenants import DEFAULT_TENANT, TENANT_NAME

MAX_BODY = 16 * 1024 * 1024
_PREFIX = re.compile(r"^/t/([^/]*)(/.*)?$")
_NO_BODY_STATUSES = (204, 304)


class BodyError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class BankRequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "UCacheFixture/1.0"
    disable_nagle_algorithm = True
    timeout = 600  # idle keep-alive connections are closed after ten minutes

    def setup(self) -> None:
        super().setup()
        self.connection_id = self.server.next_connection_id()
        self.requests_on_connection = 0  # a request after the first one arrived on a reused keep-alive connection

    def handle_one_request(self) -> None:
        """BaseHTTPRequestHandler's loop step, dispatching every method token to ``process``."""
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if len(self.raw_requestline) > 65536:
                self.requestline, self.command = "", None
                self.send(error_response(414, "uri_too_long", "request line too long"), close=True)
                return
            if not self.raw_requestline:
                self.close_connection = True
                return
            if not self.parse_request():
                return
            self.process()
        except (TimeoutError, BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # idle timeout or the client went away: just close
        except Exception:  # a fixture bug: answer 500 and close rather than hang the client
            traceback.print_exc(file=sys.stderr)
            try:
                self.send(error_response(500, "internal", "internal error"), close=True)
            except OSError:
                self.close_connection = True

    # Request side ------------------------------------------------------------------------

    def read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return self._read_chunked()
        raw = self.headers.get("Content-Length")
        if raw is None:
            return b""
        if not raw.strip().isdigit():
            raise BodyError(400, "invalid Content-Length")
        length = int(raw)
        if length > MAX_BODY:
            raise BodyError(413, "request body too large")
        return self.rfile.read(length)

    def _read_chunked(self) -> bytes:
        parts, total = [], 0
        while True:
            line = self.rfile.readline(1024)
            try:
                size = int(line.split(b";")[0].strip(), 16)
            except ValueError:
                raise BodyError(400, "invalid chunked body") from None
            total += size
            if total > MAX_BODY:
                raise BodyError(413, "request body too large")
            if size == 0:
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass  # trailers are read and ignored
                return b"".join(parts)
            parts.append(self.rfile.read(size))
            self.rfile.readline(1024)

    def process(self) -> None:
        self.requests_on_connection += 1
        try:
            body = self.read_body()
        except BodyError as error:
            self.send(error_response(error.status, "invalid_body", str(error)), close=True)
            return
        target = urlsplit(self.path)
        tenant_name, path = DEFAULT_TENANT, target.path
        prefix = ""
        found = _PREFIX.match(target.path)
        if found:
            tenant_name, path, prefix = found.group(1), found.group(2) or "/", f"/t/{found.group(1)}"
            if not TENANT_NAME.match(tenant_name):
                self.send(error_response(400, "invalid_tenant", "tenant must match [A-Za-z0-9_-]{1,64}"))
                return
        request = Request(self.command, path, target.query, self.headers, body, tenant_name, prefix,
                          self.connection_id)
        tenant = self.server.tenants.get(tenant_name)
        if path.startswith("/__control/"):
            self.send(control.handle(request, tenant, self.server.tenants))
            return
        self.serve_counted(request, tenant)

    def serve_counted(self, request: Request, tenant) -> None:
        """Counts the request, waits out latency, applies a pending fault or answers normally.

        An answer computed on arrival (``answerFirst``) is computed before the request is counted: a test that saw
        the request counted knows the answer reflects the state before its next step."""
        operation = graphql_http.operation_name(request) if request.path == "/graphql" else None
        delay, answer_first, held = tenant.delay_ms(request.method, request.path, operation)
        fault = tenant.take_fault(request.method, request.path, operation, reused=self.requests_on_connection > 1)
        if fault is not None and fault.type == "delay":
            delay, fault = delay + fault.ms, None
        early = self.answer(request, tenant) if answer_first and fault is None else None
        tenant.record_request(request.method, request.path, operation, request.connection_id,
                              bearer_token(request), request.header("traceparent"))
        if delay and held:
            tenant.wait_until_released(delay)
        elif delay:
            time.sleep(delay / 1000)
        if fault is None:
            response = early if early is not None else self.answer(request, tenant)
            tenant.record_status(response.status)  # before sending: a client that has the answer sees it counted
            self.send(response)
        else:
            fault_wire.perform(self, fault, lambda: self.answer(request, tenant), tenant.record_status)

    def answer(self, request: Request, tenant) -> Response:
        try:
            return app.dispatch(request, tenant)
        except Exception:  # a fixture bug must answer 500, not kill the connection silently
            traceback.print_exc(file=sys.stderr)
            return error_response(500, "internal", "internal error")

    # Response side -----------------------------------------------------------------------

    def encode_head(self, status: int, headers: list, content_length: Optional[int]) -> bytes:
        """Status line and headers; ``content_length`` None omits the header (chunked, 204, 304)."""
        phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "Status"
        lines = [f"HTTP/1.1 {status} {phrase}", f"Server: {self.server_version}",
                 f"Date: {formatdate(usegmt=True)}"]
        lines += [f"{name}: {value}" for name, value in headers]
        if content_length is not None:
            lines.append(f"Content-Length: {content_length}")
        if self.close_connection:
            lines.append("Connection: close")
        self.log_request(status)
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def send_head(self, status: int, headers: list, content_length: Optional[int]) -> None:
        self.write_raw(self.encode_head(status, headers, content_length))

    def send(self, response: Response, close: bool = False) -> None:
        """Writes a whole response in one send (head and body together, so no Nagle stall)."""
        if close:
            self.close_connection = True
        no_body = response.status in _NO_BODY_STATUSES
        head = self.encode_head(response.status, response.headers, None if no_body else len(response.body))
        self.write_raw(head if no_body or self.command == "HEAD" else head + response.body)

    def write_raw(self, data: bytes) -> None:
        self.wfile.write(data)

    def log_message(self, format: str, *args) -> None:
        if self.server.verbose:
            sys.stderr.write(f"{self.address_string()} [{self.log_date_time_string()}] {format % args}\n")
