"""Language servers as child processes: start one, talk to it over stdio, stop it for sure.

:func:`spawn_server` starts the server (never through a shell) and joins its stdin and stdout
to a framed transport. The data path is short: the server's stdout goes straight from the
event loop's pipe transport to the decoder, with no byte stream, no ``StreamReader``, no task
and no extra turn of the loop in between, and ``send`` writes to the stdin pipe itself.
Its stderr is read all the time, so a chatty server can never block on a full pipe, and is
kept as text lines, bounded in number and in length. :meth:`ServerProcess.aclose` ends stdin,
waits, then terminates and finally kills the server and everything left holding its pipes.

:func:`process_byte_stream` adapts a process the application started itself.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar, cast

from ..errors import TransportClosedError
from ..protocol.wire.framing import DEFAULT_MAX_MESSAGE_BYTES
from ..types import Disposable
from ._proc_groups import running_groups
from ._stderr import STDERR_MAX_LINE_BYTES, STDERR_MAX_LINES, StderrLines
from .base import ByteStream, Channel, LspTransport
from .pipes import (
    FIRST_BYTES,
    READ_SIZE,
    PipeTransport,
    read_failed,
    tune_read_pipes,
    widen_stdin,
    write_failed,
)

if sys.version_info >= (3, 11):
    from typing import Self
else:  # pragma: no cover - Python 3.10
    from typing_extensions import Self

__all__ = ["ServerProcess", "process_byte_stream", "spawn_server"]

T = TypeVar("T")

GRACE_PERIOD = 2.0
"""Seconds :meth:`ServerProcess.aclose` waits at each step before it escalates."""


class _ServerProtocol(asyncio.SubprocessProtocol):
    """Takes stdout straight to the byte stream and stderr to the line splitter."""

    def __init__(
        self, transport: PipeTransport, stderr: StderrLines, loop: asyncio.AbstractEventLoop
    ) -> None:
        # _as_asyncio_process reads these: the pipes belong to the transport.
        self.stdin: asyncio.StreamWriter | None = None
        self.stdout: asyncio.StreamReader | None = None
        self.stderr: asyncio.StreamReader | None = None
        self._pipes = transport
        self._stderr = stderr
        self._transport: asyncio.SubprocessTransport | None = None
        self._open_fds: set[int] = set()
        self._exited = False
        self.exited: asyncio.Future[int] = loop.create_future()
        """Resolves with the return code when the process has exited."""
        self.finished: asyncio.Future[None] = loop.create_future()
        """Resolves when the process has exited and every pipe is closed."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # Casts, not isinstance checks: other loops (uvloop) have their own transport classes.
        self._transport = subprocess_transport = cast(asyncio.SubprocessTransport, transport)
        for fd in (1, 2):
            if subprocess_transport.get_pipe_transport(fd) is not None:
                self._open_fds.add(fd)
        tune_read_pipes(subprocess_transport, self._pipes)
        widen_stdin(subprocess_transport)
        stdin = subprocess_transport.get_pipe_transport(0)
        self._pipes._attach(cast("asyncio.WriteTransport | None", stdin))

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            if not self._pipes.first_bytes:
                self._pipes.first_bytes = data[:FIRST_BYTES]
            self._pipes._on_data(data)
        else:
            self._stderr.feed(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 0:
            self._pipes._stdin_closed(exc)
            return
        if fd == 1:
            self._pipes._stdout_closed(exc)
        else:
            self._stderr.close()
        self._open_fds.discard(fd)
        self._maybe_close()

    def process_exited(self) -> None:
        self._exited = True
        returncode = None if self._transport is None else self._transport.get_returncode()
        if not self.exited.done() and returncode is not None:
            self.exited.set_result(returncode)
        self._maybe_close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.finished.done():
            self.finished.set_result(None)

    def _maybe_close(self) -> None:
        # As asyncio's own protocol does: once the process is gone and its output is read,
        # release the transport (and with it stdin), or it warns about being left open.
        if self._exited and not self._open_fds and self._transport is not None:
            self._transport.close()


def _as_asyncio_process(
    transport: asyncio.SubprocessTransport,
    protocol: _ServerProtocol,
    loop: asyncio.AbstractEventLoop,
) -> asyncio.subprocess.Process:
    """The ``asyncio.subprocess.Process`` of a process started with our own protocol.

    asyncio documents the class but not its constructor, which ``create_subprocess_exec``
    calls the same way: it reads the protocol's ``stdin``, ``stdout`` and ``stderr``
    (``None`` here, as the pipes are ours) and answers ``pid``, ``returncode``, the
    signals and ``wait()`` from the transport. It is built here only, so that a change in
    asyncio has one place to meet.
    """
    return asyncio.subprocess.Process(transport, protocol, loop)


class ServerProcess:
    """A language server running as a child process, joined to an :class:`LspTransport`.

    Made by :func:`spawn_server`. ``process.stdin``, ``process.stdout`` and
    ``process.stderr`` are ``None``: the pipes belong to :attr:`transport` and to the stderr
    reader. Use ``async with`` or call :meth:`aclose` to stop the server for sure.
    """

    def __init__(
        self,
        *,
        command: tuple[str, ...],
        process: asyncio.subprocess.Process,
        transport: LspTransport,
        subprocess_transport: asyncio.SubprocessTransport,
        protocol: _ServerProtocol,
        stderr: StderrLines,
        process_group: int | None,
        grace_period: float,
    ) -> None:
        self.command = command
        """The command line the server was started with."""
        self.process = process
        """The ``asyncio.subprocess.Process``: ``pid``, ``returncode``, ``send_signal``."""
        self.transport = transport
        """The server's stdin and stdout, as an :class:`LspTransport`."""
        self._subprocess_transport = subprocess_transport
        self._protocol = protocol
        self._stderr = stderr
        self._process_group = process_group
        self._grace_period = grace_period
        self._closing: asyncio.Task[None] | None = None
        self.group_ended = process_group is None
        """Whether the server's process group is known to be empty (or it has none)."""

    def __repr__(self) -> str:
        state = "running" if self.returncode is None else f"returncode={self.returncode}"
        return f"<ServerProcess pid={self.pid} {state} {list(self.command)!r}>"

    @property
    def pid(self) -> int:
        """The server's process id (also its process group id when it has its own group)."""
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        """The exit code once the server has exited (negative: killed by that signal)."""
        return self.process.returncode

    @property
    def stdout_start(self) -> bytes:
        """The first bytes the server wrote on stdout (up to 200): what to quote when it
        turns out not to speak LSP."""
        return getattr(self.transport, "first_bytes", b"")

    @property
    def process_group(self) -> int | None:
        """The id of the server's own process group (its pid), or ``None`` without one."""
        return self._process_group

    @property
    def stderr_lines(self) -> tuple[str, ...]:
        """A snapshot of the most recent stderr lines (decoded as UTF-8, no line ends)."""
        return tuple(self._stderr.lines)

    def on_stderr(self, listener: Callable[[str], object]) -> Disposable:
        """Hear each stderr line as it arrives (decoded as UTF-8, no line end)."""
        return self._stderr.listeners.add(listener)

    async def wait(self) -> int:
        """Wait until the server exits and return its exit code."""
        return await asyncio.shield(self._protocol.exited)

    async def aclose(self, *, grace_period: float | None = None) -> None:
        """Stop the server for sure; every call (also concurrent ones) shares one shutdown.

        Closes the transport, which ends stdin after what is already queued (many servers
        exit on that alone), and waits ``grace_period`` seconds (default: the one given to
        :func:`spawn_server`; ``0`` escalates at once). A server still running then gets
        SIGTERM, and after as long again SIGKILL.

        When the server has its own process group (the default), the signals go to the
        whole group, and whatever is left in it still holding the server's stdout or stderr
        after the server exited is stopped the same way: a wrapper that started the real
        server as its child cannot leave that child running. The process is reaped:
        ``returncode`` is set when this returns. Cancelling the caller does not stop the
        shutdown.
        """
        if self._closing is None:
            grace = self._grace_period if grace_period is None else grace_period
            self._closing = asyncio.ensure_future(self._shutdown(grace))
            self._closing.add_done_callback(_consume_result)
        await asyncio.shield(self._closing)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def _shutdown(self, grace: float) -> None:
        self.transport.close()
        protocol = self._protocol
        # If not even SIGKILL worked in time, go on: asyncio reaps the process when it exits.
        await self._escalate(protocol.exited, grace)
        # Whatever is left in the server's process group is a child it started (a wrapper's
        # real server, with pipes of its own or none): it ends with the server.
        await self.end_group(grace)
        if not await _wait(protocol.finished, grace):
            # The pipes are held by a process that left the group (setsid): stop waiting.
            self._subprocess_transport.close()
            await _wait(protocol.finished, grace)

    async def end_group(self, grace: float) -> None:
        """End every process left in the server's process group: SIGTERM, then SIGKILL
        after ``grace`` seconds; returns once the group is empty (or after SIGKILL's wait)."""
        group = self._process_group
        if group is None or self.group_ended:
            return
        for kill in (False, True):
            if not _group_alive(group):
                break
            _signal_group(group, signal.SIGKILL if kill else signal.SIGTERM)
            deadline = asyncio.get_running_loop().time() + grace
            # No event tells when another process exits: look again every GROUP_POLL.
            while _group_alive(group) and asyncio.get_running_loop().time() < deadline:  # noqa: ASYNC110
                await asyncio.sleep(GROUP_POLL)
        self.group_ended = not _group_alive(group)

    async def _escalate(self, done: asyncio.Future[Any], grace: float) -> bool:
        """Wait for ``done``; then SIGTERM and wait; then SIGKILL and wait. True if done."""
        if await _wait(done, grace):
            return True
        for kill in (False, True):
            self._signal(kill=kill)
            if await _wait(done, grace):
                return True
        return False

    def _signal(self, *, kill: bool) -> None:
        try:
            if self._process_group is not None:
                os.killpg(self._process_group, signal.SIGKILL if kill else signal.SIGTERM)
            elif kill:
                self.process.kill()
            else:
                self.process.terminate()
        except (ProcessLookupError, PermissionError):
            pass  # already gone


GROUP_POLL = 0.02
"""Seconds between looks at whether a process group has emptied."""


def _group_alive(group: int) -> bool:
    """Whether any process that has not exited is left in process group ``group`` (an exited
    one waiting to be reaped by init, a zombie, no longer runs)."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process took the id: not ours to signal, but alive
    return _runs_in_group(group)


def _runs_in_group(group: int) -> bool:
    """Whether a process of ``group`` runs, by ``/proc`` (Linux); ``True`` where it cannot
    tell, so that the caller signals and waits as if it did."""
    running = running_groups()
    return running is None or group in running


def _signal_group(group: int, number: int) -> None:
    try:
        os.killpg(group, number)
    except (ProcessLookupError, PermissionError):
        pass  # gone meanwhile


def kill_group_now(group: int) -> None:
    """SIGKILL process group ``group`` at once (the last resort at the program's exit)."""
    _signal_group(group, signal.SIGKILL)


async def _wait(future: asyncio.Future[Any], timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for ``future`` without cancelling it; True if done."""
    if not future.done():
        await asyncio.wait((future,), timeout=timeout)
    return future.done()


def _consume_result(task: asyncio.Task[None]) -> None:
    # The shutdown outlives a cancelled caller; its outcome must not be reported as lost.
    if not task.cancelled():
        task.exception()


async def spawn_server(
    command: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    stderr_max_lines: int = STDERR_MAX_LINES,
    grace_period: float = GRACE_PERIOD,
    start_new_session: bool = True,
    postpone_full_collections: bool = False,
) -> ServerProcess:
    """Start a language server and join its stdin and stdout to a stream transport.

    ``command`` is the program and its arguments; it runs directly, never through a shell.
    A relative program path (``.venv/bin/ruff``) is taken from the current directory, also
    when ``cwd`` names another one for the server.
    A program that does not exist or may not be run raises ``FileNotFoundError`` or
    ``PermissionError`` naming it. ``env``, when given, replaces the whole environment
    (pass ``{**os.environ, ...}`` to add to it).

    The transport closes when the server's stdout ends: with ``None``, or with an error when
    it ended inside a frame or a write to the server failed; ``returncode`` and
    :meth:`ServerProcess.wait` give the exit code. stderr is read all the time; its lines
    reach :meth:`ServerProcess.on_stderr` listeners and the last ``stderr_max_lines`` stay in
    :attr:`ServerProcess.stderr_lines`.

    Writes are buffered by the event loop without waiting: a server that stops reading
    makes the buffer grow, but nothing is lost or reordered.

    With ``start_new_session`` (the default on POSIX) the server gets its own session and
    process group, so :meth:`ServerProcess.aclose` can stop the children it starts too,
    and a Ctrl-C meant for the application does not reach the server.

    ``postpone_full_collections`` speeds up very large messages at the cost of touching the
    GC's settings while they are parsed; see :class:`~.stream.FramedTransport`.
    """
    if isinstance(command, (str, bytes)):
        raise TypeError("command must be a sequence of arguments, not one string (no shell)")
    argv = tuple(os.fspath(part) for part in command)
    if not argv:
        raise ValueError("command must name a program")
    if cwd is not None and os.sep in argv[0] and not os.path.isabs(argv[0]):
        # A relative program path means relative to here, not to the server's cwd.
        argv = (os.path.abspath(argv[0]), *argv[1:])  # noqa: ASYNC240 - only getcwd
    loop = asyncio.get_running_loop()
    pipes = PipeTransport(max_message_bytes, postpone_full_collections=postpone_full_collections)
    stderr = StderrLines(stderr_max_lines, STDERR_MAX_LINE_BYTES)
    protocol = _ServerProtocol(pipes, stderr, loop)
    new_session = start_new_session and hasattr(os, "killpg")
    try:
        transport, _ = await loop.subprocess_exec(
            lambda: protocol,
            *argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=new_session,
        )
    except OSError as error:
        if error.filename != argv[0]:
            raise  # not about the program (about cwd, for example)
        raise type(error)(
            error.errno, f"cannot start the language server {argv[0]!r}: {error.strerror}", argv[0]
        ) from None
    process = _as_asyncio_process(transport, protocol, loop)
    return ServerProcess(
        command=argv,
        process=process,
        transport=pipes,
        subprocess_transport=transport,
        protocol=protocol,
        stderr=stderr,
        process_group=process.pid if new_session else None,
        grace_period=grace_period,
    )


class _ProcessStream(Channel[bytes]):
    """A byte stream over a process started by ``asyncio.create_subprocess_exec``.

    Its backlog and once-only close are :class:`Channel`'s, as a transport's are.
    """

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        if process.stdin is None or process.stdout is None:
            raise ValueError(
                "process_byte_stream needs a process started with stdin=PIPE and stdout=PIPE"
            )
        super().__init__()
        self._stdin = process.stdin
        self._stdout = process.stdout
        self._stdin_error: BaseException | None = None
        loop = asyncio.get_running_loop()
        self._tasks = {loop.create_task(self._read()), loop.create_task(self._watch_stdin())}
        for task in self._tasks:
            task.add_done_callback(self._tasks.discard)

    def write(self, chunk: bytes) -> None:
        """Queue ``chunk`` for the process's stdin; a dead stdin ends the stream with an error."""
        if self._closed:
            raise TransportClosedError("the stream to the language server is closed")
        if self._stdin.is_closing():
            self._finish(write_failed(self._stdin_error))
            self.close()
            return
        self._stdin.write(chunk)

    def close(self) -> None:
        """End stdin (after what is queued) and stop delivering stdout; idempotent."""
        self._finish(None)
        self._backlog.clear()
        self._value_listeners.clear()
        if not self._stdin.is_closing():
            self._stdin.close()

    async def _read(self) -> None:
        # Keeps reading after close(), discarding, so the process never blocks on stdout.
        read = self._stdout.read
        try:
            while chunk := await read(READ_SIZE):
                if not self._closed:
                    self._receive(chunk)
        except Exception as error:
            self._finish(read_failed(error))
        else:
            self._finish(None)

    async def _watch_stdin(self) -> None:
        try:
            await self._stdin.wait_closed()
        except Exception as error:  # a broken pipe: the process is gone
            self._stdin_error = error
            self._finish(write_failed(error))
            self.close()

    def on_data(self, listener: Callable[[bytes], object]) -> Disposable:
        """Hear each chunk of stdout; the first listener also gets what came before it."""
        return self._listen(listener)


def process_byte_stream(process: asyncio.subprocess.Process) -> ByteStream:
    """Adapt a process from ``asyncio.create_subprocess_exec`` to a :class:`ByteStream`.

    The process needs ``stdin=PIPE`` and ``stdout=PIPE``; a running event loop reads its
    stdout from now on. Its stderr is left to the caller: pass ``stderr=DEVNULL`` or read
    it, since a server blocked on a full stderr pipe stops answering. Prefer
    :func:`spawn_server`, which does all of this, faster.
    """
    return _ProcessStream(process)
