"""A session's listeners: who hears diagnostics, progress, notifications, capability changes
and errors, and the tasks of the async ones, which end with the session.

Errors of the session that no caller can hear, and whatever a listener raises, go to the
``on_error`` listeners (or to the ``adecore_lsp`` logger when there are none). Refresh
requests that come in a burst are announced once, after a short window.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from typing import Any

from ._emitter import CLOSE_GRACE, Emitter, TaskSet, log_listener_error
from .types import Disposable, JSONObject

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

_logger = logging.getLogger("adecore_lsp")


class SessionListeners:
    """The listener lists of one session, and one set of tasks for all async listeners."""

    def __init__(self, refresh_window: float) -> None:
        self._refresh_window = refresh_window
        # The error listeners' own failures can only be logged.
        self._errors: Emitter[BaseException] = Emitter(log_listener_error)
        self._tasks = TaskSet(self.report)
        self.diagnostics: Emitter[JSONObject] = self._emitter()
        """Hears publishDiagnostics params for the current text of open documents."""
        self.progress: Emitter[JSONObject] = self._emitter()
        """Hears ``$/progress`` params."""
        self._capabilities: Emitter[str] = self._emitter()
        self._notifications: dict[str, Emitter[Any]] = {}
        self._refresh_pending: dict[str, None] = {}
        self._refresh_handle: asyncio.TimerHandle | None = None
        self._closed = False

    def _emitter(self) -> Emitter[Any]:
        return Emitter(self.report, tasks=self._tasks)

    # -- adding ----------------------------------------------------------------------------

    def on_error(self, listener: Callable[[BaseException], object]) -> Disposable:
        """Add an error listener."""
        return self._errors.add(listener)

    def on_notification(self, method: str, listener: Callable[[Any], object]) -> Disposable:
        """Add a listener of one notification method."""
        emitter = self._notifications.get(method)
        if emitter is None:
            emitter = self._notifications[method] = self._emitter()
        return emitter.add(listener)

    def on_capabilities_changed(self, listener: Callable[[str], object]) -> Disposable:
        """Add a listener of methods whose capability changed."""
        return self._capabilities.add(listener)

    # -- firing ----------------------------------------------------------------------------

    def report(self, error: BaseException) -> None:
        """Hand an error nobody else can hear to the error listeners, or log it."""
        if self._errors:
            self._errors.fire(error)
        else:
            _logger.warning("adecore-lsp session error: %s", error, exc_info=error)

    def notification(self, method: str, params: Any) -> None:
        """Tell the listeners of ``method``."""
        emitter = self._notifications.get(method)
        if emitter is not None:
            emitter.fire(params)

    def capabilities_changed(self, methods: Iterable[str]) -> None:
        """Tell each capability listener of each method, once."""
        for method in dict.fromkeys(methods):
            self._capabilities.fire(method)

    def refresh_requested(self, methods: Iterable[str]) -> None:
        """Announce ``methods`` as changed once the refresh window passes."""
        if self._closed:
            return
        for method in methods:
            self._refresh_pending[method] = None
        if self._refresh_handle is None:
            loop = asyncio.get_running_loop()
            self._refresh_handle = loop.call_later(self._refresh_window, self._flush_refresh)

    def _flush_refresh(self) -> None:
        self._refresh_handle = None
        methods, self._refresh_pending = list(self._refresh_pending), {}
        self.capabilities_changed(methods)

    # -- closing ---------------------------------------------------------------------------

    @property
    def running(self) -> int:
        """How many async listener tasks are still running."""
        return len(self._tasks)

    def close(self) -> None:
        """Cancel the pending refresh and every async listener task still running."""
        self._closed = True
        if self._refresh_handle is not None:
            self._refresh_handle.cancel()
            self._refresh_handle = None
        self._tasks.cancel_all()

    async def wait_closed(self, timeout: float = CLOSE_GRACE) -> None:
        """Wait, up to ``timeout`` seconds, for the listener tasks :meth:`close` cancelled."""
        await self._tasks.wait(timeout)
