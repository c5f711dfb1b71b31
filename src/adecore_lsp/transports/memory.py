"""Two transports joined in memory, for tests and for a server living in the same process.

Each message is copied through JSON, so neither end can see the other's objects, and a message
that JSON cannot carry fails at ``send`` just as it would on a real wire. Delivery happens on a
later turn of the running event loop (``loop.call_soon``), never inside ``send``, so the code
under test meets the same reentrancy it would meet with a real server.
"""

from __future__ import annotations

import asyncio

import orjson

from ..errors import TransportClosedError
from ..protocol.wire.encoder import encode_body
from ..types import JSONObject
from .base import BaseTransport, LspTransport

__all__ = ["create_memory_transport_pair"]


def create_memory_transport_pair() -> tuple[LspTransport, LspTransport]:
    """Return two joined transports: what one end sends, the other end receives.

    - Each message is JSON-copied by the same encoder every transport uses. A message JSON
      cannot carry (``NaN`` or an infinity, a lone surrogate, a ``set``, an arbitrary object,
      a key that is not a string) raises :class:`~adecore_lsp.errors.MessageEncodingError`
      (a ``ValueError``) from ``send``, and nothing is delivered.
    - Messages arrive on a later loop turn, in the order they were sent. ``send`` needs a
      running event loop (it raises ``RuntimeError`` without one).
    - Closing either end closes both. The closed end drops what was still on its way to it;
      the other end first receives every message already sent to it, then its close
      listeners hear ``None``. From the moment either end closes, ``send`` on both ends
      raises ``TransportClosedError``.
    """
    first, second = _MemoryTransport(), _MemoryTransport()
    first._peer, second._peer = second, first
    return first, second


class _MemoryTransport(BaseTransport):
    """One end of a memory pair."""

    def __init__(self) -> None:
        super().__init__()
        self._peer: _MemoryTransport | None = None
        # Set when either end closes; this end's own close may still wait for deliveries.
        self._ending = False

    def _send(self, message: JSONObject) -> None:
        if self._ending:
            raise TransportClosedError("the other end of the memory transport is closed")
        # Raises before anything is queued, so a failed send delivers nothing.
        loop = asyncio.get_running_loop()
        copy = _json_copy(message)
        peer = self._peer
        assert peer is not None
        loop.call_soon(peer._deliver, copy)

    def _deliver(self, message: JSONObject) -> None:
        # A message still queued when this end closed is dropped.
        if not self._closed:
            self._receive(message)

    def _close_underlying(self) -> None:
        self._ending = True
        peer = self._peer
        if peer is None or peer._ending:
            return
        peer._ending = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            # No loop will run the deliveries still queued: close the other end now.
            peer._finish(None)
        else:
            # FIFO: this runs after every delivery already queued to the other end.
            loop.call_soon(peer._finish, None)


def _json_copy(message: JSONObject) -> JSONObject:
    """Copy ``message`` through JSON, refusing exactly what every other transport refuses."""
    # What encode_body writes, orjson reads back: no NaN, no lone surrogate, 64-bit ints.
    copy: JSONObject = orjson.loads(encode_body(message))
    return copy
