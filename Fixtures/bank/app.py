"""Dispatch of counted requests: REST routes under ``/api/`` and GraphQL at ``/graphql``."""

import data
import graphql_http
from bank import BankError
from httpio import Request, Response, bearer_token, error_response, unauthorized
from rest import add_bank_routes
from router import Call, Router
from tenants import Tenant
from utility import add_utility_routes


def _api_router() -> Router:
    router = Router()
    add_utility_routes(router)
    add_bank_routes(router)
    return router


_API = _api_router()


def dispatch(request: Request, tenant: Tenant) -> Response:
    """The normal answer to a request (faults and latency are applied by the caller)."""
    if request.path == "/graphql":
        if request.method not in ("GET", "HEAD", "POST"):
            return error_response(405, "method_not_allowed", "method not allowed", [("Allow", "GET, POST")])
        return graphql_http.handle(request, tenant)
    match = _API.match(request.method, request.path)
    if match.route is None:
        if match.allowed:
            allow = ", ".join(sorted(set(match.allowed)))
            return error_response(405, "method_not_allowed", "method not allowed", [("Allow", allow)])
        return error_response(404, "not_found", "no such route")
    user_id = None
    if match.route.auth:
        user_id = data.TOKENS.get(bearer_token(request))
        if user_id is None:
            return unauthorized()
    try:
        with tenant.state_lock:
            user = tenant.bank.user(user_id) if user_id else None
            return match.route.handler(Call(request, match.params, tenant.bank, user))
    except BankError as error:
        return error_response(error.status, error.code, error.message)
