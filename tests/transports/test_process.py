"""Language servers as child processes: real Python programs from ``programs/`` as servers."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp.errors import FramingError, TransportClosedError, TransportError
from adecore_lsp.transports._stderr import StderrLines
from adecore_lsp.transports.base import LspTransport
from adecore_lsp.transports.pipes import READ_SIZE, PipeTransport
from adecore_lsp.transports.process import (
    ServerProcess,
    process_byte_stream,
    spawn_server,
)
from adecore_lsp.transports.stream import create_stream_transport

SERVER = Path(__file__).parent / "programs" / "server.py"
GUARD = 20.0
"""Seconds a test waits for an event before failing instead of hanging."""

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and groups")

Spawn = Callable[..., Awaitable[ServerProcess]]


def program(mode: str, *args: str) -> list[str]:
    """The command line of the fake server in ``mode`` (see programs/server.py)."""
    return [sys.executable, str(SERVER), mode, *args]


@pytest.fixture(autouse=True)
def no_asyncio_complaints(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Fail a test after which asyncio logged anything (a lost task exception, say)."""
    caplog.set_level(logging.WARNING, logger="asyncio")
    yield
    gc.collect()  # unclosed-transport ResourceWarnings surface here, as errors
    records = [*caplog.get_records("setup"), *caplog.get_records("call"), *caplog.records]
    assert [record.getMessage() for record in records if record.name == "asyncio"] == []


@pytest.fixture
async def spawn() -> AsyncIterator[Spawn]:
    """Start a program as a server; stop whatever is still running after the test."""
    started: list[ServerProcess] = []

    async def start(name: str, *args: str, **options: Any) -> ServerProcess:
        server = await spawn_server(program(name, *args), **options)
        started.append(server)
        return server

    yield start
    for server in started:
        await server.aclose(grace_period=0.5)


def closed(transport: LspTransport) -> asyncio.Future[BaseException | None]:
    """A future that resolves with the reason the transport closes."""
    future: asyncio.Future[BaseException | None] = asyncio.get_running_loop().create_future()

    def on_close(reason: BaseException | None) -> None:
        if not future.done():
            future.set_result(reason)

    transport.on_close(on_close)
    return future


def collect(transport: LspTransport, count: int) -> asyncio.Future[list[dict[str, Any]]]:
    """A future that resolves with the first ``count`` messages the transport delivers."""
    future: asyncio.Future[list[dict[str, Any]]] = asyncio.get_running_loop().create_future()
    got: list[dict[str, Any]] = []

    def on_message(message: dict[str, Any]) -> None:
        got.append(message)
        if len(got) == count and not future.done():
            future.set_result(got)

    transport.on_message(on_message)
    return future


async def stderr_line(server: ServerProcess, prefix: str) -> str:
    """Wait for the first stderr line that starts with ``prefix``."""
    for line in server.stderr_lines:
        if line.startswith(prefix):
            return line
    future: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def on_line(line: str) -> None:
        if line.startswith(prefix) and not future.done():
            future.set_result(line)

    with server.on_stderr(on_line):
        return await asyncio.wait_for(future, GUARD)


def gone(pid: int) -> bool:
    """Whether ``pid`` has exited (a zombie nobody reaped counts as exited)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rpartition(")")[2].split()[0] in ("Z", "X")


async def soon_gone(pid: int) -> bool:
    """Whether ``pid`` is gone within a second: a process that has closed its files may
    still be finishing its exit, and nothing tells us when a stranger's process is done."""
    deadline = time.monotonic() + 1.0
    while not gone(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


# Talking to a server.


async def test_echo_round_trips_ten_thousand_messages_one_of_them_20_mb(spawn: Spawn) -> None:
    """10,000 messages, one of them 20 MB, come back from an echo server intact and in order."""
    server = await spawn("echo")
    sent: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "method": "n", "params": {"n": n}} for n in range(10_000)
    ]
    sent[5000]["params"]["big"] = "\u00e9" * 10_000_000  # 20 MB of UTF-8
    arrived = collect(server.transport, len(sent))
    for message in sent:
        server.transport.send(message)
    assert await asyncio.wait_for(arrived, GUARD) == sent


