"""Crashes noticed by the call that meets them, unreadable files among many, and other
edges of the workspace contract, each once wrong and kept here so that it stays right."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from adecore_lsp import ErrorCodes, LspError, ServerCrashedError, Workspace
from tests.workspace.conftest import write
from tests.workspace.test_scripted import CRASHING, NOTICED, TEXT, scripted

APP = "import os\n\nx = 1\nprint(x)\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write(tmp_path / "proj", {"a.txt": TEXT, "b.txt": TEXT})


@pytest.fixture
def python_project(tmp_path: Path) -> Path:
    return write(tmp_path / "py", {"app.py": APP, "pyproject.toml": "[project]\nname = 'p'\n"})


# -- crashes -----------------------------------------------------------------------------------


async def test_a_crash_error_quotes_the_stderr_of_the_process_that_died(project: Path) -> None:
    """ "A server that dies fails its pending requests with an LspError that quotes its last
    stderr lines." Once wrong: the pending request is failed when stdout closes, often before the
    process's exit has been seen: the error is then the bare "the connection closed: the
    server closed the connection", or it quotes the stderr of the process that died before."""
    async with Workspace(project, servers=[scripted(CRASHING)], max_restarts=10) as ws:
        for _ in range(4):
            await ws.symbols("a.txt")  # the first request of this process
            pid = ws.running[0].pid
            with pytest.raises(LspError) as crashed:
                await ws.symbols("a.txt")
            assert f"fatal error on message 2 of textDocument/documentSymbol, pid {pid}" in str(
                crashed.value
            )
            await asyncio.sleep(NOTICED)


async def test_the_call_right_after_a_crash_restarts_and_counts_it(project: Path) -> None:
    """ "The next call restarts it ... while fewer than max_restarts crashes happened";
    ServerStatus.restarts counts it. Once wrong: a call made at once after the failed one (before
    the exit was seen) starts a new process without counting a restart: restarts stays 0."""
    async with Workspace(project, servers=[scripted(CRASHING)], max_restarts=5) as ws:
        await ws.symbols("a.txt")
        first = ws.running[0].pid
        with pytest.raises(LspError):
            await ws.symbols("a.txt")
        assert [s.name for s in await ws.symbols("a.txt")] == ["first"]
        [status] = ws.running
        assert status.pid != first
        assert status.restarts == 1


async def test_crashes_in_quick_succession_reach_max_restarts(project: Path) -> None:
    """ "After that [max_restarts crashes in the last minute] it raises ServerCrashedError."
    Once wrong: calls that follow each failure at once never see the server as crashed, so it is
    started again and again: 4 crashes with max_restarts=2 and no ServerCrashedError."""
    async with Workspace(project, servers=[scripted(CRASHING)], max_restarts=2) as ws:
        crashes = 0
        given_up: ServerCrashedError | None = None
        for _ in range(4):
            try:
                await ws.symbols("a.txt")  # (re)starts it; this request is answered
            except ServerCrashedError as error:
                given_up = error
                break
            with pytest.raises(LspError):
                await ws.symbols("a.txt")  # kills it
            crashes += 1
        assert given_up is not None, f"{crashes} crashes, still restarted: {ws.running}"
        assert crashes == 2


# -- files ---------------------------------------------------------------------------------------


@pytest.mark.real_server
async def test_whole_root_diagnostics_survive_one_file_that_is_not_utf8(
    python_project: Path,
) -> None:
    """``diagnostics()`` checks "all files of the root that some installed server takes".
    Once wrong: one Latin-1 file among them makes the whole call raise ValueError, so no file of
    the root can be checked at all; expected: the others are checked and the unreadable one
    is not reported complete."""
    (python_project / "legacy.py").write_bytes("name = 'café'\n".encode("latin-1"))
    async with Workspace(python_project, servers=["ruff"]) as ws:
        report = await ws.diagnostics()
    assert report.files["app.py"].complete
    assert [(d.path, d.code) for d in report.items if d.path == "app.py"] == [("app.py", "F401")]
    assert "legacy.py" not in report.files or not report.files["legacy.py"].complete


@pytest.mark.real_server
async def test_find_survives_one_file_that_is_not_utf8(python_project: Path) -> None:
    """``find`` opens the root's files first ("results do not depend on which files happen
    to be open"). Once wrong: one Latin-1 file in the root makes it raise ValueError."""
    (python_project / "legacy.py").write_bytes("name = 'café'\n".encode("latin-1"))
    async with Workspace(python_project, servers=["basedpyright"]) as ws:
        found = await ws.find("x")
    assert any(s.name == "x" and s.location.path == "app.py" for s in found)


@pytest.mark.real_server
async def test_an_open_file_that_became_non_utf8_on_disk_is_not_reported_clean(
    python_project: Path,
) -> None:
    """ "The disk is the truth" and "a file that is not UTF-8 is not checked, said so".
    Once wrong: with the file open, a change on disk that is not UTF-8 is skipped silently:
    ``diagnostics(["app.py"])`` answers complete with the old text's diagnostics, and
    positions are checked against the old text ("app.py has 1 line")."""
    write(python_project, {"app.py": "import os\n"})
    async with Workspace(python_project, servers=["ruff"]) as ws:
        first = await ws.diagnostics(["app.py"])
        assert [d.code for d in first.items] == ["F401"]
        (python_project / "app.py").write_bytes("import sys\nn = 'café'\n".encode("latin-1"))
        report = await ws.diagnostics(["app.py"])
        assert report.files["app.py"].reason == "not_utf8"
        assert report.items == []


@pytest.mark.real_server
async def test_a_path_given_twice_gives_its_diagnostics_once(python_project: Path) -> None:
    """A report's items are the file's diagnostics. Once wrong: each spelling of the same file in
    ``paths`` adds its diagnostics again: ``["app.py", "./app.py"]`` gives the one F401
    twice."""
    async with Workspace(python_project, servers=["ruff"]) as ws:
        report = await ws.diagnostics(["app.py", "./app.py"])
    assert list(report.files) == ["app.py"]
    assert [(d.path, d.line, d.code) for d in report.items] == [("app.py", 1, "F401")]


# -- methods no server supports -------------------------------------------------------------------


@pytest.mark.real_server
async def test_symbols_without_a_server_that_gives_them_is_method_not_found(
    python_project: Path,
) -> None:
    """ "If none [of the servers] supports the method, a call raises LspError MethodNotFound
    naming the method and the servers asked" (only a *name target* raises
    TargetNotFoundError). Once wrong: ``symbols(path)``, which takes no target, raises
    TargetNotFoundError (code InvalidParams) naming neither the method nor the servers."""
    async with Workspace(python_project, servers=["ruff"]) as ws:
        with pytest.raises(LspError) as failed:
            await ws.symbols("app.py")
    assert failed.value.code == ErrorCodes.MethodNotFound
    assert "textDocument/documentSymbol" in str(failed.value)
    assert "ruff" in str(failed.value)
