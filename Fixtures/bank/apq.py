"""Automatic persisted queries (APQ), as Apollo Server implements them.

A request may carry ``extensions.persistedQuery = {"version": 1, "sha256Hash": <hex>}``:
- without ``query``: the document registered under that hash runs; an unknown hash answers
  ``PersistedQueryNotFound`` (status 200, ``extensions.code = PERSISTED_QUERY_NOT_FOUND``);
- with ``query``: the hash must be the SHA-256 of the query text (else 400); the document is
  registered under it and runs.
A tenant switched to ``unsupported`` (``POST /__control/apq {"mode": "unsupported"}``) answers every
request with a ``persistedQuery`` extension ``PersistedQueryNotSupported``, as a server without APQ.
``GET /__control/apq`` reports the mode, how many hashes are known and what each kind of request did.
"""

import hashlib
import threading
from collections import Counter
from typing import Optional

MODES = ("on", "unsupported")


class APQError(Exception):
    """An APQ answer instead of an execution: ``status`` and the GraphQL error to send."""

    def __init__(self, status: int, message: str, code: Optional[str] = None):
        super().__init__(message)
        self.status = status
        self.error = {"message": message}
        if code:
            self.error["extensions"] = {"code": code}


class PersistedQueries:
    def __init__(self):
        self._lock = threading.Lock()
        self.mode = "on"
        self._documents = {}
        self._counts = Counter()

    def configure(self, spec: dict) -> None:
        mode = spec.get("mode", self.mode)
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        with self._lock:
            self.mode = mode
            if spec.get("forget"):
                self._documents.clear()

    def to_json(self) -> dict:
        with self._lock:
            return {"mode": self.mode, "hashes": len(self._documents), "counts": dict(self._counts)}

    def resolve(self, payload: dict) -> Optional[str]:
        """The query text to run for ``payload``; None when it carries no persistedQuery (plain request).

        Raises APQError for a hash the server does not know, a hash that does not match the query, or any
        persistedQuery while APQ is unsupported."""
        extension = (payload.get("extensions") or {}).get("persistedQuery") if isinstance(
            payload.get("extensions"), dict) else None
        if extension is None:
            if isinstance(payload.get("query"), str):
                with self._lock:
                    self._counts["plain"] += 1
            return None
        with self._lock:
            if self.mode == "unsupported":
                self._counts["notSupported"] += 1
                raise APQError(200, "PersistedQueryNotSupported", "PERSISTED_QUERY_NOT_SUPPORTED")
            if not isinstance(extension, dict) or extension.get("version") != 1 or not isinstance(
                    extension.get("sha256Hash"), str):
                self._counts["invalid"] += 1
                raise APQError(400, "persistedQuery needs version 1 and a sha256Hash string")
            digest = extension["sha256Hash"].lower()
            query = payload.get("query")
            if query is None:
                known = self._documents.get(digest)
                if known is None:
                    self._counts["notFound"] += 1
                    raise APQError(200, "PersistedQueryNotFound", "PERSISTED_QUERY_NOT_FOUND")
                self._counts["hashOnly"] += 1
                return known
            if not isinstance(query, str) or hashlib.sha256(query.encode("utf-8")).hexdigest() != digest:
                self._counts["mismatch"] += 1
                raise APQError(400, "provided sha does not match query")
            self._documents[digest] = query
            self._counts["registered"] += 1
            return query
