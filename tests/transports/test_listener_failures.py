"""A message listener's failure, even a CancelledError, never touches the connection.

Over a byte stream and over a real process's pipes: the failing listener's error is logged,
the other listeners still hear every message, and the transport stays open for the next.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp.protocol.wire.framing import encode_message
from adecore_lsp.transports.base import LspTransport
from adecore_lsp.transports.process import ServerProcess, spawn_server
from adecore_lsp.transports.stream import create_stream_transport
from tests.fake_stream import FakeStream

ECHO = [sys.executable, str(Path(__file__).parent / "programs" / "server.py"), "echo"]
GUARD = 20.0
"""Seconds a test waits for an event before failing instead of hanging."""

FIRST = {"jsonrpc": "2.0", "method": "first"}
SECOND = {"jsonrpc": "2.0", "method": "second"}
THIRD = {"jsonrpc": "2.0", "method": "third"}

FAILURES = [
    pytest.param(asyncio.CancelledError, id="CancelledError"),
    pytest.param(GeneratorExit, id="GeneratorExit"),
    pytest.param(RuntimeError, id="RuntimeError"),
]


@pytest.fixture(autouse=True)
def logs(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Capture the library's and asyncio's logs; fail if asyncio complained."""
    caplog.set_level(logging.WARNING, logger="asyncio")
    caplog.set_level(logging.ERROR, logger="adecore_lsp")
    yield caplog
    assert [record.getMessage() for record in caplog.records if record.name == "asyncio"] == []


class Listeners:
    """A listener that raises on the first message it hears, then one that records all."""

    def __init__(self, transport: LspTransport, failure: type[BaseException]) -> None:
        self.failure = failure
        self.failed = 0
        self.heard: list[dict[str, Any]] = []
        self.closes: list[BaseException | None] = []
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        transport.on_message(self._fail_once)
        transport.on_message(self._record)
        transport.on_close(self.closes.append)

    def _fail_once(self, message: dict[str, Any]) -> None:
        if not self.failed:
            self.failed += 1
            raise self.failure()

    def _record(self, message: dict[str, Any]) -> None:
        self.heard.append(message)
        for count, future in self._waiters:
            if len(self.heard) >= count and not future.done():
                future.set_result(None)

    async def until_heard(self, count: int) -> None:
        """Wait until the recording listener has heard ``count`` messages."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((count, future))
        if len(self.heard) >= count:
            future.set_result(None)
        await asyncio.wait_for(future, GUARD)


def listener_errors(logs: pytest.LogCaptureFixture) -> list[type[BaseException]]:
    """The types of the listener failures the library logged."""
    return [
        type(record.exc_info[1])
        for record in logs.records
        if record.name == "adecore_lsp" and record.exc_info and record.exc_info[1]
    ]


@pytest.mark.parametrize("failure", FAILURES)
def test_over_a_stream_a_failing_listener_leaves_the_transport_open(
    failure: type[BaseException], logs: pytest.LogCaptureFixture
) -> None:
    """Both messages of one chunk reach the other listener; the next chunk is read too."""
    stream = FakeStream()
    transport = create_stream_transport(stream)
    listeners = Listeners(transport, failure)
    stream.feed(encode_message(FIRST) + encode_message(SECOND))
    assert listeners.heard == [FIRST, SECOND]
    stream.feed(encode_message(THIRD))
    assert listeners.heard == [FIRST, SECOND, THIRD]
    assert listeners.closes == []
    assert listener_errors(logs) == [failure]
    transport.send(THIRD)
    assert stream.written == [encode_message(THIRD)]


@pytest.fixture
async def echo_server() -> AsyncIterator[ServerProcess]:
    """The echo program as a spawned server, stopped after the test."""
    server = await spawn_server(ECHO)
    yield server
    await server.aclose(grace_period=0.5)


@pytest.mark.parametrize("failure", FAILURES)
async def test_over_pipes_a_failing_listener_leaves_the_transport_open(
    failure: type[BaseException], echo_server: ServerProcess, logs: pytest.LogCaptureFixture
) -> None:
    """A real process's echoes all reach the other listener, and the next one still does."""
    transport = echo_server.transport
    listeners = Listeners(transport, failure)
    transport.send(FIRST)
    transport.send(SECOND)
    await listeners.until_heard(2)
    transport.send(THIRD)
    await listeners.until_heard(3)
    assert listeners.heard == [FIRST, SECOND, THIRD]
    assert listeners.closes == []
    assert listener_errors(logs) == [failure]
