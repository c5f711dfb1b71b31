"""normalize: each shape a server may answer becomes the current one; each lie an LspError."""

from __future__ import annotations

from typing import Any

import pytest

from adecore_lsp.errors import ErrorCodes, LspError
from adecore_lsp.protocol.documents.documents import TextDocument
from adecore_lsp.protocol.shapes.normalize import (
    code_actions,
    code_block,
    describe,
    hover,
    list_result,
    locations,
    prepare_rename,
    workspace_edit,
)


def rng(a: int, b: int, c: int, d: int) -> dict[str, Any]:
    return {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}}


R = rng(1, 2, 1, 5)
R2 = rng(3, 0, 4, 1)
LOC = {"uri": "file:///a.py", "range": R}
LINK = {
    "targetUri": "file:///b.py",
    "targetRange": R2,
    "targetSelectionRange": R,
    "originSelectionRange": R2,
}


def assert_lie(call: Any, *parts: str) -> None:
    with pytest.raises(LspError) as caught:
        call()
    assert caught.value.code == ErrorCodes.InternalError
    assert "the server answered" in caught.value.message
    for part in parts:
        assert part in caught.value.message


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, "null"),
        (True, "the boolean True"),
        (3, "the number 3"),
        (1.5, "the number 1.5"),
        ("x", "the string 'x'"),
        ([1], "the list [1]"),
        ({}, "the object {}"),
        (object, "the value <class 'object'>"),
    ],
    ids=["null", "bool", "int", "float", "str", "list", "dict", "other"],
)
def test_describe(value: object, expected: str) -> None:
    assert describe(value) == expected


# -- list_result ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "expected"),
    [(None, []), ([], []), ([{"a": 1}, {"b": 2}], [{"a": 1}, {"b": 2}])],
    ids=["null", "empty", "objects"],
)
def test_list_result(result: object, expected: list[Any]) -> None:
    assert list_result(result, "textDocument/foldingRange") == expected


@pytest.mark.parametrize(
    ("result", "parts"),
    [
        ("x", ("textDocument/inlayHint", "the string 'x'", "a list or null")),
        ({}, ("the object {}",)),
        ([{}, 3], ("the number 3 at index 1", "not an object")),
    ],
    ids=["string", "object", "member"],
)
def test_list_result_lies(result: object, parts: tuple[str, ...]) -> None:
    assert_lie(lambda: list_result(result, "textDocument/inlayHint"), *parts)


# -- locations --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (None, []),
        ([], []),
        (LOC, [LOC]),
        ([LOC, LOC], [LOC, LOC]),
        ([LINK], [{"uri": "file:///b.py", "range": R}]),
        (LINK, [{"uri": "file:///b.py", "range": R}]),
        ([LOC, LINK], [LOC, {"uri": "file:///b.py", "range": R}]),
    ],
    ids=["null", "empty", "one", "list", "links", "one-link", "mixed"],
)
def test_locations(result: object, expected: list[Any]) -> None:
    assert locations(result) == expected


@pytest.mark.parametrize(
    ("result", "parts"),
    [
        ("file:///a.py", ("textDocument/references", "the string", "a Location, a Location[]")),
        (3, ("the number 3",)),
        ([LOC, "x"], ("the string 'x' at index 1", "a Location or a LocationLink")),
        ([{"uri": 1, "range": R}], ("at index 0",)),
        ([{"uri": "u"}], ("at index 0",)),
        ([{"uri": "u", "range": {"start": {"line": 0}, "end": {}}}], ("at index 0",)),
        ([{"uri": "u", "range": rng(0, 0, 0, 0) | {"end": None}}], ("at index 0",)),
        ({"uri": "u", "range": "0:1"}, ("the object",)),
        ([{"targetUri": "u", "targetRange": R}], ("a LocationLink with a targetSelection",)),
        ([{"targetUri": None, "targetSelectionRange": R}], ("LocationLink",)),
        ([{"uri": "u", "range": {"start": {"line": True, "character": 0}, "end": R["end"]}}], ()),
    ],
    ids=[
        "string",
        "number",
        "member",
        "uri-type",
        "no-range",
        "partial-position",
        "null-end",
        "range-string",
        "link-no-selection",
        "link-uri-null",
        "bool-line",
    ],
)
def test_locations_lies(result: object, parts: tuple[str, ...]) -> None:
    assert_lie(lambda: locations(result, "textDocument/references"), *parts)


# -- hover ------------------------------------------------------------------------------


