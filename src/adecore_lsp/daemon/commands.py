"""``adecore-lsp daemon start | run | stop | status``: the daemon's own commands.

They always run in the caller's process. Notes (a daemon already running, none to stop) go
to stderr; ``status`` writes to stdout and exits 0 whether a daemon runs or not; a runtime
folder that cannot be used is exit 2 with the reason.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from ..cli.status import FAILURE, OK
from .client import Connection, connect, start_daemon, status_of, stop_daemon
from .paths import LOG, SOCKET, runtime_folder, unusable
from .wire import VERSION

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

IDLE_TIMEOUT = 900.0
"""Seconds a workspace is kept after its last command, unless ``--idle-timeout`` says."""

NOT_RUNNING: dict[str, Any] = {
    "running": False,
    "pid": None,
    "version": None,
    "socket": None,
    "uptime_s": None,
    "memory_budget_mib": None,
    "rss_bytes": None,
    "workspaces": [],
}


def daemon_command(args: argparse.Namespace) -> int:
    """Run ``daemon ACTION``; its exit status."""
    folder = runtime_folder()
    problem = unusable(folder)
    if args.action == "status":
        return _status(folder if problem is None else None, args.format)
    if problem is not None:
        _say(f"error: {problem}")
        return FAILURE
    if args.action == "stop":
        return _stop(folder)
    if args.action == "start":
        return _start(folder, _options(args))
    return _run(folder, args)


def _options(args: argparse.Namespace) -> list[str]:
    """``start``'s options, passed on to the ``daemon run`` it starts."""
    options = []
    if args.idle_timeout is not None:
        options += ["--idle-timeout", repr(args.idle_timeout)]
    if args.memory_budget is not None:
        options += ["--memory-budget", str(args.memory_budget)]
    return options


def _start(folder: str, options: list[str]) -> int:
    connection = connect(folder)
    if connection is not None:
        if connection.version == VERSION:
            pid = _pid_of(connection)
            _say(f"a daemon is already running (pid {pid}, socket {os.path.join(folder, SOCKET)})")
            return OK
        _say(f"stopping the daemon of adecore-lsp {connection.version or '(unknown)'}")
        if not stop_daemon(connection, folder):
            _say("error: the daemon of another version did not stop; see its log")
            return FAILURE
    problem = start_daemon(folder, options)
    if problem is not None:
        _say(f"error: {problem}")
        return FAILURE
    return OK


def _run(folder: str, args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..cli.local import logging_for
    from .server import DaemonRunningError, memory_budget_default, run_daemon

    logging_for(args.debug)
    idle = args.idle_timeout if args.idle_timeout is not None else IDLE_TIMEOUT
    budget = (
        args.memory_budget * 2**20 if args.memory_budget is not None else memory_budget_default()
    )
    try:
        return run_daemon(Path(folder), idle, budget)
    except DaemonRunningError as error:
        _say(f"error: {error} (`adecore-lsp daemon stop` ends it)")
        return FAILURE
    except KeyboardInterrupt:
        return OK  # a second Ctrl-C while shutting down: the servers were already told


def _stop(folder: str) -> int:
    connection = connect(folder)
    if connection is None:
        _say("no daemon is running")
        return OK
    if not stop_daemon(connection, folder):
        _say(f"error: the daemon did not stop within the wait; see {os.path.join(folder, LOG)}")
        return FAILURE
    return OK


def _status(folder: str | None, format: str) -> int:
    status = dict(NOT_RUNNING)
    connection = connect(folder) if folder is not None else None
    if connection is not None:
        if connection.version == VERSION:
            try:
                status = status_of(connection)
            except (OSError, ValueError):
                pass
        else:
            status = {**NOT_RUNNING}
            _say(f"a daemon of adecore-lsp {connection.version} runs; this is {VERSION}")
        connection.close()
    if format == "json":
        sys.stdout.write(json.dumps(status, indent=2) + "\n")
    else:
        sys.stdout.write(_text(status))
    return OK


def _text(status: dict[str, Any]) -> str:
    if not status["running"]:
        return "no daemon is running\n"
    lines = [
        f"daemon {status['version']}: pid {status['pid']}, up {_duration(status['uptime_s'])}, "
        f"socket {status['socket']}",
        f"servers' memory {_mib(status['rss_bytes'])} of a budget of "
        f"{status['memory_budget_mib']} MiB",
    ]
    workspaces = status["workspaces"]
    if not workspaces:
        lines.append("no workspace held")
    for workspace in workspaces:
        lines.append(f"{workspace['root']} (last used {_duration(workspace['last_used_s'])} ago)")
        for server in workspace["servers"]:
            restarts = f", {server['restarts']} restarts" if server["restarts"] else ""
            lines.append(
                f"  {server['id']}: {server['state']}, pid {server['pid']}, "
                f"{_mib(server['rss_bytes'])}{restarts}"
            )
    return "\n".join(lines) + "\n"


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _mib(size: int | None) -> str:
    return "? MiB" if size is None else f"{size / 2**20:.0f} MiB"


def _pid_of(connection: Connection) -> object:
    try:
        return status_of(connection).get("pid")
    except (OSError, ValueError):
        return "?"
    finally:
        connection.close()


def _say(text: str) -> None:
    sys.stderr.write(f"adecore-lsp: {text}\n")
    sys.stderr.flush()
