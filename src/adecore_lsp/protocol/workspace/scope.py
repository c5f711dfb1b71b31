"""A checker's scope: which files its own command line checks, as one of its configurations
decides it. Sans-I/O: a scope is made from configuration texts (read through a function
the caller gives) and answers, for an absolute path, whether it is covered.

:mod:`.scope_readers` finds a scope for a folder; :mod:`.python_scopes` and
:mod:`.tsconfig_scope` read each tool's configuration.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    # tomli is installed only on 3.10, so a type check for 3.10 on a newer Python may miss it.
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

from .jsonc import TOO_DEEP

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

Read = Callable[[str], "str | None"]
"""The text of the file at an absolute path, ``None`` when there is none. It may raise
``ValueError`` (a file too large to be a configuration): the configuration is then
reported as broken."""

Environment = Callable[[str], bool]
"""Whether the folder at an absolute path is a Python environment (``pyvenv.cfg``,
``bin/activate``, ``conda-meta``): pyright leaves such folders out."""

MAX_CHAIN = 32
"""The most configurations one scope reads through ``extends`` and ``references``."""


def no_environment(_folder: str) -> bool:
    return False


class Matcher(Protocol):
    """What decides whether a file is covered, for one tool's rules."""

    def covers(self, path: str, environment: Environment) -> bool: ...


@runtime_checkable
class Explaining(Protocol):
    """A matcher that can say which of its configuration's keys leaves a file out."""

    def why(self, path: str, environment: Environment) -> str | None: ...


class Everything:
    """The matcher of a tool that checks every file it is given."""

    def covers(self, path: str, environment: Environment) -> bool:
        return True


@dataclass(frozen=True)
class Scope:
    """The files one checker's command line checks for a configuration.

    ``reader`` names the tool's rules (``pyright``, ``basedpyright``, ``pyrefly``, ``ty``,
    ``tsconfig``); ``folder`` is the absolute folder its patterns are relative to;
    ``config`` the file that decided it and ``table`` the part of it (``[tool.pyright]``),
    both ``None`` for the tool's defaults; ``include``, ``exclude``, ``ignore`` and
    ``files`` the patterns as the tool applies them (its default excludes appended);
    ``references`` the scopes of a tsconfig's project references (their files count too);
    ``error`` says why a configuration could not be read (the tool's defaults then apply).
    """

    reader: str
    folder: str
    matcher: Matcher = field(default_factory=Everything, compare=False, repr=False)
    config: str | None = None
    table: str | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    references: tuple[Scope, ...] = ()
    error: str | None = None

    def covers(self, path: str, environment: Environment = no_environment) -> bool:
        """Whether the checker's command line checks (and reports) the file at ``path``, an
        absolute ``/``-separated path."""
        if self.matcher.covers(path, environment):
            return True
        return any(reference.covers(path, environment) for reference in self.references)

    def named(self, root: str) -> str | None:
        """The deciding configuration as people name it, relative to ``root`` where it lies
        below it: ``pyproject.toml [tool.pyright]``; ``None`` for the tool's defaults."""
        if self.config is None:
            return None
        shown = relative(self.config, root)
        return f"{shown} {self.table}" if self.table else shown

    def describe(self, root: str) -> dict[str, Any]:
        """The scope as ``servers --format json`` and ``doctor`` show it: patterns as
        written (one the tool derived from a path, such as ``outDir``, relative to
        ``root``), and no absolute path of the root in the error."""

        def shown_all(patterns: tuple[str, ...]) -> list[str]:
            return [relative(pattern, root) for pattern in patterns]

        shown: dict[str, Any] = {
            "config": self.named(root),
            "include": shown_all(self.include),
            "exclude": shown_all(self.exclude),
        }
        if self.reader in ("pyright", "basedpyright"):
            shown["ignore"] = shown_all(self.ignore)
        if self.reader == "tsconfig":
            shown["files"] = shown_all(self.files)
            shown["references"] = [ref.named(root) for ref in self.references]
        error = self.error
        shown["error"] = None if error is None else error.replace(root.rstrip("/") + "/", "")
        return shown


def why(scope: Scope, path: str, environment: Environment = no_environment) -> str | None:
    """The key of ``scope``'s configuration that leaves the file at ``path`` out
    (``exclude``, ``include`` ...; ``environment``: in a Python environment's folder), or
    ``None`` when the scope covers it."""
    if scope.covers(path, environment):
        return None
    if isinstance(scope.matcher, Explaining):
        return scope.matcher.why(path, environment) or "include"
    return "include and exclude"


def relative(path: str, root: str) -> str:
    """``path`` relative to ``root`` when it lies below it, else itself."""
    if path == root:
        return "."
    prefix = root.rstrip("/") + "/"
    return path[len(prefix) :] if path.startswith(prefix) else path


def folders_between(top: str, path: str) -> list[str]:
    """The folders from ``top`` (itself included) down to the folder of ``path``, which
    lies below ``top``."""
    found = [top]
    rest = path[len(top.rstrip("/")) + 1 :].split("/")[:-1]
    current = top.rstrip("/")
    for part in rest:
        current = f"{current}/{part}"
        found.append(current)
    return found


def below(path: str, folder: str) -> bool:
    """Whether ``path`` lies inside ``folder`` (not ``folder`` itself)."""
    return path.startswith(folder.rstrip("/") + "/")


def load_toml(text: str, where: str) -> dict[str, Any]:
    """A TOML text's tables.

    Raises:
        ValueError: it is not TOML, or is nested deeper than the parser goes, naming
            ``where``.
    """
    try:
        loaded: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{where} is not valid TOML: {error}") from None
    except RecursionError:
        raise ValueError(f"{where} is not valid TOML: {TOO_DEEP}") from None
    return loaded


def table(data: dict[str, Any], *keys: str) -> dict[str, Any] | None:
    """The table at ``keys`` (``tool``, ``pyright``), ``None`` when absent.

    Raises:
        ValueError: something else than a table is there.
    """
    found: Any = data
    for key in keys:
        if not isinstance(found, dict) or key not in found:
            return None
        found = found[key]
    if not isinstance(found, dict):
        raise ValueError(f"[{'.'.join(keys)}] is not a table")
    return found


def strings(value: object, key: str) -> list[str]:
    """A configuration's list of strings under ``key``.

    Raises:
        ValueError: ``value`` is not a list of strings.
    """
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{key} must be a list of strings, not {value!r}")
    return list(value)
