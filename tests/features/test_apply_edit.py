"""apply_edit and apply_text_edits: real files in a temporary folder, on the fake server."""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import LspSession, create_memory_transport_pair
from adecore_lsp.features.apply import answer_apply_edit
from adecore_lsp.paths import path_to_uri
from tests.fake_server import FakeServer

SYNC = {
    "textDocumentSync": {"openClose": True, "change": 2, "save": {"includeText": False}},
    "positionEncoding": "utf-16",
}

Make = Callable[..., Any]


@pytest.fixture
async def start(tmp_path: Path) -> AsyncIterator[Make]:
    """``await start(**options)``: a ready session rooted at ``tmp_path``, and its server."""
    made: list[LspSession] = []

    async def make(
        capabilities: dict[str, Any] | None = None, **options: Any
    ) -> tuple[LspSession, FakeServer]:
        client, server_end = create_memory_transport_pair()
        server = FakeServer(server_end, capabilities=capabilities or SYNC)
        options.setdefault("root_uri", path_to_uri(tmp_path))
        session = LspSession(client, **options)
        made.append(session)
        await session.initialize()
        return session, server

    yield make
    for session in made:
        await session.shutdown()


def pos(line: int, character: int) -> dict[str, int]:
    return {"line": line, "character": character}


def edit(sl: int, sc: int, el: int, ec: int, new: str) -> dict[str, Any]:
    return {"range": {"start": pos(sl, sc), "end": pos(el, ec)}, "newText": new}