def md(value: str) -> dict[str, Any]:
    return {"kind": "markdown", "value": value}


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (None, None),
        ({"contents": ""}, None),
        ({"contents": []}, None),
        ({"contents": ["", {"language": "py", "value": ""}]}, None),
        ({"contents": md("")}, None),
        ({"contents": {"kind": "plaintext", "value": ""}}, None),
        ({"contents": {"language": "python", "value": ""}}, None),
        ({"contents": "**x**"}, {"contents": md("**x**")}),
        ({"contents": md("*x*")}, {"contents": md("*x*")}),
        (
            {"contents": {"kind": "plaintext", "value": "a*b"}},
            {"contents": {"kind": "plaintext", "value": "a*b"}},
        ),
        (
            {"contents": {"language": "python", "value": "def f(): ..."}},
            {"contents": md("```python\ndef f(): ...\n```")},
        ),
        (
            {"contents": {"language": "md", "value": "a ``` b\n"}},
            {"contents": md("````md\na ``` b\n````")},
        ),
        (
            {"contents": {"language": "", "value": "`x` and ``y``"}},
            {"contents": md("```\n`x` and ``y``\n```")},
        ),
        (
            {"contents": [{"language": "py", "value": "x: int"}, "", "Docs *here*"]},
            {"contents": md("```py\nx: int\n```\n\nDocs *here*")},
        ),
        ({"contents": ["a", "b"], "range": R}, {"contents": md("a\n\nb"), "range": R}),
        ({"contents": "a", "range": None}, {"contents": md("a")}),
        ({"contents": md("m"), "range": R}, {"contents": md("m"), "range": R}),
    ],
    ids=[
        "null",
        "empty-string",
        "empty-list",
        "list-of-empties",
        "empty-markup",
        "empty-plaintext",
        "empty-code",
        "string",
        "markdown",
        "plaintext",
        "code",
        "code-with-fence-inside",
        "code-no-language",
        "list",
        "range-kept",
        "range-null",
        "markup-range",
    ],
)
def test_hover(result: object, expected: object) -> None:
    assert hover(result) == expected


@pytest.mark.parametrize(
    ("result", "parts"),
    [
        ("text", ("textDocument/hover", "the string 'text'", "a Hover or null")),
        ([], ("the list",)),
        ({"value": "x"}, ("a Hover",)),
        ({"contents": 3}, ("the number 3", "a MarkedString")),
        ({"contents": None}, ("null", "a MarkedString")),
        ({"contents": {"language": "py"}}, ("a MarkedString",)),
        ({"contents": {"language": 1, "value": "x"}}, ("a MarkedString",)),
        ({"contents": ["a", 3]}, ("the number 3 at index 1",)),
        ({"contents": [md("x")]}, ("at index 0", "a MarkedString")),
        ({"contents": {"kind": "html", "value": "x"}}, ("MarkupContent",)),
        ({"contents": {"kind": "markdown", "value": None}}, ("MarkupContent",)),
        ({"contents": "x", "range": [1, 2]}, ("as the Hover's range", "a Range")),
    ],
    ids=[
        "string",
        "list",
        "no-contents",
        "number-contents",
        "null-contents",
        "code-no-value",
        "code-language-type",
        "list-member",
        "markup-in-list",
        "unknown-kind",
        "markup-value-null",
        "range-type",
    ],
)
def test_hover_lies(result: object, parts: tuple[str, ...]) -> None:
    assert_lie(lambda: hover(result), *parts)


@pytest.mark.parametrize(
    ("value", "fence"),
    [("x", "```"), ("``", "```"), ("```", "````"), ("a `````` b", "```````")],
    ids=["none", "two", "three", "six"],
)
def test_code_block_fence_is_longer_than_any_run(value: str, fence: str) -> None:
    assert code_block("c", value) == f"{fence}c\n{value}\n{fence}"


# -- code actions -----------------------------------------------------------------------

CMD = {"title": "Fix", "command": "fix.all", "arguments": [1]}
ACTION = {"title": "Fix it", "kind": "quickfix", "edit": {"changes": {}}}


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (None, []),
        ([], []),
        ([CMD], [{"title": "Fix", "command": CMD}]),
        (
            [{"title": "T", "command": "c"}],
            [{"title": "T", "command": {"title": "T", "command": "c"}}],
        ),
        ([ACTION], [ACTION]),
        ([ACTION | {"command": CMD}], [ACTION | {"command": CMD}]),
        ([CMD, ACTION], [{"title": "Fix", "command": CMD}, ACTION]),
    ],
    ids=["null", "empty", "command", "command-no-arguments", "action", "action-command", "mixed"],
)
def test_code_actions(result: object, expected: list[Any]) -> None:
    assert code_actions(result) == expected


