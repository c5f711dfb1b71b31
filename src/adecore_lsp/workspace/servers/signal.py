"""A wake-up for waiters: every wait for "something may have changed" (a server's answer,
a push, a refresh) sleeps on one and is woken when it fires."""

from __future__ import annotations

import asyncio

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


class Signal:
    """Wakes every waiter when something a wait may be waiting for happened."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def fire(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    async def wait(self, timeout: float | None) -> None:
        """Return when fired, or after ``timeout`` seconds (``None``: only when fired)."""
        event = self._event
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except asyncio.TimeoutError:
            pass
