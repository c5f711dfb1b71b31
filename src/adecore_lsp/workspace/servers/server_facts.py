"""What the system says of a server: its version, from its executable, and its memory,
with every process it started (Linux's ``/proc``).
"""

from __future__ import annotations

import asyncio
import json
import os

from ...transports.process import kill_group_now
from .registry import ServerSpec

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

VERSION_WAIT = 15.0
"""How long a server's ``--version`` may take (a Python server starts its interpreter and its
imports first: seconds on a loaded machine)."""


async def version_of(spec: ServerSpec, executable: str) -> str | None:
    """The server's version as its executable says it: the first word that looks like a
    version in what the spec's ``version_command`` prints (its program taken from beside
    ``executable`` only: ``executable`` was chosen by the trust rule, and a ``PATH`` lookup
    here could find a program inside an untrusted root), else in ``executable --version``."""
    if spec.version_command:
        program, *rest = spec.version_command
        beside = os.path.join(os.path.dirname(executable), program)
        executable = beside if os.access(beside, os.X_OK) else ""
    else:
        rest = ["--version"]
    if not executable:
        return None
    try:
        process = await asyncio.create_subprocess_exec(
            executable,
            *rest,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return None
    try:
        out, _ = await asyncio.wait_for(process.communicate(), VERSION_WAIT)
    except asyncio.TimeoutError:
        kill_group_now(process.pid)  # its own process group, children and all
        await process.wait()
        return None
    if process.returncode != 0:
        return None
    return version_in(out.decode("utf-8", "replace"))


def version_in(text: str) -> str | None:
    """The version in what a server says of itself (its ``serverInfo.version``, or what its
    version command prints), as a version alone:

    - a Go build info as JSON (gopls sends one as its ``serverInfo.version``, and
      ``gopls version -json`` prints one): its ``Version`` (``version`` in gopls before
      0.6), else its main module's; ``master`` for a gopls built from source without a
      version, as Debian's 0.5.0 is; ``None`` when it has none;
    - else the first word that starts with a digit, a ``v`` before one dropped
      (``22.1.1`` of ``clangd version 22.1.1 linux``);
    - else the text when it is one word (``nightly``); else ``None``.
    """
    text = text.strip()
    if text.startswith("{"):
        try:
            info = json.loads(text)
        except ValueError:
            info = None
        if isinstance(info, dict):
            return _build_version(info)
    words = text.split()
    for word in words:
        if word[:1].isdigit() or (word[:1] == "v" and word[1:2].isdigit()):
            return _without_v(word)
    return words[0] if len(words) == 1 else None


def _build_version(info: dict[str, object]) -> str | None:
    """The version of a Go build info (gopls' ``ServerVersion``)."""
    main = info.get("Main")
    for found in (
        info.get("Version"),
        info.get("version"),
        main.get("Version") if isinstance(main, dict) else None,
    ):
        if isinstance(found, str) and found.strip() and found not in _NO_VERSION:
            return _without_v(found.strip())
    return None


_NO_VERSION = ("(devel)", "(unknown)")
"""What Go's build info and gopls say for a build without a version."""


def _without_v(version: str) -> str:
    return version[1:] if version[:1] == "v" and version[1:2].isdigit() else version


def tree_rss(pid: int) -> int | None:
    """The resident memory in bytes of process ``pid`` and every process descended from it
    (by parent pid: a wrapper's real server counts), where the system tells (Linux)."""
    own = _rss(pid)
    if own is None:
        return None
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return own
    for entry in entries:
        if entry.isdigit():
            parent = _parent(int(entry))
            if parent is not None:
                children.setdefault(parent, []).append(int(entry))
    total, seen, waiting = own, {pid}, list(children.get(pid, ()))
    while waiting:
        child = waiting.pop()
        if child in seen:
            continue
        seen.add(child)
        total += _rss(child) or 0
        waiting.extend(children.get(child, ()))
    return total


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        return None
    # The command name, in parentheses, may hold spaces and parentheses: split after it.
    fields = stat[stat.rfind(b")") + 2 :].split()
    try:
        return int(fields[1])
    except (IndexError, ValueError):
        return None


def _rss(pid: int) -> int | None:
    """The resident memory of process ``pid`` in bytes, where the system tells (Linux)."""
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as file:
            pages = int(file.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")
