"""The scopes of pyright, basedpyright and ty, each by its own rules (measured against
basedpyright 1.40.2 and ty 1.0.0 in the tests; pyrefly's are in :mod:`.pyrefly_scope`):

- **pyright / basedpyright**: ``pyrightconfig.json`` (JSON with comments) wins over
  ``pyproject.toml``; pyright reads ``[tool.pyright]``, basedpyright ``[tool.basedpyright]``
  or ``[tool.pyright]`` (both at once is an error). ``include`` defaults to the config's
  folder; the default excludes (``**/node_modules``, ``**/__pycache__``, ``**/.*``,
  ``**/__editable__.*``) are added to the configuration's own, and folders that hold a Python
  environment are left out; ``ignore``'d files are checked but report nothing, so they are
  not covered; ``extends`` chains configurations, each key replaced by the later one.
- **ty**: ``ty.toml``'s ``[src]`` wins over ``[tool.ty.src]``; ``include`` and gitignore-like
  ``exclude`` (``!`` re-includes, the last match wins, a trailing ``/`` matches folders only)
  with ty's default excludes first; a folder excluded leaves out everything below it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from . import jsonc
from .scope import (
    MAX_CHAIN,
    Environment,
    Read,
    Scope,
    below,
    folders_between,
    load_toml,
    strings,
    table,
)
from .scope_globs import absolute, globset, pyright_pattern

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

PYRIGHT_READERS = ("pyright", "basedpyright")
"""The readers of pyright's rules."""

PYRIGHT_DEFAULT_EXCLUDES = ("**/node_modules", "**/__pycache__", "**/.*", "**/__editable__.*")
PYTHON_SUFFIXES = (".py", ".pyi", ".ipynb")


# -- pyright ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _PyrightSpec:
    root: str
    regex: re.Pattern[str]
    deep: bool


class PyrightMatcher:
    """pyright's walk, asked about one file: the include whose root holds it walks down to
    it through folders its pattern (or a ``**``) admits, none excluded, none an
    environment; the file matches the include, no exclude and no ignore."""

    def __init__(self, includes: list[_PyrightSpec], excludes: list[_PyrightSpec]) -> None:
        self.includes = includes
        self.excludes = [spec.regex for spec in excludes]
        self.ignores: list[re.Pattern[str]] = []

    def _excluded(self, path: str) -> bool:
        return any(regex.match(path) for regex in self.excludes)

    def covers(self, path: str, environment: Environment) -> bool:
        if not path.endswith(PYTHON_SUFFIXES) or any(r.match(path) for r in self.ignores):
            return False
        for spec in self.includes:
            if self._excluded(spec.root):
                continue
            if path == spec.root:
                return True
            if not below(path, spec.root):
                continue
            walked = folders_between(spec.root, path)
            if any(environment(folder) for folder in walked):
                continue
            if any(
                not (spec.deep or spec.regex.match(folder)) or self._excluded(folder)
                for folder in walked[1:]
            ):
                continue
            if spec.regex.match(path) and not self._excluded(path):
                return True
        return False

    def why(self, path: str, environment: Environment) -> str | None:
        """What leaves out a file :meth:`covers` does not cover: ``ignore``, ``exclude``
        (the file, a folder above it, or the include's own root), ``environment``, else
        ``include``."""
        if any(regex.match(path) for regex in self.ignores):
            return "ignore"
        holding = [spec for spec in self.includes if path == spec.root or below(path, spec.root)]
        if any(self._excluded(spec.root) for spec in holding) or self._excluded(path):
            return "exclude"
        for spec in holding:
            # An excluded folder on the way matches the file too (a pattern covers what
            # lies below it), so only an environment remains to tell.
            walked = folders_between(spec.root, path) if path != spec.root else []
            if any(environment(folder) for folder in walked):
                return "environment"
        return "include"

    def narrowed(self, path: str) -> PyrightMatcher:
        """This configuration given ``path`` (a file or folder) on the command line, which
        replaces its ``include``; its excludes and ignores hold."""
        made = PyrightMatcher([_PyrightSpec(*pyright_pattern("/", path))], [])
        made.excludes = self.excludes
        made.ignores = self.ignores
        return made


def narrowed(scope: Scope, path: str) -> Scope:
    """A pyright ``scope`` as its command line has it when given ``path`` (see
    :meth:`PyrightMatcher.narrowed`); a scope of another tool as it is."""
    if not isinstance(scope.matcher, PyrightMatcher):
        return scope
    return replace(scope, matcher=scope.matcher.narrowed(path), include=(path,))


