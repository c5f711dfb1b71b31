"""ruff's scope, by its own rules (measured against ruff 0.17.6 in the tests):

- **Which configuration.** A folder's ``.ruff.toml`` wins over its ``ruff.toml``, which wins
  over a ``pyproject.toml`` with a ``[tool.ruff]`` table (one without is no configuration);
  each file takes the nearest one at or above its folder, with no merging between them;
  ``extend`` chains configurations (the base first; ``exclude``, ``include``,
  ``force-exclude`` and ``lint.exclude`` replaced by a later one, ``extend-exclude`` and
  ``extend-include`` added to), each pattern relative to the file that holds it.
- **Patterns.** globset's defaults: ``*`` crosses ``/``. An exclusion pattern matches an
  entry's absolute path (the pattern made absolute against its configuration's folder) or
  its base name as written (so ``build`` leaves out every folder named ``build``); ruff's
  default excludes (``.venv``, ``dist``, ``node_modules`` ...) unless ``exclude`` is set.
- **The walk** (``ruff check FOLDER``): each entry below the folder given is judged by the
  configuration nearest above it (a folder's own configuration is read only once the folder
  is entered, so a nested project its parent excludes is left out); a file found must also
  match ``include`` (``extend-include``). The folder given itself is not judged.
- **The language server** never lints a file its configuration excludes: the file and each
  folder above it up to its configuration's folder are judged by that configuration, as
  ``--force-exclude`` does on the command line (so a file named on the command line that
  ``ruff check FILE`` would lint is left out by ``ruff server``: nothing lints it).

Sans-I/O: configuration texts come through :data:`.scope.Read`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

from .scope import MAX_CHAIN, Environment, Read, Scope, below, load_toml, strings, table
from .scope_globs import absolute, ruff_glob

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

RUFF_DEFAULT_EXCLUDES = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pypackages__",
    "_build",
    "buck-out",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)
"""ruff 0.17's ``exclude`` when a configuration sets none (``ruff check --show-settings``)."""

RUFF_DEFAULT_INCLUDES = ("*.py", "*.pyi", "*.ipynb", "**/pyproject.toml")
"""The files a walk takes when no ``include`` is set (those a linter reads)."""

RUFF_FILES = (".ruff.toml", "ruff.toml", "pyproject.toml")
"""A folder's ruff configuration files, in the order ruff prefers them."""


@dataclass(frozen=True)
class _Patterns:
    """One key's patterns: each as written (matched against a base name and a path) and
    made absolute against the folder of the file that holds it (matched against a path)."""

    key: str
    written: tuple[str, ...]
    regexes: tuple[re.Pattern[str], ...]

    @classmethod
    def made(cls, key: str, patterns: list[tuple[str, str]]) -> _Patterns:
        regexes: list[re.Pattern[str]] = []
        for folder, pattern in patterns:
            regexes.append(ruff_glob(pattern))
            if folder:
                regexes.append(ruff_glob(absolute(folder, pattern)))
        return cls(key, tuple(pattern for _, pattern in patterns), tuple(regexes))

    def match(self, path: str) -> bool:
        name = posixpath.basename(path)
        return any(regex.match(path) or regex.match(name) for regex in self.regexes)

    def match_path(self, path: str) -> bool:
        return any(regex.match(path) for regex in self.regexes)


class RuffMatcher:
    """One ruff configuration's rules: what it excludes (and by which key), what a walk
    takes, and what its language server lints."""

    def __init__(
        self,
        folder: str,
        excludes: tuple[_Patterns, ...],
        includes: tuple[_Patterns, ...],
        lint_excludes: _Patterns,
        force: bool,
    ) -> None:
        self.folder = folder
        self.excludes = excludes
        self.includes = includes
        self.lint_excludes = lint_excludes
        self.force = force
        """``force-exclude``: the command line too leaves out a file named that is excluded."""

    def excluded(self, path: str, *, linting: bool = False) -> str | None:
        """The key whose pattern leaves out the entry at ``path`` (``exclude``, or ``default
        exclude`` when the configuration sets none; ``extend-exclude``; with ``linting``,
        ``lint.exclude`` too), or ``None``."""
        for patterns in self.excludes:
            if patterns.match(path):
                return patterns.key
        if linting and self.lint_excludes.match(path):
            return self.lint_excludes.key
        return None

    def included(self, path: str) -> bool:
        """Whether a walk takes the file at ``path`` (``include`` or ``extend-include``)."""
        return any(patterns.match_path(path) for patterns in self.includes)

    def linted(self, path: str) -> str | None:
        """Why the language server does not lint the file at ``path`` (the key that leaves
        it or a folder above it out, up to this configuration's folder), or ``None``."""
        current = path
        while True:
            key = self.excluded(current, linting=True)
            if key is not None or current in (self.folder, "/"):
                return key
            current = posixpath.dirname(current)

    def covers(self, path: str, environment: Environment) -> bool:
        return self.linted(path) is None

    def why(self, path: str, environment: Environment) -> str | None:
        return self.linted(path)


ScopeOf = Callable[[str], Scope]
"""The ruff scope nearest at or above a folder (an absolute ``/`` path)."""


