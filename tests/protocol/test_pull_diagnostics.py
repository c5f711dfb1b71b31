"""pull_diagnostics: params with result ids, reports to deliver, what listeners heard, lies."""

from __future__ import annotations

from typing import Any

import pytest

from adecore_lsp.errors import ErrorCodes, LspError, StaleResultError
from adecore_lsp.protocol.documents.documents import TextDocument
from adecore_lsp.protocol.shapes.pull_diagnostics import (
    DROP,
    REPORT,
    RETRY,
    PullState,
    failure_action,
    overlapping,
)

A = "file:///w/a.py"
B = "file:///w/b.py"
B_OTHER_SPELLING = "file:///w/%62.py"
C = "file:///w/c.py"


def rng(a: int, b: int, c: int, d: int) -> dict[str, Any]:
    return {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}}


def item(message: str, span: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"range": span or rng(0, 0, 0, 1), "message": message}


X, Y, Z = item("x"), item("y"), item("z")


def full(items: list[Any], result_id: str | None = None, **extra: Any) -> dict[str, Any]:
    report: dict[str, Any] = {"kind": "full", "items": items, **extra}
    if result_id is not None:
        report["resultId"] = result_id
    return report


def unchanged(result_id: str, **extra: Any) -> dict[str, Any]:
    return {"kind": "unchanged", "resultId": result_id, **extra}


class Documents:
    """Open documents found by path, as DocumentSync.find does (B also as %62)."""

    def __init__(self) -> None:
        self.open: dict[str, TextDocument] = {}

    def add(self, uri: str, version: int) -> TextDocument:
        document = TextDocument(uri, "python", version, "", "utf-16")
        self.open[uri] = document
        return document

    def find(self, uri: object) -> TextDocument | None:
        if uri == B_OTHER_SPELLING:
            uri = B
        return self.open.get(uri) if isinstance(uri, str) else None


@pytest.fixture
def docs() -> Documents:
    documents = Documents()
    documents.add(A, 1)
    documents.add(B, 4)
    return documents


@pytest.fixture
def state(docs: Documents) -> PullState:
    return PullState(docs.find, dedupe=True)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (None, {"textDocument": {"uri": A}}),
        ({}, {"textDocument": {"uri": A}}),
        ({"identifier": "ty"}, {"textDocument": {"uri": A}, "identifier": "ty"}),
        ({"identifier": 3}, {"textDocument": {"uri": A}}),
    ],
)
def test_params_carry_the_provider_identifier(
    state: PullState, options: dict[str, Any] | None, expected: dict[str, Any]
) -> None:
    """The identifier comes from the provider's options when it is a string."""
    assert state.params(A, 1, options) == expected
    assert state.pulled_version(A) == 1


def test_params_carry_the_last_result_id(state: PullState) -> None:
    """After a full report with a result id, the next pull sends it as previousResultId."""
    assert state.pulled_version(A) is None
    state.params(A, 1, None)
    state.receive(A, 1, full([X], "r1"))
    assert state.params(A, 2, None) == {
        "textDocument": {"uri": A},
        "previousResultId": "r1",
    }
    assert state.pulled_version(A) == 2
    state.receive(A, 2, full([X]))  # a full report without an id forgets the old one
    assert "previousResultId" not in state.params(A, 3, None)


def test_a_full_then_an_unchanged_report(state: PullState) -> None:
    """An unchanged report answers with the items of the last full one, for the new version."""
    assert state.receive(A, 1, full([X], "r1")) == (
        [X],
        [{"uri": A, "version": 1, "diagnostics": [X]}],
    )
    assert state.receive(A, 2, unchanged("r2")) == (
        [X],
        [{"uri": A, "version": 2, "diagnostics": [X]}],
    )
    assert state.params(A, 3, None)["previousResultId"] == "r2"


def test_a_document_that_is_not_open_gets_items_and_no_report(state: PullState) -> None:
    """Version None: the items come back, nothing is delivered."""
    assert state.receive(C, None, full([Y], "c1")) == ([Y], [])
    assert state.receive(C, None, unchanged("c2")) == ([Y], [])


