"""targets: every form of a target read, every bad one refused; outline search and kinds."""

from __future__ import annotations

from typing import Any

import pytest

from adecore_lsp.protocol.workspace.targets import (
    FORMS,
    NameTarget,
    OutlineMatch,
    PositionTarget,
    SymbolTarget,
    Target,
    describe_miss,
    find_in_outline,
    innermost_at,
    parse_target,
    symbol_kind_name,
    walk_outline,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a.py:3", PositionTarget("a.py", 3)),
        ("a.py:3:5", PositionTarget("a.py", 3, 5)),
        ("nb.ipynb:cell 3:2:5", PositionTarget("nb.ipynb", 2, 5, cell=3)),
        ("nb.ipynb:cell 12:1", PositionTarget("nb.ipynb", 1, cell=12)),
        ("src/pkg/a.py:12:1", PositionTarget("src/pkg/a.py", 12, 1)),
        ("C:\\x\\a.py:3:5", PositionTarget("C:\\x\\a.py", 3, 5)),
        ("C:\\x\\a.py:3", PositionTarget("C:\\x\\a.py", 3)),
        ("12:3:4", PositionTarget("12", 3, 4)),
        ("a.py:007", PositionTarget("a.py", 7)),
        ("my file.py:2", PositionTarget("my file.py", 2)),
        ("a.py#f", SymbolTarget("a.py", ("f",))),
        ("a.py#Class/method", SymbolTarget("a.py", ("Class", "method"))),
        ("a.py#Class/method[1]", SymbolTarget("a.py", ("Class", "method"), 1)),
        ("a.py#f[0]", SymbolTarget("a.py", ("f",), 0)),
        ("C:\\x\\a.py#f", SymbolTarget("C:\\x\\a.py", ("f",))),
        ("s.css#a:hover", SymbolTarget("s.css", ("a:hover",))),
        ("a.ts#Counter/#count", SymbolTarget("a.ts", ("Counter", "#count"))),
        ("v.cpp#Vec/operator[]", SymbolTarget("v.cpp", ("Vec", "operator[]"))),
        ("lib.rs#impl Foo for [T]/new", SymbolTarget("lib.rs", ("impl Foo for [T]", "new"))),
        ("lib.rs#impl Foo for [T][0]", SymbolTarget("lib.rs", ("impl Foo for [T]",), 0)),
        ("f", NameTarget(("f",))),
        ("Class/method", NameTarget(("Class", "method"))),
        ("Class/method[2]", NameTarget(("Class", "method"), 2)),
        ("os.path", NameTarget(("os.path",))),
        ("operator[]", NameTarget(("operator[]",))),
    ],
)
def test_each_form_is_read(text: str, expected: Target) -> None:
    """Positions parse from the right, name paths split at '/', [k] is the index."""
    assert parse_target(text) == expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "it is empty"),
        ("   ", "it is empty"),
        ("a.py:0", "the line must be a positive integer (1-based), got 0"),
        ("a.py:-1", "the line must be a positive integer (1-based), got -1"),
        ("a.py:+3", "the line must be a positive integer (1-based), got +3"),
        ("a.py:3:0", "the column must be a positive integer (1-based), got 0"),
        ("a.py:3:-2", "the column must be a positive integer (1-based), got -2"),
        ("nb.ipynb:cell 0:1", "cells are numbered from 1"),
        (":3", "no path before ':LINE'"),
        (" :3:4", "no path before ':LINE'"),
        ("a.py::3", "an empty field before the line"),
        ("a.py:1:2:3", "more numbers than a line and a column"),
        ("a.py:x", "after ':' comes a line, a positive integer"),
        ("a.py:3:", "after ':' comes a line, a positive integer"),
        ("ns::f", "a name path puts '/' between names"),
        ("a.py#", "no name after '#'"),
        ("#f", "no path before '#'"),
        ("a.py#A//b", "a name path needs a name between every two '/'"),
        ("a.py#/A", "a name path needs a name between every two '/'"),
        ("a.py#A/", "a name path needs a name between every two '/'"),
        ("a.py#A/ /b", "a name path needs a name between every two '/'"),
        ("Name[x]", "[x] must be [k] with k a whole number from 0"),
        ("a.py#f[-1]", "[-1] must be [k] with k a whole number from 0"),
        ("a.py#f[ 1]", "[ 1] must be [k] with k a whole number from 0"),
        ("impl Foo for [T]", "[T] must be [k]"),
        ("a/b.py", "it names a file, not a position or a symbol: use a/b.py:LINE or a/b.py#Name"),
        ("a.py", "use a.py:LINE or a.py#Name"),
        ("README.MD", "use README.MD:LINE or README.MD#Name"),
        ("a/b.py[0]", "use a/b.py:LINE or a/b.py#Name"),
        ("C:\\x\\a.py", "use C:\\x\\a.py:LINE or C:\\x\\a.py#Name"),
        ("src\\thing", "it names a file"),
    ],
)
def test_bad_targets_say_what_and_how(text: str, why: str) -> None:
    """The message shows the target, what is wrong, and the accepted forms."""
    with pytest.raises(ValueError, match="bad target") as raised:
        parse_target(text)
    message = str(raised.value)
    assert message.startswith(f"bad target {text!r}: ")
    assert why in message
    assert message.endswith(f"; a target is {FORMS}")


