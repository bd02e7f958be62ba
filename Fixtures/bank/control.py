"""The control API (``/__control/...``): health, counters, reset, latency and fault injection.

Control routes are public, per tenant, and never counted, delayed or faulted themselves.
"""

from dataclasses import dataclass

from faults import FaultRule, RuleError
from httpio import Request, Response, error_response, json_response, read_json_body
from router import Router
from tenants import Tenant, TenantRegistry


@dataclass
class ControlCall:
    request: Request
    tenant: Tenant
    registry: TenantRegistry


def _spec(call: ControlCall):
    try:
        return read_json_body(call.request)
    except ValueError as error:
        raise RuleError(str(error)) from None


def health(_call: ControlCall) -> Response:
    return json_response({"ok": True})


def counters(call: ControlCall) -> Response:
    return json_response(call.tenant.counters_json())


def reset(call: ControlCall) -> Response:
    only = call.request.arg("counters") == "only"
    call.tenant.reset(counters_only=only)
    return json_response({"ok": True, "reset": "counters" if only else "all"})


def get_latency(call: ControlCall) -> Response:
    return json_response(call.tenant.latency_json())


def set_latency(call: ControlCall) -> Response:
    call.tenant.set_latency(_spec(call))
    return json_response({"ok": True, "latency": call.tenant.latency_json()})


def clear_latency(call: ControlCall) -> Response:
    call.tenant.set_latency({"ms": 0})
    return json_response({"ok": True, "latency": []})


def get_faults(call: ControlCall) -> Response:
    return json_response(call.tenant.faults_json())


def add_fault(call: ControlCall) -> Response:
    call.tenant.add_fault(FaultRule.parse(_spec(call)))
    return json_response({"ok": True, "faults": call.tenant.faults_json()})


def clear_faults(call: ControlCall) -> Response:
    call.tenant.clear_faults()
    return json_response({"ok": True, "faults": []})


def get_apq(call: ControlCall) -> Response:
    return json_response(call.tenant.persisted_queries.to_json())


def set_apq(call: ControlCall) -> Response:
    spec = _spec(call)
    if not isinstance(spec, dict):
        raise RuleError("the APQ settings are a JSON object")
    try:
        call.tenant.persisted_queries.configure(spec)
    except ValueError as error:
        raise RuleError(str(error)) from None
    return json_response({"ok": True, "apq": call.tenant.persisted_queries.to_json()})


def set_cache_hints(call: ControlCall) -> Response:
    spec = _spec(call)
    if not isinstance(spec, dict):
        raise RuleError("the cache hints override is a JSON object")
    with call.tenant.control_lock:
        call.tenant.cache_hint_override = spec
    return json_response({"ok": True})


def clear_cache_hints(call: ControlCall) -> Response:
    with call.tenant.control_lock:
        call.tenant.cache_hint_override = None
    return json_response({"ok": True})


def drop_tenant(call: ControlCall) -> Response:
    dropped = call.registry.drop(call.tenant.name)
    return json_response({"ok": True, "dropped": dropped})


def release(call: ControlCall) -> Response:
    call.tenant.release_held()
    return json_response({"ok": True})


def tenants(call: ControlCall) -> Response:
    return json_response({"tenants": call.registry.names()})


def _router() -> Router:
    router = Router()
    router.add("GET", "/__control/health", health)
    router.add("GET", "/__control/counters", counters)
    router.add("POST", "/__control/reset", reset)
    router.add("GET", "/__control/latency", get_latency)
    router.add("POST", "/__control/latency", set_latency)
    router.add("DELETE", "/__control/latency", clear_latency)
    router.add("POST", "/__control/release", release)
    router.add("GET", "/__control/faults", get_faults)
    router.add("POST", "/__control/faults", add_fault)
    router.add("DELETE", "/__control/faults", clear_faults)
    router.add("GET", "/__control/apq", get_apq)
    router.add("POST", "/__control/apq", set_apq)
    router.add("POST", "/__control/cache-hints", set_cache_hints)
    router.add("DELETE", "/__control/cache-hints", clear_cache_hints)
    router.add("DELETE", "/__control/tenant", drop_tenant)
    router.add("GET", "/__control/tenants", tenants)
    return router


_ROUTER = _router()


def handle(request: Request, tenant: Tenant, registry: TenantRegistry) -> Response:
    """Answers a request whose path (tenant prefix removed) starts with ``/__control/``."""
    match = _ROUTER.match(request.method, request.path)
    if match.route is None:
        if match.allowed:
            return error_response(405, "method_not_allowed", "method not allowed",
                                  [("Allow", ", ".join(match.allowed))])
        return error_response(404, "not_found", "no such control route")
    try:
        return match.route.handler(ControlCall(request, tenant, registry))
    except RuleError as error:
        return error_response(400, "invalid_rule", str(error))
