"""build_client_capabilities: honest flags, encodings, overrides."""

from __future__ import annotations

from adecore_lsp.protocol.capabilities.client_capabilities import (
    build_client_capabilities,
    deep_merge,
)


def test_defaults_promise_no_pull_and_no_apply_edit() -> None:
    """By default: no pull diagnostics, applyEdit false, utf-32 first, utf-16 present."""
    capabilities = build_client_capabilities()
    assert "diagnostic" not in capabilities["textDocument"]
    assert capabilities["workspace"]["applyEdit"] is False
    assert capabilities["general"]["positionEncodings"] == ["utf-32", "utf-8", "utf-16"]
    assert "showDocument" not in capabilities["window"]
    assert "didChangeWatchedFiles" not in capabilities["workspace"]


def test_utf16_is_always_offered_and_duplicates_dropped() -> None:
    """Narrowed encodings keep their order, lose duplicates and gain utf-16."""
    capabilities = build_client_capabilities(position_encodings=["utf-8", "utf-8"])
    assert capabilities["general"]["positionEncodings"] == ["utf-8", "utf-16"]
    capabilities = build_client_capabilities(position_encodings=["utf-16", "utf-32"])
    assert capabilities["general"]["positionEncodings"] == ["utf-16", "utf-32"]


def test_overrides_merge_deeply_and_do_not_alias() -> None:
    """Overrides merge object by object; the caller's dict is copied, not shared."""
    override = {"textDocument": {"hover": {"contentFormat": ["plaintext"]}}, "x": [1]}
    capabilities = build_client_capabilities(overrides=override)
    assert capabilities["textDocument"]["hover"] == {
        "dynamicRegistration": True,
        "contentFormat": ["plaintext"],
    }
    capabilities["x"].append(2)
    assert override["x"] == [1]


def test_deep_merge_replaces_non_objects() -> None:
    """A non-object value replaces whatever stood there."""
    assert deep_merge({"a": {"b": 1}, "c": 1}, {"a": 2, "c": {"d": 1}}) == {"a": 2, "c": {"d": 1}}


def test_pull_diagnostics_advertises_the_diagnostic_capability() -> None:
    """pull_diagnostics adds textDocument.diagnostic, registrable, with related documents."""
    capabilities = build_client_capabilities(pull_diagnostics=True)
    assert capabilities["textDocument"]["diagnostic"] == {
        "dynamicRegistration": True,
        "relatedDocumentSupport": True,
    }
