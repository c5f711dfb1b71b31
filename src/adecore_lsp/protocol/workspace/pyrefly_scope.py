"""pyrefly's scope (measured against pyrefly 1.5.0 in the tests): ``pyrefly.toml`` wins over
``[tool.pyrefly]``; ``project-includes`` (default ``**/*.py*``) and ``project-excludes`` with
its default excludes appended unless ``disable-project-excludes-heuristics``; dot files and
hidden folders below the include roots are left out. Without a configuration of its own,
pyrefly reads the nearest ``mypy.ini``, ``pyrightconfig.json`` or ``pyproject.toml``
(``[tool.mypy]``, then ``[tool.pyright]``) in its place: their ``files``/``include`` and
``exclude``. Its globs are Rust's ``glob`` patterns, where ``*`` crosses ``/``.
"""

from __future__ import annotations

import configparser
import re
from dataclasses import dataclass

from . import jsonc
from .scope import Environment, Read, Scope, below, load_toml, strings, table
from .scope_globs import absolute, rust_glob

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

PYREFLY_DEFAULT_INCLUDES = ("**/*.py*",)
PYREFLY_DEFAULT_EXCLUDES = ("**/node_modules", "**/__pycache__", "**/venv/**", "**/.[!/.]*/**")
PYREFLY_SUFFIXES = (".py", ".pyi", ".pyw", ".ipynb")


@dataclass(frozen=True)
class _RustGlob:
    pattern: str
    regex: re.Pattern[str]
    below: re.Pattern[str] | None

    @classmethod
    def made(cls, folder: str, pattern: str) -> _RustGlob:
        if pattern.endswith("**"):
            pattern += "/*"
        elif pattern.endswith("**/"):
            pattern += "*"
        full = absolute(folder, pattern)
        under = None if full.endswith("**/*") else rust_glob(full.rstrip("/") + "/**")
        return cls(full, rust_glob(full), under)

    def matches(self, path: str) -> bool:
        return bool(self.regex.match(path) or (self.below and self.below.match(path)))

    def root(self) -> str:
        """The folder the glob's walk starts from (its parts before the first wildcard; a
        last part with a suffix names a file, and its folder is the root)."""
        parts: list[str] = []
        for part in self.pattern.split("/")[1:]:
            if any(char in part for char in "*?["):
                break
            parts.append(part)
        if parts and "." in parts[-1].lstrip("."):
            parts.pop()
        return "/" + "/".join(parts)


class PyreflyMatcher:
    """pyrefly's filter: a Python file, no dot file, matched by an include that is not
    itself excluded, by no exclude, and in no hidden folder below its include root."""

    def __init__(self, includes: list[_RustGlob], excludes: list[_RustGlob], hidden: bool):
        self.excludes = excludes
        self.includes = [glob for glob in includes if not self._excluded(glob.pattern)]
        self.roots = sorted({glob.root() for glob in self.includes}, key=len, reverse=True)
        self.hidden = hidden

    def _excluded(self, path: str) -> bool:
        return any(glob.matches(path) for glob in self.excludes)

    def covers(self, path: str, environment: Environment) -> bool:
        name = path.rsplit("/", 1)[-1]
        if not name.endswith(PYREFLY_SUFFIXES) or name.startswith("."):
            return False
        if self._excluded(path):
            return False
        if self.hidden:
            root = next((r for r in self.roots if below(path, r)), "/")
            inside = path[len(root.rstrip("/")) + 1 :].split("/")[:-1]
            if any(part.startswith(".") for part in inside):
                return False
        return any(glob.matches(path) for glob in self.includes)

    def why(self, path: str, environment: Environment) -> str | None:
        """``project-excludes`` when an exclude matches the file, else ``project-includes``."""
        return "project-excludes" if self._excluded(path) else "project-includes"


def _pyrefly_scope(
    folder: str,
    config: str | None,
    name: str | None,
    includes: list[str] | None,
    excludes: list[str] | None,
    *,
    heuristics: bool = True,
    error: str | None = None,
) -> Scope:
    include = list(includes) if includes else list(PYREFLY_DEFAULT_INCLUDES)
    exclude = list(excludes or [])
    if heuristics:
        exclude += PYREFLY_DEFAULT_EXCLUDES
    matcher = PyreflyMatcher(
        [_RustGlob.made(folder, pattern) for pattern in include],
        [_RustGlob.made(folder, pattern) for pattern in exclude],
        heuristics,
    )
    return Scope(
        "pyrefly",
        folder,
        matcher,
        config=config,
        table=name,
        include=tuple(include),
        exclude=tuple(exclude),
        error=error,
    )


def pyrefly_default(folder: str, *, config: str | None = None, error: str | None = None) -> Scope:
    """pyrefly's scope without a configuration: its default includes and excludes."""
    return _pyrefly_scope(folder, config, None, None, None, error=error)


PYREFLY_FILES = ("pyrefly.toml", ".pyrefly.toml")
"""pyrefly's own configuration files, in the order it takes them (before ``pyproject.toml``'s
``[tool.pyrefly]``; measured: ``.pyrefly.toml`` wins over ``pyproject.toml``)."""


