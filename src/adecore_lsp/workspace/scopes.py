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
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ServerNotFoundError
from ..protocol.workspace.python_scopes import PYRIGHT_READERS, narrowed
from ..protocol.workspace.ruff_scope import left_out as ruff_left_out
from ..protocol.workspace.scope import Scope, why
from ..protocol.workspace.scope_readers import STAGES, default

if TYPE_CHECKING:
    from .registry import ServerSpec
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

    def left_out(self, spec: ServerSpec, path: Path, origin: Origin) -> str | None:
        """Why ``spec``'s server checks no file at ``path`` where its command line, given
        the file as ``origin`` says, would not (``None``: it checks it), in words:
        ``left out by ruff's configuration (pyproject.toml, extend-exclude)``."""
        reader = spec.scope
        if reader is None:
            return None
        posix = path.as_posix()
        if reader == "ruff":
            start = None if origin.folder is None else origin.folder.as_posix()
            found = ruff_left_out(posix, start, lambda folder: self.scope("ruff", folder))
            return None if found is None else self._said(spec.id, *found)
        scope = self.scope(reader, os.path.dirname(posix))
        if reader in PYRIGHT_READERS:
            # pyright reads one configuration, the one nearest where it runs (not each
            # file's nearest); paths given are checked in place of its include, exclude
            # still holding, for a file named too (`basedpyright pkg/mypy.py`: "0 files").
            start = self.root if origin.start is None else origin.start.as_posix()
            scope = self.scope(reader, start)
            if origin.folder is None:
                scope = narrowed(scope, posix)
            elif origin.given:
                scope = narrowed(scope, origin.folder.as_posix())
        elif origin.folder is None and reader == "tsconfig":
            return None  # tsserver checks any file opened, as `tsc FILE` does
        # ty's and pyrefly's language servers, like ruff's, answer nothing for a file their
        # configuration leaves out, named or not (their command lines would check it).
        key = why(scope, posix, self.is_environment)
        return None if key is None else self._said(spec.id, scope, key)

    def _said(self, server: str, scope: Scope, key: str) -> str:
        if key == "environment":
            return f"left out by {server} (in a Python environment's folder)"
        where = scope.named(self.root)
        if key.startswith("default "):
            return f"left out by {server}'s {key}"
        if where is None:
            return f"left out by {server}'s default {key}"
        return f"left out by {server}'s configuration ({where}, {key})"

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


@dataclass(frozen=True)
class Origin:
    """Where a file of a check came from: the ``folder`` walked to find it (``None``: the
    file was named itself), whether that folder was ``given`` (named on a command line, or
    to :meth:`Workspace.diagnostics`) rather than the folder a check without paths takes,
    and the folder the command runs from (``start``; ``None``: the root), whose nearest
    configuration a command line that reads one configuration (pyright) reads. A command
    line given a folder checks it in place of its configuration's ``include`` (pyright
    does); ruff's walk starts there."""

    folder: Path | None
    given: bool = True
    start: Path | None = None


NAMED = Origin(None)
"""The origin of a file named itself."""


@dataclass
class Plan:
    """The files a check covers: ``files`` in order; ``servers`` the ids of the servers
    that check a file when not every server that takes it does (a file absent from it goes
    to all of them); ``left_out`` the files no server checks, each with why (the
    configuration and key that leave it out); ``reasons`` how many files each server's
    configuration left out, by reason (also of files another server checks); ``notices``
    the configurations that could not be read; ``named`` the files named explicitly."""

    files: list[Path]
    servers: dict[Path, frozenset[str]] = field(default_factory=dict)
    left_out: dict[Path, str] = field(default_factory=dict)
    reasons: dict[str, int] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    named: frozenset[Path] = frozenset()

    def said(self) -> list[str]:
        """What the servers' configurations left out, a line per reason:
        ``2 files left out by ruff's configuration (pyproject.toml, extend-exclude)``."""
        return [
            f"{count} file{'s' * (count != 1)} {reason}" for reason, count in self.reasons.items()
        ]


def plan(
    ws: Workspace,
    files: Sequence[Path],
    named: Collection[Path] = (),
    origins: Mapping[Path, Origin] | None = None,
) -> Plan:
    """The plan of a check of ``files`` (absolute, each once): each goes to the servers
    that take it and whose command line, run as the file was found (``origins``; a file
    in ``named`` was named itself, any other file was found by a walk of the root), checks
    it; a file no server checks is left out, saying why."""
    scopes = Scopes(ws.root)
    kept: list[Path] = []
    servers: dict[Path, frozenset[str]] = {}
    left_out: dict[Path, str] = {}
    reasons: dict[str, int] = {}
    explicit = set(named)
    walk = Origin(ws.root, given=False)
    named_origin = NAMED
    for path in files:
        origin = (origins or {}).get(path, named_origin if path in explicit else walk)
        try:
            specs = ws.server_choice.specs_for(path)
        except ServerNotFoundError:
            kept.append(path)  # the check says which server is missing
            continue
        ids: list[str] = []
        why: list[str] = []
        for spec in specs:
            reason = scopes.left_out(spec, path, origin)
            if reason is None:
                ids.append(spec.id)
                continue
            why.append(reason)
            reasons[reason] = reasons.get(reason, 0) + 1
        if not ids and specs:
            left_out[path] = "; ".join(why)
            continue
        if len(ids) < len(specs):
            servers[path] = frozenset(ids)
        kept.append(path)
    return Plan(kept, servers, left_out, reasons, scopes.notices(), frozenset(explicit))


def selection(
    ws: Workspace, paths: Sequence[str | os.PathLike[str]] | None, here: Path | None = None
) -> tuple[list[Path], dict[Path, Origin], frozenset[Path]]:
    """The files ``paths`` stand for (files and folders, relative to the root or
    absolute; ``None``: the folder ``here`` when it lies inside the root, else the root),
    each once, with where each was found, and the files named themselves.

    Raises:
        ValueError: a path that does not exist, or a folder outside the root, naming it.
        ServerNotFoundError: a folder whose files only a server that is not installed
            would take.
    """
    origins: dict[Path, Origin] = {}
    start = ws.root
    if here is not None and here != ws.root and ws.root in here.parents:
        start = here
    if paths is None:
        found = ws.root_files(None if start == ws.root else start)
        origin = Origin(start, given=False, start=start)
        return found, dict.fromkeys(found, origin), frozenset()
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files: dict[Path, None] = {}
    named: set[Path] = set()
    for given in paths:
        full = ws.paths.absolute(given)
        for path in ws.files_of([given]):
            files.setdefault(path)
            if full.is_dir():
                origins.setdefault(path, Origin(full, start=start))
            else:
                named.add(path)
                origins.setdefault(path, Origin(None, start=start))
    return list(files), origins, frozenset(named)


def plan_of(
    ws: Workspace, paths: Sequence[str | os.PathLike[str]] | None, here: Path | None = None
) -> Plan:
    """The plan of a check of ``paths`` (files and folders; ``None``: the folder ``here``
    inside the root, else the root): a folder stands for its files in the servers'
    scopes, a file for itself, as each server's command line given them."""
    files, origins, named = selection(ws, paths, here)
    return plan(ws, files, named, origins)


def describe(root: Path, reader: str | None) -> dict[str, object] | None:
    """The scope of a server's files at the root, as ``servers`` and ``doctor`` show it
    (``None`` for a server that decides itself)."""
    if reader is None:
        return None
    return Scopes(root).scope(reader, root.as_posix()).describe(root.as_posix())
