"""A tiny path router: ``/api/accounts/{id}/balance`` style patterns, matched in order."""

import re
from dataclasses import dataclass
from typing import Callable, Optional
from urllib.parse import unquote


@dataclass
class Call:
    """What a route handler receives; ``bank`` and ``user`` are the tenant's state (user None if public)."""

    request: object
    params: dict
    bank: object = None
    user: object = None


@dataclass(frozen=True)
class Route:
    method: str
    pattern: re.Pattern
    handler: Callable
    auth: bool  # needs a valid bearer token; the handler then receives the user's state


@dataclass(frozen=True)
class Match:
    route: Optional[Route]
    params: dict
    allowed: tuple  # methods the path supports, for 405 answers when ``route`` is None


class Router:
    def __init__(self):
        self._routes = []

    def add(self, method: str, template: str, handler: Callable, auth: bool = True) -> None:
        regex = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template)
        self._routes.append(Route(method, re.compile(f"^{regex}$"), handler, auth))

    def match(self, method: str, path: str) -> Match:
        """The route for (method, path); HEAD falls back to GET; ``ANY`` routes take every method."""
        allowed = []
        for route in self._routes:
            found = route.pattern.match(path)
            if not found:
                continue
            if route.method in (method, "ANY") or (method == "HEAD" and route.method == "GET"):
                params = {k: unquote(v) for k, v in found.groupdict().items()}
                return Match(route, params, ())
            allowed.append(route.method)
        return Match(None, {}, tuple(allowed))
