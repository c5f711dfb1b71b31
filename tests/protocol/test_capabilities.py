"""CapabilityRegistry: static capabilities, dynamic registrations, selectors and sync."""

from __future__ import annotations

from typing import Any

import pytest

from adecore_lsp.protocol.capabilities.capabilities import (
    METHOD_SPECS,
    CapabilityRegistry,
    Registration,
    SyncOptions,
    method_spec,
)
from adecore_lsp.protocol.capabilities.globs import GlobError
from adecore_lsp.protocol.capabilities.selectors import DocumentInfo

PY = DocumentInfo("file:///ws/a.py", "python")
RS = DocumentInfo("file:///ws/b.rs", "rust")
SEMANTIC = (
    "textDocument/semanticTokens/full",
    "textDocument/semanticTokens/full/delta",
    "textDocument/semanticTokens/range",
)


def make(capabilities: dict[str, Any] | None = None) -> tuple[CapabilityRegistry, list[Exception]]:
    errors: list[Exception] = []
    registry = CapabilityRegistry(on_error=errors.append)
    if capabilities is not None:
        registry.set_server_capabilities(capabilities)
    return registry, errors


def reg(id_: str, method: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": id_, "method": method}
    if options is not None:
        entry["registerOptions"] = options
    return {"registrations": [entry]}


def unreg(id_: str, method: str = "textDocument/hover") -> dict[str, Any]:
    return {"unregisterations": [{"id": id_, "method": method}]}


# -- static capabilities -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "supported", "options"),
    [
        (True, True, {}),
        ({}, True, {}),
        ({"workDoneProgress": True}, True, {"workDoneProgress": True}),
        (False, False, None),
        (None, False, None),
        (1, False, None),
        ("yes", False, None),
    ],
)
def test_static_provider_values(value: object, supported: bool, options: object) -> None:
    """`true` and objects announce a provider (`true` as `{}`); anything else does not."""
    registry, _ = make({"hoverProvider": value})
    assert registry.supports("textDocument/hover") is supported
    assert registry.provider_options("textDocument/hover") == options


def test_absent_capability_is_unsupported() -> None:
    """A capability the server leaves out is not supported."""
    registry, _ = make({"hoverProvider": True})
    assert not registry.supports("textDocument/definition")
    assert registry.provider_options("textDocument/definition") is None


@pytest.mark.parametrize(
    ("capabilities", "method", "expected"),
    [
        ({"completionProvider": {}}, "completionItem/resolve", False),
        ({"completionProvider": {"resolveProvider": False}}, "completionItem/resolve", False),
        ({"completionProvider": {"resolveProvider": True}}, "completionItem/resolve", True),
        ({"codeActionProvider": True}, "codeAction/resolve", False),
        ({"codeActionProvider": {"resolveProvider": True}}, "codeAction/resolve", True),
        ({"codeLensProvider": {"resolveProvider": True}}, "codeLens/resolve", True),
        ({"codeLensProvider": {}}, "codeLens/resolve", False),
        ({"documentLinkProvider": {"resolveProvider": True}}, "documentLink/resolve", True),
        ({"inlayHintProvider": True}, "inlayHint/resolve", False),
        ({"inlayHintProvider": {"resolveProvider": True}}, "inlayHint/resolve", True),
        ({"workspaceSymbolProvider": True}, "workspaceSymbol/resolve", False),
        ({"workspaceSymbolProvider": {"resolveProvider": True}}, "workspaceSymbol/resolve", True),
        ({"workspaceSymbolProvider": True}, "workspace/symbol", True),
        ({"renameProvider": True}, "textDocument/prepareRename", False),
        ({"renameProvider": {"prepareProvider": True}}, "textDocument/prepareRename", True),
        ({"renameProvider": True}, "textDocument/rename", True),
        ({"semanticTokensProvider": {"legend": {}}}, SEMANTIC[0], False),
        ({"semanticTokensProvider": {"full": True}}, SEMANTIC[0], True),
        ({"semanticTokensProvider": {"full": {}}}, SEMANTIC[0], True),
        ({"semanticTokensProvider": {"full": True}}, SEMANTIC[1], False),
        ({"semanticTokensProvider": {"full": {"delta": False}}}, SEMANTIC[1], False),
        ({"semanticTokensProvider": {"full": {"delta": True}}}, SEMANTIC[1], True),
        ({"semanticTokensProvider": {"full": True}}, SEMANTIC[2], False),
        ({"semanticTokensProvider": {"range": True}}, SEMANTIC[2], True),
        ({"semanticTokensProvider": {"range": {}}}, SEMANTIC[2], True),
        ({"diagnosticProvider": {"interFileDependencies": True}}, "textDocument/diagnostic", True),
        ({"diagnosticProvider": {"workspaceDiagnostics": False}}, "workspace/diagnostic", False),
        ({"diagnosticProvider": {"workspaceDiagnostics": True}}, "workspace/diagnostic", True),
        ({"callHierarchyProvider": True}, "callHierarchy/incomingCalls", True),
        ({"typeHierarchyProvider": True}, "typeHierarchy/subtypes", True),
        ({"colorProvider": True}, "textDocument/colorPresentation", True),
        ({"executeCommandProvider": {"commands": ["x"]}}, "workspace/executeCommand", True),
        (
            {"workspace": {"fileOperations": {"willCreate": {"filters": []}}}},
            "workspace/willCreateFiles",
            True,
        ),
        (
            {"workspace": {"fileOperations": {"didCreate": {"filters": []}}}},
            "workspace/willCreateFiles",
            False,
        ),
        (
            {"workspace": {"workspaceFolders": {"supported": True}}},
            "workspace/didChangeWorkspaceFolders",
            False,
        ),
        (
            {"workspace": {"workspaceFolders": {"changeNotifications": True}}},
            "workspace/didChangeWorkspaceFolders",
            True,
        ),
        (
            {"workspace": {"workspaceFolders": {"changeNotifications": "wsf"}}},
            "workspace/didChangeWorkspaceFolders",
            True,
        ),
        ({"notebookDocumentSync": {"notebookSelector": []}}, "notebookDocument/didOpen", True),
        ({"notebookDocumentSync": {"notebookSelector": []}}, "notebookDocument/didSave", False),
        (
            {"notebookDocumentSync": {"notebookSelector": [], "save": True}},
            "notebookDocument/didSave",
            True,
        ),
        ({"documentRangeFormattingProvider": True}, "textDocument/rangesFormatting", False),
        (
            {"documentRangeFormattingProvider": {"rangesSupport": True}},
            "textDocument/rangesFormatting",
            True,
        ),
    ],
)
def test_option_fields_gate_methods(
    capabilities: dict[str, Any], method: str, expected: bool
) -> None:
    """Resolve, prepare, delta, range and similar methods come from option fields."""
    registry, _ = make(capabilities)
    assert registry.supports(method) is expected


