"""Cache hints on GraphQL answers, as Apollo Server's ``@cacheControl`` directive produces them.

Some fields carry a hint (the schema's docstrings say which): the answer then has
``extensions.cacheControl = {"version": 1, "hints": [{"path": [...], "maxAge": N, "scope": "PRIVATE"}]}``
(scope omitted when PUBLIC), one hint per resolved hinted field, paths with list indices. When every
root field selected has a hint, the answer also carries ``Cache-Control: max-age=<smallest>, public``
(``private`` if any hint is PRIVATE). An operation selecting a no-store field answers
``Cache-Control: no-store``. Operations selecting none of these fields are answered exactly as before.

``POST /__control/cache-hints {"cacheControl": <any JSON>, "header": "...", "vary": "..."}`` makes every
GraphQL answer of the tenant carry exactly that (raw, unchecked: tests send malformed hints this way);
``DELETE`` ends it.
"""

from typing import Optional

# (parent type, field) → (maxAge, scope)
HINTS = {
    ("Query", "exchangeRates"): (300, "PUBLIC"),
    ("ExchangeRate", "rate"): (60, "PUBLIC"),
    ("Query", "creditScore"): (120, "PRIVATE"),
    ("Query", "tenantNotice"): (60, "PUBLIC"),
    ("CreditScore", "score"): (30, "PRIVATE"),
}
NO_STORE = {("Query", "oneTimeCode")}
# Fields whose answer depends on a request header: the answer carries ``Vary`` with it.
VARY = {("Query", "tenantNotice"): "X-Tenant"}
_ROOT_FIELDS = {field for (parent, field) in list(HINTS) + list(NO_STORE) if parent == "Query"}


def wanted(operation) -> bool:
    """Whether the operation selects a hinted root field (only those answers pay for the middleware)."""
    selections = operation.selection_set.selections if operation is not None else []
    return any(getattr(getattr(s, "name", None), "value", None) in _ROOT_FIELDS for s in selections)


class HintCollector:
    """graphql-core middleware: notes the hint of every hinted field as it resolves."""

    def __init__(self):
        self.hints = []
        self.no_store = False
        self.root_fields = 0
        self.hinted_root_fields = 0
        self.vary = []

    def resolve(self, next_resolver, root, info, **arguments):
        key = (info.parent_type.name, info.field_name)
        if info.parent_type.name == "Query" and info.field_name != "__typename":
            self.root_fields += 1
        if key in NO_STORE:
            self.no_store = True
        if key in VARY and VARY[key] not in self.vary:
            self.vary.append(VARY[key])
        hint = HINTS.get(key)
        if hint is not None:
            max_age, scope = hint
            entry = {"path": list(info.path.as_list()), "maxAge": max_age}
            if scope == "PRIVATE":
                entry["scope"] = "PRIVATE"
            self.hints.append(entry)
            if info.parent_type.name == "Query":
                self.hinted_root_fields += 1
        return next_resolver(root, info, **arguments)

    def apply(self, body: dict, headers: list) -> None:
        if self.vary:
            headers.append(("Vary", ", ".join(self.vary)))
        if self.no_store:
            headers.append(("Cache-Control", "no-store"))
        if not self.hints:
            return
        body.setdefault("extensions", {})["cacheControl"] = {"version": 1, "hints": self.hints}
        if not self.no_store and self.root_fields and self.hinted_root_fields == self.root_fields:
            smallest = min(hint["maxAge"] for hint in self.hints)
            scope = "private" if any(h.get("scope") == "PRIVATE" for h in self.hints) else "public"
            headers.append(("Cache-Control", f"max-age={smallest}, {scope}"))


def apply_override(override: Optional[dict], body: dict, headers: list) -> None:
    """Replaces the hints and headers with a tenant's configured ones."""
    if override is None:
        return
    headers[:] = [(k, v) for (k, v) in headers if k.lower() not in ("cache-control", "vary")]
    if "cacheControl" in override:
        body.setdefault("extensions", {})["cacheControl"] = override["cacheControl"]
    if isinstance(override.get("header"), str):
        headers.append(("Cache-Control", override["header"]))
    if isinstance(override.get("vary"), str):
        headers.append(("Vary", override["vary"]))