def test_a_target_is_a_string() -> None:
    """Anything else is a TypeError, not a parse."""
    with pytest.raises(TypeError, match="a target is a str, not int"):
        parse_target(3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("target", "shown"),
    [
        (PositionTarget("a.py", 3), "a.py:3"),
        (PositionTarget("a.py", 3, 5), "a.py:3:5"),
        (PositionTarget("nb.ipynb", 3, 5, cell=2), "nb.ipynb:cell 2:3:5"),
        (SymbolTarget("a.py", ("C", "m")), "a.py#C/m"),
        (SymbolTarget("a.py", ("C", "m"), 1), "a.py#C/m[1]"),
        (NameTarget(("C", "m")), "C/m"),
        (NameTarget(("f",), 0), "f[0]"),
    ],
)
def test_targets_print_as_written(target: Target, shown: str) -> None:
    """str() gives the form back, and it reads as the same target."""
    assert str(target) == shown
    assert parse_target(shown) == target


def test_name_paths_join_with_slashes() -> None:
    """name_path is the names as Symbol.name_path spells them."""
    assert SymbolTarget("a.py", ("C", "m")).name_path == "C/m"
    assert NameTarget(("C", "m")).name_path == "C/m"


# -- outlines --------------------------------------------------------------------------


def rng(a: int, b: int, c: int, d: int) -> dict[str, Any]:
    return {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}}


def sym(name: str, kind: int, r: Any, sel: Any, *children: Any) -> dict[str, Any]:
    symbol: dict[str, Any] = {"name": name, "kind": kind, "range": r, "selectionRange": sel}
    if children:
        symbol["children"] = list(children)
    return symbol


# class Outer:                 0
#     class Inner:             1
#         def m(self): ...     2
#     def m(self, x): ...      3  (overloads of Outer/m on 3 and 5)
#     x = 1                    4
#     def m(self, y): ...      5
# def f(): ...                 7
INNER_M = sym("m", 6, rng(2, 8, 2, 27), rng(2, 12, 2, 13))
INNER = sym("Inner", 5, rng(1, 4, 2, 27), rng(1, 10, 1, 15), INNER_M)
M1 = sym("m", 6, rng(3, 4, 3, 23), rng(3, 8, 3, 9))
X = sym("x", 13, rng(4, 4, 4, 9), rng(4, 4, 4, 5))
M2 = sym("m", 6, rng(5, 4, 5, 23), rng(5, 8, 5, 9))
# The server lists the second overload first: the index follows the source, not the list.
OUTER = sym("Outer", 5, rng(0, 0, 5, 23), rng(0, 6, 0, 11), INNER, M2, X, M1)
F = sym("f", 12, rng(7, 0, 7, 12), rng(7, 4, 7, 5))
OUTLINE = [OUTER, F]


def names(matches: list[OutlineMatch]) -> list[tuple[str, str | None, int]]:
    return [
        (m.name_path, m.container, m.symbol["selectionRange"]["start"]["line"]) for m in matches
    ]


