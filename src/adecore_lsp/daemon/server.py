"""The daemon: a Unix domain socket that runs the callers' commands on warm workspaces.

Each connection is one caller (its user id checked with ``SO_PEERCRED``: any other user is
refused) asking one thing: a command, the status, or a stop. A command runs with the
caller's folder, arguments and whole environment through the same executor as in the
caller's own process, its stdout and stderr streamed back as they are written; a cancel
from the caller (Ctrl-C) cancels it, and the daemon lives on. SIGTERM, SIGINT, ``stop``
and a long enough idle shut every server down and remove the socket. Should the daemon be
killed outright, its watcher (:mod:`.watcher`, :mod:`.watching`) ends the servers.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import signal
import socket
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Any, TextIO, cast

from ..cli.executor import Invocation, execute
from ..cli.modes import parsed_mode
from ..cli.parser import parse
from ..cli.status import INTERRUPTED
from ..transports.process import ServerProcess
from ..workspace.servers.processes import STARTED, live_groups
from ..write_journal import WRITING
from .paths import SERVERS, SOCKET, hold_lock
from .pool import Pool
from .watching import Watcher
from .wire import MAX_LINE, VERSION, decode, encode

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

CHECK_EVERY = 1.0
"""Seconds between two looks at the idle workspaces and the servers' memory."""


class DaemonRunningError(RuntimeError):
    """Another daemon holds the runtime folder (running, or starting)."""


class Stream(io.TextIOBase):
    """A command's stdout or stderr in the daemon: each write goes to the caller as a
    message, in order; it is a terminal when the caller's is. Writes from another thread
    (a progress bar's refresh) are handed to the loop."""

    encoding = "utf-8"

    def __init__(
        self, writer: asyncio.StreamWriter, kind: str, tty: bool, loop: asyncio.AbstractEventLoop
    ) -> None:
        super().__init__()
        self._writer = writer
        self._kind = kind
        self._tty = tty
        self._loop = loop
        self._thread = threading.get_ident()

    def write(self, text: str) -> int:
        if text:
            self.send(text)
        return len(text)

    def send(self, value: Any) -> None:
        """Send ``value`` (JSON) as this stream's message."""
        data = encode({self._kind: value})
        if threading.get_ident() == self._thread:
            self._write(data)
        else:
            self._loop.call_soon_threadsafe(self._write, data)

    def _write(self, data: bytes) -> None:
        if not self._writer.is_closing():
            self._writer.write(data)

    def isatty(self) -> bool:
        return self._tty

    def writable(self) -> bool:
        return True


