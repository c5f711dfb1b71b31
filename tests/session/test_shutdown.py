"""Shutdown: the sequence, its deadline, and a server that is gone or never answers."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from adecore_lsp import LspSession, SessionState, create_memory_transport_pair
from tests.fake_server import NO_ANSWER, FakeServer
from tests.session.conftest import SessionFactory


async def test_shutdown_then_exit_then_close(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """shutdown is asked, exit sent without params, the transport closed, the state closed."""
    session = make_session()
    await session.initialize()
    await session.shutdown()
    methods = [m.get("method") for m in server.received]
    assert methods[-2:] == ["shutdown", "exit"]
    assert "params" not in server.received[-1]
    assert "params" not in server.received[-2]
    assert session.state is SessionState.CLOSED
    assert await asyncio.wait_for(server.closed, 1) is None  # type: ignore[arg-type]


async def test_shutdown_twice_is_one_shutdown(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """Calling shutdown twice, even at once, sends one shutdown."""
    session = make_session()
    await session.initialize()
    await asyncio.gather(session.shutdown(), session.shutdown())
    await session.shutdown()
    assert len(server.messages("shutdown")) == 1
    assert len(server.messages("exit")) == 1


async def test_shutdown_deadline_when_the_server_never_answers(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """A server that never answers shutdown still gets exit; the session ends closed in time."""
    server.on("shutdown", lambda params: NO_ANSWER)
    session = make_session(shutdown_timeout=0.05)
    await session.initialize()
    start = time.monotonic()
    await session.shutdown()
    assert time.monotonic() - start < 1
    assert server.messages("exit")
    assert session.state is SessionState.CLOSED


async def test_shutdown_answered_with_an_odd_result(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """A server answering shutdown with 1 (Perl::LanguageServer) shuts down all the same."""
    server.on("shutdown", lambda params: 1)
    session = make_session()
    await session.initialize()
    await session.shutdown()
    assert server.messages("exit")
    assert session.state is SessionState.CLOSED


async def test_shutdown_when_the_server_is_gone(
    pair: Any, server: FakeServer, make_session: SessionFactory
) -> None:
    """Shutdown after the peer closed returns at once, closed."""
    session = make_session()
    await session.initialize()
    pair[1].close()
    await asyncio.sleep(0)
    await asyncio.wait_for(session.shutdown(), 1)
    assert session.state is SessionState.CLOSED


async def test_shutdown_waits_for_a_pending_handshake(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """shutdown during initialize waits for it, then shuts the server down."""
    release = asyncio.Event()

    async def initialize(params: Any) -> Any:
        await release.wait()
        return {"capabilities": {}}

    server.on("initialize", initialize)
    session = make_session()
    handshake = asyncio.ensure_future(session.initialize())
    await server.wait_for("initialize")
    closing = asyncio.ensure_future(session.shutdown())
    await asyncio.sleep(0.01)
    assert not closing.done()
    release.set()
    await handshake
    await closing
    assert [m.get("method") for m in server.received if "method" in m][-2:] == ["shutdown", "exit"]


async def test_shutdown_before_initialize(server: FakeServer, make_session: SessionFactory) -> None:
    """A session never initialized closes without writing anything."""
    session = make_session()
    await session.shutdown()
    assert session.state is SessionState.CLOSED
    assert server.received == []


async def test_async_with_initializes_and_shuts_down() -> None:
    """async with does the handshake on entry and shutdown on exit."""
    client, server_end = create_memory_transport_pair()
    server = FakeServer(server_end, capabilities={"hoverProvider": True})
    async with LspSession(client) as session:
        states = [session.state]
        assert session.supports("textDocument/hover")
    states.append(session.state)
    assert states == [SessionState.READY, SessionState.CLOSED]
    assert server.messages("exit")


async def test_a_cancelled_caller_does_not_stop_shutdown(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """Cancelling one caller of shutdown leaves the shutdown going for the others."""
    server.on("shutdown", lambda params: asyncio.sleep(0.05))
    session = make_session()
    await session.initialize()
    first = asyncio.ensure_future(session.shutdown())
    await asyncio.sleep(0.01)
    first.cancel()
    await session.shutdown()
    assert server.messages("exit")
    assert session.state is SessionState.CLOSED