def pyright_at(folder: str, read: Read, *, based: bool) -> Scope | None:
    """The pyright (or basedpyright) scope that a configuration in ``folder`` decides, or
    ``None`` when ``folder`` holds none (a ``pyproject.toml`` without the tool's table is
    none: the search goes on above it)."""
    reader = "basedpyright" if based else "pyright"
    config = f"{folder}/pyrightconfig.json"
    try:
        text = read(config)
        if text is not None:
            return _pyright_scope(reader, folder, config, None, jsonc.loads(text), read, based)
        config = f"{folder}/pyproject.toml"
        text = read(config)
        if text is None:
            return None
        found = _pyright_table(load_toml(text, "pyproject.toml"), based)
        if found is None:
            return None
        name, values = found
        return _pyright_scope(reader, folder, config, name, values, read, based)
    except ValueError as error:
        return pyright_default(reader, folder, config=config, error=str(error))


def _pyright_table(data: dict[str, object], based: bool) -> tuple[str, dict[str, object]] | None:
    pyright = table(data, "tool", "pyright")
    basedpyright = table(data, "tool", "basedpyright") if based else None
    if pyright is not None and basedpyright is not None:
        raise ValueError("pyproject.toml cannot have both [tool.pyright] and [tool.basedpyright]")
    if basedpyright is not None:
        return "[tool.basedpyright]", basedpyright
    if pyright is not None:
        return "[tool.pyright]", pyright
    return None


def _pyright_scope(
    reader: str,
    folder: str,
    config: str,
    name: str | None,
    values: object,
    read: Read,
    based: bool,
) -> Scope:
    """The scope of a configuration and those it ``extends`` (the base's keys first, each
    key replaced by a later configuration that sets it, relative to its own folder)."""
    if not isinstance(values, dict):
        raise ValueError(f"{config} does not hold a JSON object")
    chain: list[tuple[str, object]] = [(folder, values)]
    seen = {config}
    current: object = values
    while isinstance(current, dict) and isinstance(current.get("extends"), str):
        base = absolute(chain[-1][0], current["extends"])
        if base in seen or len(chain) >= MAX_CHAIN:
            raise ValueError(f"{config}: extends {base} again (a circle)")
        seen.add(base)
        text = read(base)
        if text is None:
            raise ValueError(f"{config}: extends {base}, which does not exist")
        if base.endswith(".toml"):
            found = _pyright_table(load_toml(text, base), based)
            current = found[1] if found is not None else {}
        else:
            current = jsonc.loads(text)
        chain.append((base.rsplit("/", 1)[0], current))
    keys: dict[str, tuple[str, list[str]]] = {}
    for where, settings in reversed(chain):
        if not isinstance(settings, dict):
            continue
        for key in ("include", "exclude", "ignore"):
            value = settings.get(key)
            if isinstance(value, list):
                keys[key] = (where, [item for item in value if isinstance(item, str)])
    include = keys.get("include", (folder, ["."]))
    exclude = keys.get("exclude", (folder, []))
    ignore = keys.get("ignore", (folder, []))
    return _pyright_made(reader, folder, config, name, include, exclude, ignore, None)


def _pyright_made(
    reader: str,
    folder: str,
    config: str | None,
    name: str | None,
    include: tuple[str, list[str]],
    exclude: tuple[str, list[str]],
    ignore: tuple[str, list[str]],
    error: str | None,
) -> Scope:
    def made(where: str, specs: list[str]) -> list[_PyrightSpec]:
        return [_PyrightSpec(*pyright_pattern(where, spec)) for spec in specs]

    excludes = made(*exclude)
    sources = {spec.regex.pattern for spec in excludes}
    shown_excludes = list(exclude[1])
    for default in PYRIGHT_DEFAULT_EXCLUDES:
        spec = _PyrightSpec(*pyright_pattern(folder, default))
        if spec.regex.pattern not in sources:
            excludes.append(spec)
            shown_excludes.append(default)
    matcher = PyrightMatcher(made(*include), excludes)
    matcher.ignores = [spec.regex for spec in made(*ignore)]
    return Scope(
        reader,
        folder,
        matcher,
        config=config,
        table=name,
        include=tuple(include[1]),
        exclude=tuple(shown_excludes),
        ignore=tuple(ignore[1]),
        error=error,
    )


def pyright_default(
    reader: str, folder: str, *, config: str | None = None, error: str | None = None
) -> Scope:
    """pyright's scope without a configuration: ``folder``, its default excludes."""
    return _pyright_made(
        reader, folder, config, None, (folder, ["."]), (folder, []), (folder, []), error
    )


# -- ty ----------------------------------------------------------------------------------------

TY_DEFAULT_EXCLUDES = (
    "**/.bzr/",
    "**/.direnv/",
    "**/.eggs/",
    "**/.git/",
    "**/.git-rewrite/",
    "**/.hg/",
    "**/.mypy_cache/",
    "**/.nox/",
    "**/.pants.d/",
    "**/.pytype/",
    "**/.ruff_cache/",
    "**/.svn/",
    "**/.tox/",
    "**/.venv/",
    "**/__pypackages__/",
    "**/_build/",
    "**/buck-out/",
    "**/dist/",
    "**/node_modules/",
    "**/venv/",
)


