"""TypeScript's and JavaScript's imports: the module specifiers of a file's text, and the files
of a tree they may name, as the compiler resolves them.

**Reading** scans for ``import ... from "m"``, ``import "m"``, ``export ... from "m"``,
``import("m")``, ``require("m")``, ``import x = require("m")`` and ``/// <reference
path="m" />`` without parsing: a file with a syntax error still has its imports read, and
one inside a comment or a string costs an edge too many, never one too few. An ``export ...
from`` passes on what it takes (a barrel ``index.ts``): what imports that file depends on
the module too.

**Resolving** follows the compiler's module resolution for the files of the tree: a relative
specifier is a path (the extensions tried in turn, then the folder's ``index``; ``./m.js``
names ``m.ts`` as the ``node16`` and ``bundler`` modes allow); a bare one goes through the
project's ``paths`` (the pattern with the longest prefix first, ``*`` carried over) and
``baseUrl``, then to a package of the tree's own workspace by its ``package.json`` name (its
``types``/``main`` entry, or ``index``, also under ``src``). Packages installed in
``node_modules`` are not the tree's files and are never followed.

Sans-I/O: the tree's files, the project's options and the workspace's packages come in.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

# Internal to the library: nothing here is public API.
__all__: list[str] = []

TS_CODE_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
"""The files whose imports are read (``.d.ts`` ends in ``.ts``)."""

_TRIED = (".ts", ".tsx", ".d.ts", ".mts", ".cts", ".d.mts", ".d.cts", ".js", ".jsx", ".mjs", ".cjs")
"""The extensions tried after a specifier without one, in the compiler's order."""

_FOR_JS = {
    ".js": (".ts", ".tsx", ".d.ts"),
    ".jsx": (".tsx", ".d.ts"),
    ".mjs": (".mts", ".d.mts"),
    ".cjs": (".cts", ".d.cts"),
}
"""The TypeScript files a ``.js`` specifier may name (the compiler's output names)."""


@dataclass(frozen=True)
class TsImport:
    """One module specifier of a file, and whether the file passes its exports on."""

    specifier: str
    reexport: bool = False


_SPECIFIERS = re.compile(
    r"""\b(?P<kind>import|export)\b[^'";]*?\bfrom\s*(?P<q1>['"])(?P<from>[^'"\n]+)(?P=q1)"""
    r"""|\bimport\s*\(?\s*(?P<q2>['"])(?P<bare>[^'"\n]+)(?P=q2)"""
    r"""|\brequire\s*\(\s*(?P<q3>['"])(?P<required>[^'"\n]+)(?P=q3)"""
    r"""|///\s*<reference\s+path\s*=\s*(?P<q4>['"])(?P<reference>[^'"\n]+)(?P=q4)""",
)


def ts_imports(text: str) -> list[TsImport]:
    """The module specifiers of a TypeScript or JavaScript source ``text``, in order."""
    found: list[TsImport] = []
    for match in _SPECIFIERS.finditer(text):
        named = match.group("from")
        if named is not None:
            found.append(TsImport(named, match.group("kind") == "export"))
            continue
        reference = match.group("reference")
        if reference is not None:
            found.append(TsImport(reference if reference.startswith(".") else "./" + reference))
            continue
        found.append(TsImport(match.group("bare") or match.group("required")))
    return found


@dataclass(frozen=True)
class TsOptions:
    """What a project's ``compilerOptions`` say about bare specifiers: ``base_url``
    (absolute) and ``paths`` (each pattern with its substitutions, made absolute against
    ``baseUrl`` or, without one, the folder of the configuration that set them)."""

    base_url: str | None = None
    paths: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class TsPackage:
    """A package of the tree's own workspace: its folder and its entry files (``types``,
    ``typings``, ``main``, ``module``, ``source``), absolute."""

    folder: str
    entries: tuple[str, ...] = ()


