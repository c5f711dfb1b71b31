"""The daemon's side of its watcher (:mod:`.watcher`): start it, tell it the servers'
process groups, look after it, and let it go at the daemon's own end.

The groups go to the watcher through a pipe (its stdin; the daemon holds the only write end,
which nothing the daemon starts inherits) and to ``servers.json``, the last resort of the next
command should the watcher be killed along with the daemon. They are written only when a
server starts or has ended, never per command. The watcher runs in a session of its own, so
that a Ctrl-C or a hang-up meant for the daemon's terminal does not reach it; the daemon
looks at it once a second, reaping it should it have ended (no zombie) and starting another.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from .groups import start_time
from .paths import SERVERS
from .watcher import GRACE, line

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

STOP_WAIT = GRACE + 3.0
"""Seconds a daemon that stops waits for its watcher to exit, before killing it."""

PROGRAM = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from adecore_lsp.daemon.watcher import main; sys.exit(main())"
)
"""The watcher's program: this copy of the package (its folder is the argument), isolated
from the environment's Python settings and site packages (``-I -S``)."""

PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])


class Watcher:
    """The daemon's handle on its watcher (see the module's docstring)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._process: subprocess.Popen[bytes] | None = None
        self._pipe: int | None = None
        self._pending = b""
        self._groups: list[int] = []
        self._starts: dict[int, int | None] = {}
        self._line = b"[]\n"
        self._said = False
        self._closed = False

    def start(self) -> None:
        """Start the watcher and tell it the groups recorded; a failure is said in the log,
        and :meth:`check` tries again."""
        read, write = os.pipe()  # neither end is inherited by what the daemon starts
        os.set_blocking(write, False)
        # The groups are in the pipe before the watcher runs: a daemon killed right after
        # starting it leaves it what to end.
        self._pipe = write
        self._pending = self._line
        self._flush()
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", PROGRAM, PACKAGE_PARENT],
                stdin=read,
                stdout=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
                cwd="/",
            )
        except OSError as error:
            self._close_pipe()
            self._say(f"the watcher of the servers did not start: {error}")
            return
        finally:
            os.close(read)
        self._said = False

    def record(self, groups: list[int]) -> None:
        """The servers' process groups now: told to the watcher and written to
        ``servers.json`` when they changed."""
        if groups == self._groups:
            return
        starts = {group: self._starts.get(group) or start_time(group) for group in groups}
        self._groups, self._starts = list(groups), starts
        self._line = line([(group, starts[group]) for group in groups])
        if self._pipe is not None:
            self._pending += self._line
            self._flush()
        path = self.folder / SERVERS
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        known = [{"pgid": group, "start": starts[group]} for group in groups if starts[group]]
        try:
            temporary.write_text(json.dumps({"groups": known}), encoding="utf-8")
            os.replace(temporary, path)
        except OSError:
            pass

    def check(self) -> None:
        """Start the watcher again if it ended (reaping it), else send what waits."""
        if self._closed:
            return
        process = self._process
        if process is None or process.poll() is not None:
            if process is not None:
                self._say(
                    f"the watcher of the servers (pid {process.pid}) ended "
                    f"({process.returncode}); starting another"
                )
            self._close_pipe()
            self.start()
        else:
            self._flush()

    async def aclose(self) -> None:
        """At the daemon's own end: tell the watcher the groups left (none, once the
        servers are shut down), close the pipe and wait for the watcher to exit."""
        self._closed = True
        deadline = time.monotonic() + STOP_WAIT
        while self._pending and self._pipe is not None and time.monotonic() < deadline:
            self._flush()
            if self._pending:
                await asyncio.sleep(0.01)
        self._close_pipe()
        process = self._process
        if process is None:
            return
        # No event tells when another process exits: look again every hundredth of a second.
        while process.poll() is None and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.01)
        if process.poll() is None:
            process.kill()
            process.wait()

    def _flush(self) -> None:
        while self._pending and self._pipe is not None:
            try:
                written = os.write(self._pipe, self._pending)
            except BlockingIOError:
                return  # the watcher reads it soon: sent at the next record or check
            except OSError:
                self._close_pipe()  # the watcher is gone: check starts another
                return
            self._pending = self._pending[written:]

    def _close_pipe(self) -> None:
        if self._pipe is not None:
            with contextlib.suppress(OSError):
                os.close(self._pipe)
            self._pipe = None
        self._pending = b""

    def _say(self, text: str) -> None:
        if not self._said:
            self._said = True
            sys.stderr.write(f"adecore-lsp daemon: {text}\n")
            sys.stderr.flush()
