"""Hostile servers: each fault ends in a stated outcome, within a bound, and leaves nothing behind.

Byte-level faults run the hostile server as a real child process; message-level faults run
the same server in-process on a memory transport pair. Each test records its measured time
to outcome as the ``time_to_outcome`` user property (``-o junit_family=xunit1
--junitxml=...`` writes them out).
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from adecore_lsp import (
    ContentLengthDecoder,
    ErrorCodes,
    FramingError,
    LspError,
    LspSession,
    ServerProcess,
    SessionState,
    create_memory_transport_pair,
)
from adecore_lsp.errors import TransportClosedError
from tests.hostile.conftest import Spawn
from tests.hostile.hostile_server import DEEP, HostileServer, raw_frame, serve_memory

Record = Callable[[float], None]


class Watched:
    """A session with its ``on_error`` reports collected."""

    def __init__(self, session: LspSession) -> None:
        self.session = session
        self.errors: list[BaseException] = []
        session.on_error(self.errors.append)


def watch(transport: Any, **options: Any) -> Watched:
    """A session on ``transport`` whose errors are collected."""
    return Watched(LspSession(transport, **options))


async def assert_nothing_left(session: LspSession) -> None:
    """No pending request, no server call in progress, no task still running."""
    await asyncio.sleep(0)  # let done callbacks run
    assert session._rpc.pending == {}
    assert session._calls.running == 0
    current = asyncio.current_task()
    running = [task for task in asyncio.all_tasks() if task is not current and not task.done()]
    assert running == []


def connection_error(error: BaseException) -> BaseException:
    """Check ``error`` is the closed-connection LspError and return its cause."""
    assert isinstance(error, LspError)
    assert error.code == ErrorCodes.InternalError
    assert error.__cause__ is not None
    return error.__cause__


def memory_server() -> tuple[Watched, HostileServer]:
    """A watched session and the hostile core on the two ends of a memory pair."""
    client, server_end = create_memory_transport_pair()
    return watch(client, timeout=5), serve_memory(server_end)


# -- the process dies or stops talking ------------------------------------------------------


async def test_a_crash_mid_request_fails_it_at_once(spawn: Spawn, record_time: Record) -> None:
    """A server exiting mid-request fails the request at once with InternalError and closes."""
    server = await spawn()
    watched = watch(server.transport, timeout=30)
    session = watched.session
    await session.initialize()
    start = time.monotonic()
    with pytest.raises(LspError) as caught:
        await session.request("hostile/crash")
    elapsed = time.monotonic() - start
    record_time(elapsed)
    cause = connection_error(caught.value)
    assert isinstance(cause, TransportClosedError)
    assert "server closed" in str(cause)
    assert elapsed < 2
    assert session.state is SessionState.CLOSED
    assert await server.wait() == 3
    # The server hung up unasked: on_error hears it once, with the requests' cause.
    assert watched.errors == [cause]
    await session.shutdown()
    await assert_nothing_left(session)


async def test_a_silent_server_meets_the_deadline(spawn: Spawn, record_time: Record) -> None:
    """A request never answered fails with RequestCancelled at its deadline; the session goes on."""
    server = await spawn()
    watched = watch(server.transport, timeout=0.2)
    session = watched.session
    await session.initialize()
    start = time.monotonic()
    with pytest.raises(LspError) as caught:
        await session.request("hostile/silent")
    elapsed = time.monotonic() - start
    record_time(elapsed)
    assert caught.value.code == ErrorCodes.RequestCancelled
    assert 0.2 <= elapsed < 2
    assert session.state is SessionState.READY
    assert await session.request("hostile/ping") == "pong"
    assert watched.errors == []
    await session.shutdown()
    await assert_nothing_left(session)


async def _initialize_fault(
    spawn: Spawn, record_time: Record, mode: str
) -> tuple[BaseException, ServerProcess]:
    """Start the server in ``mode``; check initialize() fails at once and closes everything.

    Returns the connection error (the cause of initialize()'s LspError) and the server.
    """
    server = await spawn(mode)
    watched = watch(server.transport, timeout=30)
    session = watched.session
    start = time.monotonic()
    with pytest.raises(LspError) as caught:
        await session.initialize()
    elapsed = time.monotonic() - start
    record_time(elapsed)
    cause = connection_error(caught.value)
    assert elapsed < 2
    assert session.state is SessionState.CLOSED
    assert watched.errors == [cause]
    await session.shutdown()
    await assert_nothing_left(session)
    return cause, server


async def test_an_exit_during_initialize_fails_the_handshake(
    spawn: Spawn, record_time: Record
) -> None:
    """A server dying on initialize fails initialize() with an LspError that has a cause."""
    cause, server = await _initialize_fault(spawn, record_time, "exit-on-initialize")
    assert isinstance(cause, TransportClosedError)
    assert "server closed" in str(cause)
    assert await server.wait() == 4


async def test_a_closed_stdout_fails_pending_requests_at_once(
    spawn: Spawn, record_time: Record
) -> None:
    """A server that closes stdout but runs on fails requests at once; aclose still reaps it."""
    server = await spawn(grace_period=0.3)
    watched = watch(server.transport, timeout=30)
    session = watched.session
    await session.initialize()
    start = time.monotonic()
    with pytest.raises(LspError) as caught:
        await session.request("hostile/close-stdout")
    elapsed = time.monotonic() - start
    record_time(elapsed)
    cause = connection_error(caught.value)
    assert elapsed < 2
    assert session.state is SessionState.CLOSED
    assert server.returncode is None  # still running
    await session.shutdown()
    start = time.monotonic()
    await server.aclose()
    assert time.monotonic() - start < 3
    assert server.returncode == -signal.SIGTERM
    assert watched.errors == [cause]
    await assert_nothing_left(session)


async def test_a_server_ignoring_exit_is_still_stopped(spawn: Spawn, record_time: Record) -> None:
    """A server ignoring exit, the end of stdin and SIGTERM is killed within the grace periods."""
    server = await spawn("ignore-exit", grace_period=0.3)
    watched = watch(server.transport, timeout=30)
    session = watched.session
    await session.initialize()
    await session.shutdown()
    assert session.state is SessionState.CLOSED
    start = time.monotonic()
    await server.aclose()
    elapsed = time.monotonic() - start
    record_time(elapsed)
    # Three grace periods: after stdin ends, after SIGTERM, after SIGKILL (never reached).
    assert elapsed < 0.3 * 3 + 1
    assert server.returncode == -signal.SIGKILL
    assert watched.errors == []
    await assert_nothing_left(session)


# -- odd but valid output -------------------------------------------------------------------


async def test_a_stderr_flood_does_not_block(spawn: Spawn, record_time: Record) -> None:
    """Megabytes of stderr neither block the server nor grow the kept lines past their bound."""
    server = await spawn()
    watched = watch(server.transport, timeout=20)
    session = watched.session
    await session.initialize()
    start = time.monotonic()
    assert await session.request("hostile/stderr", {"kib": 4096}) == "done"
    elapsed = time.monotonic() - start
    record_time(elapsed)
    assert elapsed < 10
    assert 0 < len(server.stderr_lines) <= 1000
    assert watched.errors == []
    await session.shutdown()
    await assert_nothing_left(session)


async def test_content_type_headers_are_read(spawn: Spawn, record_time: Record) -> None:
    """Frames with a Content-Type header (first, in lower case) work like any other."""
    server = await spawn("content-type")
    watched = watch(server.transport, timeout=5)
    session = watched.session
    start = time.monotonic()
    await session.initialize()
    assert await session.request("hostile/ping") == "pong"
    record_time(time.monotonic() - start)
    assert session.state is SessionState.READY
    assert watched.errors == []
    await session.shutdown()
    await assert_nothing_left(session)


async def test_one_byte_per_10_ms_still_works(spawn: Spawn, record_time: Record) -> None:
    """An answer dribbled out one byte at a time still arrives whole."""
    server = await spawn()
    watched = watch(server.transport, timeout=10)
    session = watched.session
    await session.initialize()
    start = time.monotonic()
    assert await session.request("hostile/slow", {"echo": "é"}) == "é"
    elapsed = time.monotonic() - start
    record_time(elapsed)
    assert elapsed < 5
    assert watched.errors == []
    await session.shutdown()
    await assert_nothing_left(session)


async def test_a_burst_of_notifications_arrives_whole_and_in_order(
    spawn: Spawn, record_time: Record
) -> None:
    """100,000 notifications reach the listener, all of them, in order, before the answer after."""
    server = await spawn()
    watched = watch(server.transport, timeout=30)
    session = watched.session
    await session.initialize()
    seen: list[int] = []
    session.on_notification("hostile/tick", lambda params: seen.append(params["n"]))
    start = time.monotonic()
    assert await session.request("hostile/burst", {"count": 100_000}) == "done"
    elapsed = time.monotonic() - start
    record_time(elapsed)
    assert seen == list(range(100_000))
    assert elapsed < 20
    assert watched.errors == []
    await session.shutdown()
    await assert_nothing_left(session)


# -- unreadable frames: the transport closes with FramingError --------------------------------


async def _framing_fault(
    spawn: Spawn, record_time: Record, method: str, **options: Any
) -> FramingError:
    """Ask for ``method``; check the fault closes everything; return the FramingError."""
    server = await spawn(**options)
    watched = watch(server.transport, timeout=30)
    session = watched.session
    await session.initialize()
    start = time.monotonic()
    with pytest.raises(LspError) as caught:
        await session.request(method)
    elapsed = time.monotonic() - start
    record_time(elapsed)
    cause = connection_error(caught.value)
    assert isinstance(cause, FramingError)
    assert elapsed < 2
    assert session.state is SessionState.CLOSED
    assert watched.errors == [cause]
    with pytest.raises(LspError):
        await session.request("hostile/ping")
    await session.shutdown()
    await assert_nothing_left(session)
    return cause


async def test_a_log_line_between_frames_closes_with_framing_error(
    spawn: Spawn, record_time: Record
) -> None:
    """A log line on stdout between frames fails the request and closes, quoting the line."""
    cause = await _framing_fault(spawn, record_time, "hostile/log")
    assert "INFO: indexing" in str(cause)


async def test_a_log_line_before_the_first_frame_fails_initialize(
    spawn: Spawn, record_time: Record
) -> None:
    """A banner on stdout before any frame fails initialize() with a FramingError cause."""
    cause, _ = await _initialize_fault(spawn, record_time, "log-before")
    assert isinstance(cause, FramingError)
    assert "Starting the hostile server" in str(cause)


async def test_a_frame_over_the_size_cap_closes(spawn: Spawn, record_time: Record) -> None:
    """A frame larger than max_message_bytes closes the transport with a FramingError."""
    server = await spawn(max_message_bytes=64 * 1024)
    watched = watch(server.transport, timeout=30)
    session = watched.session
    await session.initialize()
    start = time.monotonic()
    with pytest.raises(LspError) as caught:
        await session.request("hostile/big", {"bytes": 100_000})
    elapsed = time.monotonic() - start
    record_time(elapsed)
    cause = connection_error(caught.value)
    assert isinstance(cause, FramingError)
    assert "over the limit" in str(cause)
    assert elapsed < 2
    assert session.state is SessionState.CLOSED
    assert watched.errors == [cause]
    await session.shutdown()
    await assert_nothing_left(session)


async def test_invalid_utf8_closes_with_framing_error(spawn: Spawn, record_time: Record) -> None:
    """A body that is not UTF-8 closes the transport with a FramingError."""
    cause = await _framing_fault(spawn, record_time, "hostile/invalid-utf8")
    assert "not UTF-8 JSON" in str(cause)


async def test_json_that_is_not_an_object_closes_with_framing_error(
    spawn: Spawn, record_time: Record
) -> None:
    """A body that is a JSON array closes the transport with a FramingError."""
    cause = await _framing_fault(spawn, record_time, "hostile/not-object")
    assert "array" in str(cause)


async def test_json_nested_100000_deep_closes_with_framing_error(
    spawn: Spawn, record_time: Record
) -> None:
    """Deep nesting is a FramingError from orjson's depth limit, never a RecursionError."""
    cause = await _framing_fault(spawn, record_time, "hostile/deep")
    assert isinstance(cause.__cause__, orjson.JSONDecodeError)
    assert "depth" in str(cause)


def test_the_decoder_refuses_deep_nesting_with_framing_error() -> None:
    """The decoder turns orjson's depth limit into FramingError, for arrays and objects alike."""
    for nested in (b"[" * DEEP + b"]" * DEEP, b'{"a":' * DEEP + b"1" + b"}" * DEEP):
        body = b'{"jsonrpc":"2.0","method":"m","params":' + nested + b"}"
        decoder = ContentLengthDecoder()
        with pytest.raises(FramingError) as caught:
            decoder.feed(raw_frame(body))
        assert isinstance(caught.value.__cause__, orjson.JSONDecodeError)
        assert not isinstance(caught.value.__cause__, RecursionError)
        assert decoder.failed


# -- odd answers and server requests (in-process, memory pair) --------------------------------


async def test_an_answer_to_an_unknown_id_is_reported(record_time: Record) -> None:
    """A response for an id never sent reaches on_error once; the session goes on."""
    watched, _ = memory_server()
    session = watched.session
    await session.initialize()
    start = time.monotonic()
    assert await session.request("hostile/unknown-id") == "done"
    record_time(time.monotonic() - start)
    assert len(watched.errors) == 1
    error = watched.errors[0]
    assert isinstance(error, LspError)
    assert error.code == ErrorCodes.InvalidRequest
    assert "987654321" in str(error)
    assert session.state is SessionState.READY
    assert await session.request("hostile/ping") == "pong"
    assert len(watched.errors) == 1
    await session.shutdown()
    await assert_nothing_left(session)


async def test_a_second_answer_is_reported(record_time: Record) -> None:
    """The first answer wins; the second reaches on_error once; the session goes on."""
    watched, _ = memory_server()
    session = watched.session
    await session.initialize()
    start = time.monotonic()
    assert await session.request("hostile/twice") == "first"
    assert await session.request("hostile/ping") == "pong"  # the second answer came before
    record_time(time.monotonic() - start)
    assert len(watched.errors) == 1
    error = watched.errors[0]
    assert isinstance(error, LspError)
    assert error.code == ErrorCodes.InvalidRequest
    assert session.state is SessionState.READY
    await session.shutdown()
    await assert_nothing_left(session)


@pytest.mark.parametrize("handled", [True, False], ids=["async-handler", "method-not-found"])
async def test_a_flood_of_server_requests_is_answered_once_each(
    handled: bool, record_time: Record
) -> None:
    """10,000 server requests each get exactly one answer, and nothing stays in progress."""
    watched, server = memory_server()
    session = watched.session
    in_flight: list[int] = []

    async def answer(params: Any, cancelled: asyncio.Event) -> int:
        in_flight.append(session._calls.running)
        await asyncio.sleep(0)
        return int(params["n"])

    if handled:
        session.on_request("hostile/question", answer)
    await session.initialize()
    start = time.monotonic()
    stats = await session.request(
        "hostile/requests", {"count": 10_000, "method": "hostile/question"}
    )
    elapsed = time.monotonic() - start
    record_time(elapsed)
    assert stats == {"sent": 10_000, "once": 10_000, "missing": 0, "twice_or_more": 0}
    assert elapsed < 20
    # Later duplicates would show here: one more round trip, then count again.
    assert await session.request("hostile/stats-now") == stats
    assert set(server.answers.values()) == {1}
    # Nothing kept per answered request: no growth beyond what is in progress.
    assert session._calls.running == 0
    if handled:
        assert len(in_flight) == 10_000
    assert watched.errors == []
    await session.shutdown()
    await assert_nothing_left(session)
