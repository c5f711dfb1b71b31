"""Python's imports: read from a file's text, and the files of a tree they may name.

**Reading** scans the text for import statements (``import a.b as c, d``, ``from ..m import
(x, y)``, continued lines), indented ones too (``if TYPE_CHECKING:``), without parsing it: a
file in the middle of an edit, with a syntax error, still has its imports read. A statement
inside a string is read as well; that costs the graph an edge it did not need, never one it
missed.

**Resolving** follows the type checkers rather than the interpreter, since what they report
is what an edit can break: an absolute import is looked for in each source root in turn (the
project's own: its folder, ``src``, and the paths its configuration declares; then the
importing file's own folder, where pyright looks last), a relative one in the folder its dots
name. A module is a ``.py`` or ``.pyi`` file, or a package's ``__init__``; a stub-only package
``name-stubs`` counts too. Importing ``a.b.c`` needs the packages ``a`` and ``a.b`` (their
``__init__`` runs, and the checker reads them); ``from a.b import x`` also needs ``a.b.x`` when
that is a module. Every file that may be meant is named, in every root (an import that two
roots could satisfy depends on both): the graph may hold an edge too many, never one too few.

Sans-I/O: the tree's files come in as a set of absolute ``/``-separated paths.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

# Internal to the library: nothing here is public API.
__all__: list[str] = []

PYTHON_SUFFIXES = (".py", ".pyi")
"""The files that are Python modules to a type checker (notebooks import nothing anyone
else imports)."""


@dataclass(frozen=True)
class PythonImport:
    """One module an import statement names: ``level`` leading dots (0: absolute),
    ``module`` the dotted name after them (``""`` for ``from . import x``), ``names`` what a
    ``from`` import takes from it (which may be submodules); ``reexport`` when the importing
    file passes what it takes on as its own (``from m import *``, ``import m as m``, ``from m
    import x as x``): what imports that file then depends on ``module`` too."""

    level: int
    module: str
    names: tuple[str, ...] = ()
    reexport: bool = False


_STATEMENT = re.compile(
    r"^[ \t]*(?:"
    r"from[ \t]+(?P<source>\.*[\w.]*)[ \t]+import[ \t]*(?P<names>\([^)]*\)?|(?:[^\n\\;#]|\\\n)*)"
    r"|import[ \t]+(?P<modules>(?:[^\n\\;#]|\\\n)*)"
    r")",
    re.MULTILINE,
)
_COMMENT = re.compile(r"#[^\n]*")


def _dotted(name: str) -> bool:
    return bool(name) and all(part.isidentifier() for part in name.split("."))


def _items(listing: str) -> list[tuple[str, bool]]:
    """The names of a comma-separated list (``a.b as c, d``): each item's first word, and
    whether it is renamed to itself (``x as x``, the re-export of a stub)."""
    items = []
    for item in _COMMENT.sub("", listing).replace("\\\n", " ").split(","):
        parts = item.split()
        if parts:
            items.append((parts[0], len(parts) == 3 and parts[1] == "as" and parts[2] == parts[0]))
    return items


def python_imports(text: str) -> list[PythonImport]:
    """The imports of a Python source ``text``, in order (see the module's docstring)."""
    found: list[PythonImport] = []
    for match in _STATEMENT.finditer(text):
        source = match.group("source")
        if source is None:
            found.extend(
                PythonImport(0, name, reexport=same)
                for name, same in _items(match.group("modules"))
                if _dotted(name)
            )
            continue
        module = source.lstrip(".")
        level = len(source) - len(module)
        if module and not _dotted(module):
            continue
        if level == 0 and not module:
            continue
        items = _items(match.group("names").strip().strip("()"))
        names = tuple(name for name, _same in items if name.isidentifier())
        reexport = any(name == "*" or same for name, same in items)
        found.append(PythonImport(level, module, names, reexport))
    return found


@dataclass(frozen=True)
class PythonTree:
    """What resolving needs to know of a tree: its Python files, the folders that hold them,
    and the source roots absolute imports are looked for in (in order)."""

    files: Collection[str]
    folders: Collection[str]
    roots: tuple[str, ...]

    @classmethod
    def of(cls, files: Iterable[str], roots: Iterable[str]) -> PythonTree:
        """The tree of ``files`` (absolute paths; only Python files are kept)."""
        kept = frozenset(path for path in files if path.endswith(PYTHON_SUFFIXES))
        folders: set[str] = set()
        for path in kept:
            folder = posixpath.dirname(path)
            while folder not in folders and folder != "/":
                folders.add(folder)
                folder = posixpath.dirname(folder)
        return cls(kept, frozenset(folders), tuple(dict.fromkeys(roots)))


def _module_files(folder: str, dotted: str) -> list[str]:
    """The files that may hold module ``dotted`` (``""``: the package ``folder`` itself)
    looked for in ``folder``: ``.py``, ``.pyi``, a package's ``__init__``, a stub package."""
    if not dotted:
        return [f"{folder}/__init__.py", f"{folder}/__init__.pyi"]
    path = f"{folder}/{dotted.replace('.', '/')}"
    found = [f"{path}.py", f"{path}.pyi", f"{path}/__init__.py", f"{path}/__init__.pyi"]
    first, _dot, rest = dotted.partition(".")
    stubs = f"{folder}/{first}-stubs"
    if rest:
        stub = f"{stubs}/{rest.replace('.', '/')}"
        found += [f"{stub}.pyi", f"{stub}/__init__.pyi"]
    else:
        found.append(f"{stubs}/__init__.pyi")
    return found


def _base(file: str, level: int) -> str | None:
    """The folder a relative import of ``level`` dots in ``file`` starts from; ``None``
    when the dots climb above the top of the file system."""
    folder = posixpath.dirname(file)
    for _ in range(level - 1):
        if folder == "/":
            return None
        folder = posixpath.dirname(folder)
    return folder


def _wanted(imported: PythonImport) -> list[str]:
    """The dotted names an import needs, outermost package first: ``a``, ``a.b``, then each
    of ``names`` below the module (``a.b.x``) where it may be a submodule."""
    parts = imported.module.split(".") if imported.module else []
    names = [".".join(parts[: count + 1]) for count in range(len(parts))]
    prefix = f"{imported.module}." if imported.module else ""
    if imported.level and not imported.module:
        names.insert(0, "")  # ``from . import x``: the package itself
    return [*names, *(prefix + name for name in imported.names if name != "*")]


def _search(file: str, imported: PythonImport, tree: PythonTree) -> list[str]:
    """The folders ``imported`` is looked for in: its relative base, or every source root
    and then the importing file's own folder."""
    if imported.level:
        base = _base(file, imported.level)
        return [] if base is None else [base]
    own = posixpath.dirname(file)
    return [*tree.roots, own] if own not in tree.roots else list(tree.roots)


def candidates(
    file: str,
    imported: PythonImport,
    tree: PythonTree,
    present: Callable[[str], bool] | None = None,
) -> list[str]:
    """Every file ``imported`` (an import of ``file``) may name, whether it exists or not.
    With ``present`` (whether a folder is in the tree), a name below a folder that is not
    there is not looked for: the names a ``from typing import ...`` takes cost nothing."""
    found: list[str] = []
    wanted = _wanted(imported)
    for folder in _search(file, imported, tree):
        for dotted in wanted:
            if present is not None and "." in dotted:
                package = dotted.rpartition(".")[0]
                first = package.partition(".")[0]
                if not present(f"{folder}/{package.replace('.', '/')}") and not present(
                    f"{folder}/{first}-stubs"
                ):
                    continue
            found.extend(_module_files(folder, dotted))
    return found


def resolve(file: str, imported: PythonImport, tree: PythonTree) -> list[str]:
    """The files of ``tree`` that ``imported`` (an import of ``file``) names, each once."""
    folders = tree.folders
    found = candidates(file, imported, tree, folders.__contains__)
    files = tree.files
    return list(dict.fromkeys(path for path in found if path in files and path != file))
