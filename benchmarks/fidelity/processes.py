"""The processes of a subject, read from ``/proc``, and the one kill the harness does: the
language server below a subject, found by its program, never by a word of a command line.

A process is the language server when its executable is the server's program (``argv[0]``)
or its script is (``argv[1]``: a ``python`` or ``node`` script, a console script run by its
interpreter). A peer whose own arguments name the server (agent-lsp is started as
``agent-lsp python:/path/basedpyright-langserver,--stdio``) is not the server, and is left
alone; after the kill the subject's own processes are checked to be alive.
"""

from __future__ import annotations

import contextlib
import os
import signal
from dataclasses import dataclass
from pathlib import Path

from fidelity.subject import Server

INTERPRETERS = ("python", "node", "bun", "deno")
"""Programs that run a script named by their first argument."""


class KillFailed(Exception):
    """The kill was not what the scenario needs: no server found, or the subject's own process
    did not outlive it (a failure of the harness, never a score of the subject)."""


class NothingToKill(KillFailed):
    """No process below the subject runs the server (it has not started one, or it runs
    another): the scenario cannot be asked of it."""


@dataclass(frozen=True)
class Process:
    """One process as ``/proc`` shows it."""

    pid: int
    parent: int
    argv: tuple[str, ...]
    cwd: str


def table() -> dict[int, Process]:
    """Every process readable now, by pid."""
    found: dict[int, Process] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            raw = (entry / "cmdline").read_bytes()
            argv = tuple(part.decode(errors="replace") for part in raw.split(b"\0")[:-1])
            cwd = ""
            with contextlib.suppress(OSError):
                cwd = os.readlink(entry / "cwd")
            found[int(entry.name)] = Process(int(entry.name), int(stat[1]), argv, cwd)
    return found


def descendants(pids: list[int], processes: dict[int, Process] | None = None) -> list[int]:
    """Every process below ``pids``, parents before their children."""
    processes = table() if processes is None else processes
    children: dict[int, list[int]] = {}
    for process in processes.values():
        children.setdefault(process.parent, []).append(process.pid)
    found: list[int] = []
    todo = list(pids)
    while todo:
        for child in children.get(todo.pop(0), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def program(server: Server) -> Path:
    """The file that is the server: its script when ``argv`` is ``INTERPRETER SCRIPT``, else
    its executable."""
    first = Path(server.argv[0])
    if first.name.startswith(INTERPRETERS) and len(server.argv) > 1:
        script = Path(server.argv[1])
        if script.is_file():
            return script.resolve()
    return first.resolve()


def _resolved(word: str, cwd: str) -> Path | None:
    if not word or word.startswith("-"):
        return None
    path = Path(word)
    if not path.is_absolute():
        if "/" not in word or not cwd:
            return None
        path = Path(cwd) / path
    try:
        return path.resolve()
    except OSError:
        return None


def is_server(process: Process, target: Path) -> bool:
    """Whether ``process`` runs ``target``: as its executable (``argv[0]``) or as the script
    its interpreter runs (``argv[1]``)."""
    return any(_resolved(word, process.cwd) == target for word in process.argv[:2])


def servers_below(pids: list[int], server: Server) -> list[Process]:
    """The language server processes below ``pids`` (the outermost of each, not its
    children)."""
    processes = table()
    target = program(server)
    found: list[Process] = []
    taken: set[int] = set()
    for pid in descendants(pids, processes):
        process = processes.get(pid)
        if process is None or pid in taken or not is_server(process, target):
            continue
        found.append(process)
        taken.update([pid, *descendants([pid], processes)])
    return found


def kill_server(own: list[int], server: Server) -> list[Process]:
    """SIGKILL the language server below the subject's processes ``own``, with everything it
    started; the server processes killed.

    Raises:
        KillFailed: no server process is below ``own``, or one of the subject's processes
            (``own`` and those between it and the server) did not outlive the kill.
    """
    processes = table()
    found = servers_below(own, server)
    if not found:
        raise NothingToKill(f"no process running {program(server)} below the subject")
    doomed: list[int] = []
    holding = set(own)
    for process in found:
        doomed += [process.pid, *descendants([process.pid], processes)]
        parent = processes.get(process.parent)
        while parent is not None and parent.pid not in own:
            holding.add(parent.pid)
            parent = processes.get(parent.parent)
    if holding & set(doomed):
        raise KillFailed(f"the server is one of the subject's own processes {sorted(holding)}")
    for pid in doomed:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    dead = sorted(pid for pid in holding if pid not in doomed and not alive(pid))
    if dead:
        said = ", ".join(f"{pid} ({' '.join(processes[pid].argv[:2])})" for pid in dead)
        raise KillFailed(f"the subject's own process {said} did not outlive its server's kill")
    return found
