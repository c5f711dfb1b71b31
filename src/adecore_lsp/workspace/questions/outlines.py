"""Outlines and the symbols in them: a file's document symbols from its first server, a
``Symbol`` of each, the one symbol a target names, and the whole root opened for questions
about every file (what both targets and workspace searches need)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from ...errors import AmbiguousTargetError, ErrorCodes, LspError, TargetNotFoundError
from ...protocol.workspace import targets as parsing
from ...session import LspSession
from ..checks.checking import HeldWrites, wait_ready
from ..files.notebooks import located, tracked
from ..model import ResultReason, Results, Symbol

if TYPE_CHECKING:
    from pathlib import Path

    from ..servers.handles import ServerHandle
    from .needs import QuestionNeeds

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


async def outline(ws: QuestionNeeds, path: Path) -> tuple[LspSession, list[Any]]:
    """The document symbols of ``path`` from its first server that gives them."""
    try:
        _handle, session, symbols = await ws.first_answer(
            path, "textDocument/documentSymbol", lambda s, uri: s.document_symbols(uri)
        )
    except LspError as error:
        if error.code == ErrorCodes.MethodNotFound:
            raise TargetNotFoundError(
                ws.paths.relative(path),
                f"no server for {ws.paths.relative(path)} gives document symbols, so names "
                f"in it cannot be found; give a position (path:LINE:COL) instead",
            ) from None
        raise
    return session, list(symbols)


async def notebook_symbols(ws: QuestionNeeds, full: Path, depth: int | None) -> Results[Symbol]:
    """The outline of a notebook: each code cell's, in order (or the joined document's),
    from the first server that answers, each symbol with its cell."""
    handles = await ws.open(full)
    view = ws.notebook(full)
    found: Results[Symbol] = Results()
    for handle in handles:
        if view is None:
            break
        try:
            for uri in tracked(handle, view.uri):
                _handle, session, tree = await ws.ask(
                    [handle],
                    "textDocument/documentSymbol",
                    lambda s, u=uri: s.document_symbols(u),
                    uri,
                )
                found.extend(
                    to_symbol(ws, session, uri, raw, raw["name"], None, depth) for raw in tree
                )
        except LspError as error:
            if error.code != ErrorCodes.MethodNotFound:
                raise
            continue
        return found
    raise LspError(
        ErrorCodes.MethodNotFound,
        f"no server of {ws.paths.relative(full)} gives outlines (textDocument/documentSymbol)",
    )


def to_symbol(
    ws: QuestionNeeds,
    session: LspSession,
    uri: str,
    raw: Mapping[str, Any],
    name_path: str,
    container: str | None,
    depth: int | None = None,
) -> Symbol:
    """A :class:`Symbol` of a ``DocumentSymbol`` (its children down to ``depth`` levels)."""
    encoding: Any = session.position_encoding or "utf-16"
    whole = raw.get("range") or {}
    selection = raw.get("selectionRange") or whole
    children: list[Symbol] = []
    if depth is None or depth > 1:
        below = None if depth is None else depth - 1
        for child in raw.get("children") or []:
            child_path = f"{name_path}/{child['name']}"
            children.append(to_symbol(ws, session, uri, child, child_path, name_path, below))
    place = located(ws, uri, selection, encoding, raw)
    first = whole.get("start", {}).get("line", 0) + 1
    last = whole.get("end", {}).get("line", 0) + 1
    if place.cell is not None:
        # Lines of the symbol's whole range within its cell, as its place is.
        shift = place.line - (selection.get("start", {}).get("line", 0) + 1)
        first, last = first + shift, last + shift
    return Symbol(
        name=raw["name"],
        name_path=name_path,
        kind=parsing.symbol_kind_name(raw.get("kind", 0)),
        location=place,
        range_lines=(first, last),
        container=container,
        children=children,
        raw=raw,
        cell=place.cell,
    )


def one(target: str, found: list[Symbol]) -> Symbol:
    if len(found) == 1:
        return found[0]
    candidates = []
    counts: dict[tuple[str, str], int] = {}
    for symbol in found:
        key = (symbol.location.path, symbol.name_path)
        k = counts.get(key, 0)
        counts[key] = k + 1
        same = sum(1 for s in found if (s.location.path, s.name_path) == key)
        suffix = f"[{k}]" if same > 1 else ""
        candidates.append(
            (symbol.kind, f"{symbol.location.path}#{symbol.name_path}{suffix}", symbol.location)
        )
    raise AmbiguousTargetError(target, candidates)


class Whole(NamedTuple):
    """How the root's files were opened for a question about every file."""

    complete: bool
    """Whether every file could be opened."""
    reason: ResultReason | None
    """Why not (``"too_many_files"``), else ``None``."""
    timed_out: bool
    """Whether some server timed out getting ready."""
    listed: tuple[Path, ...] | None = None
    """The root's files some server takes, as listed for it (a rename asks each package's
    server of them right after: :func:`..across_roots.tree_files`)."""
    listed_at: float = 0.0
    """When they were listed (``time.monotonic()``)."""


async def prepare_whole(ws: QuestionNeeds, servers: Collection[str] | None = None) -> Whole:
    """Open the root's files the servers take (at most ``max_open_files``) and wait for the
    servers' readiness, so that answers do not depend on which files happen to be open.

    With ``servers`` (ids: those of the file a question is about), only the files those
    servers take, and only their readiness: a Python question in a tree of several
    languages starts no TypeScript or Go server."""
    await ws.sync_disk()
    listed_at = time.monotonic()
    files = listed = ws.root_files()
    if servers is not None:
        files = [path for path in files if _taken_by(ws, path, servers)]
    complete: bool = True
    reason: ResultReason | None = None
    if len(files) > ws.max_open_files:
        files = files[: ws.max_open_files]
        complete, reason = False, "too_many_files"
    failed: set[ServerHandle] = set()
    with HeldWrites() as held:  # the opens go out in one write a server
        for path in files:
            if ws.paths.uri(path) in ws.open_files:
                continue
            handles = ws.handles_for(path)
            if failed.intersection(handles):
                continue
            try:
                if handles and all(h.spec.indexes_root for h in handles):
                    # A server that indexes the whole root itself is asked without opening
                    # files.
                    await asyncio.gather(*(h.session() for h in handles))
                else:
                    held.add(await ws.open(path))
            except ValueError:
                continue  # not UTF-8 text: no server reads it as code either
            except LspError:
                # The server of a package that does not start: its files are left (the
                # question asks it again, and says the answer is partial when it fails
                # again).
                failed.update(handle for handle in handles if handle.state != "running")
                if complete:
                    complete, reason = False, "other_roots"
    timed_out = False
    began = time.monotonic()
    for handle in ws.started():
        if handle.state == "running" and (servers is None or handle.spec.id in servers):
            readiness = await wait_ready(handle, began, ws.timeout)
            timed_out = timed_out or readiness.state == "timed_out"
    return Whole(complete, reason, timed_out, tuple(listed), listed_at)


def _taken_by(ws: QuestionNeeds, path: Path, servers: Collection[str]) -> bool:
    """Whether one of the servers of these ids takes ``path``."""
    try:
        return any(spec.id in servers for spec in ws.server_choice.specs_for(path))
    except LspError:
        return False