def test_gated_method_options_are_the_providers() -> None:
    """provider_options of a gated method is the whole provider, such as the legend."""
    provider = {"legend": {"tokenTypes": ["a"]}, "full": {"delta": True}}
    registry, _ = make({"semanticTokensProvider": provider})
    assert registry.provider_options("textDocument/semanticTokens/full/delta") == provider
    assert registry.provider_options("textDocument/semanticTokens/range") is None


def test_provider_options_is_a_copy() -> None:
    """Changing the returned options changes nothing in the registry."""
    registry, _ = make({"completionProvider": {"triggerCharacters": ["."]}})
    options = registry.provider_options("textDocument/completion")
    assert options is not None
    options["triggerCharacters"] = ["x"]
    options["resolveProvider"] = True
    assert registry.provider_options("textDocument/completion") == {"triggerCharacters": ["."]}
    assert not registry.supports("completionItem/resolve")


@pytest.mark.parametrize(
    "method",
    [
        "initialize",
        "initialized",
        "shutdown",
        "exit",
        "$/cancelRequest",
        "$/progress",
        "$/setTrace",
        "workspace/didChangeConfiguration",
        "window/workDoneProgress/cancel",
    ],
)
def test_methods_needing_no_capability(method: str) -> None:
    """Lifecycle and protocol methods are supported with options `{}` even with no capabilities."""
    registry, _ = make()
    assert registry.supports(method)
    assert registry.supports(method, PY)
    assert registry.provider_options(method) == {}


def test_static_document_selector_filters_documents() -> None:
    """A static options object with a documentSelector applies only to the documents it selects."""
    registry, _ = make(
        {
            "semanticTokensProvider": {
                "legend": {},
                "full": True,
                "documentSelector": [{"language": "python"}],
            },
            "hoverProvider": {"documentSelector": None},
        }
    )
    assert registry.supports(SEMANTIC[0])
    assert registry.supports(SEMANTIC[0], PY)
    assert not registry.supports(SEMANTIC[0], RS)
    assert registry.provider_options(SEMANTIC[0], RS) is None
    assert registry.supports("textDocument/hover", RS)


def test_static_provider_without_selector_serves_every_document() -> None:
    """A static provider without a selector answers for every document."""
    registry, _ = make({"hoverProvider": True})
    assert registry.supports("textDocument/hover", PY)
    assert registry.supports("textDocument/hover", "untitled:Untitled-1")


def test_set_server_capabilities_rejects_non_objects() -> None:
    """Capabilities that are not an object are reported and read as empty."""
    registry, errors = make()
    registry.set_server_capabilities(["hoverProvider"])  # type: ignore[arg-type]
    assert registry.server_capabilities == {}
    assert len(errors) == 1
    assert not registry.supports("textDocument/hover")


def test_server_capabilities_property() -> None:
    """server_capabilities returns what was set, as a copy of the given mapping."""
    given: dict[str, Any] = {"hoverProvider": True}
    registry, _ = make(given)
    given["definitionProvider"] = True
    assert registry.server_capabilities == {"hoverProvider": True}


def test_static_bad_glob_is_reported_once() -> None:
    """An unreadable glob in a static selector is reported once and its filter selects nothing."""
    registry, errors = make(
        {
            "semanticTokensProvider": {
                "full": True,
                "range": True,
                "documentSelector": [{"pattern": "**/*.{py"}],
            }
        }
    )
    assert [type(e) for e in errors] == [GlobError]
    assert not registry.supports(SEMANTIC[0], PY)
    assert registry.supports(SEMANTIC[0])


