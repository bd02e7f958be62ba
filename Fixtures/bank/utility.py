"""Public test routes that exercise the HTTP client itself: echo, redirects, cookies, bytes, statuses."""

import base64
import re
import time
from email.utils import formatdate
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from urllib.parse import quote

from bank import BankError
from httpio import Request, Response, error_response, etag_matches, json_response
from router import Call, Router

MAX_BYTES = 64 * 1024 * 1024
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_PATTERN = bytes(range(256))


def _status_arg(raw: str) -> int:
    if not raw.isdigit() or not 200 <= int(raw) <= 599:
        raise BankError(400, "invalid_parameter", "status must be a number from 200 to 599")
    return int(raw)


def _headers_json(request: Request) -> dict:
    """Lower-cased names; a single value as a string, repeated headers as a list of strings."""
    result = {}
    for name, value in request.headers.items():
        key = name.lower()
        if key in result:
            previous = result[key]
            result[key] = (previous if isinstance(previous, list) else [previous]) + [value]
        else:
            result[key] = value
    return result


def echo(call: Call) -> Response:
    request = call.request
    body = {"method": request.method, "path": request.path, "tenant": request.tenant,
            "query": request.query, "headers": _headers_json(request), "bodyLength": len(request.body)}
    try:
        body["body"] = request.body.decode("utf-8")
    except UnicodeDecodeError:
        body["body"] = None
        body["bodyBase64"] = base64.b64encode(request.body).decode("ascii")
    headers = []
    for item in request.query.get("set_header", []):
        name, separator, value = item.partition(":")
        if not separator or not _TOKEN.match(name.strip()):
            raise BankError(400, "invalid_parameter", "set_header must look like Name:Value")
        headers.append((name.strip(), value.strip()))
    status = _status_arg(request.arg("status")) if request.arg("status") else 200
    return json_response(body, status, headers)


def redirect(call: Call) -> Response:
    """A chain of ``n`` 302s ending at ``to``; every Location stays inside the caller's tenant."""
    request = call.request
    raw_count, target = request.arg("n", "1"), request.arg("to", "/api/echo")
    if not raw_count.isdigit() or not 1 <= int(raw_count) <= 50:
        raise BankError(400, "invalid_parameter", "n must be a number from 1 to 50")
    if not target.startswith("/") or target.startswith("//"):
        raise BankError(400, "invalid_parameter", "to must be an absolute path such as /api/echo")
    count = int(raw_count)
    if count > 1:
        location = f"{request.prefix}/api/redirect?n={count - 1}&to={quote(target, safe='/')}"
    else:
        location = request.prefix + target
    return json_response({"redirect": location, "remaining": count - 1}, 302, [("Location", location)])


def set_cookie(call: Call) -> Response:
    request = call.request
    name, value = request.arg("name", ""), request.arg("value", "")
    if not _TOKEN.match(name) or any(c in value for c in ';,\r\n "\\'):
        raise BankError(400, "invalid_parameter", "name must be a token and value must not contain ; , or quotes")
    return json_response({"ok": True}, headers=[("Set-Cookie", f"{name}={value}; Path=/")])


def cookies(call: Call) -> Response:
    request = call.request
    received = {}
    for header in request.headers.get_all("Cookie") or []:
        jar = SimpleCookie()
        try:
            jar.load(header)
        except CookieError:
            continue
        received.update({key: morsel.value for key, morsel in jar.items()})
    return json_response({"cookies": received})


def byte_stream(call: Call) -> Response:
    request = call.request
    raw = request.arg("n", "0")
    if not raw.isdigit() or int(raw) > MAX_BYTES:
        raise BankError(400, "invalid_parameter", f"n must be a number from 0 to {MAX_BYTES}")
    count = int(raw)
    body = (_PATTERN * (count // 256 + 1))[:count]
    return Response(200, [("Content-Type", "application/octet-stream")], body)


def status(call: Call) -> Response:
    code = _status_arg(call.params["code"])
    phrase = HTTPStatus(code).phrase if code in HTTPStatus._value2member_map_ else "Status"
    return error_response(code, f"status_{code}", phrase)


def _caching_headers(call: Call, prefix: str) -> list:
    """Cache-Control / Expires / ETag from ``<prefix>max_age``, ``<prefix>expires_in``, ``<prefix>etag``."""
    headers = []
    max_age, expires_in = call.request.arg(prefix + "max_age"), call.request.arg(prefix + "expires_in")
    if max_age is not None:
        headers.append(("Cache-Control", f"private, max-age={_seconds_arg(max_age)}"))
    if expires_in is not None:
        headers.append(("Expires", formatdate(time.time() + _seconds_arg(expires_in), usegmt=True)))
    etag = call.request.arg(prefix + "etag")
    if etag is not None:
        headers.append(("ETag", f'"{etag}"'))
    return headers


def _seconds_arg(raw: str) -> int:
    if not raw.isdigit() or int(raw) > 10_000_000:
        raise BankError(400, "invalid_parameter", "seconds must be a number from 0 to 10000000")
    return int(raw)


def revalidation(call: Call) -> Response:
    """200 with the first caching headers; a revalidation naming either ETag gets a 304 with the ``then_`` ones."""
    etag, then_etag = call.request.arg("etag", ""), call.request.arg("then_etag", "")
    if_none_match = call.request.header("If-None-Match")
    if any(tag and etag_matches(if_none_match, f'"{tag}"') for tag in (etag, then_etag)):
        return Response(304, _caching_headers(call, "then_"), b"")
    return json_response({"etag": etag}, headers=_caching_headers(call, ""))


def tenant_notice(call: Call) -> Response:
    """A public answer per tenant header: ``{"tenant": X-Tenant, "key": X-Api-Key}`` (empty when absent), with
    ``Cache-Control: public, max-age=60`` and ``Vary: X-Tenant``; ``?vary=<names>`` sends that ``Vary`` instead
    (empty: none)."""
    body = {"tenant": call.request.header("X-Tenant") or "", "key": call.request.header("X-Api-Key") or ""}
    headers = [("Cache-Control", "public, max-age=60")]
    vary = call.request.arg("vary", "X-Tenant")
    if vary:
        headers.append(("Vary", vary))
    return json_response(body, headers=headers)


def add_utility_routes(router: Router) -> None:
    router.add("ANY", "/api/echo", echo, auth=False)
    router.add("GET", "/api/redirect", redirect, auth=False)
    router.add("GET", "/api/cookies/set", set_cookie, auth=False)
    router.add("GET", "/api/cookies", cookies, auth=False)
    router.add("GET", "/api/bytes", byte_stream, auth=False)
    router.add("GET", "/api/status/{code}", status, auth=False)
    router.add("GET", "/api/revalidation", revalidation, auth=False)
    router.add("GET", "/api/tenant-notice", tenant_notice, auth=False)
