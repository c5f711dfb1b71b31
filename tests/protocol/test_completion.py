"""completion: one CompletionList whose items carry the list's defaults, and each lie refused."""

from __future__ import annotations

from typing import Any

import pytest

from adecore_lsp.errors import ErrorCodes, LspError
from adecore_lsp.protocol.shapes.completion import completion


def rng(a: int, b: int, c: int, d: int) -> dict[str, Any]:
    return {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}}


R = rng(0, 4, 0, 6)
INSERT = rng(0, 4, 0, 5)
OWN_EDIT = {"range": rng(0, 0, 0, 1), "newText": "own"}


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (None, {"isIncomplete": False, "items": []}),
        ([], {"isIncomplete": False, "items": []}),
        ([{"label": "a"}], {"isIncomplete": False, "items": [{"label": "a"}]}),
        ({"isIncomplete": True, "items": []}, {"isIncomplete": True, "items": []}),
        ({"items": [{"label": "a"}]}, {"isIncomplete": False, "items": [{"label": "a"}]}),
        (
            {"isIncomplete": False, "items": [{"label": "a"}], "itemDefaults": None},
            {"isIncomplete": False, "items": [{"label": "a"}]},
        ),
        (
            {"isIncomplete": False, "items": [{"label": "a"}], "itemDefaults": {}},
            {"isIncomplete": False, "items": [{"label": "a"}]},
        ),
        (
            {"isIncomplete": False, "itemDefaults": {"editRange": R}, "items": [{"label": "ab"}]},
            {
                "isIncomplete": False,
                "items": [{"label": "ab", "textEdit": {"range": R, "newText": "ab"}}],
            },
        ),
        (
            {
                "isIncomplete": False,
                "itemDefaults": {"editRange": R},
                "items": [{"label": "ab", "textEditText": "ab()", "insertText": "no"}],
            },
            {
                "isIncomplete": False,
                "items": [
                    {
                        "label": "ab",
                        "textEditText": "ab()",
                        "insertText": "no",
                        "textEdit": {"range": R, "newText": "ab()"},
                    }
                ],
            },
        ),
        (
            {
                "isIncomplete": False,
                "itemDefaults": {"editRange": {"insert": INSERT, "replace": R}},
                "items": [{"label": "ab"}],
            },
            {
                "isIncomplete": False,
                "items": [
                    {"label": "ab", "textEdit": {"insert": INSERT, "replace": R, "newText": "ab"}}
                ],
            },
        ),
        (
            {
                "isIncomplete": False,
                "itemDefaults": {"editRange": R, "data": 1},
                "items": [{"label": "ab", "textEdit": OWN_EDIT}],
            },
            {
                "isIncomplete": False,
                "items": [{"label": "ab", "textEdit": OWN_EDIT, "data": 1}],
            },
        ),
        (
            {
                "isIncomplete": True,
                "itemDefaults": {
                    "commitCharacters": ["."],
                    "insertTextFormat": 2,
                    "insertTextMode": 1,
                    "data": {"id": 0},
                },
                "items": [
                    {"label": "a"},
                    {"label": "b", "commitCharacters": [], "data": None},
                    {
                        "label": "c",
                        "commitCharacters": ["("],
                        "insertTextFormat": 1,
                        "insertTextMode": 2,
                        "data": 5,
                    },
                ],
            },
            {
                "isIncomplete": True,
                "items": [
                    {
                        "label": "a",
                        "commitCharacters": ["."],
                        "insertTextFormat": 2,
                        "insertTextMode": 1,
                        "data": {"id": 0},
                    },
                    {
                        "label": "b",
                        "commitCharacters": [],
                        "data": None,
                        "insertTextFormat": 2,
                        "insertTextMode": 1,
                    },
                    {
                        "label": "c",
                        "commitCharacters": ["("],
                        "insertTextFormat": 1,
                        "insertTextMode": 2,
                        "data": 5,
                    },
                ],
            },
        ),
        (
            {"isIncomplete": False, "itemDefaults": {"unknown": 1}, "items": [{"label": "a"}]},
            {"isIncomplete": False, "items": [{"label": "a"}]},
        ),
        (
            {"isIncomplete": False, "items": [], "applyKind": {"x": 1}},
            {"isIncomplete": False, "items": [], "applyKind": {"x": 1}},
        ),
    ],
    ids=[
        "null",
        "empty-list",
        "bare-list",
        "incomplete",
        "missing-incomplete",
        "defaults-null",
        "defaults-empty",
        "edit-range-label",
        "edit-range-text-edit-text",
        "edit-range-insert-replace",
        "own-text-edit-kept",
        "plain-defaults",
        "unknown-default-ignored",
        "other-members-kept",
    ],
)
def test_completion(result: object, expected: object) -> None:
    assert completion(result) == expected