# -- text document sync --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sync", "expected"),
    [
        (None, SyncOptions()),
        (0, SyncOptions()),
        (1, SyncOptions(open_close=True, change=1, save=True)),
        (2, SyncOptions(open_close=True, change=2, save=True)),
        ({}, SyncOptions()),
        ({"openClose": True}, SyncOptions(open_close=True)),
        ({"openClose": True, "change": 2}, SyncOptions(open_close=True, change=2)),
        ({"change": 1, "save": True}, SyncOptions(change=1, save=True)),
        ({"save": {}}, SyncOptions(save=True)),
        ({"save": {"includeText": True}}, SyncOptions(save=True, include_text=True)),
        ({"save": False}, SyncOptions()),
        (
            {"willSave": True, "willSaveWaitUntil": True},
            SyncOptions(will_save=True, will_save_wait_until=True),
        ),
        ({"change": 7}, SyncOptions(change=1)),
        ({"change": True}, SyncOptions()),
        (True, SyncOptions()),
        ("full", SyncOptions()),
    ],
)
def test_static_text_document_sync(sync: object, expected: SyncOptions) -> None:
    """A TextDocumentSyncKind number or an options object gives the sync to use."""
    registry, _ = make({} if sync is None else {"textDocumentSync": sync})
    assert registry.text_document_sync(PY) == expected


def test_sync_methods_answer_in_registration_shape() -> None:
    """Static sync reads per notification, shaped like that notification's registration options."""
    registry, _ = make(
        {"textDocumentSync": {"openClose": True, "change": 2, "save": {"includeText": True}}}
    )
    assert registry.provider_options("textDocument/didOpen") == {}
    assert registry.provider_options("textDocument/didClose") == {}
    assert registry.provider_options("textDocument/didChange") == {"syncKind": 2}
    assert registry.provider_options("textDocument/didSave") == {"includeText": True}
    assert not registry.supports("textDocument/willSave")
    assert not registry.supports("textDocument/willSaveWaitUntil")


def test_dynamic_sync_registrations_by_selector() -> None:
    """Dynamic sync registrations apply to the documents their selectors select."""
    registry, _ = make({"textDocumentSync": {"openClose": False, "change": 0}})
    python = [{"language": "python"}]
    registry.register(
        {
            "registrations": [
                {
                    "id": "o",
                    "method": "textDocument/didOpen",
                    "registerOptions": {"documentSelector": python},
                },
                {
                    "id": "c",
                    "method": "textDocument/didChange",
                    "registerOptions": {"documentSelector": python, "syncKind": 2},
                },
                {
                    "id": "s",
                    "method": "textDocument/didSave",
                    "registerOptions": {"documentSelector": python, "includeText": True},
                },
                {
                    "id": "w",
                    "method": "textDocument/willSaveWaitUntil",
                    "registerOptions": {"documentSelector": python},
                },
            ]
        }
    )
    assert registry.text_document_sync(PY) == SyncOptions(
        open_close=True, change=2, save=True, include_text=True, will_save_wait_until=True
    )
    assert registry.text_document_sync(RS) == SyncOptions()
    assert registry.text_document_sync({"uri": PY.uri, "languageId": "python"}).change == 2


def test_dynamic_sync_kind_overrides_static_once() -> None:
    """A didChange registration's syncKind wins over the static kind: one answer, no overlap."""
    registry, _ = make({"textDocumentSync": 1})
    registry.register(reg("c", "textDocument/didChange", {"documentSelector": None, "syncKind": 2}))
    assert registry.text_document_sync(PY).change == 2
    registry.unregister(unreg("c", "textDocument/didChange"))
    assert registry.text_document_sync(PY).change == 1


def test_dynamic_did_change_with_kind_none_does_not_enable() -> None:
    """A didChange registration with syncKind 0 does not turn changes on."""
    registry, _ = make()
    changed = registry.register(reg("c", "textDocument/didChange", {"syncKind": 0}))
    assert changed == []
    assert not registry.supports("textDocument/didChange")
    assert registry.text_document_sync(PY).change == 0


def test_did_close_alone_sets_open_close() -> None:
    """A didClose registration alone makes the document be opened and closed."""
    registry, _ = make()
    registry.register(reg("c", "textDocument/didClose", {"documentSelector": None}))
    assert registry.text_document_sync(PY).open_close


# -- dynamic registrations ---------------------------------------------------------------


def test_registration_adds_support_and_unregistration_removes_it() -> None:
    """A registration makes its method supported until it is unregistered."""
    registry, errors = make({})
    assert registry.register(reg("1", "textDocument/hover")) == ["textDocument/hover"]
    assert registry.supports("textDocument/hover")
    assert registry.provider_options("textDocument/hover") == {}
    assert registry.unregister(unreg("1")) == ["textDocument/hover"]
    assert not registry.supports("textDocument/hover")
    assert errors == []


def test_registration_before_server_capabilities() -> None:
    """A registration that arrives before the capabilities are set stays after they are set."""
    registry, _ = make()
    registry.register(reg("1", "textDocument/hover", {"documentSelector": None}))
    registry.set_server_capabilities({"definitionProvider": True})
    assert registry.supports("textDocument/hover")
    assert registry.supports("textDocument/definition")


