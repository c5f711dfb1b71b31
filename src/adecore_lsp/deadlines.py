"""Request deadlines: one event-loop timer per session, on the earliest pending deadline.

Request deadlines are nearly always far off and nearly never reached, so a session keeps a
single ``loop.call_at`` handle for the earliest one instead of one timer per request: a
request due later than the handle leaves it alone, and when the handle fires the requests
now due are expired and the handle is set for the next. The due times live in the sans-IO
:class:`~adecore_lsp.protocol.wire.rpc.RpcState`; times are the loop's clock (``loop.time()``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from math import inf
from typing import Any

from .protocol.wire.rpc import RpcState

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

Expire = Callable[[int, str, float], object]
"""Ends one request whose deadline passed: gets its id, method and timeout."""


class RequestDeadlines:
    """Expires the pending requests of an :class:`RpcState` as their deadlines pass.

    After sending a request due before :attr:`due`, the session calls :meth:`set`. Closing
    stops the timer for good. Used from the loop's thread only.
    """

    __slots__ = ("_expire", "_handle", "_loop", "_report", "_rpc", "due")

    def __init__(
        self,
        rpc: RpcState[Any],
        expire: Expire,
        report: Callable[[BaseException], object],
    ) -> None:
        self._rpc: RpcState[Any] | None = rpc
        self._expire = expire
        self._report = report
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | None = None
        self.due = inf
        """When the timer fires; ``inf`` when it is not set (or has fired, or is closed).
        Read it, never write it: a plain attribute, as it is read for every request."""

    def set(self, due: float, loop: asyncio.AbstractEventLoop) -> None:
        """Fire at ``due`` (``loop.time()`` seconds) instead of any time set before."""
        if self._rpc is None:
            return
        if self._handle is not None:
            self._handle.cancel()
        self._loop = loop
        self.due = due
        self._handle = loop.call_at(due, self._fire)

    def close(self) -> None:
        """Never fire again, and let go of the loop and the requests."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._rpc = None
        self._loop = None
        self.due = inf

    def _fire(self) -> None:
        """Expire the requests now due, then set the timer for the next one."""
        self._handle = None
        self.due = inf
        rpc, loop = self._rpc, self._loop
        if rpc is None or loop is None:
            return
        for request_id, method, timeout in rpc.pop_due(loop.time()):
            try:
                self._expire(request_id, method, timeout)
            except Exception as error:  # the other deadlines, and the timer, must go on
                self._report(error)
        due = rpc.next_due()
        if due is not None and self._rpc is not None:
            self.set(due, loop)