async def test_stdout_is_read_64_kib_at_a_time(spawn: Spawn) -> None:
    """The stdout pipe of a spawned server reads READ_SIZE (64 KiB) at a time."""
    server = await spawn("echo")
    pipe = server._subprocess_transport.get_pipe_transport(1)
    if not hasattr(pipe, "max_size"):
        pytest.skip("this event loop's pipes have no read size to set")
    assert READ_SIZE == 64 * 1024
    assert getattr(pipe, "max_size", None) == READ_SIZE


async def test_a_log_line_on_stdout_closes_with_a_framing_error_quoting_it(spawn: Spawn) -> None:
    """A log line on stdout before the first frame closes the transport with a FramingError."""
    server = await spawn("banner")
    reason = await asyncio.wait_for(closed(server.transport), GUARD)
    assert isinstance(reason, FramingError)
    assert "Starting the example server v1.2" in str(reason)
    # Closing the transport ended the server's stdin, so it exits by itself.
    assert await asyncio.wait_for(server.wait(), GUARD) == 0


async def test_a_flood_on_stderr_never_blocks_the_server(spawn: Spawn) -> None:
    """5 MB on stderr before the answer never blocks the server; its lines are kept, bounded."""
    server = await spawn("stderr_flood")
    heard: list[str] = []
    server.on_stderr(heard.append)
    answer = collect(server.transport, 1)
    server.transport.send({"jsonrpc": "2.0", "id": 1, "method": "hello"})
    assert await asyncio.wait_for(answer, GUARD) == [{"jsonrpc": "2.0", "id": 1, "method": "hello"}]
    await stderr_line(server, "last line")
    assert len(heard) == 40_000 + 16 + 1  # the 1 MiB line arrives as 16 pieces of 64 KiB
    assert heard[0] == "log line 000000 " + "x" * 80  # no "\r\n"
    assert heard[40_000:40_016] == ["y" * 65536] * 16
    assert heard[-1] == "last line \u00e9 \ufffd"
    lines = server.stderr_lines
    assert len(lines) == 1000
    assert list(lines) == heard[-1000:]


async def test_a_server_exiting_mid_frame_closes_with_an_error(spawn: Spawn) -> None:
    """stdout ending inside a frame closes with a FramingError; the exit code stays available."""
    server = await spawn("exit_mid_frame")
    reason = await asyncio.wait_for(closed(server.transport), GUARD)
    assert isinstance(reason, FramingError)
    assert "inside a frame" in str(reason)
    assert await asyncio.wait_for(server.wait(), GUARD) == 3
    assert server.returncode == 3


async def test_a_server_exiting_cleanly_closes_with_none(spawn: Spawn) -> None:
    """A server that answers and exits closes the transport with None, and wait() gives its code."""
    server = await spawn("echo", "1")
    answer = collect(server.transport, 1)
    done = closed(server.transport)
    server.transport.send({"jsonrpc": "2.0", "id": 7, "method": "once"})
    assert await asyncio.wait_for(answer, GUARD) == [{"jsonrpc": "2.0", "id": 7, "method": "once"}]
    assert await asyncio.wait_for(done, GUARD) is None
    assert await asyncio.wait_for(server.wait(), GUARD) == 0


class _CountedWrites:
    """Counts the writes to a server's stdin pipe (each is one system call or more)."""

    def __init__(self, transport: LspTransport) -> None:
        assert isinstance(transport, PipeTransport)
        stdin = transport._stdin
        assert stdin is not None
        self.count = 0
        write = stdin.write

        def counted(data: bytes | bytearray | memoryview) -> None:
            self.count += 1
            write(data)

        stdin.write = counted  # type: ignore[method-assign]


