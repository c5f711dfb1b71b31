"""The feature calls are annotated with the LSP structures they take and return.

The annotations are strings that name ``adecore_lsp.lsp_types`` (as ``t``) and
``adecore_lsp.results``, imported for type checkers only; resolved in those namespaces they
must all be real types, so that documentation tools and ``typing.get_type_hints`` see them.
"""

from __future__ import annotations

import inspect
import typing
from typing import Any

from adecore_lsp import LspSession, lsp_types, results
from adecore_lsp.features import FeatureCalls

# What the guide tells users to pass, the names imported for type checkers only.
NAMES: dict[str, Any] = {"t": lsp_types, **vars(results)}

FEATURE_CALLS = sorted(
    name
    for name, member in vars(FeatureCalls).items()
    if not name.startswith("_") and inspect.isfunction(member)
)


def hints(name: str) -> dict[str, Any]:
    function = getattr(LspSession, name)
    return typing.get_type_hints(function, localns=NAMES)


def test_every_feature_call_has_annotations_that_resolve() -> None:
    assert len(FEATURE_CALLS) >= 35
    for name in FEATURE_CALLS:
        assert "return" in hints(name), name


def test_results_are_the_lsp_structures_the_contract_names() -> None:
    assert hints("definition")["return"] == list[lsp_types.Location]
    assert hints("document_symbols")["return"] == list[lsp_types.DocumentSymbol]
    assert hints("completion")["return"] is lsp_types.CompletionList
    assert hints("code_actions")["return"] == list[lsp_types.CodeAction]
    assert hints("formatting")["return"] == list[lsp_types.TextEdit]
    assert hints("document_diagnostics")["return"] == list[lsp_types.Diagnostic]
    assert hints("apply_edit")["return"] is lsp_types.ApplyWorkspaceEditResult
    assert hints("incoming_calls")["item"] is lsp_types.CallHierarchyItem


def test_narrower_results_say_what_normalisation_guarantees() -> None:
    """A hover's contents is always MarkupContent; a rename always has documentChanges."""
    assert hints("hover")["return"] == results.MarkupHover | None
    contents = typing.get_type_hints(results.MarkupHover)["contents"]
    assert contents is lsp_types.MarkupContent
    assert results.DocumentChangesEdit.__required_keys__ == {"documentChanges"}
    assert hints("rename")["return"] is results.DocumentChangesEdit
    assert hints("prepare_rename")["return"] == results.PreparedRename | None
