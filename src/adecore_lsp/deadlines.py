"""One event-loop timer per session, on the earliest deadline of its pending requests.

Request deadlines are nearly always far off and nearly never reached, so a session keeps a
single ``loop.call_at`` handle for the earliest one instead of one timer per request: a
request due later than the handle leaves it alone, and when the handle fires the session
expires what is due and sets it for the next. Times are the loop's clock (``loop.time()``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from math import inf

__all__ = ["DeadlineTimer"]


class DeadlineTimer:
    """Calls ``callback`` in its loop once the loop's clock reaches the time it is set for.

    Setting it again replaces the time; closing it stops it for good and drops the callback.
    Used from the loop's thread only.
    """

    __slots__ = ("_callback", "_handle", "_loop", "due")

    def __init__(self, callback: Callable[[], object]) -> None:
        self._callback: Callable[[], object] | None = callback
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | None = None
        self.due = inf
        """When the timer fires; ``inf`` when it is not set (or has fired, or is closed).
        Read it, never write it: a plain attribute, as it is read for every request."""

    def set(self, due: float, loop: asyncio.AbstractEventLoop) -> None:
        """Fire at ``due`` (``loop.time()`` seconds) instead of any time set before."""
        if self._callback is None:
            return
        if self._handle is not None:
            self._handle.cancel()
        self._loop = loop
        self.due = due
        self._handle = loop.call_at(due, self._fire)

    def close(self) -> None:
        """Never fire again, and let go of the loop and the callback."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._callback = None
        self._loop = None
        self.due = inf

    def _fire(self) -> None:
        self._handle = None
        self.due = inf
        callback = self._callback
        if callback is not None:
            callback()
