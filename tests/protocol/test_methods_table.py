"""The generated method table: in sync with the metaModel, complete, and as documented."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from adecore_lsp.protocol.capabilities import _methods
from adecore_lsp.protocol.capabilities._methods import METHODS
from tests.generators import META_MODEL, load_script

REPO_ROOT = Path(__file__).resolve().parents[2]
META_MODEL_LICENCE = REPO_ROOT / "spec/lsp/LICENSE-CC-BY-4.0.txt"
GENERATOR = REPO_ROOT / "scripts/generate_methods.py"
TABLE = Path(_methods.__file__)


def load_generator() -> ModuleType:
    return load_script("generate_methods")


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    return load_generator()


@pytest.fixture(scope="module")
def meta_model() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(META_MODEL.read_text(encoding="utf-8"))
    return data


def test_vendored_meta_model_ships_with_its_licence(generator: ModuleType) -> None:
    """The metaModel and its CC BY 4.0 licence are in the repository; the generator reads it."""
    assert META_MODEL.is_file(), f"the vendored LSP metaModel is missing: {META_MODEL}"
    assert "Attribution 4.0 International" in META_MODEL_LICENCE.read_text(encoding="utf-8")
    assert generator.DEFAULT_META_MODEL == META_MODEL
    assert json.loads(META_MODEL.read_bytes())["metaData"]["version"] == "3.17.0"


def test_checked_in_table_is_what_the_generator_writes(generator: ModuleType) -> None:
    """The checked-in _methods.py equals the generator's output for the metaModel."""
    assert TABLE.read_text(encoding="utf-8") == generator.render_file(META_MODEL)


def test_table_covers_exactly_the_client_methods(meta_model: dict[str, Any]) -> None:
    """Every client-to-server method of the metaModel is in the table, and nothing else is."""
    client = {
        message["method"]: message
        for message in meta_model["requests"] + meta_model["notifications"]
        if message["messageDirection"] in ("clientToServer", "both")
    }
    assert {spec.method for spec in METHODS} == set(client)
    for spec in METHODS:
        assert spec.direction == client[spec.method]["messageDirection"]
        assert client[spec.method].get("registrationMethod", spec.registration_method) == (
            spec.registration_method
        )


def test_generator_is_deterministic(generator: ModuleType, meta_model: dict[str, Any]) -> None:
    """Rendering twice, or from a reordered metaModel, gives the same text."""
    shuffled = copy.deepcopy(meta_model)
    shuffled["requests"].reverse()
    shuffled["notifications"].reverse()
    assert generator.render(meta_model, "x") == generator.render(shuffled, "x")


def test_generator_check_mode(generator: ModuleType, tmp_path: Path) -> None:
    """--check passes for an up-to-date file and fails for a stale one; a write makes it pass."""
    output = tmp_path / "_methods.py"
    output.write_text("stale\n", encoding="utf-8")
    args = ["--meta-model", str(META_MODEL), "--output", str(output)]
    assert generator.main([*args, "--check"]) == 1
    assert generator.main(args) == 0
    assert generator.main([*args, "--check"]) == 0
    assert output.read_text(encoding="utf-8") == TABLE.read_text(encoding="utf-8")


def test_generator_rejects_an_uncovered_method(
    generator: ModuleType, meta_model: dict[str, Any]
) -> None:
    """A new client method with no capability the generator can derive fails the run."""
    changed = copy.deepcopy(meta_model)
    changed["requests"].append(
        {"method": "custom/new", "messageDirection": "clientToServer", "params": None}
    )
    with pytest.raises(generator.GenerationError, match="custom/new"):
        generator.render(changed, "x")


def test_generator_rejects_stale_hand_written_entries(
    generator: ModuleType, meta_model: dict[str, Any]
) -> None:
    """An override for a method the metaModel no longer has fails the run."""
    changed = copy.deepcopy(meta_model)
    changed["requests"] = [r for r in changed["requests"] if r["method"] != "codeLens/resolve"]
    with pytest.raises(generator.GenerationError, match="codeLens/resolve"):
        generator.render(changed, "x")


def test_generator_rejects_an_unneeded_override(
    generator: ModuleType, meta_model: dict[str, Any]
) -> None:
    """An override for a capability the metaModel now lets it derive fails the run."""
    changed = copy.deepcopy(meta_model)
    for request in changed["requests"]:
        if request["method"] == "codeLens/resolve":
            request["registrationOptions"] = {"kind": "reference", "name": "HoverOptions"}
    with pytest.raises(generator.GenerationError, match="codeLens/resolve"):
        generator.render(changed, "x")


