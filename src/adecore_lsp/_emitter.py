"""Listener lists: add a listener, get a Disposable; fire in order; keep failures contained.

A listener may be a plain function or an ``async def``. A coroutine it returns runs as a task
of the running loop, so a slow listener never stalls the caller of ``fire``. Whatever a
listener raises, at once or in its task, goes to the emitter's error handler and never stops
the other listeners, nor reaches the caller of ``fire``: that includes ``CancelledError`` and
other kinds of ``BaseException``, which would otherwise break whatever is delivering (a transport's
decoder, say). Only ``KeyboardInterrupt`` and ``SystemExit`` go through, as the program is
being stopped.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from .types import Disposable

__all__ = ["CLOSE_GRACE", "Emitter", "TaskSet", "log_listener_error", "retrieve_outcome"]

T = TypeVar("T")
_logger = logging.getLogger("adecore_lsp")

ErrorHandler = Callable[[BaseException], object]

_STOPPING = (KeyboardInterrupt, SystemExit)
"""What a listener may raise through ``fire``: the program is being stopped."""


def log_listener_error(error: BaseException) -> None:
    """The default error handler: log the exception with its traceback."""
    _logger.error("a listener raised", exc_info=error)


CLOSE_GRACE = 0.5
"""Seconds a closing session waits for the tasks it cancelled (listeners, handlers, pulls)."""


def retrieve_outcome(task: asyncio.Task[Any]) -> None:
    """A done callback that retrieves how a task ended, so that asyncio never warns of it.

    For tasks whose outcome is awaited elsewhere, or by nobody any more (a shielded
    handshake or shutdown whose caller was cancelled).
    """
    if not task.cancelled():
        task.exception()


class TaskSet:
    """Keeps the tasks of async listeners alive and reports how each ended."""

    __slots__ = ("_on_error", "_tasks")

    def __init__(self, on_error: ErrorHandler) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._on_error = on_error

    def spawn(self, awaitable: Any) -> asyncio.Task[Any]:
        """Run ``awaitable`` as a task; its exception goes to the error handler."""
        task: asyncio.Task[Any] = asyncio.ensure_future(awaitable)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            self._on_error(error)

    def cancel_all(self) -> None:
        """Cancel every task still running."""
        for task in list(self._tasks):
            task.cancel()

    async def wait(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the tasks still running (after a cancel)."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)

    def __len__(self) -> int:
        return len(self._tasks)


class Emitter(Generic[T]):
    """An ordered list of listeners of one event, each called with one value."""

    __slots__ = ("_listeners", "_on_error", "_tasks")

    def __init__(
        self, on_error: ErrorHandler = log_listener_error, *, tasks: TaskSet | None = None
    ) -> None:
        """``tasks`` keeps the async listeners' tasks, so that their owner can end them."""
        self._listeners: list[Callable[[T], object]] = []
        self._on_error = on_error
        self._tasks: TaskSet | None = tasks

    def add(self, listener: Callable[[T], object]) -> Disposable:
        """Add ``listener``; disposing the result removes it (once, even if added twice)."""
        if not callable(listener):
            raise TypeError(f"a listener must be callable, not {type(listener).__name__}")
        self._listeners.append(listener)
        return Disposable(lambda: self._remove(listener))

    def _remove(self, listener: Callable[[T], object]) -> None:
        try:
            self._listeners.remove(listener)
        except ValueError:
            pass

    def __bool__(self) -> bool:
        return bool(self._listeners)

    def __len__(self) -> int:
        return len(self._listeners)

    def clear(self) -> None:
        """Forget every listener."""
        self._listeners.clear()

    def fire(self, value: T) -> bool:
        """Call each listener with ``value``, in the order they were added.

        Returns whether there was any listener to hear it, so that a caller keeping values
        for a first listener (a transport's backlog) needs no second look at the list.
        """
        listeners = self._listeners
        if len(listeners) == 1:
            # The usual case, on every message: one listener, so nothing to copy or iterate,
            # and ``call`` inlined (a frame less per message).
            try:
                result = listeners[0](value)
            except _STOPPING:
                raise
            except BaseException as error:
                self._on_error(error)
                return True
            if result is not None and inspect.isawaitable(result):
                self._spawn(result)
            return True
        if not listeners:
            return False
        # A copy: a listener may add or dispose listeners while we iterate.
        for listener in tuple(listeners):
            self.call(listener, value)
        return True

    def call(self, listener: Callable[[T], object], value: T) -> None:
        """Call one listener as ``fire`` does: errors contained, a coroutine run as a task."""
        try:
            result = listener(value)
        except _STOPPING:
            raise
        except BaseException as error:
            self._on_error(error)
            return
        # None, what plain listeners return, skips the (slower) awaitable check.
        if result is not None and inspect.isawaitable(result):
            self._spawn(result)

    def _spawn(self, awaitable: Any) -> None:
        if self._tasks is None:
            self._tasks = TaskSet(self._on_error)
        self._tasks.spawn(awaitable)