def text_edit(path: Path, edits: list[dict[str, Any]], version: int | None = None) -> Any:
    return {"textDocument": {"uri": path_to_uri(path), "version": version}, "edits": edits}


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file and folder under ``folder`` (folders as ``None``)."""
    return {
        str(path.relative_to(folder)): None if path.is_dir() else path.read_bytes()
        for path in sorted(folder.rglob("*"))
    }


def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    opened, first, second = tmp_path / "open.py", tmp_path / "one.py", tmp_path / "two.py"
    opened.write_text("open = 1\n")
    first.write_text("one = 1\n")
    second.write_text("two = 2\n")
    return opened, first, second


async def test_an_edit_across_an_open_document_and_two_closed_files(
    start: Make, tmp_path: Path
) -> None:
    session, server = await start()
    opened, first, second = files(tmp_path)
    uri = path_to_uri(opened)
    document = session.open_document(uri, "python", "open = 1  # unsaved\n")
    result = await session.apply_edit(
        {
            "documentChanges": [
                text_edit(opened, [edit(0, 0, 0, 4, "OPEN")], document.version),
                text_edit(first, [edit(0, 0, 0, 3, "ONE")]),
            ],
        }
    )
    assert result == {"applied": True}
    result = await session.apply_edit({"changes": {path_to_uri(second): [edit(0, 6, 0, 7, "3")]}})
    assert result == {"applied": True}
    assert session.documents[uri].text == "OPEN = 1  # unsaved\n"
    assert opened.read_text() == "OPEN = 1  # unsaved\n"  # save=True: disk and document agree
    assert first.read_text() == "ONE = 1\n"
    assert second.read_text() == "two = 3\n"
    await server.round_trip()
    [change] = server.messages("textDocument/didChange")
    assert change["params"]["contentChanges"] == [
        {"range": {"start": pos(0, 0), "end": pos(0, 4)}, "text": "OPEN"}
    ]
    assert [
        m["params"]["textDocument"]["uri"] for m in server.messages("textDocument/didSave")
    ] == [uri]
    assert not [path for path in tmp_path.iterdir() if path.name.startswith(".")]


async def test_without_save_open_documents_change_in_memory_only(
    start: Make, tmp_path: Path
) -> None:
    session, server = await start()
    opened, first, _second = files(tmp_path)
    uri = path_to_uri(opened)
    session.open_document(uri, "python", "open = 1\n")
    changes = [
        text_edit(opened, [edit(0, 0, 0, 0, "#")]),
        text_edit(first, [edit(0, 0, 0, 0, "#")]),
    ]
    assert await session.apply_edit({"documentChanges": changes}, save=False) == {"applied": True}
    assert session.documents[uri].text == "#open = 1\n"
    assert opened.read_text() == "open = 1\n"
    assert first.read_text() == "#one = 1\n"  # a closed file is written whatever save says
    await server.round_trip()
    assert server.messages("textDocument/didSave") == []


async def test_a_refused_edit_writes_nothing(start: Make, tmp_path: Path) -> None:
    session, server = await start()
    opened, first, second = files(tmp_path)
    uri = path_to_uri(opened)
    document = session.open_document(uri, "python", "open = 1\n")
    before = snapshot(tmp_path)
    changes = [
        text_edit(opened, [edit(0, 0, 0, 4, "OPEN")], document.version),
        text_edit(first, [edit(0, 0, 0, 3, "ONE")]),
        {"kind": "create", "uri": path_to_uri(tmp_path / "new" / "file.py")},
        text_edit(second, [edit(0, 0, 0, 3, "x"), edit(0, 2, 0, 5, "y")]),
    ]
    result = await session.apply_edit({"documentChanges": changes})
    assert result["applied"] is False
    assert result["failedChange"] == 3
    assert "overlap" in result["failureReason"]
    changes[3] = text_edit(second, [], version=7)
    result = await session.apply_edit({"documentChanges": changes})
    assert result["failedChange"] == 3
    assert "not open" in result["failureReason"]
    changes[3] = text_edit(opened, [], version=document.version + 1)
    result = await session.apply_edit({"documentChanges": changes})
    assert "is at version 1, the edit is for version 2" in result["failureReason"]
    assert await session.apply_edit("nonsense") == {
        "applied": False,
        "failureReason": "the edit is not a WorkspaceEdit object: 'nonsense'",
    }
    assert snapshot(tmp_path) == before
    assert session.documents[uri].text == "open = 1\n"
    await server.round_trip()
    assert server.messages("textDocument/didChange") == []


async def test_a_write_failure_halfway_restores_everything(
    start: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session, server = await start()
    opened, first, second = files(tmp_path)
    (tmp_path / "gone.py").write_text("gone\n")
    (tmp_path / "old.py").write_text("old\n")
    (tmp_path / "target.py").write_text("target\n")
    uri = path_to_uri(opened)
    session.open_document(uri, "python", "open = 1\n")
    session.open_document(path_to_uri(tmp_path / "gone.py"), "python", "gone\n")
    before = snapshot(tmp_path)
    real_replace = os.replace
    calls: list[str] = []

    def failing_replace(source: Any, target: Any) -> None:
        calls.append(str(target))
        if str(target) == str(second):
            raise OSError(28, "No space left on device", str(second))
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", failing_replace)
    changes = [
        text_edit(opened, [edit(0, 0, 0, 4, "OPEN")]),
        text_edit(first, [edit(0, 0, 0, 3, "ONE")]),
        {"kind": "create", "uri": path_to_uri(tmp_path / "a" / "b" / "new.py")},
        {"kind": "delete", "uri": path_to_uri(tmp_path / "gone.py")},
        {
            "kind": "rename",
            "oldUri": path_to_uri(tmp_path / "old.py"),
            "newUri": path_to_uri(tmp_path / "target.py"),
            "options": {"overwrite": True},
        },
        text_edit(second, [edit(0, 0, 0, 3, "TWO")]),
    ]
    result = await session.apply_edit({"documentChanges": changes})
    assert result == {
        "applied": False,
        "failureReason": "change 5: nothing was written: writing two.py failed: "
        "No space left on device",
        "failedChange": 5,
    }
    assert str(first) in calls  # the first file was written, then put back
    monkeypatch.setattr(os, "replace", real_replace)
    assert snapshot(tmp_path) == before
    assert session.documents[uri].text == "open = 1\n"
    assert session.documents[path_to_uri(tmp_path / "gone.py")].text == "gone\n"
    await server.round_trip()
    # The documents change only once every file is written: the server saw nothing.
    assert server.messages("textDocument/didChange") == []
    assert server.messages("textDocument/didSave") == []


async def test_a_failure_to_restore_is_reported_too(
    start: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session, _server = await start()
    _opened, first, second = files(tmp_path)

    real_replace, real_unlink = os.replace, os.unlink

    def failing_replace(source: Any, target: Any) -> None:
        if str(target) == str(first):
            raise OSError(5, "Input/output error", str(target))
        real_replace(source, target)

    def stuck_unlink(path: Any, *args: Any, **kwargs: Any) -> None:
        if str(path) == str(tmp_path / "new.py"):
            raise OSError(16, "Device or resource busy", str(path))
        real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "replace", failing_replace)
    monkeypatch.setattr(os, "unlink", stuck_unlink)
    changes = [
        {"kind": "create", "uri": path_to_uri(tmp_path / "new.py")},
        text_edit(first, [edit(0, 0, 0, 3, "ONE")]),
    ]
    result = await session.apply_edit({"documentChanges": changes})
    assert result["failedChange"] == 1
    assert result["failureReason"] == (
        "change 1: nothing was written: writing one.py failed: Input/output error; "
        "putting back failed too: Device or resource busy"
    )
    monkeypatch.undo()
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".adecore-tmp")]
    real_unlink(tmp_path / "new.py")
    assert first.read_text() == "one = 1\n"
    assert second.read_text() == "two = 2\n"


async def test_outside_the_workspace_is_refused(start: Make, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "outside.py"
    outside.write_text("secret\n")
    (root / "link.py").symlink_to(outside)
    session, _server = await start(root_uri=path_to_uri(root))
    change = [edit(0, 0, 0, 6, "stolen")]
    for uri in (
        path_to_uri(root) + "/../outside.py",
        path_to_uri(root / "link.py"),
        "https://example.com/x.py",
    ):
        result = await session.apply_edit({"changes": {uri: change}})
        assert result["applied"] is False, uri
        assert result["failedChange"] == 0
    result = await session.apply_edit({"changes": {path_to_uri(root / "link.py"): change}})
    assert "outside the workspace" in result["failureReason"]
    assert outside.read_text() == "secret\n"
    # Allowed, it is written through the link.
    result = await session.apply_edit(
        {"changes": {path_to_uri(root / "link.py"): change}}, allow_outside_workspace=True
    )
    assert result == {"applied": True}
    assert outside.read_text() == "stolen\n"


async def test_workspace_folders_count_and_no_root_means_outside(
    start: Make, tmp_path: Path
) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "a.py").write_text("a\n")
    folders = [{"uri": path_to_uri(folder), "name": "folder"}, {"uri": "untitled:x", "name": "x"}]
    session, _server = await start(root_uri=None, workspace_folders=folders)
    change = {"changes": {path_to_uri(folder / "a.py"): [edit(0, 0, 0, 1, "b")]}}
    assert await session.apply_edit(change) == {"applied": True}
    bare, _server = await start(root_uri=None)
    result = await bare.apply_edit(change)
    assert "no root_uri and no workspace_folders" in result["failureReason"]
    assert (folder / "a.py").read_text() == "b\n"


async def test_mode_line_endings_and_links_are_kept(start: Make, tmp_path: Path) -> None:
    session, _server = await start()
    script = tmp_path / "run.sh"
    script.write_bytes(b"#!/bin/sh\r\necho hi\r\n")
    script.chmod(0o751)
    target = tmp_path / "target.txt"
    target.write_bytes(b"line\r\nnext\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    result = await session.apply_edit(
        {
            "changes": {
                path_to_uri(script): [edit(1, 5, 1, 7, "ho")],
                path_to_uri(link): [edit(0, 4, 1, 0, "!\r\n")],
            }
        }
    )
    assert result == {"applied": True}
    assert script.read_bytes() == b"#!/bin/sh\r\necho ho\r\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o751
    assert link.is_symlink()
    assert target.read_bytes() == b"line!\r\nnext\n"


async def test_a_file_that_is_not_utf8_is_refused(start: Make, tmp_path: Path) -> None:
    session, _server = await start()
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"caf\xe9\n")
    result = await session.apply_edit({"changes": {path_to_uri(latin): [edit(0, 0, 0, 0, "x")]}})
    assert result["applied"] is False
    assert "cannot read" in result["failureReason"]
    assert latin.read_bytes() == b"caf\xe9\n"


ANNOTATED = {"label": "Move files", "needsConfirmation": True}


async def test_changes_that_need_confirmation(start: Make, tmp_path: Path) -> None:
    session, _server = await start()
    target = tmp_path / "made.py"
    edit_ = {
        "documentChanges": [
            {"kind": "create", "uri": path_to_uri(target), "annotationId": "move"},
        ],
        "changeAnnotations": {"move": ANNOTATED},
    }
    result = await session.apply_edit(edit_)
    assert "needs confirmation" in result["failureReason"]
    assert await session.apply_edit(edit_, confirm=lambda annotation: False) == result
    assert not target.exists()
    asked: list[Any] = []

    async def confirm(annotation: Any) -> bool:
        asked.append(annotation)
        return True

    assert await session.apply_edit(edit_, confirm=confirm) == {"applied": True}
    assert asked == [ANNOTATED]
    assert target.exists()


async def test_answer_apply_edit_refuses_what_needs_confirmation(
    start: Make, tmp_path: Path
) -> None:
    session, _server = await start()
    target = tmp_path / "made.py"
    create = {"kind": "create", "uri": path_to_uri(target)}
    annotated = {
        "documentChanges": [{**create, "annotationId": "move"}],
        "changeAnnotations": {"move": ANNOTATED},
    }
    result = await answer_apply_edit(session, {"label": "x", "edit": annotated})
    assert result["applied"] is False
    assert "needs confirmation" in result["failureReason"]
    assert (await answer_apply_edit(session, {"label": "x"}))["applied"] is False
    answer = await answer_apply_edit(session, {"edit": {"documentChanges": [create]}})
    assert answer == {"applied": True}
    assert target.exists()


async def test_rename_and_delete_of_open_documents(start: Make, tmp_path: Path) -> None:
    session, server = await start()
    old, gone = tmp_path / "old.py", tmp_path / "gone.py"
    old.write_text("old\n")
    gone.write_text("gone\n")
    old_uri, gone_uri = path_to_uri(old), path_to_uri(gone)
    new_uri = path_to_uri(tmp_path / "pkg" / "new.py")
    session.open_document(old_uri, "python", "old, unsaved\n")
    session.open_document(gone_uri, "python", "gone\n")
    result = await session.apply_edit(
        {
            "documentChanges": [
                {"kind": "rename", "oldUri": old_uri, "newUri": new_uri},
                text_edit(tmp_path / "pkg" / "new.py", [edit(0, 0, 0, 3, "new")]),
                {"kind": "delete", "uri": gone_uri},
            ]
        }
    )
    assert result == {"applied": True}
    assert set(session.documents) == {new_uri}
    renamed = session.documents[new_uri]
    assert (renamed.language_id, renamed.text) == ("python", "new, unsaved\n")
    assert (tmp_path / "pkg" / "new.py").read_text() == "new, unsaved\n"
    assert not old.exists()
    assert not gone.exists()
    await server.round_trip()
    closed = [m["params"]["textDocument"]["uri"] for m in server.messages("textDocument/didClose")]
    assert closed == [old_uri, gone_uri]
    opened = [m["params"]["textDocument"] for m in server.messages("textDocument/didOpen")]
    assert opened[-1]["uri"] == new_uri
    assert opened[-1]["text"] == "old, unsaved\n"


async def test_folders_created_renamed_and_deleted(start: Make, tmp_path: Path) -> None:
    session, _server = await start()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("a\n")
    (tmp_path / "dest").mkdir()
    (tmp_path / "dest" / "stale.py").write_text("stale\n")
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "x.py").write_text("x\n")
    (tmp_path / "empty").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "pkg")
    uri = path_to_uri
    result = await session.apply_edit(
        {
            "documentChanges": [
                {
                    "kind": "create",
                    "uri": uri(tmp_path / "src" / "a.py"),
                    "options": {"overwrite": True},
                },
                {
                    "kind": "rename",
                    "oldUri": uri(tmp_path / "src"),
                    "newUri": uri(tmp_path / "dest"),
                    "options": {"overwrite": True},
                },
                {"kind": "delete", "uri": uri(tmp_path / "old" / "x.py")},
                {"kind": "delete", "uri": uri(tmp_path / "old"), "options": {"recursive": True}},
                {"kind": "delete", "uri": uri(tmp_path / "empty")},
                {"kind": "rename", "oldUri": uri(tmp_path / "link"), "newUri": uri(tmp_path / "l")},
            ]
        }
    )
    assert result == {"applied": True}
    assert snapshot(tmp_path) == {"dest": None, "dest/a.py": b"", "l": None, "pkg": None}
    assert (tmp_path / "l").is_symlink()
    # An open document in a renamed folder is opened again under its new path.
    (tmp_path / "pkg" / "m.py").write_text("m\n")
    session.open_document(uri(tmp_path / "pkg" / "m.py"), "python", "m\n")
    rename = {"kind": "rename", "oldUri": uri(tmp_path / "pkg"), "newUri": uri(tmp_path / "lib")}
    assert await session.apply_edit({"documentChanges": [rename]}) == {"applied": True}
    assert set(session.documents) == {uri(tmp_path / "lib" / "m.py")}


async def test_rename_refuses_a_target_that_appeared(
    start: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A target that exists by the time the rename runs is never replaced silently."""
    session, _server = await start()
    (tmp_path / "a.py").write_text("a\n")
    monkeypatch.setattr(os.path, "lexists", lambda path: True)
    result = await session.apply_edit(
        {
            "documentChanges": [
                {
                    "kind": "rename",
                    "oldUri": path_to_uri(tmp_path / "a.py"),
                    "newUri": path_to_uri(tmp_path / "b.py"),
                }
            ]
        }
    )
    monkeypatch.undo()
    assert result["applied"] is False
    assert "exists" in result["failureReason"]
    assert (tmp_path / "a.py").read_text() == "a\n"


