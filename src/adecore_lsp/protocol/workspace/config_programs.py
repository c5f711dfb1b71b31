"""The keys of a language server's own configuration that make it run a program.

A server reads its own configuration files without asking the client, and some of their
keys name a program it then runs: pyrefly (``pyrefly.toml``, ``.pyrefly.toml``,
``[tool.pyrefly]``) runs the interpreter of ``python-interpreter-path`` (also spelt
``python-interpreter`` and ``python_interpreter``), the command of
``python-interpreter-find-command``, the program ``fallback-python-interpreter-name`` names,
``conda`` for a ``conda-environment``, and its ``build-system``'s command (``buck2`` or a
``custom`` one); without a configuration of its own, the ``python_executable`` of the mypy
configuration it reads in its place (measured against pyrefly 1.5.1, a marker script for
each: one run a check). No client setting wins over them, so a folder that is not trusted
does not start the server while one of them is there (``ServerSpec.config_programs``).
basedpyright's ``venvPath``/``venv`` and ty's ``environment.python`` are read from disk
and run nothing (measured the same way). Sans-I/O: the caller finds the configuration
(:mod:`.scope_readers`) and gives a function that reads files.
"""

from __future__ import annotations

import configparser
import re
from collections.abc import Callable, Iterable

from .pyrefly_scope import PYREFLY_FILES
from .scope import Read, Scope, load_toml

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

PYREFLY_PROGRAM_KEYS = (
    "python-interpreter-path",
    "python-interpreter",
    "python_interpreter",
    "python-interpreter-find-command",
    "fallback-python-interpreter-name",
    "conda-environment",
    "build-system",
)
"""The keys of a ``pyrefly.toml`` (``.pyrefly.toml``, ``[tool.pyrefly]``) that make pyrefly
run a program."""

MYPY_PROGRAM_KEYS = ("python_executable",)
"""The key of a mypy configuration that pyrefly, reading it in place of its own, runs."""


def pyrefly_programs(scope: Scope, read: Read) -> tuple[str, ...]:
    """The keys of the configuration that decided pyrefly's ``scope`` (:mod:`.pyrefly_scope`)
    that make pyrefly run a program, in the file's order; empty for pyrefly's defaults and
    for a pyright configuration. A file that is not valid TOML (or INI) is searched for the
    keys as words: pyrefly's parser may read what this one does not."""
    if scope.config is None:
        return ()
    text = read(scope.config)
    if text is None:
        return ()
    name = scope.config.rsplit("/", 1)[-1]
    if name == "mypy.ini":
        return _mypy_ini(text)
    if name in PYREFLY_FILES:
        return _toml_keys(text, (), PYREFLY_PROGRAM_KEYS)
    if name != "pyproject.toml" or scope.table == "[tool.pyright]":
        return ()
    found: tuple[str, ...] = ()
    if scope.table != "[tool.mypy]":  # [tool.pyrefly], or a file that could not be read
        found += _toml_keys(text, ("tool", "pyrefly"), PYREFLY_PROGRAM_KEYS)
    if scope.table != "[tool.pyrefly]":
        found += _toml_keys(text, ("tool", "mypy"), MYPY_PROGRAM_KEYS)
    return tuple(dict.fromkeys(found))


def _toml_keys(text: str, where: tuple[str, ...], keys: tuple[str, ...]) -> tuple[str, ...]:
    try:
        data: object = load_toml(text, "the configuration")
    except ValueError:
        return _words(text, keys)
    for part in where:
        data = data.get(part) if isinstance(data, dict) else None
    return _named(data, keys)


def _mypy_ini(text: str) -> tuple[str, ...]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return _words(text, MYPY_PROGRAM_KEYS)
    return _named(dict(parser["mypy"]) if parser.has_section("mypy") else None, MYPY_PROGRAM_KEYS)


def _named(table: object, keys: Iterable[str]) -> tuple[str, ...]:
    if not isinstance(table, dict):
        return ()
    return tuple(key for key in table if key in keys)


def _words(text: str, keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(key for key in keys if re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", text))


PROGRAM_READERS: dict[str, Callable[[Scope, Read], tuple[str, ...]]] = {
    "pyrefly": pyrefly_programs,
}
"""The names a ``ServerSpec.config_programs`` may hold: the server's reader of scopes
(:data:`.scope_readers.STAGES`) whose configurations are judged, and the function that
judges one."""
