"""The client capabilities the session sends in ``initialize``: what it does, and no more.

Promising what a client does not do changes how servers behave (pull diagnostics announced
but never pulled make some servers stop pushing; ``applyEdit`` announced but always refused
makes servers offer code actions that fail), so each flag here is backed by the session, or
by requests that an application sends through ``request()`` and reads as plain JSON.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from ...types import JSONObject

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

POSITION_ENCODINGS: tuple[str, ...] = ("utf-32", "utf-8", "utf-16")
"""Offered in this order: utf-32 counts code points, which is what a Python ``str`` indexes."""

_SYMBOL_KINDS = list(range(1, 27))
_COMPLETION_KINDS = list(range(1, 26))
_TOKEN_TYPES = [
    "namespace", "type", "class", "enum", "interface", "struct", "typeParameter", "parameter",
    "variable", "property", "enumMember", "event", "function", "method", "macro", "keyword",
    "modifier", "comment", "string", "number", "regexp", "operator", "decorator",
]  # fmt: skip
_TOKEN_MODIFIERS = [
    "declaration", "definition", "readonly", "static", "deprecated", "abstract", "async",
    "modification", "documentation", "defaultLibrary",
]  # fmt: skip
_CODE_ACTION_KINDS = [
    "", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite",
    "source", "source.organizeImports", "source.fixAll",
]  # fmt: skip
_MARKUP = ["markdown", "plaintext"]


def _dynamic(**extra: Any) -> JSONObject:
    return {"dynamicRegistration": True, **extra}


def deep_merge(base: JSONObject, override: Mapping[str, Any]) -> JSONObject:
    """``base`` with ``override`` laid over it: objects merge key by key, the rest replaces."""
    merged = dict(base)
    for key, value in override.items():
        current = merged.get(key)
        if isinstance(current, dict) and isinstance(value, Mapping):
            merged[key] = deep_merge(current, value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def build_client_capabilities(
    *,
    position_encodings: Sequence[str] = POSITION_ENCODINGS,
    snippet_support: bool = False,
    apply_edit: bool = False,
    transactional_edits: bool = False,
    pull_diagnostics: bool = False,
    overrides: Mapping[str, Any] | None = None,
) -> JSONObject:
    """The ``capabilities`` of ``InitializeParams`` for a session with these options.

    ``apply_edit`` is whether ``workspace/applyEdit`` is answered, ``transactional_edits``
    whether by the session itself (all or nothing, change annotations confirmed or refused);
    ``pull_diagnostics`` whether the session pulls diagnostics (``textDocument/diagnostic``).
    ``overrides`` is merged last, so an application can add or change anything.
    """
    text_document: JSONObject = {
        "synchronization": _dynamic(willSave=False, willSaveWaitUntil=False, didSave=True),
        "publishDiagnostics": {
            "relatedInformation": True,
            "versionSupport": True,
            "tagSupport": {"valueSet": [1, 2]},
            "codeDescriptionSupport": True,
            "dataSupport": True,
        },
        "completion": _dynamic(
            contextSupport=True,
            completionItem={
                "snippetSupport": snippet_support,
                "commitCharactersSupport": True,
                "documentationFormat": _MARKUP,
                "deprecatedSupport": True,
                "preselectSupport": True,
                "tagSupport": {"valueSet": [1]},
                "insertReplaceSupport": True,
                "resolveSupport": {
                    "properties": ["documentation", "detail", "additionalTextEdits"]
                },
                "insertTextModeSupport": {"valueSet": [1, 2]},
                "labelDetailsSupport": True,
            },
            completionItemKind={"valueSet": _COMPLETION_KINDS},
            completionList={
                "itemDefaults": ["commitCharacters", "editRange", "insertTextFormat", "data"]
            },
        ),
        "hover": _dynamic(contentFormat=_MARKUP),
        "signatureHelp": _dynamic(
            contextSupport=True,
            signatureInformation={
                "documentationFormat": _MARKUP,
                "parameterInformation": {"labelOffsetSupport": True},
                "activeParameterSupport": True,
            },
        ),
        "declaration": _dynamic(linkSupport=True),
        "definition": _dynamic(linkSupport=True),
        "typeDefinition": _dynamic(linkSupport=True),
        "implementation": _dynamic(linkSupport=True),
        "references": _dynamic(),
        "documentHighlight": _dynamic(),
        "documentSymbol": _dynamic(
            symbolKind={"valueSet": _SYMBOL_KINDS},
            hierarchicalDocumentSymbolSupport=True,
            tagSupport={"valueSet": [1]},
            labelSupport=True,
        ),
        "codeAction": _dynamic(
            codeActionLiteralSupport={"codeActionKind": {"valueSet": _CODE_ACTION_KINDS}},
            isPreferredSupport=True,
            disabledSupport=True,
            dataSupport=True,
            resolveSupport={"properties": ["edit"]},
        ),
        "codeLens": _dynamic(),
        "documentLink": _dynamic(tooltipSupport=True),
        "colorProvider": _dynamic(),
        "formatting": _dynamic(),
        "rangeFormatting": _dynamic(),
        "onTypeFormatting": _dynamic(),
        "rename": _dynamic(prepareSupport=True, prepareSupportDefaultBehavior=1),
        "foldingRange": _dynamic(
            lineFoldingOnly=False,
            foldingRangeKind={"valueSet": ["comment", "imports", "region"]},
        ),
        "selectionRange": _dynamic(),
        "linkedEditingRange": _dynamic(),
        "callHierarchy": _dynamic(),
        "semanticTokens": _dynamic(
            requests={"range": True, "full": {"delta": True}},
            tokenTypes=_TOKEN_TYPES,
            tokenModifiers=_TOKEN_MODIFIERS,
            formats=["relative"],
            overlappingTokenSupport=False,
            multilineTokenSupport=True,
            serverCancelSupport=True,
            augmentsSyntaxTokens=True,
        ),
        "moniker": _dynamic(),
        "typeHierarchy": _dynamic(),
        "inlineValue": _dynamic(),
        "inlayHint": _dynamic(
            resolveSupport={
                "properties": [
                    "tooltip",
                    "textEdits",
                    "label.tooltip",
                    "label.location",
                    "label.command",
                ]
            }
        ),
    }
    if pull_diagnostics:
        text_document["diagnostic"] = _dynamic(relatedDocumentSupport=True)

    workspace_edit: JSONObject = {
        "documentChanges": True,
        "resourceOperations": ["create", "rename", "delete"],
        "failureHandling": "transactional" if transactional_edits else "abort",
    }
    if transactional_edits:
        workspace_edit["changeAnnotationSupport"] = {"groupsOnLabel": False}
    workspace: JSONObject = {
        "applyEdit": apply_edit,
        "workspaceEdit": workspace_edit,
        "workspaceFolders": True,
        "configuration": True,
        "didChangeConfiguration": _dynamic(),
        "symbol": _dynamic(
            symbolKind={"valueSet": _SYMBOL_KINDS},
            tagSupport={"valueSet": [1]},
            resolveSupport={"properties": ["location.range"]},
        ),
        "executeCommand": _dynamic(),
        "semanticTokens": {"refreshSupport": True},
        "inlayHint": {"refreshSupport": True},
        "diagnostics": {"refreshSupport": True},
        "codeLens": {"refreshSupport": True},
        "inlineValue": {"refreshSupport": True},
        "foldingRange": {"refreshSupport": True},
    }

    encodings = list(dict.fromkeys(position_encodings))
    if "utf-16" not in encodings:
        encodings.append("utf-16")

    capabilities: JSONObject = {
        "general": {"positionEncodings": encodings},
        "workspace": workspace,
        "textDocument": text_document,
        "window": {
            "workDoneProgress": True,
            "showMessage": {"messageActionItem": {"additionalPropertiesSupport": True}},
        },
    }
    if overrides:
        capabilities = deep_merge(capabilities, overrides)
    return capabilities