class Daemon:
    """The daemon of one runtime folder (see the module's docstring)."""

    def __init__(self, folder: Path, idle_timeout: float, memory_budget: int) -> None:
        self.folder = folder
        self.pool = Pool(folder, idle_timeout, memory_budget)
        self.watcher = Watcher(folder)
        self.idle_timeout = idle_timeout
        self.memory_budget = memory_budget
        self.started = time.monotonic()
        self._stopped = asyncio.Event()
        self._ended = asyncio.Event()
        self._commands: set[asyncio.Task[Any]] = set()

    async def run(self) -> int:
        """Serve until stopped; 0.

        Raises:
            DaemonRunningError: another daemon holds the runtime folder.
        """
        # Held until this process has ended (the system lets go of it then), so that
        # `daemon stop`, which waits for the lock, returns once the process is gone.
        if hold_lock(self.folder) is None:
            raise DaemonRunningError(f"a daemon already runs in {self.folder}")
        return await self._serve()

    async def _serve(self) -> int:
        loop = asyncio.get_running_loop()
        path = self.folder / SOCKET
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # a dead daemon's: we hold the lock, so none else runs
        old = os.umask(0o177)
        try:
            server = await asyncio.start_unix_server(
                self._connection, path=str(path), limit=MAX_LINE
            )
        finally:
            os.umask(old)
        os.chmod(path, 0o600)
        self.watcher.start()
        STARTED.append(self._server_started)
        for number in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(number, self._stopped.set)
        checker = asyncio.ensure_future(self._check())
        sys.stderr.write(f"adecore-lsp daemon {VERSION}: pid {os.getpid()}, socket {path}\n")
        sys.stderr.flush()
        try:
            await self._stopped.wait()
        finally:
            server.close()
            checker.cancel()
            for task in list(self._commands):
                task.cancel()
            await asyncio.gather(checker, *self._commands, return_exceptions=True)
            await self.pool.aclose()
            STARTED.remove(self._server_started)
            # Whatever did not end with its workspace, the watcher ends before it exits.
            self.watcher.record(live_groups())
            await self.watcher.aclose()
            self._ended.set()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.folder / SERVERS)
            for number in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(number)
        return 0

    def _server_started(self, _process: ServerProcess) -> None:
        """Record a new server's process group at once, for the watcher."""
        self.watcher.record(live_groups())

    async def _check(self) -> None:
        """Idle workspaces, the memory budget, the servers' process groups and the watcher,
        and the daemon's own idle end."""
        while True:
            await asyncio.sleep(CHECK_EVERY)
            await self.pool.check()
            self.watcher.record(live_groups())
            self.watcher.check()
            if not self._commands and self.pool.idle_for(time.monotonic()) >= self.idle_timeout:
                self._stopped.set()
                return

    # -- connections -------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            if not _same_user(writer):
                return
            hello = await _receive(reader)
            writer.write(encode({"hello": VERSION}))
            await writer.drain()
            if hello is None:
                return
            request = await _receive(reader)
            if request is None:
                return
            if hello.get("hello") != VERSION and "stop" not in request:
                return  # another version's client treats us as not running, but may stop us
            if "run" in request:
                await self._run(request["run"], reader, writer)
            elif "status" in request:
                writer.write(encode({"status": self.status()}))
            elif "stop" in request:
                writer.write(encode({"stopping": True}))
                await writer.drain()
                self._stopped.set()
                await self._wait_for_end()
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            with contextlib.suppress(ConnectionError, OSError):
                await writer.drain()
            writer.close()

    async def _wait_for_end(self) -> None:
        """Hold a ``stop`` connection open until every server is down (the caller waits
        for it to close)."""
        await self._ended.wait()

    async def _run(
        self, request: dict[str, Any], reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        loop = asyncio.get_running_loop()
        tty = request.get("tty") or {}
        out = Stream(writer, "out", bool(tty.get("out")), loop)
        err = Stream(writer, "err", bool(tty.get("err")), loop)
        env = dict(request["env"])
        # What the parser says of a mistake goes to the caller, as in its own process.
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            args = parse(list(request["argv"]))
        if isinstance(args, int):
            writer.write(encode({"exit": args}))
            return
        if parsed_mode(args, env) == "off":
            # (--trace spelled in a way the caller's early look missed): run it there.
            writer.write(encode({"local": True}))
            return
        invocation = Invocation(Path(request["cwd"]), env, cast(TextIO, out), cast(TextIO, err))
        # Each set the command writes is told to the caller before a file is replaced: if
        # this process dies, the caller says what is on disk (daemon/after_loss.py).
        told = WRITING.set(Stream(writer, "writing", False, loop).send)
        try:
            task = asyncio.ensure_future(execute(args, invocation, self.pool.workspace))
        finally:
            WRITING.reset(told)
        self._commands.add(task)
        listening = asyncio.ensure_future(_cancels(reader, task))
        try:
            status = await task
        except asyncio.CancelledError:
            if not task.cancelled():
                raise
            err.write("adecore-lsp: error: interrupted\n")
            status = INTERRUPTED
        finally:
            self._commands.discard(task)
            listening.cancel()
        writer.write(encode({"exit": status}))

    def status(self) -> dict[str, Any]:
        """What ``daemon status --format json`` shows of a running daemon."""
        return {
            "running": True,
            "pid": os.getpid(),
            "version": VERSION,
            "socket": str(self.folder / SOCKET),
            "uptime_s": round(time.monotonic() - self.started, 3),
            "memory_budget_mib": self.memory_budget // 2**20,
            "rss_bytes": self.pool.rss_bytes(),
            "workspaces": self.pool.status(),
        }


async def _receive(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    line = await reader.readline()
    return decode(line) if line else None


async def _cancels(reader: asyncio.StreamReader, task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` when the caller says so, or goes away."""
    while True:
        try:
            message = await _receive(reader)
        except (ConnectionError, ValueError, asyncio.LimitOverrunError):
            message = None
        if message is None or message.get("cancel"):
            task.cancel()
            return


def _same_user(writer: asyncio.StreamWriter) -> bool:
    """Whether the peer runs as this user (``SO_PEERCRED``; refused where it cannot tell)."""
    sock: socket.socket | None = writer.get_extra_info("socket")
    peercred = getattr(socket, "SO_PEERCRED", None)
    if sock is None or peercred is None:
        return False
    try:
        data = sock.getsockopt(socket.SOL_SOCKET, peercred, struct.calcsize("3i"))
    except OSError:
        return False
    _pid, uid, _gid = struct.unpack("3i", data)
    return bool(uid == os.getuid())


def memory_budget_default() -> int:
    """A quarter of the machine's memory (of the cgroup's limit when one is set), in bytes."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for limit in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(limit).read_text().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < total:
            total = int(text)
            break
    return total // 4


def run_daemon(folder: Path, idle_timeout: float, memory_budget: int) -> int:
    """Run the daemon in this process until stopped; its exit status."""
    return asyncio.run(Daemon(folder, idle_timeout, memory_budget).run())
