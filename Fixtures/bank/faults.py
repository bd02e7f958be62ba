"""Fault and latency rules: parsing the control API's JSON and matching requests against it.

A rule selects requests by ``route`` (a glob over ``"METHOD /path"``, or over the path
alone when the glob has no space) and/or ``operation`` (a GraphQL operation name, exact).
A rule with neither matches every counted request of the tenant.
"""

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Optional

FAULT_TYPES = ("status", "delay", "drop", "drop-reused", "truncate", "malformed", "oversize", "oversize-chunked", "drip", "reset")
_MAX_BYTES = 256 * 1024 * 1024
_MAX_MS = 120_000


class RuleError(ValueError):
    """A control request whose rule JSON is invalid (answered with 400)."""


def _int_field(spec: dict, name: str, default: Optional[int], low: int, high: int) -> int:
    value = spec.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RuleError(f"{name} must be an integer from {low} to {high}")
    return value


@dataclass(frozen=True)
class Selector:
    route: Optional[str] = None
    operation: Optional[str] = None

    @staticmethod
    def parse(spec: dict) -> "Selector":
        route, operation = spec.get("route"), spec.get("operation")
        for name, value in (("route", route), ("operation", operation)):
            if value is not None and (not isinstance(value, str) or not value):
                raise RuleError(f"{name} must be a non-empty string")
        return Selector(route, operation)

    def matches(self, method: str, path: str, operation: Optional[str]) -> bool:
        if self.operation is not None and self.operation != operation:
            return False
        if self.route is None:
            return True
        subject = f"{method} {path}" if " " in self.route else path
        return fnmatchcase(subject, self.route)

    def to_json(self) -> dict:
        return {"route": self.route, "operation": self.operation}


@dataclass(frozen=True)
class Fault:
    """What to do instead of (or before) the normal answer; fields unused by a type keep defaults."""

    type: str
    status: int = 503
    body: object = None
    ms: int = 0
    bytes: int = 0
    interval_ms: int = 100
    chunk: int = 1

    @staticmethod
    def parse(spec) -> "Fault":
        if not isinstance(spec, dict) or spec.get("type") not in FAULT_TYPES:
            raise RuleError("fault.type must be one of: " + ", ".join(FAULT_TYPES))
        kind = spec["type"]
        if kind == "status":
            return Fault(kind, status=_int_field(spec, "status", 503, 200, 599), body=spec.get("body"))
        if kind == "delay":
            return Fault(kind, ms=_int_field(spec, "ms", None, 0, _MAX_MS))
        if kind in ("oversize", "oversize-chunked"):
            return Fault(kind, bytes=_int_field(spec, "bytes", None, 0, _MAX_BYTES))
        if kind == "drip":
            return Fault(kind, bytes=_int_field(spec, "bytes", None, 0, _MAX_BYTES),
                         interval_ms=_int_field(spec, "interval_ms", 100, 0, _MAX_MS),
                         chunk=_int_field(spec, "chunk", 1, 1, _MAX_BYTES))
        return Fault(kind)

    def to_json(self) -> dict:
        fields = {"status": ("status", "body"), "delay": ("ms",), "oversize": ("bytes",),
                  "oversize-chunked": ("bytes",), "drip": ("bytes", "interval_ms", "chunk")}
        return {"type": self.type, **{name: getattr(self, name) for name in fields.get(self.type, ())}}


@dataclass
class FaultRule:
    selector: Selector
    fault: Fault
    remaining: int

    @staticmethod
    def parse(spec) -> "FaultRule":
        if not isinstance(spec, dict):
            raise RuleError("a JSON object is expected")
        fault = Fault.parse(spec.get("fault"))
        return FaultRule(Selector.parse(spec), fault, _int_field(spec, "count", 1, 1, 1_000_000))

    def to_json(self) -> dict:
        return {**self.selector.to_json(), "count": self.remaining, "fault": self.fault.to_json()}


@dataclass
class LatencyRules:
    """Latency per selector; setting a selector again replaces it, ``ms: 0`` removes it.

    A rule with ``"answerFirst": true`` computes the answer when the request arrives and waits before sending it:
    the answer reflects the state as it was then (an answer "that left before" a later change), as a slow
    network would deliver it.

    A rule with ``"held": true`` waits until the tenant's held answers are released (``POST /__control/release``,
    which also removes the held rules), ``ms`` at most: a test acts while the request is surely in flight, however
    slowly the test itself runs, then lets the answer go.
    """

    rules: dict = field(default_factory=dict)

    def apply(self, spec) -> None:
        if not isinstance(spec, dict):
            raise RuleError("a JSON object is expected")
        ms = _int_field(spec, "ms", None, 0, _MAX_MS)
        answer_first = spec.get("answerFirst", False)
        if not isinstance(answer_first, bool):
            raise RuleError("answerFirst must be a boolean")
        held = spec.get("held", False)
        if not isinstance(held, bool):
            raise RuleError("held must be a boolean")
        selector = Selector.parse(spec)
        if ms == 0 and selector == Selector():
            self.rules.clear()
        elif ms == 0:
            self.rules.pop(selector, None)
        else:
            self.rules[selector] = (ms, answer_first, held)

    def remove_held(self) -> None:
        self.rules = {selector: rule for selector, rule in self.rules.items() if not rule[2]}

    def delay_for(self, method: str, path: str, operation: Optional[str]) -> tuple:
        """The largest delay among the matching rules, in milliseconds, whether its answer comes first, and whether
        it is held until released."""
        return max((rule for s, rule in self.rules.items() if s.matches(method, path, operation)),
                   default=(0, False, False))

    def to_json(self) -> list:
        return [{**s.to_json(), "ms": ms, "answerFirst": first, "held": held}
                for s, (ms, first, held) in self.rules.items()]
