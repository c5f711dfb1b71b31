"""What ``safety.md`` promises the library's users, against a scripted subprocess server
that does what no real server does on demand: edits outside the root, sends
``workspace/applyEdit`` during a hover, names notebook cells by URI fragments, leaves a
child running, ignores the end of its input and SIGTERM."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import (
    EditConflictError,
    EditOutsideRootError,
    LspError,
    Workspace,
    path_to_uri,
)
from adecore_lsp import sync as sync_api
from tests.workspace.conftest import write
from tests.workspace.test_scripted import TEXT, gone, pids, scripted

SYMBOLS = [
    {
        "name": "first",
        "kind": 12,
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 10}},
        "selectionRange": {
            "start": {"line": 0, "character": 0},
            "end": {"line": 0, "character": 5},
        },
    }
]


CLEAN = [{"delay": 0, "items": []}]
"""A clean report after every open and change, so that waits for final diagnostics end."""


def text_edit(uri: str, new: str) -> dict[str, Any]:
    return {
        "textDocument": {"uri": uri, "version": None},
        "edits": [
            {
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 5}},
                "newText": new,
            }
        ],
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write(tmp_path / "proj", {"a.txt": TEXT, "b.txt": TEXT})


# -- edits stay inside the root --------------------------------------------------------------


async def test_a_rename_naming_an_outside_file_is_refused_when_planned(
    project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text(TEXT)
    edit = {
        "documentChanges": [
            text_edit("$ROOT/a.txt", "FIRST"),
            text_edit(path_to_uri(outside), "OWNED"),
        ]
    }
    spec = scripted({"rename": edit, "document_symbols": {"*": SYMBOLS}})
    async with Workspace(project, servers=[spec]) as ws:
        with pytest.raises(EditOutsideRootError) as caught:
            await ws.rename("a.txt:1:1", "FIRST")
    assert str(outside) in caught.value.message
    assert outside.read_text() == TEXT
    assert (project / "a.txt").read_text() == TEXT


async def test_a_link_to_an_outside_folder_is_not_followed(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "c.txt").write_text(TEXT)
    (project / "linked").symlink_to(elsewhere, target_is_directory=True)
    edit = {"documentChanges": [text_edit("$ROOT/linked/c.txt", "OWNED")]}
    spec = scripted({"rename": edit})
    async with Workspace(project, servers=[spec]) as ws:
        with pytest.raises(EditOutsideRootError):
            await ws.rename("a.txt:1:1", "OWNED")
    assert (elsewhere / "c.txt").read_text() == TEXT


async def test_an_edit_of_a_cell_uri_never_lands_in_the_file(project: Path) -> None:
    """``file:///r/nb.ipynb#1`` names a cell, not the file: of a file that is no notebook,
    the plan fails naming it, and nothing is written."""
    (project / "nb.ipynb").write_text('{"cells": []}\n')
    edit = {"changes": {"$ROOT/nb.ipynb#1": text_edit("x", "tripletriple")["edits"]}}
    spec = scripted({"rename": edit})
    async with Workspace(project, servers=[spec]) as ws:
        with pytest.raises(ValueError, match=r"nb\.ipynb#1 names a part of a notebook that"):
            await ws.rename("a.txt:1:1", "triple")
    assert (project / "nb.ipynb").read_text() == '{"cells": []}\n'


async def test_a_plan_refuses_a_file_changed_since_it_was_made(project: Path) -> None:
    edit = {"documentChanges": [text_edit("$ROOT/a.txt", "FIRST"), text_edit("$ROOT/b.txt", "X")]}
    spec = scripted({"rename": edit, "diagnostics": CLEAN})
    async with Workspace(project, servers=[spec]) as ws:
        plan = await ws.rename("a.txt:1:1", "FIRST")
        (project / "b.txt").write_text(TEXT + "an agent's own edit\n")
        with pytest.raises(EditConflictError) as caught:
            await ws.apply(plan)
    assert caught.value.paths == ["b.txt"]
    assert (project / "a.txt").read_text() == TEXT
    assert (project / "b.txt").read_text() == TEXT + "an agent's own edit\n"


async def test_a_plan_over_unsaved_text_is_refused(project: Path) -> None:
    edit = {"documentChanges": [text_edit("$ROOT/a.txt", "FIRST")]}
    async with Workspace(project, servers=[scripted({"rename": edit})]) as ws:
        await ws.update("a.txt", "unsaved\n" + TEXT)
        plan = await ws.rename("a.txt:1:1", "FIRST")
        with pytest.raises(LspError, match=r"unsaved text of a\.txt"):
            await ws.apply(plan)
    assert (project / "a.txt").read_text() == TEXT


async def test_edit_writes_through_a_link(project: Path) -> None:
    (project / "alias.txt").symlink_to("a.txt")
    async with Workspace(project, servers=[scripted({"diagnostics": CLEAN})]) as ws:
        await ws.edit("alias.txt", "new text\n")
    assert (project / "alias.txt").is_symlink()
    assert (project / "a.txt").read_text() == "new text\n"


async def test_a_change_while_the_plan_is_applied_is_a_conflict(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file changed after apply() began (here: while it waits for the diagnostics before
    the write) is not overwritten."""
    from adecore_lsp.workspace.checks.edit_loop import EditLoop

    edit = {"documentChanges": [text_edit("$ROOT/a.txt", "FIRST")]}
    spec = scripted({"rename": edit, "diagnostics": CLEAN})
    real = EditLoop.before

    async def meddling(*args: Any, **kwargs: Any) -> Any:
        report = await real(*args, **kwargs)
        (project / "a.txt").write_text("an editor saved this\n")
        return report

    async with Workspace(project, servers=[spec]) as ws:
        plan = await ws.rename("a.txt:1:1", "FIRST")
        monkeypatch.setattr(EditLoop, "before", meddling)
        with pytest.raises(EditConflictError) as caught:
            await ws.apply(plan)
    assert caught.value.paths == ["a.txt"]
    assert (project / "a.txt").read_text() == "an editor saved this\n"