def test_completion_copies_only_the_items_it_changes() -> None:
    kept = {"label": "k", "data": 2}
    changed = {"label": "c"}
    answer = {"isIncomplete": False, "itemDefaults": {"data": 1}, "items": [kept, changed]}
    normalised = completion(answer)
    assert normalised["items"][0] is kept
    assert normalised["items"][1] == {"label": "c", "data": 1}
    assert changed == {"label": "c"}  # the answer is never modified
    assert "itemDefaults" in answer
    plain = {"isIncomplete": True, "items": [kept]}
    assert completion(plain) is plain


@pytest.mark.parametrize(
    ("result", "parts"),
    [
        (
            "a",
            ("textDocument/completion", "the string 'a'", "a CompletionList, a CompletionItem[]"),
        ),
        (3, ("the number 3",)),
        ({"isIncomplete": False}, ("null", "a CompletionItem[]")),
        ({"isIncomplete": False, "items": {}}, ("the object {}", "a CompletionItem[]")),
        (["a"], ("the string 'a' at index 0", "a CompletionItem")),
        ({"isIncomplete": "no", "items": []}, ("the string 'no' as isIncomplete", "a boolean")),
        ({"isIncomplete": None, "items": []}, ("null as isIncomplete",)),
        ({"items": [], "itemDefaults": []}, ("as itemDefaults", "CompletionItemDefaults")),
        (
            {"items": [], "itemDefaults": {"editRange": "0:4"}},
            ("as itemDefaults.editRange", "a Range or {insert, replace}"),
        ),
        ({"items": [], "itemDefaults": {"editRange": {"insert": R}}}, ("itemDefaults.editRange",)),
        (
            {"items": [{"label": 1}], "itemDefaults": {"editRange": R}},
            ("at index 0", "a CompletionItem with a label or textEditText"),
        ),
        (
            {"items": [{"label": "a", "textEditText": None}], "itemDefaults": {"editRange": R}},
            ("at index 0",),
        ),
    ],
    ids=[
        "string",
        "number",
        "no-items",
        "items-object",
        "item-string",
        "incomplete-string",
        "incomplete-null",
        "defaults-list",
        "edit-range-string",
        "edit-range-half",
        "label-type",
        "text-edit-text-null",
    ],
)
def test_completion_lies(result: object, parts: tuple[str, ...]) -> None:
    with pytest.raises(LspError) as caught:
        completion(result)
    assert caught.value.code == ErrorCodes.InternalError
    for part in parts:
        assert part in caught.value.message


def test_a_large_list_keeps_every_item_and_takes_its_defaults() -> None:
    """10,000 items each get the defaults they lack (bench_normalize.py measures the cost)."""
    items = [{"label": f"name_{i}", "kind": 6} for i in range(10_000)]
    defaults = {"editRange": R, "commitCharacters": ["."], "data": {"u": 1}}
    result = completion({"isIncomplete": False, "itemDefaults": defaults, "items": items})
    assert len(result["items"]) == 10_000
    assert "itemDefaults" not in result
    assert result["items"][9_999]["textEdit"] == {"range": R, "newText": "name_9999"}
    assert result["items"][0]["commitCharacters"] == ["."]