@dataclass(frozen=True)
class TsTree:
    """What resolving needs of a tree: its files and its workspace's packages by name."""

    files: Collection[str]
    packages: Mapping[str, TsPackage] = field(default_factory=dict)


def _path_candidates(base: str) -> list[str]:
    """The files a path without resolution rules may name: itself (or the TypeScript file
    behind a ``.js`` name), then with each extension, then the folder's ``index``."""
    found: list[str] = []
    stem, suffix = posixpath.splitext(base)
    if suffix in _FOR_JS:
        found += [stem + extension for extension in _FOR_JS[suffix]]
    if suffix in _TRIED:
        found.append(base)
    found += [base + extension for extension in _TRIED]
    found += [f"{base}/index{extension}" for extension in _TRIED]
    return found


def _match(pattern: str, specifier: str) -> str | None:
    """What ``*`` stands for when ``specifier`` matches ``pattern`` (``""`` for an exact
    pattern), else ``None``."""
    if "*" not in pattern:
        return "" if pattern == specifier else None
    prefix, _star, suffix = pattern.partition("*")
    if (
        specifier.startswith(prefix)
        and specifier.endswith(suffix)
        and len(specifier) >= len(prefix) + len(suffix)
    ):
        return specifier[len(prefix) : len(specifier) - len(suffix)]
    return None


def _mapped(specifier: str, options: TsOptions) -> list[str]:
    """The paths ``paths`` maps ``specifier`` to, the pattern with the longest prefix first
    (the compiler takes the best match only)."""
    best: tuple[int, str, tuple[str, ...]] | None = None
    for pattern, substitutions in options.paths:
        star = _match(pattern, specifier)
        if star is None:
            continue
        rank = len(pattern) if "*" not in pattern else pattern.index("*")
        if "*" not in pattern:
            rank += 1 << 20  # an exact pattern wins over any wildcard
        if best is None or rank > best[0]:
            best = (rank, star, substitutions)
    if best is None:
        return []
    _rank, star, substitutions = best
    return [substitution.replace("*", star, 1) for substitution in substitutions]


def _package(specifier: str, tree: TsTree) -> list[str]:
    """The files a bare ``specifier`` may name in the workspace's own packages."""
    parts = specifier.split("/")
    count = 2 if specifier.startswith("@") else 1
    package = tree.packages.get("/".join(parts[:count]))
    if package is None:
        return []
    rest = "/".join(parts[count:])
    if rest:
        return [
            *_path_candidates(f"{package.folder}/{rest}"),
            *_path_candidates(f"{package.folder}/src/{rest}"),
        ]
    found: list[str] = []
    for entry in package.entries:
        found += _path_candidates(entry)
    return [
        *found,
        *_path_candidates(f"{package.folder}/index"),
        *_path_candidates(f"{package.folder}/src/index"),
    ]


def candidates(file: str, imported: TsImport, options: TsOptions, tree: TsTree) -> list[str]:
    """Every file ``imported`` (a specifier of ``file``) may name, in the compiler's order,
    whether it exists or not."""
    specifier = imported.specifier
    if specifier.startswith(("./", "../", "/")) or specifier in (".", ".."):
        base = posixpath.normpath(posixpath.join(posixpath.dirname(file), specifier))
        return _path_candidates(base)
    found: list[str] = []
    for mapped in _mapped(specifier, options):
        found += _path_candidates(posixpath.normpath(mapped))
    if options.base_url is not None:
        found += _path_candidates(posixpath.normpath(f"{options.base_url}/{specifier}"))
    return found + _package(specifier, tree)


def resolve(file: str, imported: TsImport, options: TsOptions, tree: TsTree) -> str | None:
    """The file of ``tree`` that ``imported`` names (the first candidate there), else
    ``None``: a package in ``node_modules``, a built-in module, a file missing."""
    files = tree.files
    for path in candidates(file, imported, options, tree):
        if path in files and path != file:
            return path
    return None
