"""A TypeScript project's scope, as ``tsc -p`` (and ``tsc -b`` for references) reads its
``tsconfig.json`` (or a ``jsconfig.json``, which allows JavaScript): ``files`` always; the
files ``include`` matches (``**/*`` when neither is given) that ``exclude`` does not (when it
is not given: ``outDir`` and ``declarationDir``; the package folders and names that start
with a dot are never matched by a wildcard); TypeScript files only, JavaScript too with
``allowJs`` (or ``checkJs``); ``extends`` (a path, or a package in ``node_modules`` whose
JSON is read, never run) gives the keys the project does not set, relative to the file that
sets them; the projects named in ``references`` add their own files (a solution's
``files: []`` names none of its own). A file of ``files`` is an entry point: what it imports
(followed through the project's ``paths`` and ``baseUrl``, outside ``node_modules``, again
and again) is part of the program and checked, whatever ``include`` and ``exclude`` say, as
``tsc -p`` checks it (:mod:`.ts_imports` resolves the specifiers).

Sans-I/O: the texts come through the caller's ``read``.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from . import jsonc
from .scope import MAX_CHAIN, Environment, Read, Scope, below, folders_between
from .scope_globs import absolute, ts_regex, ts_subpattern
from .ts_imports import TsImport, TsOptions, TsTree, candidates, ts_imports

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

TS_SUFFIXES = (".ts", ".tsx", ".d.ts", ".cts", ".d.cts", ".mts", ".d.mts")
JS_SUFFIXES = (".js", ".jsx", ".cjs", ".mjs")
NAMES = ("tsconfig.json", "jsconfig.json")


@dataclass
class _Merged:
    """A configuration with what it ``extends``: each key with the folder of the file
    that set it."""

    specs: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    options: dict[str, tuple[str, Any]] = field(default_factory=dict)


class TsMatcher:
    """``matchFiles`` asked about one file: a file of ``files``, or one of the allowed
    suffixes that an include matches, reached through folders the includes admit and
    ``exclude`` does not, itself not excluded."""

    def __init__(
        self,
        folder: str,
        files: set[str],
        includes: list[str],
        include_folder: str,
        excludes: list[str],
        exclude_folder: str,
        suffixes: tuple[str, ...],
        entries: tuple[TsOptions, Read] | None = None,
    ) -> None:
        self.files = files
        self._entries = entries
        self._reached: set[str] | None = None
        patterns = [p for spec in includes if (p := ts_subpattern(spec, include_folder, "files"))]
        self.includes = [re.compile(f"^{p}$") for p in patterns]
        self.folders = ts_regex(includes, include_folder, "directories")
        self.excludes = ts_regex(excludes, exclude_folder, "exclude")
        self.suffixes = suffixes
        bases = [folder]
        for spec in includes:
            base = _include_base(absolute(include_folder, spec))
            if not any(base == b or below(base, b) for b in bases):
                bases.append(base)
        self.bases = bases

    def covers(self, path: str, environment: Environment) -> bool:
        if path in self.files or (self._entries is not None and path in self.reached()):
            return True
        if not path.endswith(self.suffixes) or not self.includes:
            return False
        if self.excludes is not None and self.excludes.match(path):
            return False
        base = next((b for b in self.bases if below(path, b)), None)
        if base is None:
            return False
        # (A folder that ``exclude`` matches excludes the file below it, tested above.)
        for folder in folders_between(base, path)[1:]:
            if self.folders is not None and not self.folders.match(folder):
                return False
        return any(regex.match(path) for regex in self.includes)

    def reached(self) -> set[str]:
        """The files the entry points of ``files`` import, again and again (read once)."""
        if self._reached is None:
            assert self._entries is not None
            options, read = self._entries
            self._reached = reachable(sorted(self.files), options, read, self.suffixes)
        return self._reached


def reachable(
    entries: list[str], options: TsOptions, read: Read, suffixes: tuple[str, ...]
) -> set[str]:
    """The files ``entries`` import, and what those import, as the compiler finds them
    (the first candidate that exists, of an allowed suffix, outside ``node_modules``);
    ``entries`` themselves are left out unless one imports another."""
    seen: set[str] = set(entries)
    reached: set[str] = set()
    queue = list(entries)
    empty = TsTree(frozenset())
    while queue:
        current = queue.pop()
        try:
            text = read(current)
        except ValueError:
            continue  # too large to read: its imports are not followed
        if text is None:
            continue
        for imported in ts_imports(text):
            found = _first(current, imported, options, empty, read, suffixes)
            if found is not None:
                reached.add(found)
                if found not in seen:
                    seen.add(found)
                    queue.append(found)
    return reached


def _first(
    file: str,
    imported: TsImport,
    options: TsOptions,
    tree: TsTree,
    read: Read,
    suffixes: tuple[str, ...],
) -> str | None:
    """The file ``imported`` names, looked for on the disk through ``read``."""
    for path in candidates(file, imported, options, tree):
        if "/node_modules/" in path or not path.endswith(suffixes) or path == file:
            continue
        try:
            if read(path) is not None:
                return path
        except ValueError:
            return path  # there, but too large to read
    return None


def _include_base(spec: str) -> str:
    """Where the compiler starts walking for an include: the part before its first
    wildcard; a last part with a suffix names a file, and its folder is the base."""
    star = min((i for i in (spec.find("*"), spec.find("?")) if i != -1), default=-1)
    if star == -1:
        last = spec.rsplit("/", 1)[-1]
        return posixpath.dirname(spec) if "." in last else spec
    return spec[: spec.rfind("/", 0, star)] or "/"


def tsconfig_at(folder: str, read: Read) -> Scope | None:
    """The scope of the ``tsconfig.json`` (else ``jsconfig.json``) in ``folder``, or
    ``None`` when it holds neither."""
    for name in NAMES:
        config = f"{folder}/{name}"
        try:
            text = read(config)
            if text is None:
                continue
            return _project(config, text, read, {config: None})
        except ValueError as error:
            return tsconfig_default(folder, config=config, error=str(error))
    return None


def tsconfig_default(folder: str, *, config: str | None = None, error: str | None = None) -> Scope:
    """Without a tsconfig the servers check every file they are given."""
    return Scope("tsconfig", folder, config=config, error=error)


def _project(config: str, text: str, read: Read, projects: dict[str, Scope | None]) -> Scope:
    """The scope of one project and of the projects it references (``projects``: those
    read so far, each read once)."""
    folder = posixpath.dirname(config)
    raw = _object(config, text)
    merged = _merged(config, raw, read, (config,), folder)
    options = {key: value for key, (_where, value) in merged.options.items()}
    javascript = config.endswith("jsconfig.json")
    allow = options.get("allowJs", options.get("checkJs", javascript))
    suffixes = TS_SUFFIXES + JS_SUFFIXES if allow is True else TS_SUFFIXES
    files_where, files = merged.specs.get("files", (folder, []))
    literal = {absolute(files_where, name) for name in files}
    if "files" not in merged.specs and "include" not in merged.specs:
        include_where, includes = folder, ["**/*"]
    else:
        include_where, includes = merged.specs.get("include", (folder, []))
    if "exclude" in merged.specs:
        exclude_where, excludes = merged.specs["exclude"]
    else:
        exclude_where, excludes = folder, []
        for key in ("outDir", "declarationDir"):
            where, value = merged.options.get(key, (folder, None))
            if isinstance(value, str):
                excludes.append(absolute(where, value))
    entries = (compiler_options(merged), read) if literal else None
    matcher = TsMatcher(
        folder, literal, includes, include_where, excludes, exclude_where, suffixes, entries
    )
    references: list[Scope] = []
    for name in _references(raw):
        found = _reference(config, name, read, projects)
        if found is not None:
            references.append(found)
    return Scope(
        "tsconfig",
        folder,
        matcher,
        config=config,
        include=tuple(includes),
        exclude=tuple(excludes),
        files=tuple(files),
        references=tuple(references),
    )


def compiler_options(merged: _Merged) -> TsOptions:
    """What a configuration's ``baseUrl`` and ``paths`` say, each relative to the file that
    set it (``paths`` to ``baseUrl`` when there is one)."""
    base_where, base_url = merged.options.get("baseUrl", ("", None))
    paths_where, paths = merged.options.get("paths", ("", None))
    base = absolute(base_where, base_url) if isinstance(base_url, str) else None
    against = base if base is not None else paths_where
    mapped = tuple(
        (pattern, tuple(absolute(against, item) for item in items if isinstance(item, str)))
        for pattern, items in (paths.items() if isinstance(paths, dict) else ())
        if isinstance(items, list)
    )
    return TsOptions(base, mapped)


def ts_options(config: str, read: Read) -> TsOptions:
    """The ``baseUrl`` and ``paths`` of the configuration file ``config`` with what it
    extends; none when it cannot be read.

    Raises nothing: a broken configuration resolves no bare specifier."""
    try:
        text = read(config)
        if text is None:
            return TsOptions()
        folder = posixpath.dirname(config)
        return compiler_options(_merged(config, _object(config, text), read, (config,), folder))
    except ValueError:
        return TsOptions()


def _object(config: str, text: str) -> dict[str, Any]:
    value = jsonc.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"{config} does not hold a JSON object")
    return value


def _merged(
    config: str, raw: dict[str, Any], read: Read, chain: tuple[str, ...], leaf: str
) -> _Merged:
    """The keys of ``config`` over those of what it extends (``chain``: the files that
    extend it, a circle's witness; ``${configDir}`` is the folder of the project, ``leaf``)."""
    folder = posixpath.dirname(config)
    merged = _Merged()
    bases = raw.get("extends")
    for base in [bases] if isinstance(bases, str) else bases if isinstance(bases, list) else []:
        if not isinstance(base, str):
            continue
        path = _extended(folder, base, read)
        if path in chain or len(chain) >= MAX_CHAIN:
            raise ValueError(f"{config}: extends {base}, which extends it again")
        base_text = read(path)
        assert base_text is not None  # _extended found it
        found = _merged(path, _object(path, base_text), read, (*chain, path), leaf)
        merged.specs.update(found.specs)
        merged.options.update(found.options)
    for key in ("files", "include", "exclude"):
        value = raw.get(key)
        if isinstance(value, list):
            specs = [item.replace("${configDir}", leaf) for item in value if isinstance(item, str)]
            merged.specs[key] = (folder, specs)
    options = raw.get("compilerOptions")
    if isinstance(options, dict):
        for key, value in options.items():
            if isinstance(value, str):
                value = value.replace("${configDir}", leaf)
            merged.options[key] = (folder, value)
    return merged


def _extended(folder: str, name: str, read: Read) -> str:
    """The file an ``extends`` names: a path (``.json`` added when it is missing), or a
    package's JSON file found in the ``node_modules`` folders above.

    Raises:
        ValueError: no such file.
    """
    if name.startswith(("./", "../", "/")):
        path = absolute(folder, name)
        candidates = [path] if path.endswith(".json") else [path, path + ".json"]
    else:
        candidates = []
        current = folder
        while True:
            modules = f"{current.rstrip('/')}/node_modules/{name}"
            if name.endswith(".json"):
                candidates.append(modules)
            candidates += [modules + ".json", modules + "/tsconfig.json"]
            if current == "/":
                break
            current = posixpath.dirname(current)
    for candidate in candidates:
        if read(candidate) is not None:
            return candidate
    raise ValueError(f"extends {name}: no such file from {folder}")


def _references(raw: dict[str, Any]) -> list[str]:
    found = raw.get("references")
    if not isinstance(found, list):
        return []
    return [
        item["path"]
        for item in found
        if isinstance(item, dict) and isinstance(item.get("path"), str)
    ]


def _reference(
    config: str, name: str, read: Read, projects: dict[str, Scope | None]
) -> Scope | None:
    """The scope of a referenced project (a folder stands for its ``tsconfig.json``);
    ``None`` for one read already (a circle, or two paths to one project).

    Raises:
        ValueError: it does not exist, or too many projects.
    """
    path = absolute(posixpath.dirname(config), name)
    if not path.endswith(".json"):
        path += "/tsconfig.json"
    if path in projects:
        return None
    if len(projects) >= MAX_CHAIN:
        raise ValueError(f"{config}: more than {MAX_CHAIN} referenced projects")
    projects[path] = None
    text = read(path)
    if text is None:
        raise ValueError(f"{config}: references {name}, which has no {path}")
    return _project(path, text, read, projects)
