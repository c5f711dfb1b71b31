"""The files an edit can break: the edited files and the files that depend on them, each
with the servers to ask about it (``changes.md``, "the affected set").

- **Python, TypeScript, JavaScript**: the import graph of the tree (:mod:`.tree_imports`):
  the files that import an edited one, directly or through a file that passes it on (a
  package's ``__init__``, a barrel ``index.ts``, ``from m import *``, ``export ... from``),
  nearest first. A Python edit of comments and docstrings only has none
  (:mod:`~adecore_lsp.protocol.workspace.python_code`).
- **Notebooks** are imported by no other file: they have no dependents.
- **Other languages**: the files where the server finds references to the top-level symbols
  whose lines the edit touched (asked of the text before the edit, as the server still has
  it); where that cannot be known (no outline or references, or an edit outside every
  symbol), every file of the root those servers take.

An edited file is checked by every server that takes it. A dependent is checked by the
servers whose scope covers it (:mod:`.scopes`) and whose findings may depend on other files:
a server that declares ``interFileDependencies: false`` (ruff) is not asked about a file it
will answer the same for.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import LspError, ServerNotFoundError
from ...paths import uri_to_path
from ...protocol.documents.textdiff import diff
from ...protocol.workspace.python_code import same_code
from ..disk.listing import read_text
from ..servers.handles import ServerHandle
from ..servers.notebook_view import is_notebook
from . import scope_plan
from .tree_imports import covered

if TYPE_CHECKING:
    from .edit_loop import EditLoop
    from .needs import CheckNeeds

# Internal to the library: nothing here is public API.
__all__: list[str] = []

PULL = "textDocument/diagnostic"


@dataclass
class Affected:
    """The files an edit is checked in: ``edited`` first, then ``dependents`` nearest first;
    ``servers`` the ids of the servers that check each; ``whole_root`` when the dependents
    of some file could not be known and every file of its servers' root stands for them."""

    edited: list[Path]
    dependents: list[Path] = field(default_factory=list)
    servers: dict[Path, frozenset[str]] = field(default_factory=dict)
    whole_root: bool = False

    @property
    def files(self) -> list[Path]:
        return [*self.edited, *self.dependents]


def _line_span(old: str, new: str) -> tuple[int, int]:
    """The 0-based lines of ``old`` that the change to ``new`` touches (first, last)."""
    start, old_end, _new_end = diff(old, new)
    first = old.count("\n", 0, start)
    last = old.count("\n", 0, max(start, old_end - 1)) if old_end > start else first
    return first, last


def _lines_of(symbol: Mapping[str, Any]) -> tuple[int, int] | None:
    where = symbol.get("range") or (symbol.get("location") or {}).get("range")
    if not isinstance(where, Mapping):
        return None
    try:
        return int(where["start"]["line"]), int(where["end"]["line"])
    except (KeyError, TypeError, ValueError):
        return None


async def _by_references(
    ws: CheckNeeds, path: Path, old: str, new: str | None
) -> list[Path] | None:
    """The files where the first server of ``path`` that gives outlines and references finds
    uses of the top-level symbols the change touches; ``None`` when that is not known."""
    uri = ws.paths.uri(path)
    try:
        handles = await ws.open(path)  # started, and holding the text before the edit
    except (LspError, ValueError, OSError):
        return None
    for handle in handles:
        session = handle.live
        if session is None:
            continue
        if not (
            session.supports("textDocument/documentSymbol", uri)
            and session.supports("textDocument/references", uri)
        ):
            continue
        first, last = _line_span(old, new if new is not None else "")
        try:
            outline = await session.document_symbols(uri, timeout=ws.timeout)
        except LspError:
            return None
        touched = [
            symbol
            for symbol in outline
            if (lines := _lines_of(symbol)) is not None and lines[0] <= last and first <= lines[1]
        ]
        if not touched:
            return None
        found: list[Path] = []
        for symbol in touched:
            selection = symbol.get("selectionRange") or symbol.get("range")
            try:
                uses = await session.references(
                    uri, selection["start"], include_declaration=False, timeout=ws.timeout
                )
            except (LspError, KeyError, TypeError):
                return None
            for use in uses:
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    found.append(uri_to_path(use["uri"]))
        return list(dict.fromkeys(found))
    return None


