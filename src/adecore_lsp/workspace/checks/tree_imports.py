"""The import graph of a workspace's root, kept in step with the disk: the I/O half of
:mod:`adecore_lsp.protocol.workspace.import_graph`.

:meth:`TreeImports.refresh` looks at the root's files (one ``stat`` each, or the stock a
workspace that watches files keeps already), reads again the Python, TypeScript and
JavaScript files whose size or times changed, and resolves their imports
(:mod:`~adecore_lsp.protocol.workspace.python_imports`,
:mod:`~adecore_lsp.protocol.workspace.ts_imports`). A file created or deleted, or a
configuration changed (``pyproject.toml``, ``tsconfig.json``, a ``package.json``: what moves
source roots, ``paths`` and the workspace's packages), resolves every file's imports again
from what was read; nothing else is read twice. The first refresh reads the tree's code once.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ...protocol.workspace import python_imports, ts_imports
from ...protocol.workspace.import_graph import ImportGraph
from ...protocol.workspace.python_imports import PythonImport, PythonTree
from ...protocol.workspace.python_roots import CONFIG_FILES, PROJECT_FILES, python_roots
from ...protocol.workspace.ts_imports import (
    TS_CODE_SUFFIXES,
    TsImport,
    TsOptions,
    TsPackage,
    TsTree,
)
from ...protocol.workspace.tsconfig_scope import NAMES as TS_CONFIGS
from ...protocol.workspace.tsconfig_scope import ts_options
from ..disk.listing import Stamp, tree_stock
from ..servers.scopes import Scopes

# Internal to the library: nothing here is public API.
__all__: list[str] = []

MAX_SOURCE_BYTES = 4 << 20
"""A source file larger than this is taken to import nothing (generated code)."""

PACKAGE_FILE = "package.json"
PACKAGE_ENTRIES = ("types", "typings", "main", "module", "source")
"""The fields of a workspace package's ``package.json`` that name its entry file."""

LAYOUT_FILES = frozenset({*CONFIG_FILES, *PROJECT_FILES, *TS_CONFIGS, PACKAGE_FILE})
"""The file names whose change may move where imports resolve."""


def is_python(path: str) -> bool:
    return path.endswith(python_imports.PYTHON_SUFFIXES)


def is_script(path: str) -> bool:
    return path.endswith(TS_CODE_SUFFIXES)


def covered(path: str) -> bool:
    """Whether the graph knows the imports of files like ``path`` (Python, TypeScript,
    JavaScript): an edit of another language finds its dependents another way."""
    return is_python(path) or is_script(path)


@dataclass
class TreeChanges:
    """What one refresh saw since the last: files whose stamp changed, created, deleted
    (absolute ``/`` paths; every file of the tree, whatever its language), and whether the
    layout moved (a configuration, or a file created or deleted)."""

    changed: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    layout: bool = False

    @property
    def paths(self) -> list[str]:
        return [*self.changed, *self.created, *self.deleted]


