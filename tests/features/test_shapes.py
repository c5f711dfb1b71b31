"""Each feature call sends its method with the right params and returns the one shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import ErrorCodes, LspError, SemanticToken, path_to_uri

from .conftest import TEXT, URI, Start

R = {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 9}}
LOC = {"uri": "file:///w/lib.py", "range": R}
LINK = {
    "targetUri": "file:///w/lib.py",
    "targetRange": {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}},
    "targetSelectionRange": R,
}
EVERYTHING = {
    "hoverProvider": True,
    "definitionProvider": True,
    "declarationProvider": True,
    "typeDefinitionProvider": True,
    "implementationProvider": True,
    "referencesProvider": True,
    "documentHighlightProvider": True,
    "documentSymbolProvider": True,
    "workspaceSymbolProvider": {"resolveProvider": True},
    "completionProvider": {"resolveProvider": True},
    "signatureHelpProvider": {},
    "renameProvider": {"prepareProvider": True},
    "documentFormattingProvider": True,
    "documentRangeFormattingProvider": True,
    "codeActionProvider": {"resolveProvider": True},
    "semanticTokensProvider": {
        "legend": {"tokenTypes": ["function", "variable"], "tokenModifiers": ["definition"]},
        "full": True,
        "range": True,
    },
    "inlayHintProvider": True,
    "foldingRangeProvider": True,
    "selectionRangeProvider": True,
    "documentLinkProvider": {},
    "codeLensProvider": {},
    "callHierarchyProvider": True,
    "typeHierarchyProvider": True,
}


async def test_locations_in_every_shape_become_a_list(start: Start) -> None:
    session, server = await start(EVERYTHING)
    session.open_document(URI, "python", TEXT)
    server.on("textDocument/definition", lambda params: LOC)
    server.on("textDocument/declaration", lambda params: [LINK])
    server.on("textDocument/typeDefinition", lambda params: None)
    server.on("textDocument/implementation", lambda params: [LOC, LINK])
    server.on("textDocument/references", lambda params: [LOC])
    assert await session.definition(URI, 4) == [LOC]
    assert await session.declaration(URI, 4) == [LOC]
    assert await session.type_definition(URI, 4) == []
    assert await session.implementation(URI, 4) == [LOC, LOC]
    assert await session.references(URI, 4, include_declaration=False) == [LOC]
    [request] = server.messages("textDocument/references")
    assert request["params"]["context"] == {"includeDeclaration": False}


async def test_hover_signature_help_and_highlights(start: Start) -> None:
    session, server = await start(EVERYTHING)
    session.open_document(URI, "python", TEXT)
    server.on(
        "textDocument/hover",
        lambda params: {"contents": [{"language": "python", "value": "def greet()"}, "Greets."]},
    )
    server.on("textDocument/signatureHelp", lambda params: {"signatures": []})
    server.on("textDocument/documentHighlight", lambda params: [{"range": R}])
    hover = await session.hover(URI, 4)
    assert hover == {
        "contents": {"kind": "markdown", "value": "```python\ndef greet()\n```\n\nGreets."}
    }
    assert await session.signature_help(URI, 4, context={"triggerKind": 1}) == {"signatures": []}
    assert server.messages("textDocument/signatureHelp")[0]["params"]["context"] == {
        "triggerKind": 1
    }
    assert await session.document_highlights(URI, 4) == [{"range": R}]
    server.on("textDocument/signatureHelp", lambda params: "not a signature")
    with pytest.raises(LspError) as caught:
        await session.signature_help(URI, 4)
    assert caught.value.code == ErrorCodes.InternalError
    assert "SignatureHelp" in caught.value.message


async def test_symbols_are_a_tree_and_workspace_symbols_a_list(start: Start) -> None:
    session, server = await start(EVERYTHING)
    outer = {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}}
    flat = [
        {"name": "greet", "kind": 12, "location": {"uri": URI, "range": outer}},
        {"name": "name", "kind": 13, "location": {"uri": URI, "range": R}},
    ]
    server.on("textDocument/documentSymbol", lambda params: flat)
    server.on("workspace/symbol", lambda params: flat)
    server.on("workspaceSymbol/resolve", lambda params: {**params, "resolved": True})
    [greet] = await session.document_symbols(URI)
    assert greet["name"] == "greet"
    assert [child["name"] for child in greet["children"]] == ["name"]
    assert [s["name"] for s in await session.workspace_symbols("gr")] == ["greet", "name"]
    assert server.messages("workspace/symbol")[0]["params"] == {"query": "gr"}
    assert (await session.resolve_workspace_symbol({"name": "x"}))["resolved"] is True


async def test_completion_is_always_a_list_with_defaults_merged(start: Start) -> None:
    session, server = await start(EVERYTHING)
    session.open_document(URI, "python", TEXT)
    server.on("textDocument/completion", lambda params: [{"label": "greet"}])
    server.on("completionItem/resolve", lambda params: {**params, "detail": "def greet"})
    assert await session.completion(URI, 4) == {
        "isIncomplete": False,
        "items": [{"label": "greet"}],
    }
    await session.completion(URI, 4, trigger_character=".")
    contexts = [m["params"]["context"] for m in server.messages("textDocument/completion")]
    assert contexts == [{"triggerKind": 1}, {"triggerKind": 2, "triggerCharacter": "."}]
    assert (await session.resolve_completion({"label": "greet"}))["detail"] == "def greet"


async def test_rename_and_prepare_rename(start: Start, tmp_path: Path) -> None:
    session, server = await start(EVERYTHING)
    session.open_document(URI, "python", TEXT)
    server.on("textDocument/prepareRename", lambda params: R)
    server.on(
        "textDocument/rename", lambda params: {"changes": {URI: [{"range": R, "newText": "x"}]}}
    )
    assert await session.prepare_rename(URI, 5) == {"range": R, "placeholder": "greet"}
    assert await session.rename(URI, 5, "x") == {
        "documentChanges": [
            {"textDocument": {"uri": URI, "version": 1}, "edits": [{"range": R, "newText": "x"}]}
        ]
    }
    assert server.messages("textDocument/rename")[0]["params"]["newName"] == "x"
    # A document that is not open: the placeholder comes from the file.
    on_disk = tmp_path / "lib.py"
    on_disk.write_text("def greet():\n    pass\n", encoding="utf-8")
    lib = path_to_uri(on_disk)
    at = {"line": 0, "character": 5}
    assert await session.prepare_rename(lib, at) == {"range": R, "placeholder": "greet"}
    server.on("textDocument/prepareRename", lambda params: None)
    assert await session.prepare_rename(lib, at) is None
    server.on("textDocument/prepareRename", lambda params: R)
    with pytest.raises(ValueError, match="cannot read"):
        await session.prepare_rename(path_to_uri(tmp_path / "missing.py"), at)


async def test_formatting_and_code_actions(start: Start) -> None:
    session, server = await start(EVERYTHING)
    session.open_document(URI, "python", TEXT)
    edit = {"range": R, "newText": "hello"}
    server.on("textDocument/formatting", lambda params: [edit])
    server.on("textDocument/rangeFormatting", lambda params: None)
    command = {"title": "Fix", "command": "fix.all", "arguments": [1]}
    server.on("textDocument/codeAction", lambda params: [command])
    server.on("codeAction/resolve", lambda params: {**params, "edit": {}})
    assert await session.formatting(URI, tab_size=2, trimTrailingWhitespace=True) == [edit]
    assert server.messages("textDocument/formatting")[0]["params"]["options"] == {
        "tabSize": 2,
        "insertSpaces": True,
        "trimTrailingWhitespace": True,
    }
    assert await session.range_formatting(URI, (0, 4)) == []
    assert await session.code_actions(URI, (0, 4), only=["quickfix"]) == [
        {"title": "Fix", "command": command}
    ]
    context = server.messages("textDocument/codeAction")[0]["params"]["context"]
    assert context == {"diagnostics": [], "only": ["quickfix"]}
    assert (await session.resolve_code_action({"title": "Fix"}))["edit"] == {}


async def test_semantic_tokens_are_decoded_with_the_legend(start: Start) -> None:
    session, server = await start(EVERYTHING)
    session.open_document(URI, "python", TEXT)
    server.on("textDocument/semanticTokens/full", lambda params: {"data": [0, 4, 5, 0, 1]})
    server.on("textDocument/semanticTokens/range", lambda params: None)
    assert await session.semantic_tokens(URI) == [
        SemanticToken(0, 4, 5, "function", frozenset({"definition"}))
    ]
    assert await session.semantic_tokens(URI, (0, 9)) == []


async def test_semantic_tokens_need_a_legend(start: Start) -> None:
    session, server = await start({"semanticTokensProvider": {"full": True}})
    with pytest.raises(LspError, match="legend"):
        await session.semantic_tokens(URI)
    assert server.messages("textDocument/semanticTokens/full") == []


async def test_lists_of_a_document(start: Start) -> None:
    session, server = await start(EVERYTHING)
    session.open_document(URI, "python", TEXT)
    hint = {"position": {"line": 0, "character": 9}, "label": ": str"}
    server.on("textDocument/inlayHint", lambda params: [hint])
    server.on("textDocument/foldingRange", lambda params: [{"startLine": 0, "endLine": 1}])
    server.on("textDocument/selectionRange", lambda params: [{"range": R}])
    server.on("textDocument/documentLink", lambda params: None)
    server.on("textDocument/codeLens", lambda params: [])
    assert await session.inlay_hints(URI, (0, len(TEXT))) == [hint]
    assert await session.folding_ranges(URI) == [{"startLine": 0, "endLine": 1}]
    assert await session.selection_ranges(URI, [4]) == [{"range": R}]
    assert server.messages("textDocument/selectionRange")[0]["params"]["positions"] == [
        {"line": 0, "character": 4}
    ]
    assert await session.document_links(URI) == []
    assert await session.code_lenses(URI) == []
    server.on("textDocument/foldingRange", lambda params: "lies")
    with pytest.raises(LspError) as caught:
        await session.folding_ranges(URI)
    assert caught.value.code == ErrorCodes.InternalError


async def test_hierarchies(start: Start) -> None:
    session, server = await start(EVERYTHING)
    session.open_document(URI, "python", TEXT)
    item: dict[str, Any] = {
        "name": "greet",
        "kind": 12,
        "uri": URI,
        "range": R,
        "selectionRange": R,
    }
    for method in (
        "textDocument/prepareCallHierarchy",
        "textDocument/prepareTypeHierarchy",
        "typeHierarchy/supertypes",
        "typeHierarchy/subtypes",
    ):
        server.on(method, lambda params: [item])
    server.on("callHierarchy/incomingCalls", lambda params: [{"from": item, "fromRanges": [R]}])
    server.on("callHierarchy/outgoingCalls", lambda params: None)
    assert await session.prepare_call_hierarchy(URI, 4) == [item]
    assert await session.incoming_calls(item) == [{"from": item, "fromRanges": [R]}]
    assert await session.outgoing_calls(item) == []
    assert await session.prepare_type_hierarchy(URI, 4) == [item]
    assert await session.supertypes(item) == [item]
    assert await session.subtypes(item) == [item]
    assert server.messages("typeHierarchy/subtypes")[0]["params"] == {"item": item}