@pytest.mark.parametrize(
    ("name_path", "index", "anchored", "expected"),
    [
        (["f"], None, True, [("f", None, 7)]),
        (["Outer"], None, True, [("Outer", None, 0)]),
        (["Outer", "m"], None, True, [("Outer/m", "Outer", 3), ("Outer/m", "Outer", 5)]),
        (["Outer", "m"], 0, True, [("Outer/m", "Outer", 3)]),
        (["Outer", "m"], 1, True, [("Outer/m", "Outer", 5)]),
        (["Outer", "m"], 2, True, []),
        (["Outer", "m"], -1, True, []),
        (["Outer", "Inner", "m"], None, True, [("Outer/Inner/m", "Outer/Inner", 2)]),
        (["m"], None, True, []),
        (["Inner"], None, True, []),
        (
            ["m"],
            None,
            False,
            [("Outer/Inner/m", "Outer/Inner", 2), ("Outer/m", "Outer", 3), ("Outer/m", "Outer", 5)],
        ),
        (["Inner", "m"], None, False, [("Outer/Inner/m", "Outer/Inner", 2)]),
        (["m"], 1, False, [("Outer/m", "Outer", 3)]),
        (["m()"], None, False, []),
        (["Outer.m"], None, True, []),
        (["nothing"], None, True, []),
        ([], None, True, []),
    ],
)
def test_find_in_outline(
    name_path: list[str],
    index: int | None,
    anchored: bool,
    expected: list[tuple[str, str | None, int]],
) -> None:
    """Exact names from the top (or any depth, unanchored), overloads by [k] in source order."""
    assert names(find_in_outline(OUTLINE, name_path, index, anchored=anchored)) == expected


def test_matches_carry_the_symbol() -> None:
    """An OutlineMatch holds the server's symbol itself and its names from the top."""
    (match,) = find_in_outline(OUTLINE, ("Outer", "Inner"))
    assert match.symbol is INNER
    assert match.names == ("Outer", "Inner")


@pytest.mark.parametrize(
    ("symbols", "name_path", "index", "anchored", "message"),
    [
        (
            OUTLINE,
            ["Outer", "m"],
            2,
            True,
            "a.py has 2 symbols Outer/m, so [2] is out of range: use [0] to [1]",
        ),
        (OUTLINE, ["f"], 1, True, "a.py has 1 symbol f, so [1] is out of range: use [0]"),
        (OUTLINE, ["m"], 5, False, "a.py has 3 symbols m, so [5] is out of range: use [0] to [2]"),
        (
            OUTLINE,
            ["Outer", "m()"],
            None,
            True,
            "a.py has no symbol Outer/m(); the closest: Outer/m, Outer/x, Outer",
        ),
        (OUTLINE, ["zzz"], None, True, "a.py has no symbol zzz"),
        ([], ["f"], None, True, "a.py has no symbol f (it has no symbols at all)"),
    ],
)
def test_describe_miss(
    symbols: list[dict[str, Any]],
    name_path: list[str],
    index: int | None,
    anchored: bool,
    message: str,
) -> None:
    """How many there are when [k] is past them, else the closest names of the outline."""
    assert describe_miss(symbols, name_path, index, "a.py", anchored=anchored) == message


def test_walk_outline_is_depth_first_in_the_servers_order() -> None:
    """Each symbol before its children, siblings as listed; containers as name paths."""
    walked = [
        (path, container, symbol["kind"]) for path, container, symbol in walk_outline(OUTLINE)
    ]
    assert walked == [
        ("Outer", None, 5),
        ("Outer/Inner", "Outer", 5),
        ("Outer/Inner/m", "Outer/Inner", 6),
        ("Outer/m", "Outer", 6),
        ("Outer/x", "Outer", 13),
        ("Outer/m", "Outer", 6),
        ("f", None, 12),
    ]


def test_walk_outline_takes_null_children_and_deep_trees() -> None:
    """children may be null; a tree thousands deep is walked without recursion."""
    deep: dict[str, Any] = sym("n0", 12, rng(0, 0, 0, 1), rng(0, 0, 0, 1))
    deep["children"] = None
    for level in range(1, 3000):
        deep = sym(f"n{level}", 12, rng(0, 0, 0, 1), rng(0, 0, 0, 1), deep)
    walked = list(walk_outline([deep]))
    assert len(walked) == 3000
    assert walked[-1][0].endswith("n1/n0")