class TreeImports:
    """The imports of one root's files, in both directions (see the module's docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = root.as_posix()
        self.graph = ImportGraph()
        self.stamps: dict[str, Stamp] | None = None
        """Every file of the tree with its stamp, as last looked at; ``None`` before."""
        self._parsed: dict[str, list[PythonImport] | list[TsImport]] = {}
        self._python = PythonTree(frozenset(), frozenset(), ())
        self._scripts = TsTree(frozenset())
        self._options: dict[str, TsOptions] = {}
        self._reader = Scopes(root)

    @property
    def ready(self) -> bool:
        """Whether the tree was looked at once (the graph holds its imports)."""
        return self.stamps is not None

    def refresh(self, stock: Mapping[str, Stamp] | None = None) -> TreeChanges:
        """Bring the graph in step with the disk; what changed since the last look (on the
        first, nothing: everything is read). ``stock`` is the tree's files as a workspace
        that watches files just looked at them (else they are looked at here)."""
        current = {
            Path(path).as_posix(): stamp
            for path, stamp in (tree_stock(Path(self.root)) if stock is None else stock).items()
        }
        before = self.stamps
        self.stamps = current
        if before is None:
            self._layout()
            for path in current:
                if covered(path):
                    self._read(path)
            self._resolve_all()
            return TreeChanges()
        changes = TreeChanges(
            changed=sorted(p for p, stamp in current.items() if p in before and before[p] != stamp),
            created=sorted(current.keys() - before.keys()),
            deleted=sorted(before.keys() - current.keys()),
        )
        changes.layout = bool(changes.created or changes.deleted) or any(
            posixpath.basename(path) in LAYOUT_FILES for path in changes.changed
        )
        for path in changes.deleted:
            self._parsed.pop(path, None)
            self.graph.drop(path)
        # A changed file whose imports read the same resolves to the same files (the layout
        # unchanged): a rename's 36 files mostly change names, not imports.
        moved: list[str] = []
        for path in [*changes.changed, *changes.created]:
            if covered(path):
                was = self._parsed.get(path)
                self._read(path)
                if self._parsed.get(path) != was:
                    moved.append(path)
        if changes.layout:
            self._layout()
            self._resolve_all()
        else:
            for path in moved:
                self._resolve(path)
        return changes

    def dependents(self, paths: Iterable[str]) -> list[str]:
        """The files an edit of ``paths`` may break, nearest first
        (:meth:`ImportGraph.dependents`); a path the tree does not hold (just created, or
        deleted) counts the files whose imports would name it."""
        wanted = list(paths)
        missing = [path for path in wanted if path not in self.graph]
        return self.graph.dependents(wanted, self.would_import(missing) if missing else None)

    def would_import(self, paths: Sequence[str]) -> dict[str, list[str]]:
        """For each of ``paths``, the files one of whose imports may name it, whether it
        exists or not (a file created or deleted)."""
        wanted = set(paths)
        found: dict[str, list[str]] = {path: [] for path in paths}
        for file, imports in self._parsed.items():
            for imported in imports:
                for path in wanted.intersection(self._candidates(file, imported)):
                    if path != file and file not in found[path]:
                        found[path].append(file)
        return found

    # -- reading and resolving -------------------------------------------------------------

    def _read(self, path: str) -> None:
        try:
            with open(path, "rb") as file:
                data = file.read(MAX_SOURCE_BYTES + 1)
        except OSError:
            self._parsed.pop(path, None)
            return
        if len(data) > MAX_SOURCE_BYTES:
            self._parsed[path] = []
            return
        text = data.decode("utf-8", "replace")
        parsed: list[PythonImport] | list[TsImport]
        parsed = (
            python_imports.python_imports(text) if is_python(path) else ts_imports.ts_imports(text)
        )
        self._parsed[path] = parsed

    def _candidates(self, file: str, imported: PythonImport | TsImport) -> list[str]:
        if isinstance(imported, PythonImport):
            return python_imports.candidates(file, imported, self._python)
        return ts_imports.candidates(file, imported, self._options_for(file), self._scripts)

    def _resolve(self, path: str) -> None:
        targets: dict[str, bool] = {}
        for imported in self._parsed.get(path, []):
            if isinstance(imported, PythonImport):
                found = python_imports.resolve(path, imported, self._python)
            else:
                one = ts_imports.resolve(path, imported, self._options_for(path), self._scripts)
                found = [] if one is None else [one]
            for target in found:
                targets[target] = targets.get(target, False) or imported.reexport
        self.graph.set(path, targets)

    def _resolve_all(self) -> None:
        for path in self._parsed:
            self._resolve(path)

    def _layout(self) -> None:
        """Where imports resolve: the Python source roots, the TypeScript projects' options
        (found again as asked), the workspace's packages."""
        stamps = self.stamps or {}
        scopes = Scopes(Path(self.root))
        projects = sorted(
            {posixpath.dirname(p) for p in stamps if posixpath.basename(p) in PROJECT_FILES}
        )
        python_files = [path for path in stamps if is_python(path)]
        tree = PythonTree.of(python_files, ())
        roots = python_roots(self.root, projects, scopes.read, tree.folders.__contains__)
        self._python = PythonTree(tree.files, tree.folders, roots)
        packages = {}
        for path in stamps:
            if posixpath.basename(path) == PACKAGE_FILE:
                found = _package(path, scopes)
                if found is not None:
                    packages[found[0]] = found[1]
        self._scripts = TsTree(frozenset(p for p in stamps if is_script(p)), packages)
        self._options = {}
        self._reader = scopes

    def _options_for(self, file: str) -> TsOptions:
        """The ``baseUrl`` and ``paths`` of the nearest ``tsconfig.json`` (or
        ``jsconfig.json``) above ``file`` inside the root, found once per folder."""
        folder = posixpath.dirname(file)
        known = self._options.get(folder)
        if known is not None:
            return known
        stamps = self.stamps or {}
        options = TsOptions()
        current = folder
        while True:
            config = next(
                (f"{current}/{name}" for name in TS_CONFIGS if f"{current}/{name}" in stamps),
                None,
            )
            if config is not None:
                options = ts_options(config, self._reader.read)
                break
            if current == self.root or not current.startswith(self.root.rstrip("/") + "/"):
                break
            current = posixpath.dirname(current)
        self._options[folder] = options
        return options


def _package(path: str, scopes: Scopes) -> tuple[str, TsPackage] | None:
    """The name and entries of the workspace package whose ``package.json`` is ``path``."""
    try:
        text = scopes.read(path)
        data: Any = orjson.loads(text) if text is not None else None
    except (ValueError, orjson.JSONDecodeError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return None
    folder = posixpath.dirname(path)
    entries = tuple(
        posixpath.normpath(posixpath.join(folder, value))
        for key in PACKAGE_ENTRIES
        if isinstance(value := data.get(key), str)
    )
    return data["name"], TsPackage(folder, entries)
