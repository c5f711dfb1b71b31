"""Reading a transport's messages one at a time in a test, a close showing up as one too."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from adecore_lsp import LspTransport

GUARD = 20.0
"""Seconds a test waits for a message before failing instead of hanging."""


def message_reader(transport: LspTransport) -> Callable[[], Awaitable[dict[str, Any]]]:
    """``await next_message()`` gives the next message; a close arrives as
    ``{"closed with": reason}``, so that the assertion waiting for a message names it."""
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    transport.on_message(queue.put_nowait)
    transport.on_close(lambda reason: queue.put_nowait({"closed with": repr(reason)}))

    async def next_message() -> dict[str, Any]:
        return await asyncio.wait_for(queue.get(), GUARD)

    return next_message