def left_out(path: str, start: str | None, scope_of: ScopeOf) -> tuple[Scope, str] | None:
    """Why ruff checks no file at ``path``: the scope and key that leave it out, or
    ``None`` when ``ruff check`` from ``start`` (a folder the walk starts at, holding
    ``path``; ``None`` for a file named itself) lints it and so does ``ruff server``."""
    own = scope_of(posixpath.dirname(path))
    matcher = _matcher(own)
    key = matcher.linted(path)
    if key is not None:
        return own, key
    if start is None:
        return None
    entry = path
    walked: list[str] = []
    while entry != start and below(entry, start):
        walked.append(entry)
        entry = posixpath.dirname(entry)
    for entry in reversed(walked):
        above = scope_of(posixpath.dirname(entry))
        key = _matcher(above).excluded(entry)
        if key is not None:
            return above, key
    if not matcher.included(path):
        return own, "include"
    return None


def _matcher(scope: Scope) -> RuffMatcher:
    matcher = scope.matcher
    assert isinstance(matcher, RuffMatcher), "a ruff scope has a RuffMatcher"
    return matcher


# -- reading configurations --------------------------------------------------------------------


def ruff_at(folder: str, read: Read) -> Scope | None:
    """The ruff scope of a configuration in ``folder``, or ``None`` when it holds none."""
    config = f"{folder}/{RUFF_FILES[0]}"
    try:
        for name in RUFF_FILES:
            config = f"{folder}/{name}"
            text = read(config)
            if text is None:
                continue
            values = _values(config, text)
            if values is None:
                continue
            # Named as the users name it: ruff has one table in a pyproject.toml.
            return _ruff_scope(folder, config, None, values, read)
        return None
    except ValueError as error:
        return ruff_default(folder, config=config, error=str(error))


def _values(config: str, text: str) -> dict[str, object] | None:
    """The ruff settings of a configuration file (``None``: a ``pyproject.toml`` without
    ``[tool.ruff]``)."""
    name = posixpath.basename(config)
    data = load_toml(text, name)
    if name == "pyproject.toml":
        return table(data, "tool", "ruff")
    return data


_REPLACED = ("exclude", "include", "force-exclude", "lint.exclude")
_ADDED = ("extend-exclude", "extend-include")


def _ruff_scope(
    folder: str, config: str, name: str | None, values: dict[str, object], read: Read
) -> Scope:
    """The scope of a configuration and those it ``extends``."""
    chain: list[tuple[str, dict[str, object]]] = [(folder, values)]
    seen = {config}
    current = values
    while isinstance(current.get("extend"), str):
        base = absolute(chain[-1][0], str(current["extend"]))
        if base in seen or len(chain) >= MAX_CHAIN:
            raise ValueError(f"{config}: extend {base} again (a circle)")
        seen.add(base)
        text = read(base)
        if text is None:
            raise ValueError(f"{config}: extend {base}, which does not exist")
        current = _values(base, text) or {}
        chain.append((posixpath.dirname(base), current))
    replaced: dict[str, list[tuple[str, str]]] = {}
    added: dict[str, list[tuple[str, str]]] = {key: [] for key in _ADDED}
    force = False
    for where, settings in reversed(chain):
        lint = table(settings, "lint") or {}
        for key in _REPLACED:
            value = lint.get("exclude") if key == "lint.exclude" else settings.get(key)
            if value is None:
                continue
            if key == "force-exclude":
                if not isinstance(value, bool):
                    raise ValueError(f"force-exclude must be true or false, not {value!r}")
                force = value
                continue
            replaced[key] = [(where, pattern) for pattern in strings(value, key)]
        for key in _ADDED:
            if key in settings:
                added[key] += [(where, pattern) for pattern in strings(settings[key], key)]
    return _made(folder, config, name, replaced, added, force, None)


def _made(
    folder: str,
    config: str | None,
    name: str | None,
    replaced: dict[str, list[tuple[str, str]]],
    added: dict[str, list[tuple[str, str]]],
    force: bool,
    error: str | None,
) -> Scope:
    exclude = replaced.get("exclude", [("", pattern) for pattern in RUFF_DEFAULT_EXCLUDES])
    excluding = "exclude" if "exclude" in replaced else "default exclude"
    include = replaced.get("include", [("", pattern) for pattern in RUFF_DEFAULT_INCLUDES])
    extend_exclude = added.get("extend-exclude", [])
    extend_include = added.get("extend-include", [])
    matcher = RuffMatcher(
        folder,
        (
            _Patterns.made(excluding, exclude),
            _Patterns.made("extend-exclude", extend_exclude),
        ),
        (
            _Patterns.made("include", include),
            _Patterns.made("extend-include", extend_include),
        ),
        _Patterns.made("lint.exclude", replaced.get("lint.exclude", [])),
        force,
    )
    return Scope(
        "ruff",
        folder,
        matcher,
        config=config,
        table=name,
        include=tuple(p for _, p in include + extend_include),
        exclude=tuple(p for _, p in exclude + extend_exclude),
        error=error,
    )


def ruff_default(folder: str, *, config: str | None = None, error: str | None = None) -> Scope:
    """ruff's scope without a configuration: its default includes and excludes."""
    return _made(folder, config, None, {}, {}, False, error)
