"""Symbol answers: the document's symbols as a tree, the workspace's as ``WorkspaceSymbol``s.

A flat ``SymbolInformation[]`` is nested in one pass: sorted by start (the larger range
first when two start together, then in the server's order), each symbol goes under the
innermost symbol before it whose range contains its own, kept on a stack.
"""

from __future__ import annotations

from typing import Any, Final

from ...types import JSONObject
from .normalize import check_list, check_objects, is_range, wrong

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

_DOCUMENT: Final = "textDocument/documentSymbol"
_WORKSPACE: Final = "workspace/symbol"

# SymbolInformation members a DocumentSymbol has too, copied when present.
_KEPT: Final = ("detail", "tags", "deprecated")


def _check_named(item: JSONObject, method: str, where: str) -> None:
    if type(item.get("name")) is not str:
        raise wrong(method, item.get("name"), "a symbol name (a string)", f"{where} as its name")
    if type(item.get("kind")) is not int:
        raise wrong(method, item.get("kind"), "a SymbolKind (an integer)", f"{where} as its kind")


def _check_location(item: JSONObject, method: str, where: str, range_required: bool) -> None:
    location = item.get("location")
    if (
        type(location) is not dict
        or type(location.get("uri")) is not str
        or ((range_required or "range" in location) and not is_range(location.get("range")))
    ):
        raise wrong(method, location, "a Location", f"{where} as its location")


def _check_tree(roots: list[Any]) -> None:
    """Check every node of a ``DocumentSymbol`` tree, without recursion."""
    pending: list[tuple[list[Any], str]] = [(roots, "")]
    while pending:
        nodes, path = pending.pop()
        check_objects(nodes, _DOCUMENT, "a DocumentSymbol", path and f" in {path}")
        for index, node in enumerate(nodes):
            where = f"{path}[{index}]"
            if "location" in node:
                raise wrong(
                    _DOCUMENT,
                    node,
                    "a DocumentSymbol (a DocumentSymbol[] cannot mix in SymbolInformation)",
                    f" at {where}",
                )
            _check_named(node, _DOCUMENT, f" at {where}")
            for key in ("range", "selectionRange"):
                if not is_range(node.get(key)):
                    raise wrong(_DOCUMENT, node.get(key), "a Range", f" at {where} as its {key}")
            children = node.get("children")
            if children is not None:
                if type(children) is not list:
                    raise wrong(_DOCUMENT, children, "a DocumentSymbol[]", f" at {where}.children")
                pending.append((children, f"{where}.children"))


def _nest(items: list[JSONObject]) -> list[JSONObject]:
    """``DocumentSymbol``s nested by range containment from a ``SymbolInformation[]``."""
    keyed: list[tuple[int, int, int, int, int]] = []
    for index, item in enumerate(items):
        where = f" at index {index}"
        _check_named(item, _DOCUMENT, where)
        _check_location(item, _DOCUMENT, where, True)
        start = item["location"]["range"]["start"]
        end = item["location"]["range"]["end"]
        keyed.append((start["line"], start["character"], -end["line"], -end["character"], index))
    keyed.sort()
    roots: list[JSONObject] = []
    # The chain of symbols containing the next one: (end line, end character, start, symbol).
    stack: list[tuple[int, int, tuple[int, int], JSONObject]] = []
    for line, character, end_line, end_character, index in keyed:
        item = items[index]
        range_ = item["location"]["range"]
        symbol: JSONObject = {
            "name": item["name"],
            "kind": item["kind"],
            "range": range_,
            "selectionRange": range_,
            "children": [],
        }
        for key in _KEPT:
            if key in item:
                symbol[key] = item[key]
        end = (-end_line, -end_character)
        while stack and stack[-1][:2] < end:
            stack.pop()
        if stack:
            parent = stack[-1][3]
            container = item.get("containerName")
            if container is not None and parent["name"] != container:
                # Among enclosing symbols of the very same range, the one it names wins.
                for candidate in reversed(stack):
                    if candidate[:3] != (*end, (line, character)):
                        break
                    if candidate[3]["name"] == container:
                        parent = candidate[3]
                        break
            parent["children"].append(symbol)
        else:
            roots.append(symbol)
        stack.append((*end, (line, character), symbol))
    return roots


def document_symbols(result: object) -> list[JSONObject]:
    """``list[DocumentSymbol]``, always the tree, from any ``documentSymbol`` answer.

    A ``DocumentSymbol[]`` is kept as it came. A ``SymbolInformation[]`` becomes
    ``DocumentSymbol``s (``name``, ``kind``, ``range`` = ``selectionRange`` = the location's
    range, a ``children`` list, and ``detail``, ``tags`` and ``deprecated`` when present;
    ``containerName`` is left out, the tree says it) nested by range containment: a symbol
    goes under the innermost symbol that starts before it or with it and whose range
    contains its own; among enclosing symbols of the very same range, the one its
    ``containerName`` names. ``null`` gives ``[]``.

    Raises:
        LspError: ``InternalError`` for an answer of another shape, or a list mixing both.
    """
    items = check_list(result, _DOCUMENT, "a DocumentSymbol[], a SymbolInformation[]")
    check_objects(items, _DOCUMENT, "a DocumentSymbol or a SymbolInformation")
    if items and "location" in items[0]:
        return _nest(items)
    _check_tree(items)
    return items


def workspace_symbols(result: object) -> list[JSONObject]:
    """``list[WorkspaceSymbol]`` from ``SymbolInformation[]``, ``WorkspaceSymbol[]`` or ``null``.

    Both are kept as they came: a ``SymbolInformation`` is a ``WorkspaceSymbol`` too (with
    its ``deprecated``, if any). A ``WorkspaceSymbol``'s location may lack a ``range``
    (``{uri}`` alone, resolved by ``workspaceSymbol/resolve``).

    Raises:
        LspError: ``InternalError`` for an answer of another shape.
    """
    items = check_list(result, _WORKSPACE, "a SymbolInformation[], a WorkspaceSymbol[]")
    check_objects(items, _WORKSPACE, "a SymbolInformation or a WorkspaceSymbol")
    for index, item in enumerate(items):
        where = f" at index {index}"
        _check_named(item, _WORKSPACE, where)
        _check_location(item, _WORKSPACE, where, False)
    return items