@pytest.mark.parametrize(
    ("result", "parts"),
    [
        (CMD, ("textDocument/codeAction", "the object", "a (Command | CodeAction)[] or null")),
        (["x"], ("the string 'x' at index 0", "a Command or a CodeAction")),
        ([{"command": "c"}], ("at index 0",)),
        ([{"title": 1, "kind": "quickfix"}], ("at index 0",)),
        ([{"title": "t", "command": "c", "arguments": "a"}], ("as its arguments", "a list")),
        ([ACTION | {"command": 3}], ("the number 3 at index 0 as its command", "a Command")),
        ([ACTION | {"command": {"title": "t"}}], ("as its command",)),
        ([ACTION | {"command": {"command": "c"}}], ("as its command",)),
    ],
    ids=[
        "object",
        "member",
        "no-title",
        "title-type",
        "arguments-type",
        "action-command-type",
        "action-command-no-command",
        "action-command-no-title",
    ],
)
def test_code_actions_lies(result: object, parts: tuple[str, ...]) -> None:
    assert_lie(lambda: code_actions(result), *parts)


# -- prepare rename ---------------------------------------------------------------------

TEXT = "first line\nnaïve_name = other + 1\n"
DOC = TextDocument("file:///r.py", "python", 1, TEXT)


def rename(result: object, offset: int = 14) -> Any:
    return prepare_rename(
        result, DOC.text, offset, offset_of=DOC.offset_at, position_of=DOC.position_at
    )


@pytest.mark.parametrize(
    ("result", "offset", "expected"),
    [
        (None, 0, None),
        (
            {"range": rng(1, 0, 1, 10), "placeholder": "x"},
            0,
            {"range": rng(1, 0, 1, 10), "placeholder": "x"},
        ),
        (rng(1, 0, 1, 10), 0, {"range": rng(1, 0, 1, 10), "placeholder": "naïve_name"}),
        (rng(1, 3, 1, 3), 0, {"range": rng(1, 3, 1, 3), "placeholder": ""}),
        ({"defaultBehavior": True}, 14, {"range": rng(1, 0, 1, 10), "placeholder": "naïve_name"}),
        ({"defaultBehavior": True}, 11, {"range": rng(1, 0, 1, 10), "placeholder": "naïve_name"}),
        ({"defaultBehavior": True}, 21, {"range": rng(1, 0, 1, 10), "placeholder": "naïve_name"}),
        ({"defaultBehavior": True}, 24, {"range": rng(1, 13, 1, 18), "placeholder": "other"}),
        ({"defaultBehavior": True}, 10, {"range": rng(0, 6, 0, 10), "placeholder": "line"}),
        ({"defaultBehavior": True}, 0, {"range": rng(0, 0, 0, 5), "placeholder": "first"}),
        ({"defaultBehavior": True}, 23, None),
        ({"defaultBehavior": True}, len(TEXT), None),
        ({"defaultBehavior": True}, 10_000, None),
        ({"defaultBehavior": True}, -5, {"range": rng(0, 0, 0, 5), "placeholder": "first"}),
        ({"defaultBehavior": False}, 14, None),
    ],
    ids=[
        "null",
        "range-placeholder",
        "bare-range",
        "empty-range",
        "default-inside",
        "default-at-start",
        "default-at-end",
        "default-other-word",
        "default-before-break",
        "default-text-start",
        "default-on-space",
        "default-text-end",
        "default-offset-past-end",
        "default-offset-negative",
        "default-false",
    ],
)
def test_prepare_rename(result: object, offset: int, expected: object) -> None:
    assert rename(result, offset) == expected


def test_prepare_rename_word_is_unicode_and_underscore() -> None:
    text = "x = ĳ_ß2 + 1"
    doc = TextDocument("file:///u.py", "python", 1, text, encoding="utf-8")
    answer = prepare_rename(
        {"defaultBehavior": True}, text, 6, offset_of=doc.offset_at, position_of=doc.position_at
    )
    assert answer == {"range": rng(0, 4, 0, 10), "placeholder": "ĳ_ß2"}  # UTF-8 bytes


@pytest.mark.parametrize(
    ("result", "parts"),
    [
        (
            "name",
            ("textDocument/prepareRename", "the string 'name'", "a Range, {range, placeholder}"),
        ),
        ([], ("the list",)),
        ({"defaultBehavior": 1}, ("the object",)),
        ({"defaultBehavior": None}, ("the object",)),
        ({"range": R, "placeholder": 3}, ("the object",)),
        ({"range": "r", "placeholder": "p"}, ("the object",)),
        ({"placeholder": "p"}, ("the object",)),
        ({"start": {"line": 0, "character": 0}}, ("the object",)),
        ({"range": R}, ("the object",)),
        (rng(1, 5, 1, 2), ("a Range that starts before it ends",)),
    ],
    ids=[
        "string",
        "list",
        "default-number",
        "default-null",
        "placeholder-type",
        "range-type",
        "placeholder-no-range",
        "partial-range",
        "range-no-placeholder",
        "reversed-range",
    ],
)
def test_prepare_rename_lies(result: object, parts: tuple[str, ...]) -> None:
    assert_lie(lambda: rename(result), *parts)


