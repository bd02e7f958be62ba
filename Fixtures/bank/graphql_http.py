"""GraphQL over HTTP: ``POST /graphql`` (JSON body) and ``GET /graphql?query=...``.

Status codes: 200 when the operation executed (even with field errors); 400 for an
unparseable request, a syntax or validation error, an unknown operation or bad variables;
401 without a valid token; 405 for a mutation over GET. Every error answer still carries
an ``errors`` array. Automatic persisted queries (``extensions.persistedQuery``): see apq.py.
"""

import json
from functools import lru_cache
from typing import Optional

from graphql import GraphQLError, OperationType, execute, get_operation_ast, parse, validate
from graphql.execution.values import get_variable_values

import data
from apq import APQError
from cache_hints import HintCollector, apply_override, wanted
from httpio import Request, Response, bearer_token, dumps, json_response
from resolvers import Context
from rest import preferred_language
from schema import SCHEMA
from tenants import Tenant

ANONYMOUS = "<anonymous>"


class RequestError(Exception):
    def __init__(self, status: int, message: str, extra_headers: Optional[list] = None):
        super().__init__(message)
        self.status = status
        self.extra_headers = extra_headers or []


@lru_cache(maxsize=512)
def _document(query: str):
    """Parses and validates once per distinct query text (documents are read-only afterwards)."""
    try:
        document = parse(query)
    except GraphQLError as error:
        return None, [error.formatted]
    errors = validate(SCHEMA, document)
    return document, [e.formatted for e in errors]


def _payload(request: Request) -> dict:
    """``{query, operationName, variables}`` from the query string (GET) or the JSON body."""
    if "payload" in request.cache:
        return request.cache["payload"]
    if request.method in ("GET", "HEAD"):
        payload = {"query": request.arg("query"), "operationName": request.arg("operationName") or None}
        for name in ("variables", "extensions"):
            raw = request.arg(name)
            if raw:
                try:
                    payload[name] = json.loads(raw)
                except json.JSONDecodeError:
                    raise RequestError(400, f"{name} is not valid JSON") from None
    else:
        try:
            payload = json.loads(request.body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise RequestError(400, "request body is not valid JSON") from None
        if not isinstance(payload, dict):
            raise RequestError(400, "request body must be a JSON object")
    persisted = isinstance(payload.get("extensions"), dict) and "persistedQuery" in payload["extensions"]
    if payload.get("query") is None and persisted:
        pass  # the hash names the document (apq.py)
    elif not isinstance(payload.get("query"), str) or not payload["query"].strip():
        raise RequestError(400, "query must be a non-empty string")
    if payload.get("extensions") is not None and not isinstance(payload["extensions"], dict):
        raise RequestError(400, "extensions must be a JSON object")
    if payload.get("operationName") is not None and not isinstance(payload["operationName"], str):
        raise RequestError(400, "operationName must be a string")
    if payload.get("variables") is not None and not isinstance(payload["variables"], dict):
        raise RequestError(400, "variables must be a JSON object")
    request.cache["payload"] = payload
    return payload


def operation_name(request: Request) -> str:
    """The name counters and rules use: ``operationName``, else the document's only operation's name."""
    try:
        payload = _payload(request)
    except RequestError:
        return ANONYMOUS
    if payload.get("operationName"):
        return payload["operationName"]
    if payload.get("query") is None:
        return ANONYMOUS
    document, _ = _document(payload["query"])
    operation = get_operation_ast(document) if document else None
    return operation.name.value if operation is not None and operation.name else ANONYMOUS


def _errors(status: int, messages: list, headers: Optional[list] = None) -> Response:
    errors = [m if isinstance(m, dict) else {"message": m} for m in messages]
    body = {"errors": errors}
    if status == 401:
        body.update({"error": "unauthorized", "code": "unauthorized"})
    return json_response(body, status, headers)


def handle(request: Request, tenant: Tenant) -> Response:
    try:
        payload = _payload(request)
    except RequestError as error:
        return _errors(error.status, [str(error)], error.extra_headers)
    user_id = data.TOKENS.get(bearer_token(request))
    if user_id is None:
        return _errors(401, ["unauthorized"], [("WWW-Authenticate", "Bearer")])
    try:
        query = tenant.persisted_queries.resolve(payload) or payload["query"]
    except APQError as error:
        return json_response({"errors": [error.error]}, error.status)
    document, errors = _document(query)
    if errors:
        return _errors(400, errors)
    operation = get_operation_ast(document, payload.get("operationName"))
    if operation is None:
        return _errors(400, ["unknown operation, or operationName missing for a document with several"])
    if operation.operation != OperationType.QUERY and request.method in ("GET", "HEAD"):
        return _errors(405, ["only queries may be sent with GET"], [("Allow", "POST")])
    variables = get_variable_values(SCHEMA, operation.variable_definitions or [], payload.get("variables") or {})
    if isinstance(variables, list):
        return _errors(400, [e.formatted for e in variables])
    collector = HintCollector() if wanted(operation) else None
    with tenant.state_lock:
        context = Context(tenant.bank, tenant.bank.user(user_id), preferred_language(request),
                          request.header("X-Tenant") or "")
        result = execute(SCHEMA, document, context_value=context, variable_values=payload.get("variables"),
                         operation_name=payload.get("operationName"),
                         middleware=[collector] if collector else None)
        formatted = result.formatted
    headers = [("Content-Type", "application/json; charset=utf-8")]
    if collector is not None:
        collector.apply(formatted, headers)
    apply_override(tenant.cache_hint_override, formatted, headers)
    return Response(200, headers, dumps(formatted))