def test_unchanged_without_a_full_report_is_a_lie(state: PullState) -> None:
    """No earlier full report: InternalError, and nothing is kept."""
    with pytest.raises(LspError) as caught:
        state.receive(A, 1, unchanged("r1"))
    assert caught.value.code == ErrorCodes.InternalError
    assert "unchanged" in caught.value.message
    assert "previousResultId" not in state.params(A, 1, None)


def test_related_documents_that_are_open_are_delivered(state: PullState) -> None:
    """Open related documents (matched by path) get their current version; others are left."""
    result = full(
        [X],
        "r1",
        relatedDocuments={
            B_OTHER_SPELLING: full([Y], "b1"),
            C: full([Z]),  # not open
            A: full([Z]),  # the document itself: its own report wins
        },
    )
    items, reports = state.receive(A, 1, result)
    assert items == [X]
    assert reports == [
        {"uri": A, "version": 1, "diagnostics": [X]},
        {"uri": B, "version": 4, "diagnostics": [Y]},
    ]
    # B's related result id and items are B's own now.
    assert state.params(B, 4, None)["previousResultId"] == "b1"
    assert state.receive(B, 4, unchanged("b2")) == (
        [Y],
        [{"uri": B, "version": 4, "diagnostics": [Y]}],
    )


def test_related_unchanged_reports(state: PullState) -> None:
    """An unchanged related report gives the last full items; without any it is left out."""
    state.receive(B, 4, full([Y], "b1"))
    result = full([X], relatedDocuments={B: unchanged("b2")})
    assert state.receive(A, 1, result)[1] == [
        {"uri": A, "version": 1, "diagnostics": [X]},
        {"uri": B, "version": 4, "diagnostics": [Y]},
    ]
    docs = Documents()
    docs.add(B, 1)
    other = PullState(docs.find, dedupe=True)
    assert other.receive(A, 1, full([X], relatedDocuments={B: unchanged("b2")}))[1] == [
        {"uri": A, "version": 1, "diagnostics": [X]}
    ]


@pytest.mark.parametrize(
    ("result", "parts"),
    [
        (None, ["null", "DocumentDiagnosticReport"]),
        ([], ["DocumentDiagnosticReport"]),
        ({"items": []}, ["kind", '"full" or "unchanged"']),
        ({"kind": "partial", "items": []}, ["kind"]),
        ({"kind": "full"}, ["items", "a list"]),
        ({"kind": "full", "items": {}}, ["items"]),
        ({"kind": "full", "items": [], "resultId": 7}, ["resultId", "a string"]),
        ({"kind": "unchanged"}, ["resultId of unchanged"]),
        (full([], relatedDocuments=[]), ["relatedDocuments", "an object"]),
        (full([], relatedDocuments={B: {"kind": "full"}}), ["relatedDocuments[", "items"]),
        (full([], relatedDocuments={B: None}), ["relatedDocuments["]),
    ],
)
def test_answers_of_the_wrong_shape(state: PullState, result: Any, parts: list[str]) -> None:
    """Each lie is an InternalError naming the method and the member; nothing is kept."""
    state.receive(B, 4, full([Y], "b1"))
    with pytest.raises(LspError) as caught:
        state.receive(A, 1, result)
    assert caught.value.code == ErrorCodes.InternalError
    message = caught.value.message
    assert message.startswith("textDocument/diagnostic")
    for part in parts:
        assert part in message, message
    assert "previousResultId" not in state.params(A, 1, None)
    assert state.params(B, 4, None)["previousResultId"] == "b1"


def test_what_the_listeners_heard(state: PullState, docs: Documents) -> None:
    """The same report for the same version is heard once; a different one, or version, again."""
    assert state.hear(A, 1, [X]) is True
    assert state.hear(A, 1, [X]) is False
    assert state.hear(A, 1, [Y]) is True  # they differ: the later wins
    assert state.hear(A, 1, [X]) is True
    assert state.hear(A, 2, [X]) is True
    assert state.current(A) is None  # A is still at version 1
    docs.add(A, 2)
    assert state.current(A) == [X]
    assert state.last(A) == [X]


