"""Tenants: isolated copies of the bank with their own counters, faults and latency.

Tests running in parallel each pick a tenant (``/t/<name>/...``) so they never see each
other's payments, counters or injected faults. Two locks per tenant: ``state_lock`` guards
the bank (held while a route or a GraphQL operation runs) and ``control_lock`` guards
counters and rules, so counting never waits for a slow GraphQL execution.
"""

import re
import threading
from collections import Counter, defaultdict, deque
from typing import Optional

from apq import PersistedQueries
from bank import Bank
from faults import FaultRule, LatencyRules

TENANT_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
DEFAULT_TENANT = "default"


class Counters:
    """Request counters of one tenant; control routes are never recorded."""

    def __init__(self):
        self.requests = 0
        self.routes = Counter()
        self.operations = Counter()
        self.statuses = Counter()
        self.connections = set()
        # Which credentials each route ("GET /api/accounts") and operation ("op:Name") was called with: the
        # bearer token, or "none". Lets tests prove a refreshed token reached the upstream.
        self.callers = defaultdict(Counter)
        # The W3C `traceparent` of the last requests that carried one, with their route: lets a test see that a
        # client's trace context reached the upstream.
        self.traceparents = deque(maxlen=64)

    def to_json(self) -> dict:
        return {"requests": self.requests, "routes": dict(self.routes), "operations": dict(self.operations),
                "statuses": {str(k): v for k, v in self.statuses.items()}, "connections": len(self.connections),
                "callers": {key: dict(tokens) for key, tokens in self.callers.items()},
                "traceparents": list(self.traceparents)}


class Tenant:
    def __init__(self, name: str):
        self.name = name
        self.state_lock = threading.RLock()
        self.control_lock = threading.Lock()
        self.bank = Bank()
        self.counters = Counters()
        self.faults = []
        self.latency = LatencyRules()
        self.released = threading.Event()
        self.persisted_queries = PersistedQueries()
        # Cache hints every GraphQL answer carries instead of its own (cache_hints.py); None: its own.
        self.cache_hint_override = None

    def record_request(self, method: str, path: str, operation: Optional[str], connection_id: int,
                       token: Optional[str] = None, traceparent: Optional[str] = None) -> None:
        with self.control_lock:
            if traceparent is not None:
                self.counters.traceparents.append({"route": f"{method} {path}", "traceparent": traceparent})
            self.counters.requests += 1
            self.counters.routes[f"{method} {path}"] += 1
            self.counters.callers[f"{method} {path}"][token or "none"] += 1
            if operation is not None:
                self.counters.operations[operation] += 1
                self.counters.callers[f"op:{operation}"][token or "none"] += 1
            self.counters.connections.add(connection_id)

    def record_status(self, status: int) -> None:
        with self.control_lock:
            self.counters.statuses[status] += 1

    def counters_json(self) -> dict:
        with self.control_lock:
            return self.counters.to_json()

    def add_fault(self, rule: FaultRule) -> None:
        with self.control_lock:
            self.faults.append(rule)

    def clear_faults(self) -> None:
        with self.control_lock:
            self.faults.clear()

    def faults_json(self) -> list:
        with self.control_lock:
            return [rule.to_json() for rule in self.faults]

    def take_fault(self, method: str, path: str, operation: Optional[str], reused: bool = False):
        """Consumes one use of the oldest matching fault rule and returns its fault (or None).

        A ``drop-reused`` rule only matches a request that arrived on a reused connection (not the first
        request of its connection); a first request is answered normally and leaves the rule in place.
        """
        with self.control_lock:
            for rule in self.faults:
                if rule.fault.type == "drop-reused" and not reused:
                    continue
                if rule.selector.matches(method, path, operation):
                    rule.remaining -= 1
                    if rule.remaining <= 0:
                        self.faults.remove(rule)
                    return rule.fault
        return None

    def set_latency(self, spec) -> None:
        with self.control_lock:
            self.latency.apply(spec)

    def latency_json(self) -> list:
        with self.control_lock:
            return self.latency.to_json()

    def delay_ms(self, method: str, path: str, operation: Optional[str]) -> tuple:
        """The delay in milliseconds for a request, whether it is answered before waiting, and whether it is held
        until released."""
        with self.control_lock:
            return self.latency.delay_for(method, path, operation)

    def wait_until_released(self, ms: int) -> None:
        """Waits for the next ``release_held()``, ``ms`` at most."""
        with self.control_lock:
            released = self.released
        released.wait(ms / 1000)

    def release_held(self) -> None:
        """Lets every held answer go and removes the held rules: later requests are answered at once."""
        with self.control_lock:
            self.latency.remove_held()
            released, self.released = self.released, threading.Event()
        released.set()

    def reset(self, counters_only: bool = False) -> None:
        """Back to the seed data with no counters, faults or latency (or only zero the counters)."""
        if not counters_only:
            with self.state_lock:
                self.bank = Bank()
        with self.control_lock:
            self.counters = Counters()
            if not counters_only:
                self.faults.clear()
                self.latency = LatencyRules()
                self.persisted_queries = PersistedQueries()
                self.cache_hint_override = None
        if not counters_only:
            self.release_held()


class TenantRegistry:
    """The only process-wide mutable state: tenants by name, created on first use."""

    def __init__(self):
        self._lock = threading.Lock()
        self._tenants = {}

    def get(self, name: str) -> Tenant:
        with self._lock:
            tenant = self._tenants.get(name)
            if tenant is None:
                tenant = self._tenants[name] = Tenant(name)
            return tenant

    def drop(self, name: str) -> bool:
        with self._lock:
            return self._tenants.pop(name, None) is not None

    def names(self) -> list:
        with self._lock:
            return sorted(self._tenants)
