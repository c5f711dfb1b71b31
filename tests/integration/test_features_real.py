"""Feature calls against real servers: one normalised shape whatever the server answered."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import cast

import pytest

from adecore_lsp import LspSession, lsp_types, path_to_uri, spawn_server, uri_to_path
from adecore_lsp.results import DocumentChangesEdit
from tests.integration.conftest import find_server

pytestmark = pytest.mark.real_server

LIB = '''"""A library."""


class Greeter:
    """Says hello."""

    def greet(self, name: str) -> str:
        """Greet someone."""
        return f"hi {name} 😀"


def make() -> Greeter:
    return Greeter()
'''

APP = """from lib import Greeter, make

label = "é😀"; g: Greeter = make()
print(g.greet("x"))
"""


def text_document_edits(edit: DocumentChangesEdit) -> list[lsp_types.TextDocumentEdit]:
    """The ``TextDocumentEdit``s of a rename, checking that it has nothing else."""
    changes = edit["documentChanges"]
    text_edits = [cast(lsp_types.TextDocumentEdit, c) for c in changes if "textDocument" in c]
    assert len(text_edits) == len(changes), changes
    return text_edits


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "my proj+[x]").mkdir()
    root = tmp_path / "my proj+[x]"
    (root / "lib.py").write_text(LIB, encoding="utf-8")
    (root / "app.py").write_text(APP, encoding="utf-8")
    (root / "pyrightconfig.json").write_text('{"typeCheckingMode": "basic"}', encoding="utf-8")
    return root


@pytest.fixture
async def basedpyright(project: Path) -> AsyncIterator[LspSession]:
    command = [find_server("basedpyright-langserver"), "--stdio"]
    async with (
        await spawn_server(command, cwd=project) as server,
        LspSession(server.transport, root_uri=path_to_uri(project)) as session,
    ):
        yield session


async def test_navigation_with_basedpyright(project: Path, basedpyright: LspSession) -> None:
    session = basedpyright
    app_uri, lib_uri = path_to_uri(project / "app.py"), path_to_uri(project / "lib.py")
    app = session.open_document(app_uri, "python", APP)
    session.open_document(lib_uri, "python", LIB)
    at_greet = app.text.index("greet(")

    hover = await session.hover(app_uri, at_greet)
    assert hover is not None
    assert hover["contents"]["kind"] == "markdown"
    assert "greet" in hover["contents"]["value"]

    [definition] = await session.definition(app_uri, at_greet)
    assert set(definition) == {"uri", "range"}
    assert uri_to_path(definition["uri"]) == project / "lib.py"  # matched by path
    assert definition["range"]["start"]["line"] == 6

    references = await session.references(app_uri, at_greet)
    assert {uri_to_path(r["uri"]).name for r in references} == {"app.py", "lib.py"}

    symbols = await session.document_symbols(lib_uri)
    greeter = next(s for s in symbols if s["name"] == "Greeter")
    assert [child["name"] for child in greeter.get("children", [])] == ["greet"]


async def test_rename_across_two_files_with_basedpyright(
    project: Path, basedpyright: LspSession
) -> None:
    session = basedpyright
    app_uri, lib_uri = path_to_uri(project / "app.py"), path_to_uri(project / "lib.py")
    app = session.open_document(app_uri, "python", APP)
    session.open_document(lib_uri, "python", LIB)
    edit = await session.rename(app_uri, app.text.index("greet("), "welcome")
    assert set(edit) >= {"documentChanges"}
    text_edits = text_document_edits(edit)
    assert len(text_edits) == len(edit["documentChanges"])
    changed = {uri_to_path(c["textDocument"]["uri"]).name: c for c in text_edits}
    assert set(changed) == {"app.py", "lib.py"}
    for change in changed.values():
        assert all(e["newText"] == "welcome" for e in change["edits"])
        # basedpyright answers documentChanges with version null ("the text as it is now").
        assert change["textDocument"]["version"] is None


async def test_rename_with_pyrefly_gets_versions_by_path(project: Path) -> None:
    """pyrefly answers `changes`, spelling `+[x]` where the client sent `%2B%5Bx%5D`: the
    versions of the open documents are still found, by path."""
    app_uri, lib_uri = path_to_uri(project / "app.py"), path_to_uri(project / "lib.py")
    assert "%2B%5Bx%5D" in app_uri
    command = [find_server("pyrefly"), "lsp"]
    async with (
        await spawn_server(command, cwd=project) as server,
        LspSession(server.transport, root_uri=path_to_uri(project)) as session,
    ):
        app = session.open_document(app_uri, "python", APP)
        session.open_document(lib_uri, "python", LIB)
        session.change_document(lib_uri, LIB + "\n")  # version 2
        edit = await session.rename(app_uri, app.text.index("greet("), "welcome")
        versions = {
            uri_to_path(c["textDocument"]["uri"]).name: c["textDocument"]["version"]
            for c in text_document_edits(edit)
        }
        assert versions == {"app.py": 1, "lib.py": 2}
        # Applied: the open documents change, and with save=True the files too.
        assert await session.apply_edit(edit) == {"applied": True}
        assert "welcome" in session.documents[app_uri].text
        assert (project / "app.py").read_text(encoding="utf-8").count("welcome") == 1
        assert "def welcome(self" in (project / "lib.py").read_text(encoding="utf-8")
        assert "greet" not in (project / "lib.py").read_text(encoding="utf-8").split('"""')[-1]


