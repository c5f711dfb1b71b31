"""The files each server checks when a check covers a folder: its scope, as its own
configuration decides (:mod:`adecore_lsp.protocol.workspace.scope_readers`), read here.

A check's plan (:mod:`..checks.scope_plan`) gives each file of a folder only to the servers
whose scope covers it.

Reading a configuration runs nothing: files are parsed (JSON with comments, TOML, INI), at
most ``MAX_CONFIG_BYTES`` each, read once per :class:`Scopes`; a configuration that cannot
be read is said (:attr:`Plan.notices`) and the tool's defaults apply, as the language
server itself does with it.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ...protocol.workspace.python_scopes import PYRIGHT_READERS, narrowed
from ...protocol.workspace.ruff_scope import left_out as ruff_left_out
from ...protocol.workspace.scope import Scope, why
from ...protocol.workspace.scope_readers import STAGES, default

if TYPE_CHECKING:
    from .registry import ServerSpec

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


def describe(root: Path, reader: str | None) -> dict[str, object] | None:
    """The scope of a server's files at the root, as ``servers`` and ``doctor`` show it
    (``None`` for a server that decides itself)."""
    if reader is None:
        return None
    return Scopes(root).scope(reader, root.as_posix()).describe(root.as_posix())