# -- a server's workspace/applyEdit ----------------------------------------------------------


async def state_of(ws: Workspace) -> Any:
    session = await ws.session_for("a.txt")
    return await session.request("scripted/state")


async def test_an_apply_edit_during_a_hover_is_refused(project: Path) -> None:
    edit = {"documentChanges": [text_edit("$ROOT/b.txt", "OWNED")]}
    spec = scripted({"hover": "a hover", "apply_edit": {"on": "textDocument/hover", "edit": edit}})
    async with Workspace(project, servers=[spec]) as ws:
        assert await ws.hover("a.txt:1:1") == "a hover"
        [answer] = (await state_of(ws))["applied"]
    assert answer["applied"] is False
    assert "rename, format or fix" in answer["failureReason"]
    assert (project / "b.txt").read_text() == TEXT


async def test_an_apply_edit_during_a_rename_joins_the_plan(project: Path) -> None:
    """Answered applied: true, shown in the plan, written only when the plan is."""
    sent = {"documentChanges": [text_edit("$ROOT/b.txt", "ALSO_")]}
    spec = scripted(
        {
            "rename": {"documentChanges": [text_edit("$ROOT/a.txt", "FIRST")]},
            "apply_edit": {"on": "textDocument/rename", "edit": sent},
            "diagnostics": CLEAN,
        }
    )
    async with Workspace(project, servers=[spec]) as ws:
        plan = await ws.rename("a.txt:1:1", "FIRST")
        [answer] = (await state_of(ws))["applied"]
        assert answer == {"applied": True}
        assert plan.changed_files == ["a.txt", "b.txt"]
        assert (project / "b.txt").read_text() == TEXT  # previewed, not written
        await ws.apply(plan)
    assert (project / "a.txt").read_text().startswith("FIRST line")
    assert (project / "b.txt").read_text().startswith("ALSO_ line")


# -- servers end with us ---------------------------------------------------------------------


async def test_a_wrappers_detached_child_ends_with_the_server(
    project: Path, tmp_path: Path
) -> None:
    """A child that holds none of the server's pipes (a wrapper's real server) ends too."""
    pid_file = tmp_path / "pids"
    spec = scripted({"detached_child": True, "pid_file": str(pid_file)})
    async with Workspace(project, servers=[spec]) as ws:
        await ws.open("a.txt")
        status = ws.running[0]
        [server, child] = pids(pid_file)
        assert status.pid == server
        own = _rss(server)
        assert status.rss_bytes is not None
        assert status.rss_bytes > own
    assert gone(server)
    deadline = time.monotonic() + 2
    while not gone(child) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert gone(child)