@dataclass(frozen=True)
class _TyExclude:
    regex: re.Pattern[str]
    allow: bool
    folders_only: bool


class TyMatcher:
    """ty's walk from its project's folder: no folder on the way excluded, the file not
    excluded and included (each exclude decided by the last pattern that matches)."""

    def __init__(
        self, folder: str, includes: list[re.Pattern[str]] | None, excludes: list[_TyExclude]
    ) -> None:
        self.folder = folder
        self.includes = includes
        self.excludes = excludes

    def _excluded(self, path: str, is_folder: bool) -> bool:
        for rule in reversed(self.excludes):
            if (is_folder or not rule.folders_only) and rule.regex.match(path):
                return not rule.allow
        return False

    def covers(self, path: str, environment: Environment) -> bool:
        if not below(path, self.folder):
            return False
        if any(self._excluded(f, True) for f in folders_between(self.folder, path)[1:]):
            return False
        if self._excluded(path, False):
            return False
        return self.includes is None or any(regex.match(path) for regex in self.includes)

    def why(self, path: str, environment: Environment) -> str | None:
        """``exclude`` when the file or a folder on its way is excluded, else ``include``."""
        walked = folders_between(self.folder, path)[1:] if below(path, self.folder) else []
        if any(self._excluded(f, True) for f in walked) or self._excluded(path, False):
            return "exclude"
        return "include"


def _ty_absolute(folder: str, pattern: str) -> str:
    """A ty pattern anchored at ``folder`` (``./`` and ``../`` folded as ty folds them)."""
    if pattern.startswith("/"):
        return pattern
    base = folder
    while True:
        if pattern.startswith("./"):
            pattern = pattern[2:]
        elif pattern.startswith("../"):
            base = base.rsplit("/", 1)[0] or "/"
            pattern = pattern[3:]
        else:
            break
    return f"{base.rstrip('/')}/{pattern}"


def _ty_check(pattern: str, key: str) -> None:
    for part in pattern.split("/"):
        if "**" in part and part != "**":
            raise ValueError(f"{key}: `**` must be a whole path part in {pattern!r}")


def ty_at(folder: str, read: Read) -> Scope | None:
    """The ty scope of a configuration in ``folder`` (``ty.toml`` wins over a
    ``pyproject.toml`` with ``[tool.ty]``), or ``None`` when it holds none."""
    config = f"{folder}/ty.toml"
    try:
        text = read(config)
        if text is not None:
            src = table(load_toml(text, "ty.toml"), "src")
            return _ty_scope(folder, config, "[src]", src or {})
        config = f"{folder}/pyproject.toml"
        text = read(config)
        if text is None:
            return None
        data = load_toml(text, "pyproject.toml")
        if table(data, "tool", "ty") is None:
            return None
        return _ty_scope(folder, config, "[tool.ty.src]", table(data, "tool", "ty", "src") or {})
    except ValueError as error:
        return ty_default(folder, config=config, error=str(error))


def _ty_scope(folder: str, config: str | None, name: str | None, src: dict[str, object]) -> Scope:
    include = strings(src["include"], "include") if "include" in src else None
    exclude = strings(src["exclude"], "exclude") if "exclude" in src else []
    includes: list[re.Pattern[str]] | None = None
    if include is not None:
        includes = []
        for pattern in include:
            _ty_check(pattern, "include")
            full = _ty_absolute(folder, pattern)
            only_folders = full.endswith("/")
            full = full.rstrip("/") or "/"
            if full.endswith("**"):
                includes.append(globset(full))
                continue
            includes.append(globset(full.rstrip("/") + "/**"))
            if not only_folders:
                includes.append(globset(full))
    rules = [_ty_rule(pattern, None) for pattern in TY_DEFAULT_EXCLUDES]
    for pattern in exclude:
        _ty_check(pattern.removeprefix("!"), "exclude")
        rules.append(_ty_rule(pattern, folder))
    return Scope(
        "ty",
        folder,
        TyMatcher(folder, includes, rules),
        config=config,
        table=name,
        include=tuple(include if include is not None else ["."]),
        exclude=(*TY_DEFAULT_EXCLUDES, *exclude),
    )


def _ty_rule(pattern: str, folder: str | None) -> _TyExclude:
    allow = pattern.startswith("!")
    body = pattern[1:] if allow else pattern.removeprefix("\\")
    if folder is not None:
        body = _ty_absolute(folder, body)
    folders_only = body.endswith("/")
    body = body.rstrip("/")
    if body.endswith("/**"):
        body += "/*"
    return _TyExclude(globset(body), allow, folders_only)


def ty_default(folder: str, *, config: str | None = None, error: str | None = None) -> Scope:
    """ty's scope without a configuration: everything below ``folder``, its excludes."""
    made = _ty_scope(folder, None, None, {})
    return Scope(
        "ty",
        folder,
        made.matcher,
        config=config,
        include=made.include,
        exclude=made.exclude,
        error=error,
    )