def test_semantic_tokens_registration_enables_its_requests() -> None:
    """A textDocument/semanticTokens registration answers supports for full, delta and range."""
    registry, _ = make({})
    options = {"legend": {}, "full": {"delta": True}, "range": True, "documentSelector": None}
    changed = registry.register(reg("st", "textDocument/semanticTokens", options))
    assert changed == list(SEMANTIC)
    assert all(registry.supports(method) for method in SEMANTIC)
    assert registry.provider_options(SEMANTIC[0]) == options
    assert registry.unregister(unreg("st", "textDocument/semanticTokens")) == list(SEMANTIC)
    assert not any(registry.supports(method) for method in SEMANTIC)


def test_semantic_tokens_registration_without_range() -> None:
    """A semanticTokens registration with only `full` enables full and not range or delta."""
    registry, _ = make({})
    changed = registry.register(reg("st", "textDocument/semanticTokens", {"full": True}))
    assert changed == [SEMANTIC[0]]
    assert registry.supports(SEMANTIC[0])
    assert not registry.supports(SEMANTIC[1])
    assert not registry.supports(SEMANTIC[2])


def test_method_named_directly_is_registered() -> None:
    """A registration naming a method other than its registration method still enables it."""
    registry, _ = make({})
    assert registry.register(reg("x", SEMANTIC[2])) == [SEMANTIC[2]]
    assert registry.supports(SEMANTIC[2])
    assert not registry.supports(SEMANTIC[0])


def test_completion_registration_reports_resolve_when_enabled() -> None:
    """completionItem/resolve follows a completion registration's resolveProvider."""
    registry, _ = make({})
    plain = registry.register(reg("a", "textDocument/completion", {"triggerCharacters": ["."]}))
    assert plain == ["textDocument/completion"]
    assert not registry.supports("completionItem/resolve")
    both = registry.register(reg("b", "textDocument/completion", {"resolveProvider": True}))
    assert both == ["textDocument/completion", "completionItem/resolve"]
    assert registry.supports("completionItem/resolve")
    assert registry.provider_options("completionItem/resolve") == {"resolveProvider": True}


def test_rename_registration_with_prepare_provider() -> None:
    """textDocument/prepareRename needs prepareProvider in a rename registration too."""
    registry, _ = make({})
    registry.register(reg("r", "textDocument/rename", {"prepareProvider": False}))
    assert registry.supports("textDocument/rename")
    assert not registry.supports("textDocument/prepareRename")
    registry.register(reg("r", "textDocument/rename", {"prepareProvider": True}))
    assert registry.supports("textDocument/prepareRename")


def test_duplicate_id_replaces_registration() -> None:
    """Registering an id again replaces the old registration and reports both methods."""
    registry, _ = make({})
    registry.register(reg("same", "textDocument/hover"))
    changed = registry.register(reg("same", "textDocument/definition"))
    assert changed == ["textDocument/hover", "textDocument/definition"]
    assert not registry.supports("textDocument/hover")
    assert registry.supports("textDocument/definition")
    assert len(registry.registrations()) == 1


def test_duplicate_id_replaces_options() -> None:
    """A replacement registration's options are the ones answered."""
    registry, _ = make({})
    registry.register(reg("c", "textDocument/completion", {"triggerCharacters": ["."]}))
    registry.register(reg("c", "textDocument/completion", {"triggerCharacters": [":"]}))
    assert registry.provider_options("textDocument/completion") == {"triggerCharacters": [":"]}


def test_dynamic_before_static_and_newest_first() -> None:
    """Dynamic registrations answer before static capabilities, the newest first."""
    registry, _ = make({"completionProvider": {"triggerCharacters": ["static"]}})
    assert registry.provider_options("textDocument/completion") == {"triggerCharacters": ["static"]}
    registry.register(reg("old", "textDocument/completion", {"triggerCharacters": ["old"]}))
    registry.register(reg("new", "textDocument/completion", {"triggerCharacters": ["new"]}))
    assert registry.provider_options("textDocument/completion") == {"triggerCharacters": ["new"]}
    registry.unregister(unreg("new"))
    assert registry.provider_options("textDocument/completion") == {"triggerCharacters": ["old"]}
    registry.unregister(unreg("old"))
    assert registry.provider_options("textDocument/completion") == {"triggerCharacters": ["static"]}


def test_registration_selector_filters_documents() -> None:
    """A registration applies to the documents its selector selects, and without one to some."""
    registry, _ = make({})
    registry.register(
        reg("h", "textDocument/hover", {"documentSelector": [{"language": "python"}]})
    )
    assert registry.supports("textDocument/hover")
    assert registry.supports("textDocument/hover", PY)
    assert not registry.supports("textDocument/hover", RS)
    assert registry.supports("textDocument/hover", {"uri": PY.uri, "languageId": "python"})
    assert not registry.supports("textDocument/hover", PY.uri)


def test_selector_picks_the_provider_per_document() -> None:
    """With providers for different languages, each document gets its own provider's options."""
    registry, _ = make({"completionProvider": {"triggerCharacters": ["*"]}})
    registry.register(
        reg(
            "py",
            "textDocument/completion",
            {"documentSelector": [{"language": "python"}], "triggerCharacters": ["."]},
        )
    )
    registry.register(
        reg(
            "rs",
            "textDocument/completion",
            {"documentSelector": [{"pattern": "**/*.rs"}], "triggerCharacters": [":"]},
        )
    )
    assert registry.provider_options("textDocument/completion", PY)["triggerCharacters"] == ["."]  # type: ignore[index]
    assert registry.provider_options("textDocument/completion", RS)["triggerCharacters"] == [":"]  # type: ignore[index]
    other = DocumentInfo("file:///ws/c.go", "go")
    assert registry.provider_options("textDocument/completion", other) == {
        "triggerCharacters": ["*"]
    }


