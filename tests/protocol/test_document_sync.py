"""DocumentSync: the notifications a server gets for each sync setting, and which reports stand."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from adecore_lsp.protocol.capabilities.capabilities import CapabilityRegistry
from adecore_lsp.protocol.documents.document_sync import DocumentSync

URI = "file:///ws/a.py"


def make_sync(text_document_sync: object) -> tuple[DocumentSync, list[tuple[str, Any]]]:
    """A DocumentSync for a server announcing ``textDocumentSync``, and what it sent."""
    registry = CapabilityRegistry()
    registry.set_server_capabilities({"textDocumentSync": text_document_sync})
    sent: list[tuple[str, Any]] = []
    return DocumentSync(registry, lambda method, params: sent.append((method, params))), sent


def methods(sent: list[tuple[str, Any]]) -> list[str]:
    return [method for method, _ in sent]


@pytest.mark.parametrize(
    ("capability", "expected"),
    [
        (0, []),
        ({"openClose": False, "change": 0}, []),
        (
            {"openClose": True, "change": 2, "save": True},
            [
                "textDocument/didOpen",
                "textDocument/didChange",
                "textDocument/didSave",
                "textDocument/didClose",
            ],
        ),
        (
            {"openClose": True, "change": 0},
            ["textDocument/didOpen", "textDocument/didClose"],
        ),
    ],
)
def test_a_document_life_sends_what_the_server_asked_for(
    capability: object, expected: list[str]
) -> None:
    """Open, change, save and close send exactly the notifications the capability asks for."""
    sync, sent = make_sync(capability)
    sync.open(URI, "python", "a = 1\n", "utf-16")
    sync.change(URI, "a = 2\n")
    sync.save(URI)
    sync.close(URI)
    assert methods(sent) == expected
    assert URI not in sync.store


def test_change_sends_the_edit_in_the_servers_sync_kind() -> None:
    """Incremental sync sends the minimal edit; full sync the whole text; no change, nothing."""
    incremental, sent = make_sync({"openClose": True, "change": 2})
    incremental.open(URI, "python", "a = 1\n", "utf-16")
    document = incremental.change(URI, "a = 2\n")
    assert document.version == 2
    assert sent[-1] == (
        "textDocument/didChange",
        {
            "textDocument": {"uri": URI, "version": 2},
            "contentChanges": [
                {
                    "range": {
                        "start": {"line": 0, "character": 4},
                        "end": {"line": 0, "character": 5},
                    },
                    "text": "2",
                }
            ],
        },
    )
    incremental.change(URI, "a = 2\n")
    assert len(sent) == 2  # the same text: nothing to send

    full, sent = make_sync({"openClose": True, "change": 1})
    full.open(URI, "python", "a = 1\n", "utf-16")
    full.change(URI, edits=[{"text": "b = 3\n"}])
    assert sent[-1][1]["contentChanges"] == [{"text": "b = 3\n"}]


def test_save_includes_the_text_when_asked() -> None:
    """save with includeText sends the current text."""
    sync, sent = make_sync({"openClose": True, "change": 1, "save": {"includeText": True}})
    sync.open(URI, "python", "x\n", "utf-16")
    sync.save(URI)
    assert sent[-1] == ("textDocument/didSave", {"textDocument": {"uri": URI}, "text": "x\n"})


@pytest.mark.parametrize("action", ["change", "save", "close"])
def test_a_document_that_is_not_open_is_refused(action: str) -> None:
    """Changing, saving or closing a URI that is not open raises ValueError naming it."""
    sync, sent = make_sync({"openClose": True, "change": 2})
    call: Callable[[], object] = {
        "change": lambda: sync.change(URI, "x"),
        "save": lambda: sync.save(URI),
        "close": lambda: sync.close(URI),
    }[action]
    with pytest.raises(ValueError, match="is not open"):
        call()
    assert sent == []


@pytest.mark.parametrize(
    ("uri", "language_id", "text", "name"),
    [(1, "python", "", "uri"), (URI, None, "", "language_id"), (URI, "python", b"", "text")],
)
def test_open_checks_its_arguments(uri: Any, language_id: Any, text: Any, name: str) -> None:
    """open raises TypeError naming an argument that is not a str, and opens nothing."""
    sync, sent = make_sync({"openClose": True})
    with pytest.raises(TypeError, match=f"^{name} must be a str"):
        sync.open(uri, language_id, text, "utf-16")
    assert sent == []
    assert len(sync.store) == 0


@pytest.mark.parametrize(
    ("params", "accepted"),
    [
        ({"uri": URI, "diagnostics": []}, True),
        ({"uri": URI, "version": 1, "diagnostics": []}, True),
        ({"uri": URI, "version": 2, "diagnostics": []}, False),
        ({"uri": URI, "version": True, "diagnostics": []}, False),
        ({"uri": URI, "version": "1", "diagnostics": []}, False),
        ({"uri": "file:///ws/other.py", "diagnostics": []}, False),
        ({"uri": 5, "diagnostics": []}, False),
        ([URI], False),
        (None, False),
    ],
)
def test_diagnostics_stand_for_the_current_text_only(params: Any, accepted: bool) -> None:
    """A report counts for an open document, without a version or at its current version."""
    sync, _ = make_sync({"openClose": True, "change": 2})
    sync.open(URI, "python", "x\n", "utf-16")
    report = sync.current_diagnostics(params)
    assert (report is not None) is accepted
    if accepted:
        assert report == params


SPELLED = "file:///ws/my%20proj%2B%5Bx%5D/a.py"


def test_a_server_spelling_the_uri_its_own_way_still_names_the_document() -> None:
    """pyrefly answers `+[x]` where the client sent `%2B%5Bx%5D`: matched by path."""
    sync, _ = make_sync({"openClose": True, "change": 2})
    document = sync.open(SPELLED, "python", "x\n", "utf-16")
    theirs = "file:///ws/my%20proj+[x]/a.py"
    assert sync.find(theirs) is document
    report = sync.current_diagnostics({"uri": theirs, "version": 1, "diagnostics": [1]})
    assert report == {"uri": SPELLED, "version": 1, "diagnostics": [1]}
    assert sync.snapshot({"textDocument": {"uri": theirs}}) == (SPELLED, 1)
    assert sync.find("untitled:x") is None
    sync.close(SPELLED)
    assert sync.find(theirs) is None


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"textDocument": {"uri": URI}, "position": {}}, (URI, 1)),
        ({"textDocument": {"uri": "file:///ws/closed.py"}}, None),
        ({"textDocument": {"uri": 3}}, None),
        ({"textDocument": URI}, None),
        ({"query": "x"}, None),
        ([URI], None),
        (None, None),
    ],
)
def test_snapshot_names_the_open_document_and_its_version(params: Any, expected: Any) -> None:
    """snapshot gives (uri, version) for params about an open document, else None."""
    sync, _ = make_sync({"openClose": True, "change": 2})
    sync.open(URI, "python", "x\n", "utf-16")
    assert sync.snapshot(params) == expected


def test_a_snapshot_goes_stale_when_the_text_moves_on_or_closes() -> None:
    """is_current is true until the document changes, and false once it is closed."""
    sync, _ = make_sync({"openClose": True, "change": 2})
    sync.open(URI, "python", "x\n", "utf-16")
    snapshot = sync.snapshot({"textDocument": {"uri": URI}})
    assert snapshot is not None
    assert sync.is_current(snapshot)
    sync.change(URI, "y\n")
    assert not sync.is_current(snapshot)
    current = sync.snapshot({"textDocument": {"uri": URI}})
    assert current is not None
    sync.close(URI)
    assert not sync.is_current(current)
