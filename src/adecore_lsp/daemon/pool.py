"""The daemon's workspaces: one per (root, servers chosen, configuration, executables,
environment), kept warm between commands, shut down when idle or over the memory budget.

A workspace lives as long as commands keep coming for its key; one whose last command ended
``idle_timeout`` seconds ago has its servers shut down. When the servers' resident memory
together (each server's whole process tree) passes the budget, the workspaces least recently
used are shut down first, never one that is running a command. Commands that write take a
lock per root, so two writes never interleave.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cli.executor import WorkspaceRequest
from ..environment import environ
from ..workspace.disk.executables import scripts_folder
from ..workspace.servers.trust import config_digest, is_trusted
from ..workspace.workspace import Workspace

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

VOLATILE = frozenset(
    {"PWD", "OLDPWD", "SHLVL", "_", "TERM", "COLUMNS", "LINES", "NO_COLOR", "DISPLAY"}
)
"""Variables of the environment that do not make another workspace (nor ``SSH_*``)."""


def workspace_key(request: WorkspaceRequest, env: Mapping[str, str]) -> tuple[Any, ...]:
    """What makes a workspace another one: the root, the servers chosen, the registry and
    the project's configuration (and whether the root is trusted), the executables the
    servers would start, and the environment less the variables that say nothing of it."""
    trusted = is_trusted(request.root, request.trust)
    servers = tuple(
        server if isinstance(server, str) else repr(server) for server in request.servers or ()
    )
    digest = config_digest(request.root)
    executables = _executables(request, trusted, digest, env)
    kept = tuple(
        sorted(
            (name, value)
            for name, value in env.items()
            if name not in VOLATILE and not name.startswith("SSH_")
        )
    )
    return (
        str(request.root),
        servers,
        request.servers is None,
        trusted,
        digest,
        executables,
        kept,
    )


_FOUND: dict[tuple[Any, ...], tuple[str | None, ...]] = {}
"""The executables found, by what they were looked up from (see :func:`_executables`)."""

_FOUND_MAX = 256


def _executables(
    request: WorkspaceRequest, trusted: bool, digest: str, env: Mapping[str, str]
) -> tuple[str | None, ...]:
    """The executable of each server of the registry for this root: looked up again only
    when ``PATH``, the configuration or a folder the lookup reads has changed (a program
    installed or removed changes its folder's modification time)."""
    root = request.root
    path = env.get("PATH", "")
    folders = [*path.split(os.pathsep), scripts_folder() or ""]
    if trusted:
        folders += [str(root / ".venv" / "bin"), str(root / "node_modules" / ".bin")]
    stamp = tuple(_modified(folder) for folder in folders)
    names = tuple(spec.id for spec in request.registry)
    key = (str(root), trusted, digest, path, stamp, names)
    found = _FOUND.get(key)
    if found is None:
        registry, _servers, _ignored = request.registry.project(root, trusted=trusted)
        found = tuple(registry.which(spec, root, trusted=trusted) for spec in registry)
        if len(_FOUND) >= _FOUND_MAX:
            _FOUND.clear()
        _FOUND[key] = found
    return found


def _modified(folder: str) -> int:
    try:
        return os.stat(folder).st_mtime_ns if folder else 0
    except OSError:
        return -1


@dataclass
class Entry:
    """One warm workspace, when it was last used and how many commands it runs now."""

    key: tuple[Any, ...]
    workspace: Workspace
    last_used: float
    busy: int = 0
    made: float = field(default_factory=time.monotonic)


class Pool:
    """The daemon's workspaces (see the module's docstring)."""

    def __init__(self, folder: Path, idle_timeout: float, memory_budget: int) -> None:
        self.folder = folder
        self.idle_timeout = idle_timeout
        self.memory_budget = memory_budget
        self._entries: dict[tuple[Any, ...], Entry] = {}
        self._writes: dict[Path, asyncio.Lock] = {}
        self._making = asyncio.Lock()
        self._checking: asyncio.Task[None] | None = None
        self.empty_since = time.monotonic()

    @asynccontextmanager
    async def workspace(self, request: WorkspaceRequest) -> AsyncIterator[Workspace]:
        """The warm workspace for ``request`` (made on first use), held for one command;
        a command that writes holds its root's write lock too."""
        key = workspace_key(request, environ())
        async with self._making:
            entry = self._entries.get(key)
            if entry is None or entry.workspace.closed:
                workspace = Workspace(
                    request.root,
                    servers=request.servers,
                    registry=request.registry,
                    timeout=request.timeout,
                    trust=request.trust,
                    on_untrusted=lambda _notice: None,  # the executor says it per command
                )
                entry = self._entries[key] = Entry(key, workspace, time.monotonic())
            # The disk is the truth: what changed since the last command is seen first.
            entry.workspace.watch_tree()
        entry.busy += 1
        entry.workspace.timeout = request.timeout
        lock = self._writes.setdefault(request.root, asyncio.Lock())
        try:
            if request.writes:
                async with lock:
                    yield entry.workspace
            else:
                yield entry.workspace
        finally:
            entry.busy -= 1
            entry.last_used = time.monotonic()
            # After the caller has its answer: the memory is looked at, and the budget kept,
            # once the command's exit status is on its way.
            self._check_soon()

    def _check_soon(self) -> None:
        if self._checking is None or self._checking.done():
            self._checking = asyncio.ensure_future(self._check_after())

    async def _check_after(self) -> None:
        await asyncio.sleep(0)  # the command's exit status goes first
        await self.check()

    async def check(self) -> None:
        """Shut down the workspaces idle too long, then the least recently used while the
        servers use more memory than the budget (never one running a command)."""
        now = time.monotonic()
        for entry in list(self._entries.values()):
            if entry.busy == 0 and now - entry.last_used >= self.idle_timeout:
                await self._drop(entry)
        while self.rss_bytes() > self.memory_budget:
            idle = [entry for entry in self._entries.values() if entry.busy == 0]
            if not idle:
                break
            await self._drop(min(idle, key=lambda entry: entry.last_used))
        if not self._entries and self.empty_since == 0.0:
            self.empty_since = now
        elif self._entries:
            self.empty_since = 0.0

    async def _drop(self, entry: Entry) -> None:
        self._entries.pop(entry.key, None)
        await entry.workspace.aclose()

    def rss_bytes(self) -> int:
        """The servers' resident memory together, each server's whole process tree."""
        return sum(
            status.rss_bytes or 0
            for entry in self._entries.values()
            for status in entry.workspace.running
        )

    def idle_for(self, now: float) -> float:
        """How long the daemon has held no workspace (0 while it holds one)."""
        return 0.0 if self._entries or self.empty_since == 0.0 else now - self.empty_since

    def status(self) -> list[dict[str, Any]]:
        """What the daemon holds, for ``daemon status``."""
        now = time.monotonic()
        found = []
        for entry in sorted(self._entries.values(), key=lambda e: e.made):
            found.append(
                {
                    "root": str(entry.workspace.root),
                    "servers": [
                        {
                            "id": status.id,
                            "pid": status.pid,
                            "state": status.state,
                            "rss_bytes": status.rss_bytes,
                            "restarts": status.restarts,
                        }
                        for status in entry.workspace.running
                    ],
                    "last_used_s": round(now - entry.last_used, 3),
                }
            )
        return found

    async def aclose(self) -> None:
        """Shut every workspace's servers down."""
        if self._checking is not None:
            await asyncio.gather(self._checking, return_exceptions=True)
        entries, self._entries = list(self._entries.values()), {}
        await asyncio.gather(
            *(entry.workspace.aclose() for entry in entries), return_exceptions=True
        )