def test_selectors_by_scheme_pattern_and_relative_pattern() -> None:
    """Registrations can select by scheme, by glob, and by a pattern relative to a folder."""
    registry, _ = make({})
    registry.register(
        reg("s", "textDocument/hover", {"documentSelector": [{"scheme": "untitled"}]})
    )
    registry.register(
        reg("p", "textDocument/definition", {"documentSelector": [{"pattern": "**/*.py"}]})
    )
    folder = {"uri": "file:///ws", "name": "ws"}
    relative = {"pattern": {"baseUri": folder, "pattern": "src/**/*.py"}}
    registry.register(reg("r", "textDocument/references", {"documentSelector": [relative]}))
    assert registry.supports("textDocument/hover", "untitled:Untitled-1")
    assert not registry.supports("textDocument/hover", PY)
    assert registry.supports("textDocument/definition", PY)
    assert not registry.supports("textDocument/definition", RS)
    assert registry.supports("textDocument/references", "file:///ws/src/pkg/m.py")
    assert not registry.supports("textDocument/references", PY)


def test_null_selector_means_every_document() -> None:
    """A registration with documentSelector null applies to every document."""
    registry, _ = make({})
    registry.register(reg("h", "textDocument/hover", {"documentSelector": None}))
    assert registry.supports("textDocument/hover", RS)
    assert registry.supports("textDocument/hover", "untitled:x")


def test_empty_filter_matches_nothing_and_is_reported() -> None:
    """An empty document filter selects no document and is reported, keeping the registration."""
    registry, errors = make({})
    registry.register(reg("h", "textDocument/hover", {"documentSelector": [{}]}))
    assert len(errors) == 1
    assert "'h'" in str(errors[0])
    assert registry.supports("textDocument/hover")
    assert not registry.supports("textDocument/hover", PY)


def test_bad_glob_is_reported_once_and_matches_nothing() -> None:
    """An unreadable glob is reported once; its filter matches nothing; the registration stays."""
    registry, errors = make({})
    selector = [{"pattern": "**/*.{py"}, {"language": "rust"}]
    changed = registry.register(reg("a", "textDocument/hover", {"documentSelector": selector}))
    registry.register(reg("b", "textDocument/definition", {"documentSelector": selector}))
    assert changed == ["textDocument/hover"]
    assert len(errors) == 1
    assert isinstance(errors[0], GlobError)
    assert errors[0].glob == "**/*.{py"
    assert not registry.supports("textDocument/hover", PY)
    assert registry.supports("textDocument/hover", RS)


def test_single_element_brace_glob_is_fine() -> None:
    """`**/*.{mdx}` is a valid glob: no report and it selects .mdx files."""
    registry, errors = make({})
    registry.register(
        reg("m", "textDocument/hover", {"documentSelector": [{"pattern": "**/*.{mdx}"}]})
    )
    assert errors == []
    assert registry.supports("textDocument/hover", "file:///docs/intro.mdx")


def test_unregister_reads_both_spellings_and_ignores_unknown_ids() -> None:
    """unregisterations (and unregistrations) remove registrations; unknown ids are fine."""
    registry, errors = make({})
    registry.register(reg("1", "textDocument/hover"))
    registry.register(reg("2", "textDocument/definition"))
    assert registry.unregister({"unregisterations": [{"id": "nope", "method": "x/y"}]}) == []
    assert registry.unregister({"unregistrations": [{"id": "2", "method": "x"}]}) == [
        "textDocument/definition"
    ]
    assert registry.unregister(unreg("1")) == ["textDocument/hover"]
    assert registry.unregister(unreg("1")) == []
    assert errors == []
    assert registry.registrations() == []


def test_unknown_methods_only_while_registered() -> None:
    """A method outside the table is supported only while the server has it registered."""
    registry, _ = make({"experimental": {"rust-analyzer/expandMacro": True}})
    method = "rust-analyzer/expandMacro"
    assert not registry.supports(method)
    assert registry.provider_options(method) is None
    assert registry.register(reg("x", method, {"documentSelector": [{"language": "rust"}]})) == [
        method
    ]
    assert registry.supports(method)
    assert registry.supports(method, RS)
    assert not registry.supports(method, PY)
    registry.unregister(unreg("x", method))
    assert not registry.supports(method)


def test_watched_files_need_a_registration() -> None:
    """workspace/didChangeWatchedFiles is supported only once watchers are registered."""
    registry, errors = make({"hoverProvider": True})
    assert not registry.supports("workspace/didChangeWatchedFiles")
    watchers = {
        "watchers": [
            {"globPattern": "**/*.py"},
            {"globPattern": {"baseUri": "file:///w", "pattern": "*.toml"}},
        ]
    }
    registry.register(reg("w", "workspace/didChangeWatchedFiles", watchers))
    assert registry.supports("workspace/didChangeWatchedFiles")
    assert registry.provider_options("workspace/didChangeWatchedFiles") == watchers
    assert errors == []