def pyrefly_at(folder: str, read: Read) -> Scope | None:
    """The scope of pyrefly's own configuration in ``folder`` (``pyrefly.toml``, then
    ``.pyrefly.toml``, then ``[tool.pyrefly]``), or ``None`` when it holds none."""
    try:
        name = None
        text = None
        for file_name in PYREFLY_FILES:
            config = f"{folder}/{file_name}"
            text = read(config)
            if text is not None:
                break
        if text is not None:
            values: dict[str, object] | None = load_toml(text, file_name)
        else:
            config = f"{folder}/pyproject.toml"
            text = read(config)
            if text is None:
                return None
            values = table(load_toml(text, "pyproject.toml"), "tool", "pyrefly")
            name = "[tool.pyrefly]"
            if values is None:
                return None
        assert values is not None
        includes = values.get("project-includes")
        excludes = values.get("project-excludes")
        heuristics = values.get("disable-project-excludes-heuristics", False)
        if not isinstance(heuristics, bool):
            raise ValueError("disable-project-excludes-heuristics must be true or false")
        return _pyrefly_scope(
            folder,
            config,
            name,
            None if includes is None else strings(includes, "project-includes"),
            None if excludes is None else strings(excludes, "project-excludes"),
            heuristics=not heuristics,
        )
    except ValueError as error:
        return pyrefly_default(folder, config=config, error=str(error))


def pyrefly_unconfigured_at(folder: str, read: Read) -> Scope | None:
    """What pyrefly reads in place of its own configuration in ``folder``: the first of
    ``mypy.ini``, ``pyrightconfig.json`` and ``pyproject.toml`` with ``[tool.mypy]`` or
    ``[tool.pyright]`` there, or ``None`` when ``folder`` holds none of them. A bare
    ``pyproject.toml`` (a package of a repository, an example) holds no configuration: the
    search goes on above it, as ``pyrefly check`` run above it reads the configuration
    there (measured on flask 3.1.3, whose examples have their own)."""
    config = f"{folder}/mypy.ini"
    try:
        text = read(config)
        if text is not None:
            parser = configparser.ConfigParser(interpolation=None)
            try:
                parser.read_string(text)
            except configparser.Error as error:
                raise ValueError(f"mypy.ini is not valid: {error}") from None
            mypy = dict(parser["mypy"]) if parser.has_section("mypy") else {}
            files = _mypy_list(mypy.get("files"))
            return _pyrefly_scope(folder, config, None, files, _mypy_excludes(mypy.get("exclude")))
        config = f"{folder}/pyrightconfig.json"
        text = read(config)
        if text is not None:
            values = jsonc.loads(text)
            if not isinstance(values, dict):
                raise ValueError("pyrightconfig.json does not hold a JSON object")
            return _from_pyright(folder, config, None, values)
        config = f"{folder}/pyproject.toml"
        text = read(config)
        if text is None:
            return None
        data = load_toml(text, "pyproject.toml")
        mypy_table = table(data, "tool", "mypy")
        if mypy_table is not None:
            return _pyrefly_scope(
                folder,
                config,
                "[tool.mypy]",
                _mypy_list(mypy_table.get("files")),
                _mypy_excludes(mypy_table.get("exclude")),
            )
        pyright_table = table(data, "tool", "pyright")
        if pyright_table is not None:
            return _from_pyright(folder, config, "[tool.pyright]", pyright_table)
        return None
    except ValueError as error:
        return pyrefly_default(folder, config=config, error=str(error))


def _from_pyright(folder: str, config: str, name: str | None, values: dict[str, object]) -> Scope:
    includes = values.get("include")
    excludes = values.get("exclude")
    return _pyrefly_scope(
        folder,
        config,
        name,
        None if includes is None else strings(includes, "include"),
        None if excludes is None else strings(excludes, "exclude"),
    )


def _mypy_list(value: object) -> list[str] | None:
    """mypy's ``files``: a comma-separated string or a list."""
    if value is None:
        return None
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return strings(value, "files")


def _mypy_excludes(value: object) -> list[str] | None:
    """mypy's ``exclude`` regular expressions as pyrefly turns them into globs: each
    alternative with its anchors dropped, ``.*`` as ``*``, ``\\.`` as ``.``; a folder
    (``/`` at the end) or a ``.py`` file is ``**/`` and itself, any other name ``**/`` and
    itself and ``*``. An expression with other constructs is left out (say so on the
    scope's excludes as pyrefly would not match it either)."""
    if value is None:
        return None
    found: list[str] = []
    for expression in [value] if isinstance(value, str) else strings(value, "exclude"):
        text = re.sub(r"\s+#.*$|\s+", "", expression.removeprefix("(?x)"), flags=re.M)
        if text.startswith("(") and text.endswith(")"):
            text = text[1:-1]
        for choice in text.split("|"):
            plain = choice.strip("^$").replace(".*", "*").replace(".+", "*")
            plain = plain.replace("\\.", ".")
            if not plain or re.search(r"[()\[\]{}+\\]", plain):
                continue
            suffix = "" if plain.endswith(("/", ".py", ".pyi")) else "*"
            found.append(f"**/{plain}{suffix}")
    return found