async def test_held_writes_send_a_thousand_messages_in_one_write_in_order(spawn: Spawn) -> None:
    """Within held_writes the messages go out together when the block ends, in order, and
    what is sent after it follows them."""
    server = await spawn("echo")
    transport = server.transport
    assert isinstance(transport, PipeTransport)
    writes = _CountedWrites(transport)
    sent = [{"jsonrpc": "2.0", "method": "n", "params": {"n": n}} for n in range(1_001)]
    arrived = collect(transport, len(sent))
    with transport.held_writes():
        for message in sent[:1_000]:
            transport.send(message)
        assert writes.count == 0
    assert writes.count == 1
    transport.send(sent[1_000])
    assert await asyncio.wait_for(arrived, GUARD) == sent


async def test_held_writes_go_out_in_pieces_of_a_bounded_size(spawn: Spawn) -> None:
    """Megabytes of held messages (a batch of documents) go out a few hundred KiB at a time
    rather than all joined at the end: a few writes, never a copy of everything at once."""
    server = await spawn("echo")
    transport = server.transport
    assert isinstance(transport, PipeTransport)
    writes = _CountedWrites(transport)
    sent = [
        {"jsonrpc": "2.0", "method": "n", "params": {"n": n, "text": "x" * 10_000}}
        for n in range(200)
    ]
    arrived = collect(transport, len(sent))
    with transport.held_writes():
        for message in sent:
            transport.send(message)
        pieces = writes.count
    assert 5 <= pieces <= 10  # 2 MB in pieces of HELD_BYTES (256 KiB)
    assert await asyncio.wait_for(arrived, GUARD) == sent


async def test_a_block_holding_writes_that_waits_for_an_answer_gets_it(spawn: Spawn) -> None:
    """Held messages go out at the next turn of the loop should the block wait: a request
    inside it is answered, not kept back until the block ends."""
    server = await spawn("echo")
    transport = server.transport
    assert isinstance(transport, PipeTransport)
    with transport.held_writes(), transport.held_writes():  # holds nest
        answer = collect(transport, 1)
        transport.send({"jsonrpc": "2.0", "id": 1, "method": "ask"})
        assert await asyncio.wait_for(answer, GUARD) == [
            {"jsonrpc": "2.0", "id": 1, "method": "ask"}
        ]


async def test_held_writes_to_a_server_that_exited_close_the_transport(spawn: Spawn) -> None:
    """A hold whose server is gone loses nothing silently: the transport closes with why."""
    server = await spawn("close_stdin")
    await stderr_line(server, "ready")
    transport = server.transport
    assert isinstance(transport, PipeTransport)
    done = closed(transport)
    for _ in range(10):
        if done.done():
            break
        with transport.held_writes():
            transport.send({"jsonrpc": "2.0", "method": "lost"})
            transport.send({"jsonrpc": "2.0", "method": "lost too"})
        await asyncio.sleep(0.01)
    reason = await asyncio.wait_for(done, GUARD)
    assert isinstance(reason, TransportError)
    assert "write" in str(reason)
    await server.aclose(grace_period=0.05)


async def test_a_write_to_a_closed_stdin_closes_the_transport_cleanly(spawn: Spawn) -> None:
    """A write to a server that closed its stdin closes the transport with a TransportError."""
    server = await spawn("close_stdin")
    await stderr_line(server, "ready")
    done = closed(server.transport)
    for _ in range(10):  # asyncio itself would log a warning after five writes to a lost pipe
        if done.done():
            break
        server.transport.send({"jsonrpc": "2.0", "method": "lost"})
    reason = await asyncio.wait_for(done, GUARD)
    assert isinstance(reason, TransportError)
    assert not isinstance(reason, FramingError)
    assert "write" in str(reason)
    with pytest.raises(TransportClosedError):
        server.transport.send({"jsonrpc": "2.0", "method": "again"})
    await server.aclose(grace_period=0.05)


