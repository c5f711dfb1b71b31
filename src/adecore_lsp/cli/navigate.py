"""The commands that read: ``hover``, the lists of places (``definition``, ``references``,
``implementation``, ``type-definition``, ``callers``, ``callees``), ``symbols`` and ``find``.

Places come from the workspace in path, line, column order. In text a place is
``path:line:col: the line's text`` with the path relative to the current folder; ``find``
prints ``kind name_path  path:line:col``, and ``path#name_path`` is a target there.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..plain_text import escape_controls
from ..workspace.files.lines import line_of
from ..workspace.model import Location, Results, Symbol, cell_prefix
from ..workspace.questions.places import WHOLE_ROOT
from ..workspace.workspace import Workspace
from .common import Shown, cwd_of, say_incomplete
from .output import Output, shown_path

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


def _place_json(ws: Workspace, place: Location) -> dict[str, Any]:
    return {
        "path": place.path,
        "line": place.line,
        "column": place.column,
        "end_line": place.end_line,
        "end_column": place.end_column,
        "text": line_of(ws)(place.path, place.line, place.cell),
        "cell": place.cell,
    }


async def hover(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    text = await ws.hover(await ws.place(args.target, base=cwd_of(args)))
    if args.format == "json":
        output.result(json.dumps({"markdown": text}, ensure_ascii=False) + "\n")
    elif text is not None:
        output.result(Shown.of(args, ws).message(text).rstrip("\n") + "\n")
    else:
        output.note("no hover text")
    return 0


async def places(args: argparse.Namespace, output: Output, ws: Workspace, kind: str) -> int:
    """One of the commands that list places."""
    # The target is resolved once, here, into the place every call below takes.
    target = await ws.place(args.target, base=cwd_of(args), whole=kind in WHOLE_ROOT)
    if kind == "references":
        found: Results[Any] = await ws.references(
            target, include_declaration=args.include_declaration, context=args.context
        )
        where = [reference.location for reference in found]
    elif kind in ("callers", "callees"):
        found = await getattr(ws, kind)(target)
        where = [symbol.location for symbol in found]
    else:
        found = await getattr(ws, kind)(target)
        where = list(found)
    if args.format == "json":
        records = [_place_json(ws, place) for place in where]
        if kind == "references":
            for record, reference in zip(records, found, strict=True):
                record["container"] = reference.container
                if args.context:
                    record["context"] = list(reference.context)
        output.result(json.dumps(records, indent=2, ensure_ascii=False) + "\n")
    else:
        shown, lines = Shown.of(args, ws), line_of(ws)
        for index, place in enumerate(where):
            text = escape_controls((lines(place.path, place.line, place.cell) or "").strip())
            path = shown_path(shown.path(place.path))
            output.line(f"{path}:{cell_prefix(place.cell)}{place.line}:{place.column}: {text}")
            if kind == "references" and args.context:
                for context_line in found[index].context:
                    output.line(f"    {escape_controls(context_line)}")
    return say_incomplete(output, found)


def _symbol_json(symbol: Symbol, keep: set[int] | None) -> dict[str, Any]:
    return {
        "name": symbol.name,
        "name_path": symbol.name_path,
        "kind": symbol.kind,
        "path": symbol.location.path,
        "line": symbol.location.line,
        "column": symbol.location.column,
        "cell": symbol.location.cell,
        "children": [_symbol_json(child, keep) for child in symbol.children if _kept(child, keep)],
    }


def _kept(symbol: Symbol, keep: set[int] | None) -> bool:
    return keep is None or id(symbol) in keep


def _keep(symbols: list[Symbol], kinds: set[str]) -> set[int]:
    """The symbols ``--kind`` shows: those of the kinds, and every symbol that contains one
    (shown for that alone: ``--kind method`` shows each class that has methods)."""
    kept: set[int] = set()

    def visit(symbol: Symbol) -> bool:
        inside = [visit(child) for child in symbol.children]
        if symbol.kind in kinds or any(inside):
            kept.add(id(symbol))
            return True
        return False

    for symbol in symbols:
        visit(symbol)
    return kept


async def symbols(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    found = await ws.symbols(cwd_of(args) / args.file, depth=args.depth)
    kinds = {kind.strip() for kind in args.kind.split(",") if kind.strip()} if args.kind else None
    keep = _keep(list(found), kinds) if kinds is not None else None
    tops = [symbol for symbol in found if _kept(symbol, keep)]
    if args.format == "json":
        records = [_symbol_json(symbol, keep) for symbol in tops]
        output.result(json.dumps(records, indent=2, ensure_ascii=False) + "\n")
    else:

        def show(symbol: Symbol, depth: int) -> None:
            name = escape_controls(symbol.name)
            line = symbol.location.line
            where = str(line) if symbol.cell is None else f"cell {symbol.cell} line {line}"
            output.line(f"{'  ' * depth}{symbol.kind} {name}  {where}")
            for child in symbol.children:
                if _kept(child, keep):
                    show(child, depth + 1)

        for symbol in tops:
            show(symbol, 0)
    return say_incomplete(output, found)


async def find(args: argparse.Namespace, output: Output, ws: Workspace) -> int:
    found = await ws.find(args.query, limit=args.limit)
    if args.format == "json":
        records = [_symbol_json(symbol, None) for symbol in found]
        output.result(json.dumps(records, indent=2, ensure_ascii=False) + "\n")
    else:
        shown = Shown.of(args, ws)
        for symbol in found:
            where = symbol.location
            output.line(
                f"{symbol.kind} {escape_controls(symbol.name_path)}  "
                f"{shown_path(shown.path(where.path))}:{cell_prefix(where.cell)}{where.line}:"
                f"{where.column}"
            )
    return say_incomplete(output, found)