FORMATTED = "def f(x):\n    return x\n"


async def test_apply_text_edits_applies_every_edit_against_the_original(
    start: Make, tmp_path: Path
) -> None:
    session, server = await start()
    path = tmp_path / "fmt.py"
    path.write_text("def f( x ):\n  return x\n")
    uri = path_to_uri(path)
    session.open_document(uri, "python", path.read_text())
    # Formatter-style edits: both against the original text. Applied in sequence, the
    # second would land on the line the first one just shortened.
    edits = [edit(0, 5, 0, 10, "(x)"), edit(1, 0, 1, 2, "    ")]
    assert await session.apply_text_edits(uri, edits) == {"applied": True}
    assert session.documents[uri].text == FORMATTED
    assert path.read_text() == FORMATTED
    await server.round_trip()
    assert len(server.messages("textDocument/didSave")) == 1
    # A closed file, and an emoji before the edit on its line: positions in UTF-16.
    emoji = tmp_path / "emoji.py"
    emoji.write_text("s = '😀'\nt = 1\n")
    result = await session.apply_text_edits(path_to_uri(emoji), [edit(0, 7, 0, 8, '"')])
    assert result == {"applied": True}
    assert emoji.read_text() == "s = '😀\"\nt = 1\n"
    result = await session.apply_text_edits(path_to_uri(emoji), [edit(5, 0, 5, 0, "x")])
    assert "reaches line 5" in result["failureReason"]


