"""Edges of ``cli.md`` the command line once got wrong, each test stating the contract: a
handshake that times out, a server that crashes after the handshake, log records without
--debug, pulls registered late, capabilities registered late, the candidates of a name that
matches nothing, a path outside the root."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import SCRIPTED, need, run, write

pytestmark = pytest.mark.real_server

FILES = {
    "pyproject.toml": '[project]\nname = "demo"\nversion = "0"\n',
    "app.py": "from lib import Greeter\n\n\ndef main() -> None:\n    Greeter().greet()\n",
    "lib.py": (
        "class Greeter:\n    def greet(self) -> str:\n        return 'hi'\n\n\n"
        "def make() -> Greeter:\n    return Greeter()\n"
    ),
}


def scripted(mode: str) -> str:
    return f"{sys.executable} {SCRIPTED} {mode}"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("bugs"), FILES)


def test_a_handshake_timeout_exits_3_and_names_the_files(project: Path) -> None:
    """cli.md: "3 incomplete: a wait timed out or a server was not ready ... (the output
    says which files)"; "A timeout never exits 0". The tool exits 2 with "did not finish
    its handshake within 0.01 s" and names no file."""
    need("basedpyright")
    ran = run(
        "check", "--server", "basedpyright", "--timeout", "0.01", "app.py", "lib.py", cwd=project
    )
    assert ran.status == 3, ran
    assert "app.py" in ran.err
    assert "lib.py" in ran.err


def test_a_server_that_crashes_after_initialize_exits_2_with_its_last_stderr_lines(
    project: Path,
) -> None:
    """cli.md: "2 a usage error or a failure of the tool or server"; "A server that crashed:
    its last stderr lines". The tool exits 3 ("incomplete: diagnostics not final
    (server_crashed): app.py") and quotes none of the server's stderr."""
    ran = run("check", "--command", scripted("crash"), "app.py", cwd=project)
    assert ran.status == 2, ran
    assert "scripted-lsp: fatal: the index is corrupt (scripted crash)" in ran.err, ran.err


def test_a_crash_under_a_query_quotes_the_last_stderr_lines(project: Path) -> None:
    """The same crash under ``hover`` exits 2, but says only "no server of app.py answers
    textDocument/hover (asked: python)", not what the server wrote before it died."""
    ran = run("hover", "app.py:1", "--command", scripted("crash"), cwd=project)
    assert ran.status == 2, ran
    assert "scripted-lsp: fatal: the index is corrupt (scripted crash)" in ran.err, ran.err


def test_a_crash_prints_no_exception_lines_without_debug(project: Path) -> None:
    """cli.md: "No Python traceback unless --debug". A crashed server makes the library's
    logger print "adecore-lsp session error: ..." and the exception line of a traceback,
    "adecore_lsp.errors.TransportClosedError: the server closed the connection"."""
    ran = run("check", "--command", scripted("crash-at-start"), "app.py", cwd=project)
    assert ran.status == 2, ran
    assert "TransportClosedError" not in ran.err, ran.err
    assert "adecore_lsp.errors." not in ran.err, ran.err


def test_a_pull_registered_after_the_open_is_pulled(project: Path) -> None:
    """workspace-api.md: final for "pull: the server answers textDocument/diagnostic (only
    if it advertised or registered it)". A server that registers pull diagnostics half a
    second after the file opens (as basedpyright does when the machine is busy: four
    ``check``s with ruff and basedpyright run at once time out about one time in three) is
    never pulled; ``check`` waits for the whole --timeout and exits 3."""
    ran = run("check", "--command", scripted("late-pull"), "--timeout", "5", "app.py", cwd=project)
    assert ran.status == 1, ran
    assert "app.py:1:1: error: scripted finding" in ran.out


def test_capabilities_lists_what_ruff_registers_after_initialize(project: Path) -> None:
    """cli.md: "capabilities [FILE]: what the server supports for that file". ruff registers
    textDocument/formatting and textDocument/rangeFormatting with client/registerCapability
    just after ``initialized``; the listing is made before that arrives, so neither is
    shown, though ``format`` with ruff works."""
    need("ruff")
    ran = run("capabilities", "app.py", "--server", "ruff", "--format", "json", cwd=project)
    assert ran.status == 0, ran
    methods = {row["method"] for row in json.loads(ran.out)}
    assert "textDocument/formatting" in methods
    assert "textDocument/rangeFormatting" in methods


def test_a_symbol_not_found_lists_the_candidates(project: Path) -> None:
    """cli.md: "A target not found or ambiguous: the candidates." ``app.py#Nope`` says only
    "app.py has no symbol Nope", not which symbols the file has."""
    need("basedpyright")
    ran = run("definition", "lib.py#Nope", "--server", "basedpyright", "--no-progress", cwd=project)
    assert ran.status == 2, ran
    assert "Greeter" in ran.err, ran.err
    assert "make" in ran.err, ran.err


def test_a_path_outside_the_root_is_an_error(project: Path, tmp_path: Path) -> None:
    """cli.md, errors a person can act on: "A path outside the root ...: the position given
    and what the file has". ``check ../elsewhere.py --root .`` checks the file and exits 0,
    printing its absolute path."""
    need("ruff")
    outside = tmp_path / "elsewhere.py"
    outside.write_text("import os\n", encoding="utf-8")
    ran = run("check", "--server", "ruff", "--root", ".", str(outside), cwd=project)
    assert ran.status == 2, ran
    assert "root" in ran.err
    assert "elsewhere.py" in ran.err