async def test_send_to_a_server_that_exited_raises(spawn: Spawn) -> None:
    """Once a server has exited and its stdout ended, send raises TransportClosedError."""
    server = await spawn("echo", "0")
    assert await asyncio.wait_for(closed(server.transport), GUARD) is None
    assert await asyncio.wait_for(server.wait(), GUARD) == 0
    with pytest.raises(TransportClosedError):
        server.transport.send({"jsonrpc": "2.0", "method": "late"})


# Starting.


async def test_a_missing_command_raises_an_error_naming_it() -> None:
    """A program that does not exist raises FileNotFoundError with its name in the message."""
    with pytest.raises(FileNotFoundError, match="no-such-language-server-xyz") as caught:
        await spawn_server(["no-such-language-server-xyz", "--stdio"])
    assert caught.value.filename == "no-such-language-server-xyz"


async def test_a_command_that_is_not_executable_raises_an_error_naming_it(tmp_path: Path) -> None:
    """A file without execute permission raises PermissionError naming it."""
    script = tmp_path / "server.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o644)
    if os.access(script, os.X_OK):
        pytest.skip("running with privileges that ignore file modes")
    with pytest.raises(PermissionError, match=r"server\.sh"):
        await spawn_server([str(script)])


async def test_a_missing_cwd_is_reported_as_such(tmp_path: Path) -> None:
    """A working directory that does not exist is named in the error, not the program."""
    missing = tmp_path / "nowhere"
    with pytest.raises(FileNotFoundError) as caught:
        await spawn_server(program("echo"), cwd=missing)
    assert os.fspath(caught.value.filename) == str(missing)


async def test_a_command_string_is_refused() -> None:
    """One string instead of a list of arguments is a TypeError, since no shell is ever used."""
    with pytest.raises(TypeError, match="sequence"):
        await spawn_server("pylsp --verbose")
    with pytest.raises(ValueError, match="program"):
        await spawn_server([])


async def test_cwd_and_env_reach_the_server(tmp_path: Path) -> None:
    """The server runs in ``cwd`` with exactly the environment ``env``."""
    script = "import os, sys; sys.stderr.write(os.getcwd() + ' ' + os.environ['MARK'] + '\\n')"
    env = {"MARK": "m4rk", "PATH": os.defpath}
    async with await spawn_server([sys.executable, "-c", script], cwd=tmp_path, env=env) as server:
        assert await asyncio.wait_for(server.wait(), GUARD) == 0
    assert server.stderr_lines == (f"{tmp_path.resolve()} m4rk",)


# Stopping.


async def test_aclose_lets_a_polite_server_exit_on_eof(spawn: Spawn) -> None:
    """aclose ends stdin; a server that exits on that needs no signal and exits with 0."""
    server = await spawn("echo")
    done = closed(server.transport)
    await asyncio.wait_for(server.aclose(), GUARD)
    assert server.returncode == 0
    assert done.result() is None


async def test_aclose_terminates_a_server_that_ignores_eof(spawn: Spawn) -> None:
    """A server that ignores the end of stdin gets SIGTERM after the grace period."""
    server = await spawn("stubborn", "term", grace_period=0.3)
    await stderr_line(server, "ready")
    await asyncio.wait_for(server.aclose(), GUARD)
    assert server.returncode == -signal.SIGTERM


async def test_aclose_kills_a_server_that_ignores_sigterm(spawn: Spawn) -> None:
    """A server ignoring the end of stdin and SIGTERM is killed within twice the grace period."""
    server = await spawn("stubborn", grace_period=0.1)
    await stderr_line(server, "ready")
    started = time.monotonic()
    await asyncio.wait_for(server.aclose(), GUARD)
    assert server.returncode == -signal.SIGKILL
    assert time.monotonic() - started < 2.0


async def test_aclose_grace_period_overrides_the_default(spawn: Spawn) -> None:
    """aclose(grace_period=...) replaces the grace period given to spawn_server."""
    server = await spawn("stubborn", grace_period=30.0)
    await stderr_line(server, "ready")
    started = time.monotonic()
    await asyncio.wait_for(server.aclose(grace_period=0.1), GUARD)
    assert server.returncode == -signal.SIGKILL
    assert time.monotonic() - started < 2.0


