"""Putting injected faults on the wire: broken, slow, oversized or missing answers.

Each function gets the request handler (for its socket) and, where the fault wraps the
normal answer, a function that produces it. ``perform`` reports the status it is about to
send to ``record`` before writing (nothing for drop and reset, which send no status line).
"""

import socket
import struct
import time
from typing import Callable

from faults import Fault
from httpio import Response, dumps

_CHUNK = 64 * 1024
_MALFORMED = b'{"data": {"accounts": [{"id": "101", "balance": 25'


def _payload(total: int):
    """``total`` bytes of a JSON string (``"xxx…"``), produced in pieces of at most 64 KiB."""
    sent = 0
    while sent < total:
        size = min(_CHUNK, total - sent)
        piece = bytearray(b"x" * size)
        if total >= 2 and sent == 0:
            piece[0:1] = b'"'
        if total >= 2 and sent + size == total:
            piece[-1:] = b'"'
        sent += size
        yield bytes(piece)


def _oversize(handler, fault: Fault) -> None:
    handler.send_head(200, [("Content-Type", "application/json")], fault.bytes)
    for piece in _payload(fault.bytes):
        handler.write_raw(piece)


def _oversize_chunked(handler, fault: Fault) -> None:
    handler.send_head(200, [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")], None)
    for piece in _payload(fault.bytes):
        handler.write_raw(b"%x\r\n%s\r\n" % (len(piece), piece))
    handler.write_raw(b"0\r\n\r\n")


def _drip(handler, fault: Fault) -> None:
    handler.send_head(200, [("Content-Type", "application/json")], fault.bytes)
    body = b"".join(_payload(fault.bytes))
    for start in range(0, len(body), fault.chunk):
        time.sleep(fault.interval_ms / 1000)
        handler.write_raw(body[start:start + fault.chunk])


def _truncate(handler, response: Response) -> None:
    handler.close_connection = True
    handler.send_head(response.status, response.headers, len(response.body))
    handler.write_raw(response.body[:len(response.body) // 2])


def _reset(handler) -> None:
    """Abortive close: with SO_LINGER 0 the kernel answers close() with a TCP RST."""
    handler.close_connection = True
    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    handler.rfile.close()  # drop the makefile reference so close() really closes the descriptor
    handler.connection.close()


def perform(handler, fault: Fault, normal: Callable[[], Response], record: Callable[[int], None]) -> None:
    """Sends the fault instead of the normal answer; ``delay`` is handled by the caller."""
    kind = fault.type
    if kind in ("drop", "drop-reused"):
        # The request (body included) has been read; the connection closes without a byte of answer.
        handler.close_connection = True
    elif kind == "reset":
        _reset(handler)
    elif kind == "status":
        body = fault.body if fault.body is not None else {"error": "injected fault", "code": "injected_fault"}
        record(fault.status)
        handler.send(Response(fault.status, [("Content-Type", "application/json; charset=utf-8")], dumps(body)))
    elif kind == "truncate":
        response = normal()
        record(response.status)
        _truncate(handler, response)
    elif kind == "malformed":
        record(200)
        handler.send(Response(200, [("Content-Type", "application/json; charset=utf-8")], _MALFORMED))
    else:
        record(200)
        {"oversize": _oversize, "oversize-chunked": _oversize_chunked, "drip": _drip}[kind](handler, fault)
