"""The files each server checks when a check covers a folder: its scope, as its own
configuration decides (:mod:`adecore_lsp.protocol.workspace.scope_readers`), read here.

A check of the root or of a folder gives each file found there only to the servers whose
scope covers it (a server whose registry entry names no ``scope`` reader takes every file:
ruff decides itself); a file no server's scope covers is not checked. A file named
explicitly is checked by every server that takes it, as the servers' command lines do.

Reading a configuration runs nothing: files are parsed (JSON with comments, TOML, INI), at
most ``MAX_CONFIG_BYTES`` each, read once per :class:`Scopes`; a configuration that cannot
be read is said (:attr:`Plan.notices`) and the tool's defaults apply, as the language
server itself does with it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ServerNotFoundError
from ..protocol.workspace.scope import Scope
from ..protocol.workspace.scope_readers import STAGES, default

if TYPE_CHECKING:
    from .workspace import Workspace

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

MAX_CONFIG_BYTES = 1 << 20
"""A configuration larger than this is not read (it is reported as broken)."""

ENVIRONMENT_MARKERS = ("pyvenv.cfg", "bin/activate", "Scripts/activate", "conda-meta")
"""What makes a folder a Python environment, for pyright (which leaves them out)."""


class Scopes:
    """The scopes of one root's files, each configuration file read once: one per check
    (a configuration changed between two checks is read again)."""

    def __init__(self, root: Path) -> None:
        self.root = root.as_posix()
        self._texts: dict[str, str | ValueError | None] = {}
        self._at: dict[tuple[str, int, str], Scope | None] = {}
        self._nearest: dict[tuple[str, str], Scope] = {}
        self._environments: dict[str, bool] = {}

    def read(self, path: str) -> str | None:
        """The text of the configuration file at ``path`` (``None``: there is none).

        Raises:
            ValueError: it is larger than ``MAX_CONFIG_BYTES`` or not UTF-8.
        """
        if path not in self._texts:
            self._texts[path] = _read(path)
        known = self._texts[path]
        if isinstance(known, ValueError):
            raise known
        return known

    def scope(self, reader: str, folder: str) -> Scope:
        """The scope that decides for the files of ``folder`` (an absolute ``/`` path inside
        the root): the nearest configuration of each kind in turn, else the defaults."""
        key = (reader, folder)
        found = self._nearest.get(key)
        if found is not None:
            return found
        found = self._find(reader, folder)
        self._nearest[key] = found
        return found

    def _find(self, reader: str, folder: str) -> Scope:
        upward = []
        current = folder
        while True:
            upward.append(current)
            if current == self.root or not current.startswith(self.root.rstrip("/") + "/"):
                break
            current = os.path.dirname(current)
        for index, stage in enumerate(STAGES[reader]):
            for place in upward:
                key = (reader, index, place)
                if key not in self._at:
                    self._at[key] = stage(place, self.read)
                found = self._at[key]
                if found is not None:
                    return found
        return default(reader, self.root)

    def covers(self, reader: str, path: Path) -> bool:
        """Whether the file at ``path`` is in the scope of ``reader``'s tool."""
        posix = path.as_posix()
        return self.scope(reader, os.path.dirname(posix)).covers(posix, self.is_environment)

    def is_environment(self, folder: str) -> bool:
        """Whether ``folder`` holds a Python environment (looked at once)."""
        known = self._environments.get(folder)
        if known is None:
            known = any(os.path.exists(f"{folder}/{marker}") for marker in ENVIRONMENT_MARKERS)
            self._environments[folder] = known
        return known

    def notices(self) -> list[str]:
        """What could not be read among the configurations that decided something, in words."""
        said: dict[str, None] = {}
        for scope in self._nearest.values():
            if scope.error is not None:
                where = scope.named(self.root) or "a configuration"
                error = scope.describe(self.root)["error"]
                text = (
                    f"{where}: {error}; {scope.reader} scope: the tool's defaults "
                    "(as its language server reads it)"
                )
                said[text] = None
        return list(said)


def _read(path: str) -> str | ValueError | None:
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(status.st_mode):
        return None
    name = os.path.basename(path)
    if status.st_size > MAX_CONFIG_BYTES:
        return ValueError(f"{name} is larger than {MAX_CONFIG_BYTES} bytes: not read")
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_CONFIG_BYTES + 1)
    except OSError:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return ValueError(f"{name} is not UTF-8 text")


@dataclass
class Plan:
    """The files a check covers: ``files`` in order; ``servers`` the ids of the servers
    that check a file found in a folder when not every server that takes it does (a file
    absent from it goes to all of them); ``left_out`` how many files found no server's
    scope covers; ``notices`` the configurations that could not be read; ``named`` the
    files named explicitly."""

    files: list[Path]
    servers: dict[Path, frozenset[str]] = field(default_factory=dict)
    left_out: int = 0
    notices: list[str] = field(default_factory=list)
    named: frozenset[Path] = frozenset()


def plan(ws: Workspace, files: Sequence[Path], named: Collection[Path] = ()) -> Plan:
    """The plan of a check of ``files`` (absolute, each once): the ``named`` ones go to
    every server that takes them; the others to the servers whose scope covers them."""
    scopes = Scopes(ws.root)
    kept: list[Path] = []
    servers: dict[Path, frozenset[str]] = {}
    left_out = 0
    explicit = set(named)
    for path in files:
        if path in explicit:
            kept.append(path)
            continue
        try:
            specs = ws.server_choice.specs_for(path)
        except ServerNotFoundError:
            kept.append(path)  # the check says which server is missing
            continue
        ids = [spec.id for spec in specs if spec.scope is None or scopes.covers(spec.scope, path)]
        if not ids and specs:
            left_out += 1
            continue
        if len(ids) < len(specs):
            servers[path] = frozenset(ids)
        kept.append(path)
    return Plan(kept, servers, left_out, scopes.notices(), frozenset(explicit))


def plan_of(ws: Workspace, paths: Sequence[str | os.PathLike[str]] | None) -> Plan:
    """The plan of a check of ``paths`` (files and folders; ``None``: the root): a folder
    stands for its files in the servers' scopes, a file for itself."""
    if paths is None:
        return plan(ws, ws.root_files())
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = ws.files_of(paths)
    named = {full for path in paths if not (full := ws.paths.absolute(path)).is_dir()}
    return plan(ws, files, named)


def describe(root: Path, reader: str | None) -> dict[str, object] | None:
    """The scope of a server's files at the root, as ``servers`` and ``doctor`` show it
    (``None`` for a server that decides itself)."""
    if reader is None:
        return None
    return Scopes(root).scope(reader, root.as_posix()).describe(root.as_posix())