async def test_an_open_document_not_on_disk_is_saved_as_a_new_file(
    start: Make, tmp_path: Path
) -> None:
    session, _server = await start()
    path = tmp_path / "unsaved.py"
    uri = path_to_uri(path)
    session.open_document(uri, "python", "x\n")
    session.open_document("untitled:Untitled-1", "python", "y\n")
    assert await session.apply_text_edits(uri, [edit(0, 0, 0, 1, "z")]) == {"applied": True}
    assert path.read_text() == "z\n"
    assert stat.S_IMODE(path.stat().st_mode) & 0o600 == 0o600


async def test_a_relative_file_uri_is_refused(start: Make) -> None:
    session, _server = await start()
    result = await session.apply_edit({"changes": {"file:x.py": [edit(0, 0, 0, 0, "x")]}})
    assert "does not name an absolute path" in result["failureReason"]


async def test_a_document_edited_then_renamed_is_saved_under_its_new_uri_only(
    start: Make, tmp_path: Path
) -> None:
    session, server = await start()
    path = tmp_path / "a.py"
    path.write_text("a\n")
    session.open_document(path_to_uri(path), "python", "a\n")
    new_uri = path_to_uri(tmp_path / "b.py")
    changes = [
        text_edit(path, [edit(0, 0, 0, 1, "b")]),
        {"kind": "rename", "oldUri": path_to_uri(path), "newUri": new_uri},
    ]
    assert await session.apply_edit({"documentChanges": changes}) == {"applied": True}
    assert (tmp_path / "b.py").read_text() == "b\n"
    await server.round_trip()
    assert server.messages("textDocument/didSave") == []


