"""Which folder a language server runs from for a file, and which folder is a repository's
root: decided from the tree's file names and its configurations' contents. Sans-I/O: the
caller says which files exist and gives their texts (:class:`Tree`); nothing here looks at
a disk.

A server's registry entry says how it takes a tree (``ServerSpec.roots``, one of
:data:`POLICIES`, as measured with each server on monorepos):

- ``"repository"``: one process for the whole repository, at the workspace's root (ruff,
  typescript-language-server, tsc 7, pyrefly: each finds every file's nearest configuration
  itself, and only one process answers references and renames across packages);
- ``"workspace"``: one process per workspace file: the markers are tiers, the first that
  holds above a file wins (gopls: the nearest ``go.work`` covers every module below it; a
  ``go.mod`` that no ``go.work`` covers is its own);
- ``"configuration"``: one process per folder that holds the server's own configuration
  (basedpyright, pyright, ty: one process given several workspace folders makes each its
  own program, which answers nothing across them; a process per configuration checks each
  package as its command line does there);
- ``"nearest"``: the nearest folder holding any marker (servers not measured).

A marker is a file name, or a file name with the table or key the file must hold to count:
``pyproject.toml[tool.pyright]`` is a ``pyproject.toml`` with a ``[tool.pyright]`` table, so
that a bare ``pyproject.toml`` (a uv workspace's member with no pyright settings) starts no
new root for basedpyright.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from . import jsonc
from .scope import load_toml

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

POLICIES = ("repository", "workspace", "configuration", "nearest")
"""How a server takes a tree (``ServerSpec.roots``); see the module's docstring."""

_MARKER = re.compile(r"^(?P<name>[^\[\]/]+)(?:\[(?P<key>[^\[\]]+)\])?$")
_KEY_PART = re.compile(r"^[A-Za-z0-9_-]+$")


class Tree(Protocol):
    """The caller's view of the files: what exists, and the text of a configuration."""

    def exists(self, path: str) -> bool:
        """Whether a file or folder is at ``path`` (``folder/name``, with ``/``)."""
        ...

    def read(self, path: str) -> str | None:
        """The text of the file at ``path``; ``None`` when there is none or it cannot be
        read as a configuration (too large, not UTF-8)."""
        ...


@dataclass(frozen=True)
class Marker:
    """A file that marks a root: ``name``, holding the table or key ``key`` when it has one
    (``("tool", "pyright")``: a TOML table; ``("workspaces",)``: a JSON object's key)."""

    name: str
    key: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Marker:
        """A marker as the registry writes it: ``go.mod``, ``pyproject.toml[tool.pyright]``.

        Raises:
            ValueError: not a file name, with an optional ``[dotted.key]`` of a ``.toml`` or
                ``.json`` file.
        """
        matched = _MARKER.match(text)
        if matched is None:
            raise ValueError(
                f"a root marker is a file name, with [a.key] it must hold: not {text!r}"
            )
        name, key = matched["name"], matched["key"]
        if key is None:
            return cls(name)
        parts = tuple(key.split("."))
        if not all(_KEY_PART.match(part) for part in parts):
            raise ValueError(f"the key of the root marker {text!r} is not dotted.words")
        if _kind(name) is None:
            raise ValueError(
                f"the root marker {text!r} names a key in a file that is neither TOML nor JSON"
            )
        return cls(name, parts)

    def __str__(self) -> str:
        return f"{self.name}[{'.'.join(self.key)}]" if self.key else self.name

    def holds(self, text: str | None) -> bool:
        """Whether a file of this name whose text is ``text`` counts as this marker: any
        file for a marker without a key; one that parses and holds the key otherwise (a
        configuration that does not parse holds nothing)."""
        if not self.key:
            return True
        return _lookup(self.name, text, self.key) is not None

    def found_in(self, folder: str, tree: Tree) -> bool:
        """Whether ``folder`` holds this marker."""
        path = f"{folder.rstrip('/')}/{self.name}"
        if not self.key:
            return tree.exists(path)
        return self.holds(tree.read(path))


def markers(texts: Sequence[str]) -> tuple[Marker, ...]:
    """The markers a registry entry lists (:meth:`Marker.parse` each)."""
    return tuple(Marker.parse(text) for text in texts)