def test_bad_watcher_globs_are_reported() -> None:
    """Unreadable watcher globs and a missing watcher list are reported, not raised."""
    registry, errors = make({})
    registry.register(
        reg("w", "workspace/didChangeWatchedFiles", {"watchers": [{"globPattern": "[x"}, {}]})
    )
    registry.register(reg("v", "workspace/didChangeWatchedFiles", {}))
    assert [type(e) for e in errors] == [GlobError, ValueError, ValueError]
    assert registry.supports("workspace/didChangeWatchedFiles")


def test_did_change_configuration_registration_keeps_support() -> None:
    """A didChangeConfiguration registration gives its options; the method is always supported."""
    registry, _ = make({})
    assert registry.register(reg("c", "workspace/didChangeConfiguration", {"section": "py"})) == [
        "workspace/didChangeConfiguration"
    ]
    assert registry.provider_options("workspace/didChangeConfiguration") == {"section": "py"}
    registry.unregister(unreg("c"))
    assert registry.supports("workspace/didChangeConfiguration")
    assert registry.provider_options("workspace/didChangeConfiguration") == {}


def test_file_operation_filters_select_files() -> None:
    """File operation providers match their filters against the document URI."""
    filters = {"filters": [{"scheme": "file", "pattern": {"glob": "**/*.py"}}]}
    registry, errors = make({"workspace": {"fileOperations": {"willRename": filters}}})
    assert registry.supports("workspace/willRenameFiles")
    assert registry.supports("workspace/willRenameFiles", PY)
    assert not registry.supports("workspace/willRenameFiles", RS)
    registry.register(
        reg("d", "workspace/didDeleteFiles", {"filters": [{"pattern": {"glob": "**/*.rs"}}]})
    )
    assert registry.supports("workspace/didDeleteFiles", RS)
    assert not registry.supports("workspace/didDeleteFiles", PY)
    registry.register(
        reg("e", "workspace/didCreateFiles", {"filters": [{"pattern": {"glob": "{"}}]})
    )
    assert [type(e) for e in errors] == [GlobError]


def test_notebook_sync_ignores_the_text_document() -> None:
    """Notebook sync methods follow notebookDocumentSync and its registrations, not documents."""
    registry, _ = make({})
    options = {"notebookSelector": [{"notebook": "jupyter-notebook"}], "save": True}
    changed = registry.register(reg("nb", "notebookDocument/sync", options))
    assert changed == [
        "notebookDocument/didChange",
        "notebookDocument/didClose",
        "notebookDocument/didOpen",
        "notebookDocument/didSave",
    ]
    assert registry.supports("notebookDocument/didOpen", PY)
    assert registry.supports("notebookDocument/didSave")


def test_static_capability_with_id_can_be_unregistered() -> None:
    """A static capability's StaticRegistrationOptions id withdraws it when unregistered."""
    gated, _ = make({"semanticTokensProvider": {"id": "st", "full": True, "legend": {}}})
    assert gated.unregister(unreg("st")) == ["textDocument/semanticTokens/full"]
    assert not gated.supports("textDocument/semanticTokens/full")
    registry, errors = make(
        {
            "foldingRangeProvider": {"id": "fold"},
            "workspace": {"workspaceFolders": {"supported": True, "changeNotifications": "wsf"}},
        }
    )
    assert registry.unregister(unreg("fold", "textDocument/foldingRange")) == [
        "textDocument/foldingRange"
    ]
    assert not registry.supports("textDocument/foldingRange")
    assert registry.unregister(unreg("wsf", "workspace/didChangeWorkspaceFolders")) == [
        "workspace/didChangeWorkspaceFolders"
    ]
    assert not registry.supports("workspace/didChangeWorkspaceFolders")
    assert registry.unregister(unreg("fold", "textDocument/foldingRange")) == []
    registry.set_server_capabilities({"foldingRangeProvider": {"id": "fold"}})
    assert registry.supports("textDocument/foldingRange")
    assert errors == []


def test_registrations_listing() -> None:
    """registrations() lists live registrations newest first, optionally by method."""
    registry, _ = make()
    registry.register(reg("1", "textDocument/hover"))
    registry.register(reg("2", "textDocument/definition", {"documentSelector": None}))
    registry.register(reg("3", "textDocument/hover", {"workDoneProgress": True}))
    assert [r.id for r in registry.registrations()] == ["3", "2", "1"]
    assert registry.registrations("textDocument/hover") == [
        Registration("3", "textDocument/hover", {"workDoneProgress": True}),
        Registration("1", "textDocument/hover", {}),
    ]


# -- malformed input -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        None,
        [],
        "registrations",
        {},
        {"registrations": None},
        {"registrations": {"id": "1", "method": "textDocument/hover"}},
    ],
)
def test_malformed_register_params_are_reported(params: object) -> None:
    """Params that are not an object with a registrations list are reported and change nothing."""
    registry, errors = make({})
    assert registry.register(params) == []
    assert len(errors) == 1
    assert isinstance(errors[0], ValueError)
    assert registry.registrations() == []


