"""Which configurations decide a checker's scope, and in what order they are looked for.

A server's registry entry names its reader (``ServerSpec.scope``). For a file, the nearest
folder (from the file's own up to the workspace's root) that holds a configuration of the
reader's first kind decides; where none does, the next kind is looked for the same way
(pyrefly reads a mypy or pyright configuration when it has none of its own); where none
decides at all, the tool's defaults at the root apply. Sans-I/O: the folders are walked by
the caller (:mod:`adecore_lsp.workspace.servers.scopes`), which reads the files.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from .pyrefly_scope import pyrefly_at, pyrefly_default, pyrefly_unconfigured_at
from .python_scopes import pyright_at, pyright_default, ty_at, ty_default
from .ruff_scope import RUFF_FILES, ruff_at, ruff_default
from .scope import Read, Scope
from .tsconfig_scope import tsconfig_at, tsconfig_default

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

Stage = Callable[[str, Read], "Scope | None"]
"""The scope a folder's configuration of one kind decides, ``None`` when it holds none."""

STAGES: dict[str, tuple[Stage, ...]] = {
    "basedpyright": (partial(pyright_at, based=True),),
    "pyright": (partial(pyright_at, based=False),),
    "pyrefly": (pyrefly_at, pyrefly_unconfigured_at),
    "ty": (ty_at,),
    "ruff": (ruff_at,),
    "tsconfig": (tsconfig_at,),
}
"""Each reader's kinds of configuration, in the order they are looked for."""

READERS = tuple(STAGES)
"""The names a ``ServerSpec.scope`` may hold."""

CONFIG_FILES: dict[str, tuple[str, ...]] = {
    "basedpyright": ("pyrightconfig.json", "pyproject.toml"),
    "pyright": ("pyrightconfig.json", "pyproject.toml"),
    "pyrefly": (
        "pyrefly.toml",
        ".pyrefly.toml",
        "pyproject.toml",
        "mypy.ini",
        "pyrightconfig.json",
    ),
    "ty": ("ty.toml", "pyproject.toml"),
    "ruff": RUFF_FILES,
    "tsconfig": ("tsconfig.json", "jsconfig.json"),
}
"""The file names a folder's configuration of each reader may have."""


def default(reader: str, folder: str) -> Scope:
    """The scope of ``reader``'s tool without a configuration, for a root ``folder``."""
    if reader in ("pyright", "basedpyright"):
        return pyright_default(reader, folder)
    if reader == "pyrefly":
        return pyrefly_default(folder)
    if reader == "ty":
        return ty_default(folder)
    if reader == "ruff":
        return ruff_default(folder)
    return tsconfig_default(folder)