async def test_aclose_stops_a_grandchild_that_holds_stdout(spawn: Spawn) -> None:
    """A child the server started, still holding its stdout after it exited, is stopped too."""
    if not Path("/proc").is_dir():
        pytest.skip("needs /proc to see the grandchild")
    server = await spawn("forks", grace_period=0.3)
    grandchild = int((await stderr_line(server, "grandchild ")).split()[1])
    assert not gone(grandchild)
    started = time.monotonic()
    await asyncio.wait_for(server.aclose(), GUARD)
    assert server.returncode == 0
    assert time.monotonic() - started < 3.0
    assert await soon_gone(grandchild)


async def test_aclose_reaps_the_process(spawn: Spawn) -> None:
    """After aclose the process is reaped: returncode is set and no zombie is left."""
    server = await spawn("stubborn", "term", grace_period=0.1)
    await stderr_line(server, "ready")
    await server.aclose()
    assert server.returncode is not None
    with pytest.raises(ChildProcessError):
        os.waitpid(server.pid, os.WNOHANG)


async def test_concurrent_aclose_calls_share_one_shutdown(spawn: Spawn) -> None:
    """Two aclose calls share one shutdown, which goes on when one caller is cancelled."""
    server = await spawn("stubborn", grace_period=0.1)
    await stderr_line(server, "ready")
    first = asyncio.ensure_future(server.aclose())
    second = asyncio.ensure_future(server.aclose())
    await asyncio.sleep(0)
    first.cancel()
    await asyncio.wait_for(second, GUARD)
    assert first.cancelled()
    assert server.returncode == -signal.SIGKILL
    await server.aclose()  # and a later call returns at once


async def test_async_with_closes_the_server() -> None:
    """Leaving ``async with`` stops the server and closes its transport."""
    async with await spawn_server(program("echo")) as server:
        done = closed(server.transport)
        answer = collect(server.transport, 1)
        server.transport.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        await asyncio.wait_for(answer, GUARD)
    assert server.returncode == 0
    assert done.result() is None


async def test_a_disposed_stderr_listener_hears_nothing_more(spawn: Spawn) -> None:
    """Disposing an on_stderr listener stops it."""
    server = await spawn("stderr_flood")
    heard: list[str] = []
    server.on_stderr(heard.append).dispose()
    answer = collect(server.transport, 1)
    server.transport.send({"jsonrpc": "2.0", "id": 1, "method": "hello"})
    await asyncio.wait_for(answer, GUARD)
    await stderr_line(server, "last line")
    assert heard == []


# process_byte_stream over a process the application started.


