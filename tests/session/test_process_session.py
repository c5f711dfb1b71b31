"""A session over a real child process: a crash ends every pending request at once.

The child is the hostile test server, whose ``hostile/crash`` request makes it exit with
code 3 without answering.
"""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

from adecore_lsp import ErrorCodes, LspError, LspSession, SessionState, spawn_server
from tests.hostile.conftest import HOSTILE_SERVER

SERVER = [sys.executable, str(HOSTILE_SERVER)]


async def test_a_crash_mid_request_rejects_every_pending_request_at_once() -> None:
    """The process dying fails all pending requests within a bound, not at their deadline."""
    async with await spawn_server(SERVER) as server:
        session = LspSession(server.transport, timeout=30)
        errors: list[BaseException] = []
        session.on_error(errors.append)
        await session.initialize()
        start = time.monotonic()
        results = await asyncio.gather(
            *[session.request("hostile/crash", {"n": n}) for n in range(5)],
            return_exceptions=True,
        )
        assert time.monotonic() - start < 5
        for result in results:
            assert isinstance(result, LspError)
            assert result.code == ErrorCodes.InternalError
            assert result.__cause__ is not None
        assert session.state is SessionState.CLOSED
        assert len(errors) == 1  # the unexpected hang-up, reported once
        assert await server.wait() == 3
        with pytest.raises(LspError):
            await session.request("x")
        await session.shutdown()


async def test_a_request_to_a_dead_process_fails_at_once() -> None:
    """Writing to a process that already exited fails the request quickly."""
    async with await spawn_server(SERVER) as server:
        session = LspSession(server.transport, timeout=30)
        await session.initialize()
        with pytest.raises(LspError):
            await session.request("hostile/crash")
        start = time.monotonic()
        with pytest.raises(LspError):
            await session.request("hostile/ping")
        assert time.monotonic() - start < 1
        await session.shutdown()
        assert session.state is SessionState.CLOSED