def test_malformed_entries_are_skipped_and_the_rest_applies() -> None:
    """Entries lacking a string id or method, or with bad options, are reported and skipped."""
    registry, errors = make({})
    params = {
        "registrations": [
            5,
            {"method": "textDocument/definition"},
            {"id": 7, "method": "textDocument/definition"},
            {"id": "x"},
            {"id": "y", "method": None},
            {"id": "z", "method": "textDocument/definition", "registerOptions": [1]},
            {"id": "ok", "method": "textDocument/hover", "registerOptions": None},
        ]
    }
    assert registry.register(params) == ["textDocument/hover"]
    assert len(errors) == 6
    assert all(isinstance(e, ValueError) for e in errors)
    assert registry.supports("textDocument/hover")
    assert not registry.supports("textDocument/definition")


def test_malformed_unregister_input_is_reported() -> None:
    """Bad unregister params and entries are reported; valid entries still unregister."""
    registry, errors = make({})
    registry.register(reg("1", "textDocument/hover"))
    assert registry.unregister("nope") == []
    assert registry.unregister({"unregisterations": "1"}) == []
    assert registry.unregister({}) == []
    changed = registry.unregister(
        {
            "unregisterations": [
                None,
                {"id": 1, "method": "m"},
                {"id": "1", "method": "textDocument/hover"},
            ]
        }
    )
    assert changed == ["textDocument/hover"]
    assert len(errors) == 5


def test_malformed_selector_is_reported_and_selects_nothing() -> None:
    """A documentSelector that is not a list is reported and selects no document."""
    registry, errors = make({})
    registry.register(reg("h", "textDocument/hover", {"documentSelector": "python"}))
    assert len(errors) == 1
    assert registry.supports("textDocument/hover")
    assert not registry.supports("textDocument/hover", PY)


def test_without_on_error_nothing_raises() -> None:
    """Without an on_error callback, malformed input is dropped silently."""
    registry = CapabilityRegistry()
    assert registry.register(
        {
            "registrations": [
                5,
                {
                    "id": "a",
                    "method": "x",
                    "registerOptions": {"documentSelector": [{"pattern": "{"}]},
                },
            ]
        }
    ) == ["x"]
    assert registry.unregister(None) == []
    registry.set_server_capabilities(None)  # type: ignore[arg-type]
    assert registry.supports("x")


def test_bad_document_argument_raises_type_error() -> None:
    """A document argument of the wrong type is a caller error and raises TypeError."""
    registry, _ = make({"hoverProvider": True})
    with pytest.raises(TypeError):
        registry.supports("textDocument/hover", 42)  # type: ignore[arg-type]


# -- the method table as seen by the registry ----------------------------------------------


def test_method_spec_lookup() -> None:
    """method_spec finds table rows and returns None for other names."""
    spec = method_spec("textDocument/semanticTokens/full/delta")
    assert spec is not None
    assert spec.registration_method == "textDocument/semanticTokens"
    assert spec.capability == "semanticTokensProvider"
    assert spec.option == "full.delta"
    assert method_spec("rust-analyzer/expandMacro") is None
    assert METHOD_SPECS["textDocument/hover"].capability == "hoverProvider"


def test_every_table_method_can_be_enabled_by_its_registration() -> None:
    """Registering each method's registration method with its option field enables it."""
    for spec in METHOD_SPECS.values():
        registry, errors = make({})
        options: dict[str, Any] = {}
        if spec.method == "workspace/didChangeWatchedFiles":
            options["watchers"] = [{"globPattern": "**/*.py"}]
        elif spec.capability and spec.capability.startswith("workspace.fileOperations."):
            options["filters"] = [{"pattern": {"glob": "**"}}]
        elif spec.registration_option == "full.delta":
            options["full"] = {"delta": True}
        elif spec.registration_option is not None:
            options[spec.registration_option] = (
                2 if spec.registration_option == "syncKind" else True
            )
        changed = registry.register(reg("id", spec.registration_method, options))
        assert spec.method in changed or spec.always, spec.method
        assert registry.supports(spec.method), spec.method
        assert errors == [], spec.method


# -- lookups cost what the asked method's registrations cost ---------------------------


def _watchers(count: int) -> dict[str, Any]:
    return {
        "registrations": [
            {
                "id": f"watch-{index}",
                "method": "workspace/didChangeWatchedFiles",
                "registerOptions": {"watchers": [{"globPattern": "**/*.py"}]},
            }
            for index in range(count)
        ]
    }


