"""Which files of a tree import which, and so which files an edit of one can break.

Each file's edges are the files its imports name (:mod:`.python_imports`,
:mod:`.ts_imports`), each marked when the file passes on what it takes (a re-export). The
reverse edges give a file's **dependents**: the files that import it, and, through a file
that re-exports it (``from .utils import *``, ``export * from "./utils"``) or a package's
``__init__`` (what a package's users reach its modules through), the files that import
that one in turn. A type inferred through a module that only uses another is not followed:
an edit is checked against the files that name what it changed, not against the whole
closure of the tree (on click, 53 of its 71 files for any module).

Sans-I/O: files are absolute ``/``-separated paths; the caller reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

# Internal to the library: nothing here is public API.
__all__: list[str] = []


def passes_on(path: str) -> bool:
    """Whether every import of the file at ``path`` is passed on to what imports it: a
    Python package's ``__init__``, a JavaScript or TypeScript folder's ``index``."""
    name = path.rpartition("/")[2]
    return name in ("__init__.py", "__init__.pyi") or name.startswith("index.")


class ImportGraph:
    """The edges of a tree's imports, kept in both directions (see the module's docstring).

    ``passes`` says whether a file passes on every import it makes (by default,
    :func:`passes_on`).
    """

    def __init__(self, passes: Callable[[str], bool] = passes_on) -> None:
        self._imports: dict[str, dict[str, bool]] = {}
        self._importers: dict[str, dict[str, bool]] = {}
        self._passes = passes

    def __contains__(self, path: object) -> bool:
        return path in self._imports

    def __len__(self) -> int:
        return len(self._imports)

    def files(self) -> list[str]:
        """Every file whose imports are known, in the order they were first set."""
        return list(self._imports)

    def imports(self, path: str) -> dict[str, bool]:
        """The files ``path`` imports, each with whether it re-exports it."""
        return dict(self._imports.get(path, {}))

    def importers(self, path: str) -> dict[str, bool]:
        """The files that import ``path``, each with whether it re-exports it."""
        return dict(self._importers.get(path, {}))

    def set(self, path: str, targets: Mapping[str, bool]) -> None:
        """``path`` now imports ``targets`` (each with its re-export mark), and nothing else."""
        self._unlink(path)
        edges = {target: bool(mark) for target, mark in targets.items() if target != path}
        self._imports[path] = edges
        for target, mark in edges.items():
            self._importers.setdefault(target, {})[path] = mark

    def drop(self, path: str) -> None:
        """Forget ``path``'s own imports (the file is gone); what imports it keeps its edges
        until that file is set again."""
        self._unlink(path)
        self._imports.pop(path, None)

    def _unlink(self, path: str) -> None:
        for target in self._imports.get(path, {}):
            importers = self._importers[target]  # every edge is kept both ways
            del importers[path]
            if not importers:
                del self._importers[target]

    def dependents(
        self, paths: Iterable[str], also: Mapping[str, Iterable[str]] | None = None
    ) -> list[str]:
        """The files an edit of ``paths`` may break, nearest first (breadth first): every
        file that imports one of them, and the importers of a file that passes one of them
        on, again and again. ``also`` adds importers the edges do not hold (the files that
        would import a file just created or deleted). ``paths`` themselves are left out."""
        extra = also or {}
        seeds = list(dict.fromkeys(paths))
        seen = set(seeds)
        expanded = set(seeds)
        found: list[str] = []
        queue = list(seeds)
        index = 0
        while index < len(queue):
            current = queue[index]
            index += 1
            importers = dict(self._importers.get(current, {}))
            for more in extra.get(current, ()):
                importers.setdefault(more, False)
            for importer, reexports in importers.items():
                if importer not in seen:
                    seen.add(importer)
                    found.append(importer)
                if (reexports or self._passes(importer)) and importer not in expanded:
                    expanded.add(importer)
                    queue.append(importer)
        return found