async def test_a_server_deaf_to_the_end_of_input_and_sigterm_ends_in_time(
    project: Path, tmp_path: Path
) -> None:
    """shutdown never answered, exit, EOF and SIGTERM ignored: the group is still gone within
    the shutdown timeout + 2 s."""
    pid_file = tmp_path / "pids"
    spec = scripted(
        {"hang_shutdown": True, "ignore_term": True, "child": True, "pid_file": str(pid_file)},
        shutdown_timeout=1.0,
    )
    ws = Workspace(project, servers=[spec])
    await ws.open("a.txt")
    began = time.monotonic()
    await ws.aclose()
    took = time.monotonic() - began
    assert all(gone(pid) for pid in pids(pid_file))
    assert took < 1.0 + 2.0, took


def _rss(pid: int) -> int:
    with open(f"/proc/{pid}/statm", encoding="ascii") as file:
        return int(file.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# -- closed is closed ------------------------------------------------------------------------


async def test_a_closed_workspace_refuses_calls_and_starts_nothing(project: Path) -> None:
    spec = scripted({})
    ws = Workspace(project, servers=[spec])
    await ws.aclose()
    for call in (
        ws.diagnostics(["a.txt"]),
        ws.open("a.txt"),
        ws.hover("a.txt:1:1"),
        ws.session_for("a.txt"),
        ws.rename("a.txt:1:1", "x"),
    ):
        with pytest.raises(LspError, match="the workspace is closed"):
            await call
    assert ws.started() == []
    assert ws.running == []
    await ws.aclose()  # again: nothing
    await ws.close("a.txt")


def test_closing_the_sync_facade_releases_a_waiting_thread(project: Path) -> None:
    """A call blocked in another thread ends with the closed error when close() is called."""
    spec = scripted({"silent": {"textDocument/hover": [1]}, "hover": "never"})
    ws = sync_api.Workspace(project, servers=[spec], timeout=60)
    ws.open("a.txt")
    failures: list[BaseException] = []

    def blocked() -> None:
        try:
            ws.hover("a.txt:1:1")
        except BaseException as error:
            failures.append(error)

    thread = threading.Thread(target=blocked)
    thread.start()
    time.sleep(0.5)
    began = time.monotonic()
    ws.close()
    thread.join(5)
    assert not thread.is_alive()
    assert time.monotonic() - began < 10
    [error] = failures
    assert isinstance(error, LspError)
    assert "the workspace is closed" in error.message
    with pytest.raises(LspError, match="the workspace is closed"):
        ws.diagnostics(["a.txt"])


@pytest.mark.real_server
async def test_basedpyright_is_measured_and_ended_as_a_whole_tree(tmp_path: Path) -> None:
    """basedpyright's wrapper runs node as its child: rss_bytes counts both, and closing the
    workspace ends both."""
    from tests.integration.conftest import find_server

    find_server("basedpyright-langserver")
    root = write(tmp_path / "proj", {"app.py": "x: int = 'no'\n"})
    async with Workspace(root, servers=["basedpyright"]) as ws:
        report = await ws.diagnostics(["app.py"], timeout=60)
        assert report.complete
        [status] = ws.running
        assert status.pid is not None
        tree = _descendants(status.pid)
        assert tree, "basedpyright's wrapper started no child"
        assert status.rss_bytes is not None
        assert status.rss_bytes > _rss(status.pid) + sum(_rss(pid) for pid in tree) // 2
    for pid in [status.pid, *tree]:
        assert gone(pid), f"{pid} outlived the workspace"


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as file:
                    fields = file.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, waiting = [], list(children.get(pid, ()))
    while waiting:
        child = waiting.pop()
        found.append(child)
        waiting.extend(children.get(child, ()))
    return found


async def test_apply_writes_outside_only_when_the_caller_allows_it(
    project: Path, tmp_path: Path
) -> None:
    """The command line and MCP never pass allow_outside_workspace; a library caller may."""
    from adecore_lsp import EditPlan, FileEdit

    outside = tmp_path / "outside.txt"
    outside.write_text(TEXT)
    plan = EditPlan({str(outside): FileEdit(TEXT, "changed\n", "", 1)}, [], "")
    async with Workspace(project, servers=[scripted({"diagnostics": CLEAN})]) as ws:
        with pytest.raises(EditOutsideRootError):
            await ws.apply(plan)
        assert outside.read_text() == TEXT
        applied = await ws.apply(plan, allow_outside_workspace=True)
    assert applied.written == [str(outside)]
    assert outside.read_text() == "changed\n"