# -- workspace edits --------------------------------------------------------------------

EDIT = {"range": R, "newText": "x"}
TDE = {"textDocument": {"uri": "file:///a.py", "version": 3}, "edits": [EDIT]}
CREATE = {"kind": "create", "uri": "file:///new.py", "options": {"overwrite": True}}
RENAME = {"kind": "rename", "oldUri": "file:///a.py", "newUri": "file:///b.py"}
DELETE = {"kind": "delete", "uri": "file:///c.py"}
ANNOTATIONS = {"a": {"label": "Rename", "needsConfirmation": True}}


def versions(uri: str) -> int | None:
    return {"file:///a.py": 7}.get(uri)


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (None, {"documentChanges": []}),
        ({}, {"documentChanges": []}),
        ({"changes": {}}, {"documentChanges": []}),
        ({"changes": None, "documentChanges": None}, {"documentChanges": []}),
        (
            {"changes": {"file:///a.py": [EDIT], "file:///z.py": []}},
            {
                "documentChanges": [
                    {"textDocument": {"uri": "file:///a.py", "version": 7}, "edits": [EDIT]},
                    {"textDocument": {"uri": "file:///z.py", "version": None}, "edits": []},
                ]
            },
        ),
        ({"documentChanges": [TDE]}, {"documentChanges": [TDE]}),
        (
            {"documentChanges": [CREATE, TDE, RENAME, DELETE]},
            {"documentChanges": [CREATE, TDE, RENAME, DELETE]},
        ),
        (
            {"changes": {"file:///q.py": [EDIT]}, "documentChanges": [TDE]},
            {"documentChanges": [TDE]},
        ),
        (
            {"documentChanges": [TDE], "changeAnnotations": ANNOTATIONS},
            {"documentChanges": [TDE], "changeAnnotations": ANNOTATIONS},
        ),
        (
            {"changes": {"file:///a.py": [EDIT]}, "changeAnnotations": ANNOTATIONS},
            {
                "documentChanges": [
                    {"textDocument": {"uri": "file:///a.py", "version": 7}, "edits": [EDIT]}
                ],
                "changeAnnotations": ANNOTATIONS,
            },
        ),
        ({"changeAnnotations": None}, {"documentChanges": []}),
    ],
    ids=[
        "null",
        "empty",
        "empty-changes",
        "both-null",
        "changes",
        "document-changes",
        "resource-operations",
        "document-changes-win",
        "annotations",
        "changes-annotations",
        "annotations-null",
    ],
)
def test_workspace_edit(result: object, expected: object) -> None:
    assert workspace_edit(result, versions) == expected


@pytest.mark.parametrize(
    ("result", "parts"),
    [
        ([], ("workspace/applyEdit", "the list", "a WorkspaceEdit or null")),
        ({"documentChanges": {}}, ("the object {} as documentChanges", "a list")),
        ({"documentChanges": [3]}, ("the number 3 at documentChanges[0]", "TextDocumentEdit")),
        ({"documentChanges": [TDE, {"kind": "move"}]}, ("at documentChanges[1]",)),
        ({"documentChanges": [{"edits": []}]}, ("at documentChanges[0]",)),
        ({"documentChanges": [{"textDocument": "u", "edits": []}]}, ("at documentChanges[0]",)),
        ({"documentChanges": [{"textDocument": {"uri": 1}, "edits": []}]}, ("documentChanges[0]",)),
        (
            {"documentChanges": [{"textDocument": {"uri": "u"}, "edits": {}}]},
            ("documentChanges[0]",),
        ),
        ({"changes": []}, ("the list [] as changes", "a map of URIs to TextEdit[]")),
        ({"changes": {"file:///a.py": EDIT}}, ("at changes['file:///a.py']", "a TextEdit[]")),
        ({"changes": {}, "changeAnnotations": []}, ("as changeAnnotations",)),
    ],
    ids=[
        "list",
        "document-changes-object",
        "document-change-number",
        "unknown-kind",
        "no-text-document",
        "text-document-string",
        "uri-type",
        "edits-object",
        "changes-list",
        "changes-edit-not-list",
        "annotations-list",
    ],
)
def test_workspace_edit_lies(result: object, parts: tuple[str, ...]) -> None:
    assert_lie(lambda: workspace_edit(result, versions, "workspace/applyEdit"), *parts)


def test_workspace_edit_default_method_is_rename() -> None:
    assert_lie(lambda: workspace_edit("x", versions), "textDocument/rename: ")