def _same_servers(ws: CheckNeeds, path: Path) -> list[Path]:
    """Every file of the root that one of the servers of ``path`` takes."""
    ids = {handle.spec.id for handle in ws.handles_for(path)}
    found = []
    for other in ws.root_files():
        with contextlib.suppress(ServerNotFoundError):
            if ids.intersection(spec.id for spec in ws.server_choice.specs_for(other)):
                found.append(other)
    return found


def _names_any(path: Path, names: Sequence[str]) -> bool:
    """Whether the file at ``path`` holds one of ``names`` as a whole word (a file that
    cannot be read is taken as naming them: it is checked)."""
    pattern = re.compile(r"(?<![\w])(?:" + "|".join(map(re.escape, names)) + r")(?![\w])")
    try:
        return pattern.search(read_text(path)) is not None
    except (OSError, ValueError):
        return True


def _same_code(path: Path, old: str | None, new: str | None) -> bool:
    """Whether the edit of a Python file changed only its comments and docstrings."""
    return (
        path.suffix in (".py", ".pyi")
        and old is not None
        and new is not None
        and same_code(old, new)
    )


def _inter_file(handle: ServerHandle, uri: str) -> bool:
    """Whether the server's findings about ``uri`` may depend on other files: unless it
    says otherwise (``interFileDependencies: false``), they may."""
    session = handle.live
    if session is None:
        return True
    options = session.provider_options(PULL, uri)
    return not (isinstance(options, Mapping) and options.get("interFileDependencies") is False)


async def affected(
    ws: CheckNeeds,
    loop: EditLoop,
    texts: Mapping[Path, tuple[str | None, str | None]],
    *,
    names: Sequence[str] = (),
) -> Affected:
    """The affected set of a change to the files of ``texts`` (each with its text before and
    after; ``None`` for a file created or deleted). The graph must be fresh
    (:meth:`EditLoop.look`); for other languages the servers must still hold the texts
    before. A rename's ``names`` (old and new) keep only the dependents that name one of
    them: a rename changes nothing else another file sees (its server renamed every use it
    found, in the files it changed)."""
    # A file that servers only format (ruff and Markdown) has no diagnostics to compare: it is
    # no part of the set, as no check lists it (one no server takes at all is, and is said).
    edited = [path for path in texts if path.is_file() and not ws.server_choice.formats_only(path)]
    found: list[Path] = []
    whole = False
    graphed = [path for path in texts if covered(path.as_posix())]
    # An edit of comments and docstrings only changes nothing an importer sees; a rename
    # changes names in code (not parsed: on 36 files it cost more than the rename itself).
    changed_code = [path for path in graphed if names or not _same_code(path, *texts[path])]
    if changed_code:
        found += loop.dependents(changed_code)
    for path, (old, new) in texts.items():
        if path in graphed or is_notebook(path) or not ws.takes(path):
            continue  # (a notebook is imported by no other file)
        uses = None if old is None else await _by_references(ws, path, old, new)
        if uses is None:
            whole = True
            uses = _same_servers(ws, path)
        found += uses
    chosen = set(edited)
    dependents = []
    for path in dict.fromkeys(found):
        if path not in chosen and path.is_relative_to(ws.root) and path.is_file():
            chosen.add(path)
            if not names or _names_any(path, names):
                dependents.append(path)
    result = Affected(edited, whole_root=whole)
    for path in edited:
        if ws.takes(path):
            result.servers[path] = frozenset(handle.spec.id for handle in ws.handles_for(path))
    _choose_servers(ws, dependents, result)
    return result


def _choose_servers(ws: CheckNeeds, dependents: Sequence[Path], result: Affected) -> None:
    """Each dependent with the servers that check it: in their scope, and answering with
    what other files hold; one no server is left to check is not a dependent."""
    plan = scope_plan.plan(ws, [path for path in dependents if ws.takes(path)])
    for path in plan.files:
        allowed = plan.servers.get(path)
        try:
            handles = ws.handles_for(path)
        except ServerNotFoundError:
            continue
        uri = ws.paths.uri(path)
        ids = frozenset(
            handle.spec.id
            for handle in handles
            if (allowed is None or handle.spec.id in allowed) and _inter_file(handle, uri)
        )
        if ids:
            result.dependents.append(path)
            result.servers[path] = ids
