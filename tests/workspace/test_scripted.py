"""The workspace against a scripted server: what real servers do only now and then.

``scripted_server.py`` runs as a real subprocess; each test chooses its behaviour: progress
in phases or never ending, no diagnostics at all, versioned reports repeated or empty first,
unversioned reports, a crash on the n-th request, a slow handshake, a hung shutdown.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import LspError, ServerCrashedError, ServerSpec, Workspace
from adecore_lsp.workspace.servers import files_listed
from tests.workspace.conftest import write

SCRIPT = Path(__file__).with_name("scripted_server.py")

TEXT = "first line\nsecond line\nthird line\n"


def scripted(config: dict[str, Any], server_id: str = "scripted", **fields: Any) -> ServerSpec:
    """A spec that runs the scripted server with ``config`` for ``.txt`` files."""
    fields.setdefault("languages", {".txt": "text"})
    return ServerSpec(
        id=server_id,
        command=[sys.executable, str(SCRIPT), json.dumps(config)],
        **fields,
    )


def item(message: str, line: int = 0, start: int = 0, end: int = 5) -> dict[str, Any]:
    """An LSP diagnostic on ``line`` (0-based), columns ``start`` to ``end``."""
    return {
        "range": {
            "start": {"line": line, "character": start},
            "end": {"line": line, "character": end},
        },
        "severity": 2,
        "message": message,
        "source": "scripted",
    }


def pids(pid_file: Path) -> list[int]:
    """Every pid a scripted server wrote to ``pid_file`` (its children's too)."""
    return [int(line.split()[-1]) for line in pid_file.read_text("ascii").split("\n") if line]


def gone(pid: int) -> bool:
    """Whether ``pid`` no longer runs (an exited process not yet reaped, a zombie, counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return file.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return True


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write(tmp_path / "proj", {"a.txt": TEXT, "b.txt": TEXT})


# -- readiness -------------------------------------------------------------------------------


LISTED = {"log": {"delay": 1.0, "message": "Found 2 source files"}}


async def received(ws: Workspace) -> list[str]:
    session = await ws.session_for("a.txt")
    methods: list[str] = (await session.request("scripted/state"))["received"]
    return [m for m in methods if m in ("(logged)", "textDocument/didOpen")]


@pytest.mark.parametrize("patterns", [[], ["Found * source file*"]])
async def test_a_file_is_opened_after_the_server_said_it_listed_its_files(
    project: Path, patterns: list[str]
) -> None:
    spec = scripted(LISTED, files_listed_logs=patterns)
    async with Workspace(project, servers=[spec], timeout=10) as ws:
        await ws.open("a.txt")
        await asyncio.sleep(1.5)  # the log has come either way
        expected = (
            ["(logged)", "textDocument/didOpen"]
            if patterns
            else ["textDocument/didOpen", "(logged)"]
        )
        assert await received(ws) == expected


async def test_a_server_that_never_says_it_listed_its_files_gets_them_after_the_wait(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files_listed, "FILES_LISTED_WAIT", 0.2)
    spec = scripted({"log": {"delay": 30, "message": "x"}}, files_listed_logs=["Found *"])
    async with Workspace(project, servers=[spec], timeout=10) as ws:
        await ws.open("a.txt")
        assert await received(ws) == ["textDocument/didOpen"]


async def test_ready_by_progress_reports_its_phases_in_order(project: Path) -> None:
    spec = scripted({"progress": {"titles": ["Indexing", "Checking", "Linting"]}})
    async with Workspace(project, servers=[spec]) as ws:
        readiness = await ws.ready("a.txt", timeout=10)
    assert readiness.state == "ready"
    assert readiness.source == "progress"
    assert readiness.phases == ("Indexing", "Checking", "Linting")
    # Three phases of two 50 ms steps, then the settle window: it waited for them.
    assert readiness.waited >= 0.3


async def test_ready_by_progress_without_create_requests(project: Path) -> None:
    spec = scripted({"progress": {"titles": ["Loading"], "create": False}})
    async with Workspace(project, servers=[spec]) as ws:
        readiness = await ws.ready("a.txt", timeout=10)
    assert (readiness.state, readiness.source, readiness.phases) == (
        "ready",
        "progress",
        ("Loading",),
    )


async def test_progress_that_never_ends_times_out(project: Path) -> None:
    spec = scripted({"progress": {"titles": ["Indexing", "Stuck"], "end": False}})
    async with Workspace(project, servers=[spec]) as ws:
        began = time.monotonic()
        readiness = await ws.ready("a.txt", timeout=0.5)
        took = time.monotonic() - began
        assert readiness.state == "timed_out"
        assert readiness.phases == ("Indexing", "Stuck")
        assert 0.4 <= readiness.waited < 3
        assert took < 3
        # Asked again, it still is not ready, and says so as fast.
        again = await ws.ready("scripted", timeout=0.2)
        assert again.state == "timed_out"


async def test_a_server_without_any_signal_is_never_ready_by_guess(project: Path) -> None:
    spec = scripted({}, progress_grace=0.3)
    async with Workspace(project, servers=[spec]) as ws:
        readiness = await ws.ready("a.txt", timeout=10)
    assert readiness.state == "no_signal"
    assert readiness.source == "none"
    assert readiness.waited < 3


# -- diagnostics that never come, or come in odd ways -------------------------------------------


async def test_a_server_that_never_publishes_times_out_and_the_workspace_goes_on(
    project: Path,
) -> None:
    spec = scripted({"document_symbols": {"*": []}})
    async with Workspace(project, servers=[spec]) as ws:
        began = time.monotonic()
        report = await ws.diagnostics(["a.txt"], timeout=0.5)
        took = time.monotonic() - began
        assert not report.complete
        assert report.reason == "timeout"
        assert report.files["a.txt"].complete is False
        assert report.files["a.txt"].reason == "timeout"
        assert report.items == []
        assert 0.4 <= took < 3
        # The next calls are answered, and a second wait is as bounded as the first.
        assert list(await ws.symbols("a.txt")) == []
        began = time.monotonic()
        again = await ws.diagnostics(["a.txt", "b.txt"], timeout=0.3)
        assert time.monotonic() - began < 3
        assert {path: status.reason for path, status in again.files.items()} == {
            "a.txt": "timeout",
            "b.txt": "timeout",
        }


async def test_a_timeout_keeps_the_last_items_as_stale(project: Path) -> None:
    # Diagnostics for the text as opened, then none for the changed text.
    report = {"delay": 0.05, "versions": [1], "items": [item("problem in v$VERSION")]}
    spec = scripted({"diagnostics": [report]})
    async with Workspace(project, servers=[spec]) as ws:
        first = await ws.diagnostics(["a.txt"], timeout=10)
        assert first.complete
        assert [(d.message, d.stale) for d in first.items] == [("problem in v1", False)]
        await ws.update("a.txt", TEXT + "fourth line\n")
        second = await ws.diagnostics(["a.txt"], timeout=0.5)
    assert not second.complete
    assert second.files["a.txt"].reason == "timeout"
    assert [(d.message, d.stale) for d in second.items] == [("problem in v1", True)]


async def test_a_versioned_report_repeated_three_times_counts_once(project: Path) -> None:
    # pyrefly sends each report three times within a few milliseconds.
    reports = [{"delay": delay, "items": [item("twice defined")]} for delay in (0.05, 0.052, 0.055)]
    spec = scripted({"diagnostics": reports})
    async with Workspace(project, servers=[spec]) as ws:
        report = await ws.diagnostics(["a.txt"], timeout=10)
    assert report.complete
    assert report.files["a.txt"].complete
    assert [(d.path, d.line, d.column, d.end_column, d.message) for d in report.items] == [
        ("a.txt", 1, 1, 6, "twice defined")
    ]
    assert report.items[0].severity == "warning"
    assert report.items[0].server == "scripted"


async def test_an_empty_report_then_the_real_one_with_the_same_version(project: Path) -> None:
    # basedpyright in push mode: an empty report first, the real one later, same version.
    reports = [
        {"delay": 0.02, "items": []},
        {"delay": 0.2, "items": [item("real one", line=1, start=7, end=11)]},
    ]
    spec = scripted({"diagnostics": reports})
    async with Workspace(project, servers=[spec]) as ws:
        began = time.monotonic()
        report = await ws.diagnostics(["a.txt"], timeout=10)
        took = time.monotonic() - began
    assert report.complete
    assert [(d.line, d.column, d.message) for d in report.items] == [(2, 8, "real one")]
    # The real report came 0.2 s in, and then the settle window (0.3 s) had to pass.
    assert took >= 0.45


async def test_unversioned_reports_are_final_after_the_quiet_window(project: Path) -> None:
    reports = [
        {"delay": 0.05, "versioned": False, "items": [item("early guess")]},
        {"delay": 0.25, "versioned": False, "items": [item("after a closer look")]},
    ]
    spec = scripted({"diagnostics": reports}, settle=0.3)
    async with Workspace(project, servers=[spec]) as ws:
        began = time.monotonic()
        report = await ws.diagnostics(["a.txt"], timeout=10)
        took = time.monotonic() - began
    assert report.complete
    assert [d.message for d in report.items] == ["after a closer look"]
    # The second report restarted the quiet window: 0.25 s, then 0.3 s of quiet.
    assert took >= 0.5


async def test_a_late_report_for_an_earlier_version_does_not_count(project: Path) -> None:
    reports = [
        {"delay": 0.05, "items": [item("about v$VERSION")]},
        # A slow server sends its report about the first text after the second text came.
        {"delay": 0.3, "versions": [1], "even_if_stale": True, "items": [item("late v1")]},
    ]
    spec = scripted({"diagnostics": reports})
    async with Workspace(project, servers=[spec]) as ws:
        await ws.open("a.txt")
        await ws.update("a.txt", "changed\n")
        report = await ws.diagnostics(["a.txt"], timeout=10)
        assert report.complete
        assert [d.message for d in report.items] == ["about v2"]
        # After the late report has come too, the answer is the same.
        await asyncio.sleep(0.4)
        again = await ws.diagnostics(["a.txt"], timeout=10)
    assert [d.message for d in again.items] == ["about v2"]


# -- crashes -------------------------------------------------------------------------------------


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


CRASHING = {
    "document_symbols": {"*": SYMBOLS},
    "crash": {"method": "textDocument/documentSymbol", "nth": 2},
}
"""A server whose second documentSymbol request (in each process) kills it."""

NOTICED = 0.5
"""Seconds a test lets pass after a crash, for the workspace to see the process exit."""


async def test_a_crash_fails_the_call_then_restarts_then_gives_up(project: Path) -> None:
    async with Workspace(project, servers=[scripted(CRASHING)], max_restarts=2) as ws:
        assert [s.name for s in await ws.symbols("a.txt")] == ["first"]
        first_pid = ws.running[0].pid
        assert first_pid is not None
        # The second request of the process kills it: the call fails.
        with pytest.raises(LspError):
            await ws.symbols("a.txt")
        await asyncio.sleep(NOTICED)
        assert ws.running[0].state == "crashed"
        # The next call starts it again, the open documents re-opened.
        assert [s.name for s in await ws.symbols("a.txt")] == ["first"]
        [status] = ws.running
        assert status.restarts == 1
        assert status.state == "running"
        assert status.pid is not None
        assert status.pid != first_pid
        assert gone(first_pid)
        session = await ws.session_for("a.txt")
        state = await session.request("scripted/state")
        assert state["pid"] == status.pid
        assert state["open"] == [ws.paths.uri(project / "a.txt")]
        assert state["received"].count("textDocument/didOpen") == 1
        # A second crash within the minute uses up max_restarts=2 ...
        with pytest.raises(LspError):
            await ws.symbols("a.txt")
        await asyncio.sleep(NOTICED)
        # ... so the next call does not start it again, and says why, quoting stderr.
        began = time.monotonic()
        with pytest.raises(ServerCrashedError, match="fatal error on message 2") as crashed:
            await ws.symbols("a.txt")
        assert time.monotonic() - began < 1
        assert "crashed 2 times in the last minute" in str(crashed.value)
        assert f"pid {status.pid}" in crashed.value.stderr
        assert ws.running[0].state == "crashed"
        assert ws.running[0].restarts == 1
        # It stays given up, for every call on its files.
        with pytest.raises(ServerCrashedError):
            await ws.diagnostics(["a.txt"], timeout=1)


async def test_a_server_that_dies_during_its_handshake_is_quoted(project: Path) -> None:
    spec = scripted({"crash": {"method": "initialize", "nth": 1}})
    async with Workspace(project, servers=[spec], timeout=10) as ws:
        began = time.monotonic()
        with pytest.raises(LspError, match="fatal error on message 1 of initialize") as failed:
            await ws.diagnostics(["a.txt"])
        assert time.monotonic() - began < 5
        assert "scripted" in str(failed.value)


async def test_a_crash_while_waiting_for_diagnostics_says_server_crashed(project: Path) -> None:
    spec = scripted({"crash": {"method": "textDocument/didOpen", "nth": 1}})
    async with Workspace(project, servers=[spec]) as ws:
        began = time.monotonic()
        report = await ws.diagnostics(["a.txt"], timeout=10)
        assert time.monotonic() - began < 3
        assert not report.complete
        assert report.reason == "server_crashed"
        assert report.files["a.txt"].reason == "server_crashed"
        assert report.items == []


async def test_a_crash_while_waiting_for_readiness_raises_quoting_stderr(project: Path) -> None:
    spec = scripted({"die_after": 0.3, "progress": {"titles": ["Indexing"], "end": False}})
    async with Workspace(project, servers=[spec]) as ws:
        began = time.monotonic()
        with pytest.raises(LspError, match="scripted crashed") as crashed:
            await ws.ready("a.txt", timeout=10)
        assert time.monotonic() - began < 3
        assert "scripted: out of memory" in str(crashed.value)


async def test_a_request_never_answered_times_out_and_is_cancelled(project: Path) -> None:
    spec = scripted(
        {"document_symbols": {"*": SYMBOLS}, "silent": {"textDocument/documentSymbol": [1]}}
    )
    async with Workspace(project, servers=[spec], timeout=0.5) as ws:
        began = time.monotonic()
        with pytest.raises(LspError, match=r"no answer within 0\.5 s"):
            await ws.symbols("a.txt")
        assert time.monotonic() - began < 3
        # The server is still there and answers the next one; it was told to give up the first.
        assert [s.name for s in await ws.symbols("a.txt")] == ["first"]
        session = await ws.session_for("a.txt")
        received = (await session.request("scripted/state"))["received"]
        assert received.count("$/cancelRequest") == 1
        assert ws.running[0].restarts == 0


async def test_an_outline_of_symbol_information_is_read_as_a_tree(project: Path) -> None:
    # Older servers answer documentSymbol with flat SymbolInformation and containerName.
    def info(name: str, kind: int, first: int, last: int, **more: Any) -> dict[str, Any]:
        where = {
            "start": {"line": first, "character": 0},
            "end": {"line": last, "character": 4},
        }
        return {
            "name": name,
            "kind": kind,
            "location": {"uri": "$ROOT/a.txt", "range": where},
            **more,
        }

    flat = [
        info("Box", 5, 0, 1),
        info("open", 6, 1, 1, containerName="Box"),
        info("main", 12, 2, 2),
    ]
    async with Workspace(project, servers=[scripted({"document_symbols": {"*": flat}})]) as ws:
        method = await ws.resolve("a.txt#Box/open")
        assert (method.name_path, method.kind, method.container) == ("Box/open", "method", "Box")
        assert (method.location.line, method.location.column) == (2, 1)
        outline = await ws.symbols("a.txt")
        assert [s.name for s in outline] == ["Box", "main"]
        assert [c.name_path for c in outline[0].children] == ["Box/open"]


# -- a slow start --------------------------------------------------------------------------------


async def test_a_handshake_slower_than_the_timeout_fails_and_leaves_no_process(
    project: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    # Slow on the first start only; it ignores SIGTERM too, so it has to be killed.
    spec = scripted(
        {
            "init_delay": [30, 0],
            "pid_file": str(pid_file),
            "ignore_term": True,
            "document_symbols": {"*": SYMBOLS},
        }
    )
    async with Workspace(project, servers=[spec], timeout=0.5) as ws:
        began = time.monotonic()
        with pytest.raises(LspError, match=r"did not finish its handshake within 0\.5 s"):
            await ws.symbols("a.txt")
        assert time.monotonic() - began < 5
        [slow] = pids(pid_file)
        assert gone(slow)
        # The next call starts it again, and this time it answers at once.
        assert [s.name for s in await ws.symbols("a.txt")] == ["first"]
        assert len(pids(pid_file)) == 2
        assert ws.running[0].state == "running"


# -- no process is left behind -------------------------------------------------------------------


async def test_leaving_the_workspace_ends_every_server_and_its_children(
    project: Path, tmp_path: Path
) -> None:
    write(project, {"c.md": "# notes\n", "d.rst": "notes\n"})
    plain, parent, stubborn = tmp_path / "plain", tmp_path / "parent", tmp_path / "stubborn"
    specs = [
        scripted({"pid_file": str(plain)}, "plain"),
        # A wrapper that leaves a child holding its pipes (as node-based servers do).
        scripted({"pid_file": str(parent), "child": True}, "parent", languages={".md": "md"}),
        # One that never answers shutdown, ignores exit and SIGTERM: only SIGKILL ends it.
        scripted(
            {"pid_file": str(stubborn), "hang_shutdown": True, "ignore_term": True},
            "stubborn",
            languages={".rst": "rst"},
            shutdown_timeout=0.5,
        ),
    ]
    began = time.monotonic()
    async with Workspace(project, servers=specs) as ws:
        report = await ws.diagnostics(["a.txt", "c.md", "d.rst"], timeout=0.2)
        assert set(report.files) == {"a.txt", "c.md", "d.rst"}
        running = {status.id: status.pid for status in ws.running}
    assert time.monotonic() - began < 15
    everyone = [*pids(plain), *pids(parent), *pids(stubborn)]
    assert len(everyone) == 4
    assert set(running.values()) <= set(everyone)
    assert set(running) == {"plain", "parent", "stubborn"}
    assert [pid for pid in everyone if not gone(pid)] == []