async def test_process_byte_stream_round_trips_messages() -> None:
    """A process from create_subprocess_exec carries messages both ways, then exits on close."""
    process = await asyncio.create_subprocess_exec(
        *program("echo"), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    transport = create_stream_transport(process_byte_stream(process))
    sent = [{"jsonrpc": "2.0", "id": n, "method": "m", "params": "p" * n * 200} for n in range(200)]
    arrived = collect(transport, len(sent))
    for message in sent:
        transport.send(message)
    assert await asyncio.wait_for(arrived, GUARD) == sent
    transport.close()
    assert await asyncio.wait_for(process.wait(), GUARD) == 0


async def test_process_byte_stream_reports_the_end_of_stdout() -> None:
    """A process that exits mid-frame closes the transport with a FramingError."""
    process = await asyncio.create_subprocess_exec(
        *program("exit_mid_frame"), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    transport = create_stream_transport(process_byte_stream(process))
    reason = await asyncio.wait_for(closed(transport), GUARD)
    assert isinstance(reason, FramingError)
    assert await asyncio.wait_for(process.wait(), GUARD) == 3


async def test_process_byte_stream_write_to_a_closed_stdin_closes_cleanly() -> None:
    """With create_subprocess_exec too, a write to a closed stdin closes with a TransportError."""
    process = await asyncio.create_subprocess_exec(
        *program("close_stdin"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    transport = create_stream_transport(process_byte_stream(process))
    assert await asyncio.wait_for(process.stderr.readline(), GUARD) == b"ready\n"
    done = closed(transport)
    transport.send({"jsonrpc": "2.0", "method": "lost"})
    reason = await asyncio.wait_for(done, GUARD)
    assert isinstance(reason, TransportError)
    assert "write" in str(reason)
    process.kill()
    await asyncio.wait_for(process.wait(), GUARD)


async def test_process_byte_stream_needs_pipes() -> None:
    """A process without stdin and stdout pipes is refused with a ValueError."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "pass", stdin=asyncio.subprocess.DEVNULL
    )
    with pytest.raises(ValueError, match="stdin=PIPE"):
        process_byte_stream(process)
    await process.wait()


# The transport of a spawned server, without a process.


def test_messages_before_the_first_listener_are_kept() -> None:
    """Messages decoded before anyone listens, and the end, reach the first listeners."""
    transport = PipeTransport(1024)
    transport._on_data(b'Content-Length: 2\r\n\r\n{}Content-Length: 8\r\n\r\n{"a"')
    transport._on_data(b": 1}")
    transport._stdout_closed(None)
    messages: list[object] = []
    ends: list[BaseException | None] = []
    transport.on_message(messages.append)
    transport.on_close(ends.append)
    assert messages == [{}, {"a": 1}]
    assert ends == [None]


def test_a_closed_transport_refuses_sends_and_drops_late_output() -> None:
    """send after close raises TransportClosedError; stdout that still comes is dropped."""
    transport = PipeTransport(1024)
    messages: list[object] = []
    transport.on_message(messages.append)
    transport.close()
    with pytest.raises(TransportClosedError):
        transport.send({"jsonrpc": "2.0", "method": "late"})
    transport._on_data(b"Content-Length: 2\r\n\r\n{}")
    assert messages == []


def test_the_end_of_stdout_inside_a_frame_is_a_framing_error() -> None:
    """stdout ending part-way through a frame closes with a FramingError that says so."""
    transport = PipeTransport(1024)
    ends: list[BaseException | None] = []
    transport.on_close(ends.append)
    transport._on_data(b"Content-Length: 10\r\n\r\n{")
    transport._stdout_closed(None)
    assert isinstance(ends[0], FramingError)
    assert "inside a frame" in str(ends[0])


# The stderr line splitter.


def test_stderr_lines_are_split_and_decoded() -> None:
    """Lines split across chunks are joined; CRLF and invalid UTF-8 are handled."""
    lines = StderrLines(10, 100)
    heard: list[str] = []
    lines.listeners.add(heard.append)
    lines.feed(b"one\r\ntw")
    lines.feed(b"o\n\nthree \xe2\x82")
    lines.feed(b"\xac \xff\nunfinished")
    assert heard == ["one", "two", "", "three \u20ac \ufffd"]
    lines.close()
    assert heard[-1] == "unfinished"
    assert list(lines.lines) == heard


def test_stderr_keeps_only_the_most_recent_lines() -> None:
    """Only the last ``max_lines`` lines are kept."""
    lines = StderrLines(3, 100)
    lines.feed(b"".join(b"%d\n" % n for n in range(10)))
    assert list(lines.lines) == ["7", "8", "9"]


def test_a_long_stderr_line_is_split_without_breaking_characters() -> None:
    """A line over the byte limit comes in pieces that each decode whole, newline or not."""
    lines = StderrLines(100, 10)
    text = "ab\u20ac\u20ac\u20ac\U0001f600cd"  # 2 + 9 + 4 + 2 bytes
    lines.feed(text.encode())  # no newline yet: held, then cut
    lines.feed(b"\n" + text.encode() + b"\n")
    pieces = list(lines.lines)
    assert all(len(piece.encode()) <= 10 for piece in pieces)
    assert "\ufffd" not in "".join(pieces)
    assert "".join(pieces) == text + text


async def test_a_relative_program_path_is_taken_from_here(tmp_path: Path) -> None:
    """With cwd set, a relative program path still means relative to the current directory."""
    here = Path.cwd()
    program = Path(sys.executable)
    try:
        relative = os.path.relpath(program, here)
    except ValueError:
        pytest.skip("the interpreter is on another drive")
    assert os.sep in relative
    async with await spawn_server([relative, "-c", "print('x')"], cwd=tmp_path) as server:
        assert await server.wait() == 0


@pytest.mark.parametrize("own_block", [False, True])
async def test_what_callers_send_after_answers_read_together_goes_out_in_one_write(
    spawn: Spawn, own_block: bool
) -> None:
    """Several answers in one read wake several callers in the next turn of the loop; the
    messages they send then go out together after them, in order: a write per read, not
    one per message. A caller that holds writes itself takes the hold over: nothing is
    lost or reordered, and its block's end writes what it held."""
    server = await spawn("echo")
    transport = server.transport
    assert isinstance(transport, PipeTransport)
    loop = asyncio.get_running_loop()
    first = [{"jsonrpc": "2.0", "id": n, "result": n} for n in range(50)]
    follow = [{"jsonrpc": "2.0", "id": 100 + n, "result": n} for n in range(50)]
    arrived = collect(transport, len(first) + len(follow))

    def send(message: dict[str, Any]) -> None:
        if not own_block:
            transport.send(message)
            return
        with transport.held_writes():
            transport.send(message)

    reads = [0]
    in_read = [False]

    def read_over() -> None:
        in_read[0] = False

    def answer(message: dict[str, Any]) -> None:
        if message["id"] < 100:  # as an awaiting caller does: in the next turn
            if not in_read[0]:  # the first answer of a read: the messages of one read
                in_read[0] = True  # are delivered in one call, before this callback
                reads[0] += 1
                loop.call_soon(read_over)
            loop.call_soon(send, follow[message["id"]])

    transport.on_message(answer)
    with transport.held_writes():  # the echo server reads them, and answers, at once
        for message in first:
            transport.send(message)
    writes = _CountedWrites(transport)
    assert await asyncio.wait_for(arrived, GUARD) == first + follow
    if not own_block:
        # One write per read that brought answers: the echo server answers in a few reads
        # on a quiet machine, in many on a loaded one.
        assert writes.count <= reads[0]


async def test_a_message_held_for_answers_goes_out_when_a_block_takes_the_hold_over(
    spawn: Spawn,
) -> None:
    """A caller woken by answers read together sends a request; another, in the same turn,
    opens a held_writes block that waits for that request's answer. The request goes out
    at the end of the turn all the same: no block keeps an answer from coming."""
    server = await spawn("echo")
    transport = server.transport
    assert isinstance(transport, PipeTransport)
    loop = asyncio.get_running_loop()
    answered: asyncio.Future[None] = loop.create_future()
    blocks: list[contextlib.AbstractContextManager[None]] = []

    def answer(message: dict[str, Any]) -> None:
        if message["id"] == 0:
            loop.call_soon(transport.send, {"jsonrpc": "2.0", "id": 7, "result": "asked"})
        elif message["id"] == 1:

            def open_block() -> None:
                block = transport.held_writes()
                block.__enter__()
                blocks.append(block)

            loop.call_soon(open_block)
        elif message["id"] == 7 and not answered.done():
            answered.set_result(None)

    transport.on_message(answer)
    with transport.held_writes():  # two answers come back in one read
        transport.send({"jsonrpc": "2.0", "id": 0, "result": 0})
        transport.send({"jsonrpc": "2.0", "id": 1, "result": 1})
    await asyncio.wait_for(answered, GUARD)
    assert len(blocks) == 1
    blocks[0].__exit__(None, None, None)