def test_pushes_are_heard_for_the_current_version(state: PullState) -> None:
    """A push counts for the open document's current version, found by path."""
    assert state.pushed({"uri": B_OTHER_SPELLING, "diagnostics": [Y]}) is True
    assert state.hear(B, 4, [Y]) is False  # a pull that agrees
    assert state.pushed({"uri": B, "version": 4, "diagnostics": [Y]}) is False
    assert state.current(B) == [Y]
    assert state.pushed({"uri": C, "diagnostics": [Y]}) is False  # not open
    assert state.pushed({"uri": B, "diagnostics": "junk"}) is True
    assert state.current(B) == []


def test_without_dedupe_every_report_is_heard(docs: Documents) -> None:
    """Without pull, a repeated push is heard each time, and still kept."""
    state = PullState(docs.find, dedupe=False)
    assert state.hear(A, 1, [X]) is True
    assert state.hear(A, 1, [X]) is True
    assert state.current(A) == [X]


def test_current_and_last_before_anything_and_after_forget(
    state: PullState, docs: Documents
) -> None:
    """None / [] before any report, for a document not open, and after forget."""
    assert state.current(A) is None
    assert state.last(A) == []
    assert state.current(C) is None
    assert state.last(C) == []
    state.params(A, 1, None)  # an entry with nothing heard yet
    assert state.current(A) is None
    assert state.last(A) == []
    state.receive(A, 1, full([X], "r1"))
    state.hear(A, 1, [X])
    state.forget(A)
    state.forget(A)
    assert state.current(A) is None
    assert "previousResultId" not in state.params(A, 1, None)


@pytest.mark.parametrize(
    ("error", "retried", "action"),
    [
        (LspError(ErrorCodes.ServerCancelled, "busy", {"retriggerRequest": True}), False, RETRY),
        (LspError(ErrorCodes.ServerCancelled, "busy", {"retriggerRequest": True}), True, REPORT),
        (LspError(ErrorCodes.ServerCancelled, "busy"), False, RETRY),
        (LspError(ErrorCodes.ServerCancelled, "busy", {"retriggerRequest": False}), False, DROP),
        (LspError(ErrorCodes.ServerCancelled, "busy", "odd data"), False, RETRY),
        (LspError(ErrorCodes.ContentModified, "changed"), False, DROP),
        (StaleResultError(A), False, DROP),
        (LspError(ErrorCodes.InternalError, "boom"), False, REPORT),
        (LspError(ErrorCodes.RequestCancelled, "late"), False, REPORT),
    ],
)
def test_failure_actions(error: LspError, retried: bool, action: str) -> None:
    """ServerCancelled is retried once unless the server says not to; the rest as LSP says."""
    assert failure_action(error, retried) == action


@pytest.mark.parametrize(
    ("span", "expected"),
    [
        (rng(0, 0, 0, 0), ["a"]),  # touching the start of a
        (rng(0, 3, 0, 3), ["a"]),  # touching its end
        (rng(0, 4, 0, 9), []),
        (rng(1, 0, 2, 0), ["b", "c"]),
        (rng(0, 0, 9, 0), ["a", "b", "c"]),
        ({"start": "bad", "end": {"line": 0, "character": 0}}, []),
        ({"start": {"line": 0, "character": None}, "end": {"line": 0, "character": 0}}, []),
    ],
)
def test_overlapping(span: dict[str, Any], expected: list[str]) -> None:
    """Diagnostics whose range overlaps or touches the range; malformed ones are skipped."""
    diagnostics = [
        item("a", rng(0, 0, 0, 3)),
        item("b", rng(1, 5, 1, 8)),
        item("c", rng(1, 9, 3, 0)),
        "junk",
        {"message": "no range"},
        {"range": {"start": {"line": 0}, "end": {"line": 0, "character": 1}}, "message": "bad"},
    ]
    found = [d["message"] for d in overlapping(diagnostics, span)]
    assert found == expected
