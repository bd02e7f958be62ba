"""Plain request/response values and the helpers every route uses to build answers."""

import hashlib
import json
from dataclasses import dataclass, field
from typing import Optional
from urllib.parse import parse_qs


@dataclass
class Request:
    """One parsed HTTP request, with the tenant prefix already stripped from ``path``."""

    method: str
    path: str
    query_string: str
    headers: object  # http.client.HTTPMessage: case-insensitive, multi-valued
    body: bytes
    tenant: str
    prefix: str  # "/t/<tenant>" or "" — what links back into the same tenant must start with
    connection_id: int
    cache: dict = field(default_factory=dict)

    @property
    def query(self) -> dict:
        """Query parameters as a dict of lists (blank values kept)."""
        if "query" not in self.cache:
            self.cache["query"] = parse_qs(self.query_string, keep_blank_values=True)
        return self.cache["query"]

    def arg(self, name: str, default: Optional[str] = None) -> Optional[str]:
        values = self.query.get(name)
        return values[0] if values else default

    def header(self, name: str, default: Optional[str] = None) -> Optional[str]:
        return self.headers.get(name, default)

    @property
    def route_key(self) -> str:
        """``METHOD /path``: the key of counters, latency and fault rules."""
        return f"{self.method} {self.path}"


@dataclass
class Response:
    """A complete answer; ``body`` is always fully built (faults stream their own bytes)."""

    status: int = 200
    headers: list = field(default_factory=list)
    body: bytes = b""

    def header(self, name: str) -> Optional[str]:
        lowered = name.lower()
        for key, value in self.headers:
            if key.lower() == lowered:
                return value
        return None


def bearer_token(request: Request) -> Optional[str]:
    """The token of ``Authorization: Bearer <token>`` (scheme case-insensitive), else None."""
    scheme, _, token = (request.header("Authorization") or "").strip().partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def dumps(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def json_response(value, status: int = 200, headers: Optional[list] = None) -> Response:
    all_headers = [("Content-Type", "application/json; charset=utf-8")] + list(headers or [])
    return Response(status, all_headers, dumps(value))


def error_response(status: int, code: str, message: str, headers: Optional[list] = None) -> Response:
    return json_response({"error": message, "code": code}, status, headers)


def unauthorized() -> Response:
    return error_response(401, "unauthorized", "unauthorized", [("WWW-Authenticate", "Bearer")])


def etag_of(body: bytes) -> str:
    return '"' + hashlib.sha1(body).hexdigest()[:16] + '"'


def etag_matches(if_none_match: Optional[str], etag: str) -> bool:
    """Weak comparison of If-None-Match against the current ETag (RFC 9110 13.1.2)."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    wanted = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == wanted for tag in if_none_match.split(","))


def cacheable_json(request: Request, value, cache_control: str, extra: Optional[list] = None) -> Response:
    """A JSON answer with Cache-Control and ETag that turns into 304 when If-None-Match matches."""
    response = json_response(value, headers=[("Cache-Control", cache_control)] + list(extra or []))
    etag = etag_of(response.body)
    response.headers.append(("ETag", etag))
    if etag_matches(request.header("If-None-Match"), etag):
        return not_modified(response)
    return response


def not_modified(response: Response) -> Response:
    """The 304 for a response: same validators and caching headers, no body."""
    keep = {"cache-control", "etag", "last-modified", "vary", "content-language"}
    return Response(304, [(k, v) for k, v in response.headers if k.lower() in keep], b"")


def read_json_body(request: Request):
    """The decoded JSON body; raises ValueError with a readable message when it is not JSON."""
    if not request.body:
        raise ValueError("request body is empty; JSON expected")
    try:
        return json.loads(request.body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"request body is not valid JSON: {error}") from None
