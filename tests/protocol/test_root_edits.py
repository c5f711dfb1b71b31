"""A rename asked of several roots of one server is one edit: each edit once, a disagreement
refused naming the file. The real servers' answers are in ``tests/cli/test_monorepo.py``."""

from __future__ import annotations

from typing import Any

import pytest

from adecore_lsp.protocol.workspace.root_edits import RootsDisagree, merge_root_edits, uncovered

A = "file:///r/packages/a/alpha.py"
B = "file:///r/packages/b/beta.py"


def edit(line: int, start: int, end: int, text: str = "salute", **extra: Any) -> dict[str, Any]:
    return {
        "range": {
            "start": {"line": line, "character": start},
            "end": {"line": line, "character": end},
        },
        "newText": text,
        **extra,
    }


def doc(uri: str, *edits: dict[str, Any], version: int | None = 3) -> dict[str, Any]:
    return {"textDocument": {"uri": uri, "version": version}, "edits": list(edits)}


def test_the_roots_edits_are_made_once_each_in_place_order() -> None:
    """Root a edits a's file; root b edits b's file and a's declaration (which it sees as an
    open file): the declaration's edit, given twice, is made once."""
    from_a = {"documentChanges": [doc(A, edit(5, 4, 9), edit(0, 4, 9))]}
    from_b = {"changes": {B: [edit(2, 0, 5)], A: [edit(0, 4, 9)]}}
    merged = merge_root_edits([from_a, None, from_b])
    assert merged == {
        "documentChanges": [
            doc(A, edit(0, 4, 9), edit(5, 4, 9), version=None),
            doc(B, edit(2, 0, 5), version=None),
        ]
    }


def test_resource_operations_and_annotations_are_kept_once() -> None:
    move = {"kind": "rename", "oldUri": A, "newUri": A.replace("alpha", "salute")}
    one = {
        "documentChanges": [doc(A, edit(0, 4, 9, annotationId="r")), move],
        "changeAnnotations": {"r": {"label": "rename"}},
    }
    merged = merge_root_edits([one, one])
    assert merged["documentChanges"] == [
        doc(A, edit(0, 4, 9, annotationId="r"), version=None),
        move,
    ]
    assert merged["changeAnnotations"] == {"r": {"label": "rename"}}
    assert "changeAnnotations" not in merge_root_edits([{"changes": {}}])


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (edit(0, 4, 9, "salute"), edit(0, 4, 9, "hail")),  # the same place, another name
        (edit(0, 4, 9), edit(0, 6, 12)),  # overlapping ranges
        (edit(0, 4, 4, "x"), edit(0, 4, 4, "y")),  # two insertions at one place
    ],
)
def test_roots_that_disagree_about_a_place_are_refused(
    first: dict[str, Any], second: dict[str, Any]
) -> None:
    with pytest.raises(RootsDisagree, match="roots disagree about file:///r/packages/a") as caught:
        merge_root_edits([{"changes": {A: [first]}}, {"changes": {A: [second]}}])
    assert caught.value.uri == A
    assert "one edits 1:5-1:" in str(caught.value)


def test_edits_that_touch_without_overlapping_are_both_made() -> None:
    """An edit that ends where the next begins, and an insertion at the end of a range."""
    merged = merge_root_edits(
        [{"changes": {A: [edit(0, 0, 4, "a"), edit(0, 4, 8, "b"), edit(0, 8, 8, "c")]}}]
    )
    assert [e["newText"] for e in merged["documentChanges"][0]["edits"]] == ["a", "b", "c"]


def test_an_answer_that_is_no_workspace_edit_is_refused() -> None:
    with pytest.raises(ValueError, match="no WorkspaceEdit"):
        merge_root_edits([["not", "an", "edit"]])  # type: ignore[list-item]


def test_a_use_no_root_renames_is_uncovered() -> None:
    """ty rooted at the consumer renames the declaring file alone: the consumer's use, found
    by its references, is in no edit."""
    merged = merge_root_edits(
        [{"changes": {A: [edit(0, 4, 9)]}}, {"documentChanges": [{"kind": "create", "uri": B}]}]
    )
    declaration = edit(0, 4, 9)["range"]
    use = edit(2, 0, 5)["range"]
    wider = edit(0, 3, 9)["range"]
    assert uncovered(merged, [(A, declaration), (B, use), (A, wider)]) == [(B, use), (A, wider)]
    assert uncovered(merged, [(A, declaration)]) == []
