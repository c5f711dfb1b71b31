"""Wrong answers a trial on real trees found in the workspace layer, each fixed and kept here:
against the server that shows it, or a scripted one where only it can.
"""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from adecore_lsp import LspError, ServerCrashedError, Workspace
from tests.integration.conftest import find_npm_server, find_server
from tests.workspace.conftest import write
from tests.workspace.test_scripted import TEXT, scripted

real_server = pytest.mark.real_server


def item(message: str, line: int = 0) -> dict[str, Any]:
    return {
        "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 5}},
        "severity": 2,
        "message": message,
        "source": "scripted",
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write(tmp_path / "proj", {"a.txt": TEXT, "b.txt": TEXT})


# -- one source of truth per server and document ---------------------------------------------


async def test_a_server_that_pushes_and_answers_pulls_counts_each_finding_once(
    project: Path,
) -> None:
    same = [item("twice told")]
    spec = scripted(
        {"pull": same, "diagnostics": [{"delay": 0, "items": same}]},
        pull_diagnostics=True,
        readiness="none",
    )
    async with Workspace(project, servers=[spec]) as ws:
        report = await ws.diagnostics(["a.txt"], timeout=10)
        await asyncio.sleep(0.3)  # the push has surely come by now
        again = await ws.diagnostics(["a.txt"], timeout=10)
    assert report.complete
    assert [d.message for d in report.items] == ["twice told"]
    assert [d.message for d in again.items] == ["twice told"]


# -- retries, timeouts, framing ---------------------------------------------------------------


async def test_content_modified_answers_to_read_only_requests_are_asked_again(
    project: Path,
) -> None:
    spec = scripted({"hover": "the answer", "content_modified": {"textDocument/hover": 2}})
    async with Workspace(project, servers=[spec]) as ws:
        assert await ws.hover("a.txt:1:1") == "the answer"


async def test_a_request_timeout_is_a_request_timeout(project: Path) -> None:
    from adecore_lsp import ErrorCodes, RequestTimeoutError

    spec = scripted({"hover": "never", "silent": {"textDocument/hover": [1]}})
    async with Workspace(project, servers=[spec], timeout=1) as ws:
        with pytest.raises(RequestTimeoutError) as caught:
            await ws.hover("a.txt:1:1")
    assert caught.value.code == ErrorCodes.RequestCancelled
    assert "textDocument/hover got no answer within 1 s" in str(caught.value)


async def test_a_server_writing_garbage_is_named_for_it(project: Path) -> None:
    spec = scripted({"hover": "x", "garbage_on": "textDocument/hover"})
    async with Workspace(project, servers=[spec], max_restarts=0) as ws:
        with pytest.raises(LspError) as caught:
            await ws.hover("a.txt:1:1")
        assert "wrote something other than LSP on its stdout" in str(caught.value)
        assert "this is not a frame" in str(caught.value)
        with pytest.raises(ServerCrashedError):
            await ws.hover("a.txt:1:1")
        [handle] = ws.started()
        assert handle.crash_reason is not None
        assert "other than LSP" in handle.crash_reason


# -- output that does not depend on the server's order ---------------------------------------


async def test_references_come_in_path_line_column_order(project: Path) -> None:
    def at(name: str, line: int, start: int) -> dict[str, Any]:
        return {
            "uri": f"$ROOT/{name}",
            "range": {
                "start": {"line": line, "character": start},
                "end": {"line": line, "character": start + 3},
            },
        }

    shuffled = [at("b.txt", 2, 0), at("a.txt", 1, 4), at("b.txt", 0, 6), at("a.txt", 1, 0)]
    spec = scripted({"references": shuffled})
    async with Workspace(project, servers=[spec]) as ws:
        found = await ws.references("a.txt:1:1", include_declaration=True)
    assert [(r.location.path, r.location.line, r.location.column) for r in found] == [
        ("a.txt", 2, 1),
        ("a.txt", 2, 5),
        ("b.txt", 1, 7),
        ("b.txt", 3, 1),
    ]


# -- the disk is the truth ---------------------------------------------------------------------


@real_server
async def test_a_rewrite_that_keeps_size_and_mtime_is_seen(tmp_path: Path) -> None:
    """Once wrong: a rewrite restoring the modification time (cp -p, rsync -t) with the same
    size was answered from the old text, marked final."""
    find_server("ruff")
    root = write(tmp_path / "proj", {"app.py": "import os\n"})
    app = root / "app.py"
    async with Workspace(root, servers=["ruff"]) as ws:
        first = await ws.diagnostics(["app.py"])
        assert [d.code for d in first.items] == ["F401"]
        before = app.stat()
        app.write_text("x = os+12\n")  # the same size: 10 bytes
        os.utime(app, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert app.stat().st_size == before.st_size
        second = await ws.diagnostics(["app.py"])
    assert second.complete
    assert [d.code for d in second.items] == ["F821"]


@real_server
async def test_basedpyright_hears_of_files_created_and_deleted(tmp_path: Path) -> None:
    """Once wrong: a long-lived workspace missed changes in other files: a created module's
    import stayed unresolved, a deleted one's still read as resolved."""
    find_server("basedpyright-langserver")
    root = write(
        tmp_path / "proj", {"app.py": "import helper\nimport gone\n", "gone.py": "x = 1\n"}
    )
    async with Workspace(root, servers=["basedpyright"]) as ws:
        first = await ws.diagnostics(["app.py"], timeout=60)
        assert 'Import "helper" could not be resolved' in [d.message for d in first.items]
        write(root, {"helper.py": "def f() -> int:\n    return 1\n"})
        (root / "gone.py").unlink()
        deadline = time.monotonic() + 30
        while True:
            report = await ws.diagnostics(["app.py"], timeout=60)
            messages = [d.message for d in report.items]
            unresolved_helper = 'Import "helper" could not be resolved' in messages
            unresolved_gone = 'Import "gone" could not be resolved' in messages
            if (not unresolved_helper and unresolved_gone) or time.monotonic() > deadline:
                break
            await asyncio.sleep(1.1)  # the root is looked at again at most once a second
    assert report.complete
    assert not unresolved_helper, messages
    assert unresolved_gone, messages


@real_server
@pytest.mark.parametrize("long_lived", [True, False])
async def test_only_a_long_lived_workspace_takes_stock_of_the_tree_for_later_changes(
    tmp_path: Path, long_lived: bool
) -> None:
    """ruff watches its configuration files: a workspace kept for more than one command
    tells it of one created later; one serving a single command (the command line's) does
    not look at the tree for that at all (a stat of every file of a large repository)."""
    find_server("ruff")
    root = write(
        tmp_path / "proj", {"app.py": "import os\n", "ruff.toml": '[lint]\nselect = ["F"]\n'}
    )
    trace = io.BytesIO()
    async with Workspace(root, servers=["ruff"], trace=trace, long_lived=long_lived) as ws:
        first = await ws.diagnostics(["app.py"])
        write(root, {"sub/ruff.toml": '[lint]\nselect = ["E"]\n'})
        await asyncio.sleep(1.1)  # the root is looked at again at most once a second
        second = await ws.diagnostics(["app.py"])
    sent = [orjson.loads(line)["message"] for line in trace.getvalue().splitlines()]
    announced = [
        change["uri"].rsplit("/", 1)[-1]
        for message in sent
        if message.get("method") == "workspace/didChangeWatchedFiles"
        for change in message["params"]["changes"]
    ]
    assert [d.code for d in first.items] == [d.code for d in second.items] == ["F401"]
    assert announced == (["ruff.toml"] if long_lived else [])


# -- finality of a server that keeps silent ----------------------------------------------------


@real_server
async def test_typescript_language_server_on_a_file_that_stays_clean(tmp_path: Path) -> None:
    """Once wrong: typescript-language-server publishes nothing for a file that stays clean,
    so every call waited out its whole timeout and said "incomplete"."""
    find_npm_server("node_modules/.bin/typescript-language-server")
    root = write(tmp_path / "proj", {"a.ts": "export const x: number = 1;\n"})
    async with Workspace(root, servers=["typescript-language-server"], timeout=30) as ws:
        began = time.monotonic()
        report = await ws.diagnostics(["a.ts"], timeout=30)
        assert report.complete
        assert report.items == []
        delta = await ws.edit("a.ts", "export const x: number = 2;\n")
        took = time.monotonic() - began
        assert delta.complete
        assert delta.introduced == []
        broken = await ws.edit("a.ts", "export const x: number = 'no';\n")
    assert took < 20, took
    assert [d.code for d in broken.introduced] == [2322]


# -- renames that say when they may be partial --------------------------------------------------


@real_server
async def test_a_rename_over_more_files_than_max_open_files_says_it_is_partial(
    tmp_path: Path,
) -> None:
    find_server("basedpyright-langserver")
    files = {"lib.py": "def shared() -> int:\n    return 1\n"}
    files.update({f"use{i}.py": "from lib import shared\nshared()\n" for i in range(4)})
    root = write(tmp_path / "proj", files)
    async with Workspace(root, servers=["basedpyright"], max_open_files=2) as ws:
        plan = await ws.rename("lib.py#shared", "common")
    assert plan.complete is False
    assert plan.reason == "too_many_files"


def _span(line: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 5}}


async def test_a_rename_of_its_own_file_alone_that_leaves_uses_elsewhere_is_refused(
    project: Path,
) -> None:
    """basedpyright sometimes answers a rename in the declaring file alone (its single-file
    mode, once it no longer counts that file as the project's own: a bench on click met it
    after files were opened and closed) while its references find uses in 35 other files.
    Written, the rename breaks them all. Its references are asked, and a use in another
    file refuses the rename, naming it, with nothing written; uses in the file alone, or
    a server without references, leave the plan as it is."""
    alone = {
        "documentChanges": [
            {
                "textDocument": {"uri": "$ROOT/a.txt", "version": None},
                "edits": [{"range": _span(0), "newText": "FIRST"}],
            }
        ]
    }
    here = {"uri": "$ROOT/a.txt", "range": _span(0)}
    elsewhere = [here, {"uri": "$ROOT/b.txt", "range": _span(1)}]
    spec = scripted({"rename": alone, "references": elsewhere})
    async with Workspace(project, servers=[spec]) as ws:
        with pytest.raises(ValueError, match=r"of a\.txt alone, leaves as they are \(b\.txt:2\)"):
            await ws.rename("a.txt:1:1", "FIRST")
    assert (project / "a.txt").read_text() == TEXT
    for config in ({"rename": alone, "references": [here]}, {"rename": alone}):
        async with Workspace(project, servers=[scripted(config)]) as ws:
            plan = await ws.rename("a.txt:1:1", "FIRST")
            assert plan.changed_files == ["a.txt"]


# -- a library script finds the servers of its own environment ---------------------------------


@real_server
def test_a_script_finds_ruff_beside_it_without_an_activated_environment(tmp_path: Path) -> None:
    find_server("ruff")
    root = write(tmp_path / "proj", {"app.py": "import os\n"})
    script = (
        "from adecore_lsp.sync import Workspace\n"
        f"with Workspace({str(root)!r}, servers=['ruff']) as ws:\n"
        "    print([d.code for d in ws.diagnostics(['app.py']).items])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['F401']"