async def test_apply_edits_option_answers_the_servers_apply_edit(
    start: Make, tmp_path: Path
) -> None:
    """With apply_edits=True the session applies a server's workspace/applyEdit itself."""
    target = tmp_path / "a.py"
    target.write_text("old = 1\n", encoding="utf-8")
    _session, server = await start(apply_edits=True)
    [initialize] = server.messages("initialize")
    workspace = initialize["params"]["capabilities"]["workspace"]
    assert workspace["applyEdit"] is True
    assert workspace["workspaceEdit"]["failureHandling"] == "transactional"
    assert workspace["workspaceEdit"]["changeAnnotationSupport"] == {"groupsOnLabel": False}
    change = {"documentChanges": [text_edit(target, [edit(0, 0, 0, 3, "new")])]}
    reply = await server.request("workspace/applyEdit", {"label": "rename", "edit": change})
    assert reply["result"] == {"applied": True}
    assert target.read_text(encoding="utf-8") == "new = 1\n"
    # A change that needs confirmation: nobody can confirm, so the edit is refused whole.
    needs = {
        "documentChanges": [
            {**text_edit(target, [{**edit(0, 0, 0, 3, "x"), "annotationId": "a"}])}
        ],
        "changeAnnotations": {"a": {"label": "risky", "needsConfirmation": True}},
    }
    reply = await server.request("workspace/applyEdit", {"edit": needs})
    assert reply["result"]["applied"] is False
    assert target.read_text(encoding="utf-8") == "new = 1\n"


async def test_without_apply_edits_a_servers_apply_edit_is_refused(start: Make) -> None:
    _session, server = await start()
    [initialize] = server.messages("initialize")
    assert initialize["params"]["capabilities"]["workspace"]["applyEdit"] is False
    reply = await server.request("workspace/applyEdit", {"edit": {"changes": {}}})
    assert reply["result"]["applied"] is False
    assert "apply_edits=True" in reply["result"]["failureReason"]


async def test_on_apply_edit_wins_over_apply_edits(start: Make) -> None:
    seen: list[Any] = []

    def handler(params: Any) -> Any:
        seen.append(params)
        return {"applied": True}

    _session, server = await start(apply_edits=True, on_apply_edit=handler)
    [initialize] = server.messages("initialize")
    assert (
        initialize["params"]["capabilities"]["workspace"]["workspaceEdit"]["failureHandling"]
        == "abort"
    )
    reply = await server.request("workspace/applyEdit", {"edit": {"changes": {}}})
    assert reply["result"] == {"applied": True}
    assert len(seen) == 1