def check_policy(policy: str) -> str:
    """``policy`` when it is one of :data:`POLICIES`.

    Raises:
        ValueError: it is not, naming them.
    """
    if policy not in POLICIES:
        raise ValueError(f"roots must be one of {', '.join(POLICIES)}, not {policy!r}")
    return policy


def server_root(policy: str, found: Sequence[Marker], folders: Sequence[str], tree: Tree) -> str:
    """The folder a server of ``policy`` and markers ``found`` runs from for a file.

    ``folders`` are the file's own folder, then each folder above it up to the workspace's
    root, which is the last (never empty). ``"repository"``: the workspace's root;
    ``"workspace"``: for each marker in order, the nearest folder holding it, the first
    marker found deciding; ``"configuration"`` and ``"nearest"``: the nearest folder holding
    any marker. The workspace's root when no folder holds one.
    """
    top = folders[-1]
    if policy == "repository" or not found:
        return top
    if policy == "workspace":
        for marker in found:
            for folder in folders:
                if marker.found_in(folder, tree):
                    return folder
        return top
    for folder in folders:
        if any(marker.found_in(folder, tree) for marker in found):
            return folder
    return top


# -- the repository ------------------------------------------------------------------------


def _uv_workspace(text: str | None) -> bool:
    return _lookup("pyproject.toml", text, ("tool", "uv", "workspace")) is not None


def _npm_workspaces(text: str | None) -> bool:
    return _lookup("package.json", text, ("workspaces",)) is not None


def _solution_tsconfig(text: str | None) -> bool:
    """A tsconfig that builds nothing itself and references projects (``files: []``)."""
    references = _lookup("tsconfig.json", text, ("references",))
    files = _lookup("tsconfig.json", text, ("files",))
    return bool(references) and isinstance(references, list) and files == []


def _cargo_workspace(text: str | None) -> bool:
    return _lookup("Cargo.toml", text, ("workspace",)) is not None


WORKSPACE_FILES: tuple[tuple[str, Callable[[str | None], bool] | None], ...] = (
    ("pyproject.toml", _uv_workspace),
    ("package.json", _npm_workspaces),
    ("pnpm-workspace.yaml", None),
    ("tsconfig.json", _solution_tsconfig),
    ("go.work", None),
    ("Cargo.toml", _cargo_workspace),
)
"""The files that make a folder a workspace of several packages: each name, and what its
text must hold (``None``: being there is enough): a uv workspace, npm or yarn workspaces, a
pnpm workspace, a TypeScript solution, a go.work, a Cargo workspace."""

REPOSITORY_EDGE = ".git"
"""What marks a repository's top (a folder, or a file in a worktree or a submodule)."""


def is_workspace(folder: str, tree: Tree) -> bool:
    """Whether ``folder`` holds one of :data:`WORKSPACE_FILES`."""
    base = folder.rstrip("/")
    for name, holds in WORKSPACE_FILES:
        path = f"{base}/{name}"
        if holds is None:
            if tree.exists(path):
                return True
        elif holds(tree.read(path)):
            return True
    return False


def repository_root(folders: Sequence[str], tree: Tree) -> str | None:
    """The root of the repository a command stands in: the outermost folder that holds a
    workspace file (:data:`WORKSPACE_FILES`), looking no higher than the nearest folder that
    holds ``.git``; else that folder; ``None`` when neither is found.

    ``folders`` are where the command stands (a path's folder), then each folder above it.
    """
    outermost: str | None = None
    for folder in folders:
        if is_workspace(folder, tree):
            outermost = folder
        if tree.exists(f"{folder.rstrip('/')}/{REPOSITORY_EDGE}"):
            return outermost if outermost is not None else folder
    return outermost


# -- reading configurations ----------------------------------------------------------------


def _kind(name: str) -> str | None:
    if name.endswith(".toml"):
        return "toml"
    if name.endswith(".json"):
        return "json"
    return None


def _lookup(name: str, text: str | None, key: tuple[str, ...]) -> Any:
    """The value at ``key`` of a TOML or JSON (with comments) ``text``; ``None`` when the
    text is absent, does not parse, or has nothing there."""
    if text is None:
        return None
    try:
        data: Any = load_toml(text, name) if _kind(name) == "toml" else jsonc.loads(text)
    except ValueError:  # a text nested too deeply too
        return None
    for part in key:
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data