def test_a_lookup_looks_only_at_its_own_methods_registrations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With thousands of file watchers registered, supports() reads none of them."""
    import adecore_lsp.protocol.capabilities.capabilities as module

    registry, errors = make({"hoverProvider": True})
    registry.register(_watchers(5_000))
    registry.register({"registrations": [{"id": "def", "method": "textDocument/definition"}]})
    looked_at: list[str] = []
    enables = module._enables

    def counting(registration: Any, method: str, spec: Any) -> bool:
        looked_at.append(registration.id)
        return enables(registration, method, spec)

    monkeypatch.setattr(module, "_enables", counting)
    assert registry.supports("textDocument/hover", "file:///a.py")
    assert not registry.supports("textDocument/references")
    assert registry.supports("textDocument/definition")
    assert looked_at == ["def"]
    assert registry.supports("workspace/didChangeWatchedFiles")
    assert errors == []


def test_registrations_by_method_stay_newest_first_across_replacements() -> None:
    """Replacing, unregistering and re-registering keep the newest registration in charge."""
    registry, _ = make()
    tokens = "textDocument/semanticTokens"
    registry.register(
        {
            "registrations": [
                {"id": "a", "method": tokens, "registerOptions": {"full": True}},
                {"id": "b", "method": "textDocument/semanticTokens/full", "registerOptions": {}},
            ]
        }
    )
    assert [r.id for r in registry.registrations()] == ["b", "a"]
    assert [r.id for r in registry.registrations(tokens)] == ["a"]
    assert registry.provider_options("textDocument/semanticTokens/full") == {}
    # "a" registered again is now the newest: its options win.
    registry.register(
        {
            "registrations": [
                {"id": "a", "method": tokens, "registerOptions": {"full": {"delta": True}}}
            ]
        }
    )
    assert registry.provider_options("textDocument/semanticTokens/full") == {
        "full": {"delta": True}
    }
    registry.unregister({"unregisterations": [{"id": "a", "method": tokens}]})
    assert registry.provider_options("textDocument/semanticTokens/full") == {}
    assert registry.registrations(tokens) == []
    registry.unregister(
        {"unregisterations": [{"id": "b", "method": "textDocument/semanticTokens/full"}]}
    )
    assert not registry.supports("textDocument/semanticTokens/full")
    assert registry.registrations() == []


def test_lookups_are_remembered_and_forgotten_when_capabilities_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A workspace asks the same questions of every file: answers are kept, bounded, and
    dropped when a registration changes what they depend on."""
    from adecore_lsp.protocol.capabilities import capabilities as module

    monkeypatch.setattr(module, "FOUND_CACHED", 2)
    registry = CapabilityRegistry()
    registry.set_server_capabilities({"hoverProvider": True})
    for name in ("a", "b", "c"):  # three languages: three answers, past the bound
        assert registry.supports("textDocument/hover", DocumentInfo(f"file:///{name}", name))
    assert len(registry._found) <= 2
    assert not registry.supports("textDocument/formatting", "file:///a.py")
    registry.register(
        {"registrations": [{"id": "f", "method": "textDocument/formatting", "registerOptions": {}}]}
    )
    assert registry.supports("textDocument/formatting", "file:///a.py")
    registry.unregister({"unregisterations": [{"id": "f", "method": "textDocument/formatting"}]})
    assert not registry.supports("textDocument/formatting", "file:///a.py")


def test_answers_are_shared_by_a_language_until_a_selector_looks_at_uris() -> None:
    """A check asks about a thousand files of one language: one answer serves them all,
    but never where a selector's scheme or pattern tells two files of a language apart."""
    registry = CapabilityRegistry()
    registry.set_server_capabilities({"hoverProvider": True, "textDocumentSync": 1})
    first = DocumentInfo("file:///ws/src/a.py", "python")
    second = DocumentInfo("file:///ws/tests/b.py", "python")
    assert registry.supports("textDocument/hover", first)
    assert registry.supports("textDocument/hover", second)
    assert registry.text_document_sync(first) is registry.text_document_sync(second)
    # One answer per question, keyed by the language: none by either file's URI.
    assert {key[1] for key in registry._found} == {"python"}
    registry.register(
        reg(
            "src",
            "textDocument/didOpen",
            {"documentSelector": [{"language": "python", "pattern": "**/src/**"}]},
        )
    )
    registry.unregister({"unregisterations": [{"id": "src", "method": "textDocument/didOpen"}]})
    registry.set_server_capabilities(
        {
            "diagnosticProvider": {
                "interFileDependencies": False,
                "workspaceDiagnostics": False,
                "documentSelector": [{"pattern": "**/src/**"}],
            }
        }
    )
    assert registry.supports("textDocument/diagnostic", first)
    assert not registry.supports("textDocument/diagnostic", second)
    registry.set_server_capabilities({})
    registry.register(
        reg("file", "textDocument/formatting", {"documentSelector": [{"scheme": "file"}]})
    )
    assert registry.supports("textDocument/formatting", first)
    assert not registry.supports("textDocument/formatting", DocumentInfo("untitled:1", "python"))
    registry.unregister({"unregisterations": [{"id": "file", "method": "textDocument/formatting"}]})
    registry.register(
        reg("py", "textDocument/formatting", {"documentSelector": [{"language": "python"}]})
    )
    assert registry.supports("textDocument/formatting", DocumentInfo("untitled:1", "python"))
    assert not registry.supports("textDocument/formatting", DocumentInfo("file:///c.rs", "rust"))
    assert registry._key("textDocument/formatting", first) == (
        "textDocument/formatting",
        "python",
        None,
    )


def test_sync_options_follow_a_registration_scoped_by_pattern() -> None:
    registry = CapabilityRegistry()
    registry.register(
        reg(
            "open",
            "textDocument/didOpen",
            {"documentSelector": [{"language": "python", "pattern": "**/src/**"}]},
        )
    )
    inside = DocumentInfo("file:///ws/src/a.py", "python")
    outside = DocumentInfo("file:///ws/tests/b.py", "python")
    assert registry.text_document_sync(inside).open_close
    assert not registry.text_document_sync(outside).open_close
