"""The caller's side of the daemon: send a command, relay its output, end with its status.

Standard library only, and no more of the package than its version: a command sent to a
warm daemon costs the interpreter's start, a connection and the servers' own time.
:func:`run_in_daemon` answers ``None`` when the command is to run in the caller's own
process instead (``auto`` with no daemon running or one of another version; ``on`` when the
runtime folder cannot be used, said on stderr).

A daemon that died (killed, crashed, out of memory) leaves its socket behind: connecting is
refused, so the socket is removed and the process groups it recorded in ``servers.json``
that still run (the same start time) are killed, and the command goes on as if no daemon
ran. (Its watcher has ended them already, unless it was killed with the daemon.)
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import socket
import sys
import time
from collections.abc import Sequence

from .paths import LOG, SERVERS, SOCKET, lock_is_held, runtime_folder, unusable
from .wire import MAX_LINE, VERSION, decode, encode

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing on the client's path
if TYPE_CHECKING:
    from typing import Any

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

START_WAIT = 20.0
"""Seconds a started daemon may take to accept commands."""

STOP_WAIT = 30.0
"""Seconds a stopping daemon may take to end every server and exit."""


class Connection:
    """One connection to the daemon, its hello exchanged."""

    def __init__(self, sock: socket.socket, version: str) -> None:
        self.sock = sock
        self.version = version
        self._reader = sock.makefile("rb")

    def send(self, message: dict[str, Any]) -> None:
        self.sock.sendall(encode(message))

    def receive(self) -> dict[str, Any] | None:
        """The next message, or ``None`` when the daemon closed the connection."""
        line = self._reader.readline(MAX_LINE)
        return decode(line) if line else None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._reader.close()
            self.sock.close()


def connect(folder: str) -> Connection | None:
    """A connection to the running daemon, or ``None`` when none runs (a stale socket is
    cleaned up on the way)."""
    path = os.path.join(folder, SOCKET)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
    except FileNotFoundError:
        sock.close()
        return None
    except ConnectionRefusedError:
        sock.close()
        if not lock_is_held(folder):  # not a daemon about to listen: a dead one's socket
            clean_up_after_a_dead_daemon(folder)
        return None
    except OSError:
        sock.close()
        return None
    try:
        sock.sendall(encode({"hello": VERSION}))
        connection = Connection(sock, "")
        answer = connection.receive()
    except OSError:
        sock.close()
        return None
    if answer is None or not isinstance(answer.get("hello"), str):
        sock.close()
        return None
    connection.version = answer["hello"]
    return connection


def clean_up_after_a_dead_daemon(folder: str) -> None:
    """Remove a dead daemon's socket and kill the process groups of its servers that still
    run (a group is killed only if its leader has the start time recorded)."""
    from .groups import Group, end_groups  # only after a daemon died

    with contextlib.suppress(OSError):
        os.unlink(os.path.join(folder, SOCKET))
    try:
        with open(os.path.join(folder, SERVERS), encoding="utf-8") as file:
            recorded = json.load(file)
    except (OSError, ValueError):
        return
    groups: list[Group] = []
    for entry in recorded.get("groups", []) if isinstance(recorded, dict) else []:
        try:
            groups.append((int(entry["pgid"]), int(entry["start"])))
        except (KeyError, TypeError, ValueError):
            continue
    end_groups(groups, grace=0)  # SIGKILL at once: the command waits for nothing
    with contextlib.suppress(OSError):
        os.unlink(os.path.join(folder, SERVERS))


def start_daemon(folder: str, options: Sequence[str] = ()) -> str | None:
    """Start ``daemon run`` in the background (detached from the terminal, its own session,
    stdin from ``/dev/null``, its log in the runtime folder) and wait until it accepts
    commands; why it could not, or ``None``."""
    import subprocess

    try:
        descriptor = os.open(
            os.path.join(folder, LOG), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600
        )
        log = os.fdopen(descriptor, "ab")
    except OSError as error:
        return f"the daemon's log {os.path.join(folder, LOG)} cannot be written: {error.strerror}"
    with log:
        process = subprocess.Popen(
            [sys.executable, "-m", "adecore_lsp", "daemon", "run", *options],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            close_fds=True,
            cwd="/",
        )
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline:
        connection = connect(folder)
        if connection is not None:
            connection.close()
            return None
        if process.poll() is not None and not lock_is_held(folder):
            # (Another start's daemon holding the lock is about to accept: wait for it.)
            return f"the daemon exited at once: {_log_tail(folder)}"
        time.sleep(0.05)
    return f"the daemon did not accept commands within {START_WAIT:g} s: {_log_tail(folder)}"


def _log_tail(folder: str) -> str:
    try:
        with open(os.path.join(folder, LOG), encoding="utf-8", errors="replace") as file:
            lines = file.read().splitlines()
    except OSError:
        return "(no log)"
    return " / ".join(lines[-3:]) or "(an empty log)"


def stop_daemon(connection: Connection, folder: str) -> bool:
    """Ask the daemon to stop and wait until it has exited (every server down first);
    whether it did within ``STOP_WAIT`` seconds."""
    deadline = time.monotonic() + STOP_WAIT
    connection.sock.settimeout(STOP_WAIT)
    with contextlib.suppress(OSError, ValueError):
        connection.send({"stop": {}})
        while connection.receive() is not None:
            pass
    connection.close()
    while lock_is_held(folder):  # released when the daemon's process has ended
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def _say(text: str) -> None:
    sys.stderr.write(f"adecore-lsp: {text}\n")
    sys.stderr.flush()


def run_in_daemon(argv: Sequence[str], mode: str) -> int | None:
    """Run the command in the daemon (``mode``: ``auto`` or ``on``); its exit status, or
    ``None`` to run it in this process."""
    folder = runtime_folder()
    problem = unusable(folder)
    if problem is not None:
        if mode == "on":
            _say(f"warning: running without the daemon: {problem}")
        return None
    connection = connect(folder)
    if connection is not None and connection.version != VERSION:
        if mode != "on":
            connection.close()
            return None
        stop_daemon(connection, folder)  # another version's daemon: ours takes its place
        connection = None
    if connection is None:
        if mode != "on":
            return None
        problem = start_daemon(folder)
        connection = connect(folder) if problem is None else None
        if connection is None:
            _say(f"warning: running without the daemon: {problem or 'it did not answer'}")
            return None
    return relay(connection, argv)


def relay(connection: Connection, argv: Sequence[str]) -> int | None:
    """Send the command and write what it writes, until its exit status (``None`` when the
    daemon hands it back to run here). Ctrl-C sends a cancel (the daemon cancels the
    command and lives on); a second one leaves at once."""
    cancels = 0

    def interrupt(_number: int, _frame: object) -> None:
        nonlocal cancels
        cancels += 1
        if cancels > 1:
            raise KeyboardInterrupt
        with contextlib.suppress(OSError):
            connection.send({"cancel": True})

    previous = signal.signal(signal.SIGINT, interrupt)
    # The sets of files the command writes (the daemon tells each before it replaces a
    # file): what to look at on disk if the daemon goes away.
    sets: list[dict[str, Any]] = []
    try:
        connection.send(
            {
                "run": {
                    "argv": list(argv),
                    "cwd": os.getcwd(),
                    "env": _environment(),
                    "tty": {"out": _is_tty(sys.stdout), "err": _is_tty(sys.stderr)},
                }
            }
        )
        while True:
            message = connection.receive()
            if message is None:
                if sets:
                    from .after_loss import on_disk  # only now: what the sets left on disk

                    said, status = on_disk(sets, os.getcwd())
                    _say(said)
                    return status
                _say(
                    "error: the daemon went away during the command (see `adecore-lsp "
                    "daemon status`); run it again, or with --daemon off"
                )
                return 2
            if "writing" in message:
                sets.append(message["writing"])
            elif "out" in message:
                _write(sys.stdout, message["out"])
            elif "err" in message:
                _write(sys.stderr, message["err"])
            elif "exit" in message:
                return int(message["exit"])
            elif message.get("local"):
                return None  # a command the daemon does not run: this process runs it
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of our stdout went away (`... | head`): nothing more to say.
        with contextlib.suppress(OSError):
            connection.send({"cancel": True})
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as error:
        if error.errno == errno.EPIPE:
            return 0
        _say(f"error: the connection to the daemon failed: {error}")
        return 2
    finally:
        signal.signal(signal.SIGINT, previous)
        connection.close()


def _environment() -> dict[str, str]:
    """The caller's whole environment, with its terminal's width (progress bars are drawn
    in the daemon, whose stderr is a socket)."""
    env = dict(os.environ)
    if "COLUMNS" not in env:
        with contextlib.suppress(OSError, ValueError):
            env["COLUMNS"] = str(os.get_terminal_size(sys.stderr.fileno()).columns)
    return env


def status_of(connection: Connection) -> dict[str, Any]:
    """What the daemon holds (``daemon status``)."""
    connection.send({"status": {}})
    answer = connection.receive()
    if answer is None or not isinstance(answer.get("status"), dict):
        raise OSError("the daemon did not say its status")
    status: dict[str, Any] = answer["status"]
    return status


def _write(stream: Any, text: str) -> None:
    stream.write(text)
    stream.flush()


def _is_tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