@pytest.mark.parametrize(
    ("line", "character", "expected"),
    [
        (2, 10, "Outer/Inner/m"),
        (1, 4, "Outer/Inner"),
        (3, 22, "Outer/m"),
        (3, 23, "Outer"),  # the end is excluded
        (4, 4, "Outer/x"),
        (0, 0, "Outer"),
        (5, 23, None),
        (6, 0, None),
        (7, 5, "f"),
    ],
)
def test_innermost_at(line: int, character: int, expected: str | None) -> None:
    """The deepest symbol whose range holds the position."""
    found = innermost_at(OUTLINE, line, character)
    assert (found and found.name_path) == expected


def test_innermost_at_prefers_the_inner_of_overlapping_siblings() -> None:
    """Siblings that overlap (a flat server answer): the one starting last, then ending first."""
    wide = sym("wide", 12, rng(0, 0, 9, 0), rng(0, 4, 0, 8))
    narrow = sym("narrow", 12, rng(2, 0, 4, 0), rng(2, 4, 2, 10))
    same_start = sym("short", 12, rng(2, 0, 3, 0), rng(2, 4, 2, 9))
    found = innermost_at([wide, narrow, same_start], 2, 5)
    assert found is not None
    assert found.name_path == "short"
    assert found.container is None


@pytest.mark.parametrize(
    ("kind", "word"),
    [
        (1, "file"),
        (2, "module"),
        (3, "namespace"),
        (4, "package"),
        (5, "class"),
        (6, "method"),
        (7, "property"),
        (8, "field"),
        (9, "constructor"),
        (10, "enum"),
        (11, "interface"),
        (12, "function"),
        (13, "variable"),
        (14, "constant"),
        (15, "string"),
        (16, "number"),
        (17, "boolean"),
        (18, "array"),
        (19, "object"),
        (20, "key"),
        (21, "null"),
        (22, "enum_member"),
        (23, "struct"),
        (24, "event"),
        (25, "operator"),
        (26, "type_parameter"),
        (0, "unknown"),
        (27, "unknown"),
        (-1, "unknown"),
        (True, "unknown"),
    ],
)
def test_symbol_kind_name(kind: int, word: str) -> None:
    """Every SymbolKind as a lower-case word; anything else is unknown."""
    assert symbol_kind_name(kind) == word


def _symbol(name: str, start: int, end: int, *children: dict[str, Any]) -> dict[str, Any]:
    where = {"start": {"line": start, "character": 0}, "end": {"line": end, "character": 0}}
    return {
        "name": name,
        "kind": 12,
        "range": where,
        "selectionRange": where,
        "children": list(children),
    }


def test_a_workspace_symbol_hit_is_placed_in_its_files_outline() -> None:
    """The innermost symbol of the hit's name whose range holds it; its name path is a
    target, with [k] among same-named overloads."""
    from adecore_lsp.protocol.workspace.targets import named_at, target_name_path

    tree = [
        _symbol(
            "Test",
            0,
            20,
            _symbol("test_x", 1, 10, _symbol("session", 2, 3)),
            _symbol("session", 11, 12),
        ),
        _symbol("f", 21, 22),
        _symbol("f", 23, 24),
    ]
    local = named_at(tree, "session", 2, 4)
    assert local is not None
    assert local.name_path == "Test/test_x/session"
    assert target_name_path(tree, local) == "Test/test_x/session"
    member = named_at(tree, "session", 11, 0)
    assert member is not None
    assert member.name_path == "Test/session"
    assert named_at(tree, "session", 30, 0) is None
    second = named_at(tree, "f", 23, 0)
    assert second is not None
    assert target_name_path(tree, second) == "f[1]"
    twin = [_symbol("g", 0, 5, _symbol("g", 0, 5)), _symbol("g", 0, 5)]
    inner = named_at(twin, "g", 1, 0)
    assert inner is not None
    assert inner.name_path == "g/g"
