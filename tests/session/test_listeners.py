"""Listeners: wire order, slow async listeners, failures that stay contained."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from adecore_lsp import LspSession
from tests.fake_server import FakeServer
from tests.session.conftest import SessionFactory


@pytest.fixture
async def ready(server: FakeServer, make_session: SessionFactory) -> LspSession:
    session = make_session()
    await session.initialize()
    return session


async def test_notifications_arrive_in_wire_order(server: FakeServer, ready: LspSession) -> None:
    """Each listener hears its method's notifications in the order they were sent."""
    ready.open_document("file:///a.py", "python", "x = 1\n")
    heard: list[tuple[str, Any]] = []
    ready.on_notification("window/logMessage", lambda params: heard.append(("log", params["n"])))
    ready.on_diagnostics(lambda params: heard.append(("diag", params["n"])))
    ready.on_notification(
        "textDocument/publishDiagnostics", lambda params: heard.append(("any", params["n"]))
    )
    for n in range(20):
        if n % 2:
            server.notify("window/logMessage", {"n": n})
        else:
            report = {"uri": "file:///a.py", "diagnostics": [], "n": n}
            server.notify("textDocument/publishDiagnostics", report)
    server.on("sync", lambda params: None)
    await ready.request("sync")
    expected: list[tuple[str, Any]] = []
    for n in range(20):
        expected += [("log", n)] if n % 2 else [("diag", n), ("any", n)]
    assert heard == expected


async def test_a_slow_async_listener_stalls_nothing(server: FakeServer, ready: LspSession) -> None:
    """While an async listener waits, responses still resolve and later notifications arrive."""
    release = asyncio.Event()
    heard: list[int] = []

    async def slow(params: Any) -> None:
        await release.wait()
        heard.append(params["n"])

    fast: list[int] = []
    ready.on_notification("n", slow)
    ready.on_notification("n", lambda params: fast.append(params["n"]))
    server.on("a", lambda params: "answered")
    server.notify("n", {"n": 1})
    server.notify("n", {"n": 2})
    assert await asyncio.wait_for(ready.request("a"), 1) == "answered"
    assert fast == [1, 2]
    assert heard == []
    release.set()
    await server.round_trip()  # the released listeners end in the turns it takes
    assert sorted(heard) == [1, 2]


async def test_a_failing_listener_goes_to_on_error_and_the_rest_run(
    server: FakeServer, ready: LspSession
) -> None:
    """A listener's exception, sync or async, reaches on_error; later listeners still run."""
    errors: list[BaseException] = []
    ready.on_error(errors.append)
    after: list[Any] = []

    def broken(params: Any) -> None:
        raise RuntimeError("listener bug")

    async def broken_async(params: Any) -> None:
        raise KeyError("async listener bug")

    ready.on_notification("n", broken)
    ready.on_notification("n", broken_async)
    ready.on_notification("n", after.append)
    server.notify("n", 1)
    server.notify("n", 2)
    server.on("a", lambda params: None)
    await ready.request("a")
    await asyncio.sleep(0)
    assert after == [1, 2]
    assert sorted(type(error).__name__ for error in errors) == [
        "KeyError",
        "KeyError",
        "RuntimeError",
        "RuntimeError",
    ]


async def test_disposed_listeners_hear_nothing(server: FakeServer, ready: LspSession) -> None:
    """Disposing a listener (or leaving its with block) stops it; dispose is idempotent."""
    heard: list[Any] = []
    with ready.on_notification("n", heard.append):
        server.notify("n", 1)
        server.on("a", lambda params: None)
        await ready.request("a")
    handle = ready.on_progress(heard.append)
    handle.dispose()
    handle.dispose()
    server.notify("n", 2)
    server.notify("$/progress", {"token": 1, "value": {}})
    await ready.request("a")
    assert heard == [1]


async def test_no_listener_runs_after_close(
    server: FakeServer, ready: LspSession, pair: Any
) -> None:
    """Once the session is closed, no notification reaches a listener."""
    heard: list[Any] = []
    ready.on_notification("n", heard.append)
    await ready.shutdown()
    server.notify("n", 1)
    await asyncio.sleep(0.01)
    assert heard == []
