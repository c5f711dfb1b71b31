"""Alarms for event loops, rung from one shared thread instead of the loop's own timers.

While any asyncio timer is scheduled, every turn of the loop reads the clock and computes a
timeout, and every wait in the selector arms a kernel timer, which on a virtual machine can
cost an exit to the hypervisor. Request deadlines are nearly always far off and nearly never
reached, yet one would be armed for as long as any request is pending. So they wait here
instead: one daemon thread sleeps until the earliest alarm of the process and hands its
callback to its loop with ``call_soon_threadsafe``; the loops themselves keep no timer.

Times are ``time.monotonic()`` seconds. An alarm rings at most once per :meth:`Alarm.set`,
never before its time; a spurious ring is possible when it is set again as it rings, so the
callback must check what is due.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import os
import threading
import time
from collections.abc import Callable
from math import inf

__all__ = ["Alarm"]

_COMPACT_AT = 64
"""Stale heap entries (alarms moved or closed) are pruned once they outnumber live ones by this."""


class Alarm:
    """Calls ``callback`` once the monotonic clock reaches the time it is set for.

    It rings in the event loop that set it. Setting it again replaces the time; closing it
    stops it for good and drops the callback. Made, set and closed in the loop's thread;
    rung from the clock thread.
    """

    __slots__ = ("_callback", "_loop", "due")

    def __init__(self, callback: Callable[[], object]) -> None:
        self._callback: Callable[[], object] | None = callback
        self._loop: asyncio.AbstractEventLoop | None = None
        self.due = inf
        """When the alarm rings; ``inf`` when it is not set (or has rung, or is closed).
        Read it, never write it: a plain attribute, as it is read for every request."""

    def set(self, due: float) -> None:
        """Ring at ``due`` (``time.monotonic()`` seconds) in the running loop, instead of any
        time set before; nothing once closed."""
        _CLOCK.set(self, due, asyncio.get_running_loop())

    def close(self) -> None:
        """Never ring again, and let go of the loop and the callback."""
        _CLOCK.close(self)

    def _ring(self) -> None:
        # On the clock thread, outside its lock. A closed loop cannot run the callback, and
        # has no use for it.
        loop, callback = self._loop, self._callback
        if loop is None or callback is None:
            return
        try:
            loop.call_soon_threadsafe(callback)
        except RuntimeError:
            pass


class _Clock:
    """The thread that rings alarms: a heap of (due, sequence, alarm), its lock, and a wakeup.

    An alarm moved or closed leaves its old entry in the heap, ignored when it comes up
    (its due no longer matches); the heap is rebuilt when such entries pile up.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._heap: list[tuple[float, int, Alarm]] = []
        self._live: set[Alarm] = set()
        self._sequence = itertools.count()
        self._thread: threading.Thread | None = None
        self._sleeping_until = inf

    def set(self, alarm: Alarm, due: float, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            if alarm._callback is None:
                return  # closed
            alarm._loop = loop
            alarm.due = due
            self._live.add(alarm)
            heapq.heappush(self._heap, (due, next(self._sequence), alarm))
            if len(self._heap) > 2 * len(self._live) + _COMPACT_AT:
                self._compact()
            if self._thread is None:
                self._start()
            elif due < self._sleeping_until:
                self._changed.notify()

    def close(self, alarm: Alarm) -> None:
        with self._lock:
            alarm.due = inf
            alarm._loop = None
            alarm._callback = None
            self._live.discard(alarm)

    def _compact(self) -> None:
        self._heap = [entry for entry in self._heap if entry[2].due == entry[0]]
        heapq.heapify(self._heap)

    def _start(self) -> None:
        thread = threading.Thread(target=self._run, name="adecore-lsp-alarms", daemon=True)
        thread.start()
        self._thread = thread

    def _run(self) -> None:
        with self._lock:
            while True:
                heap = self._heap
                now = time.monotonic()
                ringing: list[Alarm] = []
                while heap and heap[0][0] <= now:
                    due, _, alarm = heapq.heappop(heap)
                    if alarm.due == due:  # still set for this time
                        alarm.due = inf
                        self._live.discard(alarm)
                        ringing.append(alarm)
                if ringing:
                    self._lock.release()
                    try:
                        for alarm in ringing:
                            alarm._ring()
                    finally:
                        self._lock.acquire()
                    continue
                if heap:
                    self._sleeping_until = heap[0][0]
                    self._changed.wait(min(heap[0][0] - now, threading.TIMEOUT_MAX))
                else:
                    self._sleeping_until = inf
                    self._changed.wait()
                self._sleeping_until = -inf  # awake: a set() needs no notify


_CLOCK = _Clock()


def _start_afresh_after_fork() -> None:
    # A forked child has no clock thread, and the parent's alarms are not its own.
    global _CLOCK
    _CLOCK = _Clock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_start_afresh_after_fork)
