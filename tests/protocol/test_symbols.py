"""symbols: document symbols always as a tree, workspace symbols kept; each lie refused."""

from __future__ import annotations

from typing import Any

import pytest

from adecore_lsp.errors import ErrorCodes, LspError
from adecore_lsp.protocol.shapes.symbols import document_symbols, workspace_symbols

URI = "file:///m.py"


def rng(a: int, b: int, c: int, d: int) -> dict[str, Any]:
    return {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}}


def info(name: str, r: Any, container: str | None = None, **more: Any) -> dict[str, Any]:
    symbol = {"name": name, "kind": 12, "location": {"uri": URI, "range": r}, **more}
    if container is not None:
        symbol["containerName"] = container
    return symbol


def doc(name: str, r: Any, *children: Any, **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "kind": 12,
        "range": r,
        "selectionRange": r,
        "children": list(children),
        **more,
    }


def shape(symbols: list[dict[str, Any]]) -> list[Any]:
    """The tree as nested (name, children) pairs, for short expectations."""
    return [(s["name"], shape(s["children"])) if s["children"] else s["name"] for s in symbols]


A = rng(0, 0, 10, 0)
TREE = [
    {
        "name": "C",
        "kind": 5,
        "detail": "class",
        "range": A,
        "selectionRange": rng(0, 6, 0, 7),
        "children": [
            {"name": "m", "kind": 6, "range": rng(1, 4, 2, 0), "selectionRange": rng(1, 8, 1, 9)}
        ],
    },
    {
        "name": "f",
        "kind": 12,
        "range": rng(11, 0, 12, 0),
        "selectionRange": rng(11, 4, 11, 5),
        "children": [],
    },
]


@pytest.mark.parametrize(
    ("result", "expected"),
    [(None, []), ([], []), (TREE, TREE)],
    ids=["null", "empty", "tree-kept"],
)
def test_document_symbols_kept(result: object, expected: object) -> None:
    assert document_symbols(result) == expected


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        ([info("a", A)], ["a"]),
        (
            [info("C", A), info("m", rng(1, 0, 3, 0), "C"), info("x", rng(2, 0, 2, 5), "m")],
            [("C", [("m", ["x"])])],
        ),
        # unsorted input: sorted by start, the larger range first
        (
            [info("x", rng(2, 0, 2, 5)), info("m", rng(1, 0, 3, 0)), info("C", A)],
            [("C", [("m", ["x"])])],
        ),
        # siblings, then a symbol after the class ends
        (
            [
                info("C", A),
                info("a", rng(1, 0, 2, 0)),
                info("b", rng(3, 0, 4, 0)),
                info("f", rng(10, 0, 11, 0)),
            ],
            [("C", ["a", "b"]), "f"],
        ),
        # the same start, the larger range is the parent
        ([info("in", rng(0, 0, 1, 0)), info("out", A)], [("out", ["in"])]),
        # equal ranges: the later goes under the earlier...
        ([info("p", A), info("q", A)], [("p", ["q"])]),
        # ...unless its containerName names another enclosing symbol of the same range
        ([info("p", A), info("q", A, "p"), info("r", A, "p")], [("p", ["q", "r"])]),
        ([info("p", A), info("q", A), info("r", A, "zz")], [("p", [("q", ["r"])])]),
        # containment wins over a containerName naming a larger symbol
        (
            [info("C", A), info("m", rng(1, 0, 3, 0)), info("x", rng(2, 0, 2, 1), "C")],
            [("C", [("m", ["x"])])],
        ),
        # a symbol starting where the other ends is not inside it
        ([info("a", rng(0, 0, 1, 0)), info("b", rng(1, 0, 2, 0))], ["a", "b"]),
    ],
    ids=[
        "one",
        "nested",
        "unsorted",
        "siblings",
        "same-start",
        "equal-ranges",
        "equal-ranges-container",
        "equal-ranges-no-match",
        "containment-first",
        "adjacent",
    ],
)
def test_symbol_information_nested(result: list[dict[str, Any]], expected: list[Any]) -> None:
    assert shape(document_symbols(result)) == expected


def test_symbol_information_converted() -> None:
    r = rng(1, 0, 2, 3)
    [symbol] = document_symbols(
        [info("f", r, "M", tags=[1], deprecated=True, detail="d")]  # detail is not spec, kept
    )
    assert symbol == {
        "name": "f",
        "kind": 12,
        "range": r,
        "selectionRange": r,
        "children": [],
        "tags": [1],
        "deprecated": True,
        "detail": "d",
    }