async def test_formatting_with_ruff(tmp_path: Path) -> None:
    uri = path_to_uri(tmp_path / "messy.py")
    text = "x = {  'a':1 }\nprint( x )\n"
    ruff = [find_server("ruff"), "server"]
    async with (
        await spawn_server(ruff, cwd=tmp_path) as server,
        LspSession(server.transport, root_uri=path_to_uri(tmp_path)) as session,
    ):
        session.open_document(uri, "python", text)
        edits = await session.formatting(uri)  # registered late: the call waits for it
        assert edits
        assert all(set(e) == {"range", "newText"} for e in edits)
        actions = await session.code_actions(uri, (0, len(text)))
        assert isinstance(actions, list)
        assert all("title" in action for action in actions)


async def test_ruff_formatting_applied_to_disk(tmp_path: Path) -> None:
    """formatting() then apply_text_edits(): the file on disk is formatted, and nothing else."""
    messy = tmp_path / "messy.py"
    messy.write_bytes("x = {  'a':1 }\r\nprint( x , '😀')".encode())
    other = tmp_path / "other.py"
    other.write_bytes(b"y  =  2\n")
    uri = path_to_uri(messy)
    ruff = [find_server("ruff"), "server"]
    async with (
        await spawn_server(ruff, cwd=tmp_path) as server,
        LspSession(server.transport, root_uri=path_to_uri(tmp_path)) as session,
    ):
        # The text as it is on disk, \r\n and all (read_text would translate them).
        session.open_document(uri, "python", messy.read_bytes().decode())
        edits = await session.formatting(uri)
        assert await session.apply_text_edits(uri, edits) == {"applied": True}
        assert session.documents[uri].text == messy.read_bytes().decode()
    assert messy.read_bytes().decode() == 'x = {"a": 1}\r\nprint(x, "😀")\r\n'
    assert other.read_bytes() == b"y  =  2\n"


C_SOURCE = """// é😀 before the code, so that columns in utf-8 and characters differ
#include <stdio.h>

static int square(int value) { return value * value; }

static int twice(int value) { return square(value) + square(value); }

int main(void) {
    int result = twice(3);
    printf("%d\\n", result);
    return 0;
}
"""


async def test_clangd_completion_tokens_hierarchy_and_ranges(tmp_path: Path) -> None:
    """clangd (utf-8): completion, semantic tokens, call hierarchy, folding, inlay hints."""
    source = tmp_path / "main.c"
    source.write_text(C_SOURCE, encoding="utf-8")
    (tmp_path / "compile_flags.txt").write_text("-std=c11\n", encoding="utf-8")
    uri = path_to_uri(source)
    async with (
        await spawn_server([find_server("clangd")], cwd=tmp_path) as server,
        LspSession(server.transport, root_uri=path_to_uri(tmp_path)) as session,
    ):
        document = session.open_document(uri, "c", C_SOURCE)
        completion = await session.completion(uri, C_SOURCE.index("twice(3)") + 2)
        assert completion["isIncomplete"] in (True, False)
        labels = {item["label"].strip() for item in completion["items"]}
        assert any(label.startswith("twice") for label in labels)

        tokens = await session.semantic_tokens(uri)
        functions = {
            document.text[document.offset_at({"line": t.line, "character": t.character}) :][
                : len("square")
            ]
            for t in tokens
            if t.type == "function"
        }
        assert "square" in functions
        assert all(isinstance(t.modifiers, frozenset) for t in tokens)

        [item] = await session.prepare_call_hierarchy(uri, C_SOURCE.index("square(int"))
        assert item["name"] == "square"
        callers = await session.incoming_calls(item)
        assert [call["from"]["name"] for call in callers] == ["twice"]
        assert len(callers[0]["fromRanges"]) == 2

        folds = await session.folding_ranges(uri)
        assert any(fold["startLine"] == 7 for fold in folds)  # main's body
        hints = await session.inlay_hints(uri, (0, len(C_SOURCE)))
        assert any("value" in str(hint["label"]) for hint in hints)  # the parameter names