def test_table_header_names_its_source() -> None:
    """The data file says at its top that it is generated, by what, and from what."""
    head = TABLE.read_text(encoding="utf-8")[:400]
    assert "GENERATED by scripts/generate_methods.py" in head
    assert "metaModel.json" in head
    assert "3.17" in head


def test_table_is_sorted_and_unique() -> None:
    """The rows are sorted by method with no duplicates."""
    names = [spec.method for spec in METHODS]
    assert names == sorted(set(names))


def test_rows_are_consistent() -> None:
    """A row needs a capability unless it is always handled or registration-only."""
    registration_only = {s.method for s in METHODS if s.capability is None and not s.always}
    assert registration_only == {"workspace/didChangeWatchedFiles"}
    for spec in METHODS:
        assert not (spec.always and spec.capability), spec.method
        if spec.registration_option is not None:
            assert spec.option is not None, spec.method


@pytest.mark.parametrize(
    ("method", "registration_method", "capability", "option"),
    [
        ("textDocument/hover", "textDocument/hover", "hoverProvider", None),
        (
            "textDocument/semanticTokens/full",
            "textDocument/semanticTokens",
            "semanticTokensProvider",
            "full",
        ),
        (
            "textDocument/semanticTokens/full/delta",
            "textDocument/semanticTokens",
            "semanticTokensProvider",
            "full.delta",
        ),
        (
            "textDocument/semanticTokens/range",
            "textDocument/semanticTokens",
            "semanticTokensProvider",
            "range",
        ),
        ("workspace/symbol", "workspace/symbol", "workspaceSymbolProvider", None),
        (
            "workspaceSymbol/resolve",
            "workspace/symbol",
            "workspaceSymbolProvider",
            "resolveProvider",
        ),
        ("textDocument/didOpen", "textDocument/didOpen", "textDocumentSync", "openClose"),
        ("textDocument/didChange", "textDocument/didChange", "textDocumentSync", "change"),
        ("textDocument/didSave", "textDocument/didSave", "textDocumentSync", "save"),
        ("workspace/executeCommand", "workspace/executeCommand", "executeCommandProvider", None),
        ("notebookDocument/didOpen", "notebookDocument/sync", "notebookDocumentSync", None),
        ("notebookDocument/didSave", "notebookDocument/sync", "notebookDocumentSync", "save"),
        (
            "workspace/willCreateFiles",
            "workspace/willCreateFiles",
            "workspace.fileOperations.willCreate",
            None,
        ),
        (
            "workspace/didDeleteFiles",
            "workspace/didDeleteFiles",
            "workspace.fileOperations.didDelete",
            None,
        ),
        (
            "completionItem/resolve",
            "textDocument/completion",
            "completionProvider",
            "resolveProvider",
        ),
        ("codeAction/resolve", "textDocument/codeAction", "codeActionProvider", "resolveProvider"),
        ("textDocument/prepareRename", "textDocument/rename", "renameProvider", "prepareProvider"),
        (
            "workspace/diagnostic",
            "textDocument/diagnostic",
            "diagnosticProvider",
            "workspaceDiagnostics",
        ),
        ("textDocument/colorPresentation", "textDocument/documentColor", "colorProvider", None),
        (
            "callHierarchy/incomingCalls",
            "textDocument/prepareCallHierarchy",
            "callHierarchyProvider",
            None,
        ),
        ("initialize", "initialize", None, None),
        ("workspace/didChangeWatchedFiles", "workspace/didChangeWatchedFiles", None, None),
    ],
)
def test_documented_rows(
    method: str, registration_method: str, capability: str | None, option: str | None
) -> None:
    """Known methods map to the capability, option field and registration method of the LSP."""
    spec = next(s for s in METHODS if s.method == method)
    assert (spec.registration_method, spec.capability, spec.option) == (
        registration_method,
        capability,
        option,
    )


def test_always_handled_methods() -> None:
    """The lifecycle and protocol methods are the ones marked as needing no capability."""
    assert {s.method for s in METHODS if s.always} == {
        "$/cancelRequest",
        "$/progress",
        "$/setTrace",
        "exit",
        "initialize",
        "initialized",
        "shutdown",
        "window/workDoneProgress/cancel",
        "workspace/didChangeConfiguration",
    }