def test_5000_symbols_nest_into_their_classes() -> None:
    symbols = []
    for c in range(500):
        symbols.append(info(f"C{c}", rng(c * 20, 0, c * 20 + 19, 0)))
        symbols += [
            info(f"m{c}_{m}", rng(c * 20 + 1 + m * 2, 4, c * 20 + 2 + m * 2, 0), f"C{c}")
            for m in range(9)
        ]
    tree = document_symbols(symbols)  # its cost: benchmarks/bench_normalize.py
    assert len(tree) == 500
    assert all(len(c["children"]) == 9 for c in tree)


@pytest.mark.parametrize(
    ("result", "parts"),
    [
        ("x", ("textDocument/documentSymbol", "the string 'x'", "or null")),
        ({}, ("the object {}",)),
        ([3], ("the number 3 at index 0", "a DocumentSymbol or a SymbolInformation")),
        ([info("a", A), 3], ("the number 3 at index 1",)),
        ([info("a", A), doc("b", A)], ("at index 1 as its location", "a Location")),
        ([doc("b", A), info("a", A)], ("at [1]", "cannot mix")),
        ([info("a", "r")], ("at index 0 as its location",)),
        ([{"name": "a", "kind": 1, "location": {"range": A}}], ("as its location",)),
        ([info("a", A) | {"name": None}], ("null at index 0 as its name",)),
        ([info("a", A) | {"kind": "f"}], ("the string 'f' at index 0 as its kind", "SymbolKind")),
        ([doc("a", A) | {"kind": None}], ("at [0] as its kind",)),
        ([doc("a", A) | {"selectionRange": None}], ("at [0] as its selectionRange", "a Range")),
        ([doc("a", A) | {"range": [0, 1]}], ("at [0] as its range",)),
        ([doc("a", A) | {"children": {}}], ("at [0].children", "a DocumentSymbol[]")),
        ([doc("a", A, doc("b", A, "x"))], ("at index 0 in [0].children[0].children",)),
        ([doc("a", A, doc("b", A) | {"name": 1})], ("at [0].children[0] as its name",)),
    ],
    ids=[
        "string",
        "object",
        "member",
        "later-member",
        "information-then-tree",
        "tree-then-information",
        "location-range",
        "location-no-uri",
        "name-null",
        "kind-string",
        "tree-kind",
        "tree-selection-range",
        "tree-range",
        "tree-children-object",
        "deep-member",
        "deep-name",
    ],
)
def test_document_symbols_lies(result: object, parts: tuple[str, ...]) -> None:
    with pytest.raises(LspError) as caught:
        document_symbols(result)
    assert caught.value.code == ErrorCodes.InternalError
    for part in parts:
        assert part in caught.value.message


WORKSPACE = [
    info("a", A, "M"),
    {"name": "b", "kind": 5, "location": {"uri": URI}, "data": 1},
    info("c", A, deprecated=True),
]


@pytest.mark.parametrize(
    ("result", "expected"),
    [(None, []), ([], []), (WORKSPACE, WORKSPACE)],
    ids=["null", "empty", "both-kinds"],
)
def test_workspace_symbols(result: object, expected: object) -> None:
    assert workspace_symbols(result) == expected


@pytest.mark.parametrize(
    ("result", "parts"),
    [
        ({}, ("workspace/symbol", "the object {}", "or null")),
        (["a"], ("the string 'a' at index 0",)),
        ([{"kind": 1, "location": {"uri": URI}}], ("as its name",)),
        ([{"name": "n", "location": {"uri": URI}}], ("as its kind",)),
        ([{"name": "n", "kind": 1}], ("null at index 0 as its location",)),
        ([{"name": "n", "kind": 1, "location": {"uri": URI, "range": None}}], ("as its location",)),
        ([{"name": "n", "kind": 1, "location": {"range": A}}], ("as its location",)),
    ],
    ids=["object", "member", "no-name", "no-kind", "no-location", "range-null", "no-uri"],
)
def test_workspace_symbols_lies(result: object, parts: tuple[str, ...]) -> None:
    with pytest.raises(LspError) as caught:
        workspace_symbols(result)
    assert caught.value.code == ErrorCodes.InternalError
    for part in parts:
        assert part in caught.value.message
