"""Open documents against real servers: full and incremental sync, versions, encodings.

Each server gets a file with an error; its diagnostics must reach ``on_diagnostics`` for the
version that has it, the fix must bring the empty report, and a hover on a name that stands
after an emoji on its line must find that name: the proof that positions are counted in the
encoding the server negotiated (jedi-language-server picks utf-8, pyrefly utf-16).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import LspSession, spawn_server
from tests.integration.conftest import RecordingTransport, find_server

pytestmark = pytest.mark.real_server

WAIT = 30.0

PYTHON_BROKEN = (
    "import os\n\n\ndef compute(n: int) -> int:\n    return n * 2\n\n\n"
    'label = "😀é"; total = compute(1)\n'
)
PYTHON_FIXED = PYTHON_BROKEN.replace("import os\n", "")
PYTHON_TYPE_ERROR = PYTHON_FIXED + 'wrong: int = "text"\n'

FORTRAN_BROKEN = """program demo
  implicit none
  integer :: count
  integer :: count
  count = 1
  print *, "😀é", count
end program demo
"""
FORTRAN_FIXED = FORTRAN_BROKEN.replace(
    "  integer :: count\n  integer :: count\n", "  integer :: count\n"
)


async def next_report(reports: asyncio.Queue[dict[str, Any]], *, empty: bool) -> dict[str, Any]:
    """The next report that is empty (or not), skipping the others."""

    async def wait() -> dict[str, Any]:
        while True:
            report = await reports.get()
            if (not report["diagnostics"]) == empty:
                return report

    return await asyncio.wait_for(wait(), WAIT)


async def fix_scenario(
    command: list[str],
    root: Path,
    name: str,
    language_id: str,
    broken: str,
    fixed: str,
    configuration: dict[str, Any] | None = None,
) -> tuple[RecordingTransport, list[dict[str, Any]], LspSession]:
    """Open ``broken``, wait for its report, change to ``fixed`` and save, wait for the empty one.

    The fixed text is written to disk before the save, as an editor does: some servers
    (fortls) diagnose what is on disk when a document is saved.
    """
    path = root / name
    path.write_text(broken)
    async with await spawn_server(command, cwd=root) as server:
        transport = RecordingTransport(server.transport)
        async with LspSession(
            transport, root_uri=root.as_uri(), configuration=configuration
        ) as session:
            reports: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
            session.on_diagnostics(reports.put_nowait)
            document = session.open_document(path.as_uri(), language_id, broken)
            first = await next_report(reports, empty=False)
            assert first["uri"] == document.uri
            session.change_document(document.uri, fixed)
            assert session.documents[document.uri].version == 2
            path.write_text(fixed)
            session.save_document(document.uri)
            second = await next_report(reports, empty=True)
            assert second["uri"] == document.uri
        return transport, [first, second], session


def did_changes(transport: RecordingTransport) -> list[Any]:
    return [m["params"] for m in transport.sent if m.get("method") == "textDocument/didChange"]


async def test_full_sync_with_fortls(tmp_path: Path) -> None:
    """fortls (full sync, unversioned reports): the whole text goes, the fix clears the report."""
    command = [find_server("fortls"), "--disable_autoupdate"]
    transport, reports, _ = await fix_scenario(
        command, tmp_path, "demo.f90", "fortran", FORTRAN_BROKEN, FORTRAN_FIXED
    )
    assert "declared twice" in reports[0]["diagnostics"][0]["message"]
    assert all("version" not in report for report in reports)  # fortls never versions them
    changes = did_changes(transport)
    assert changes[0]["contentChanges"] == [{"text": FORTRAN_FIXED}]
    assert changes[0]["textDocument"]["version"] == 2


async def test_incremental_sync_with_ruff(tmp_path: Path) -> None:
    """ruff (incremental, utf-8, versioned push): one small edit goes, versions 1 then 2."""
    command = [find_server("ruff"), "server"]
    transport, reports, session = await fix_scenario(
        command, tmp_path, "main.py", "python", PYTHON_BROKEN, PYTHON_FIXED
    )
    assert session.position_encoding == "utf-8"
    assert reports[0]["version"] == 1
    assert reports[0]["diagnostics"][0]["code"] == "F401"
    assert reports[1]["version"] == 2
    (change,) = did_changes(transport)[0]["contentChanges"]
    assert change == {
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}},
        "text": "",
    }


async def test_incremental_sync_with_pyrefly(tmp_path: Path) -> None:
    """pyrefly (incremental, utf-16): a type error is reported for v1, the fix empties it at v2."""
    command = [find_server("pyrefly"), "lsp"]
    settings = {"python": {"pyrefly": {"displayTypeErrors": "force-on"}}}
    transport, reports, session = await fix_scenario(
        command, tmp_path, "main.py", "python", PYTHON_TYPE_ERROR, PYTHON_FIXED, settings
    )
    assert reports[0]["diagnostics"][0]["code"] == "bad-assignment"
    assert session.position_encoding == "utf-16"
    assert reports[0]["version"] == 1
    assert reports[1]["version"] == 2
    assert "range" in did_changes(transport)[0]["contentChanges"][0]


@pytest.mark.parametrize(
    ("server", "arguments", "offered", "encoding"),
    [
        ("jedi-language-server", [], ["utf-8"], "utf-8"),
        ("jedi-language-server", [], ["utf-32", "utf-8"], "utf-32"),
        ("pyrefly", ["lsp"], ["utf-32", "utf-8"], "utf-16"),
    ],
)
async def test_hover_after_an_emoji_finds_the_name(
    tmp_path: Path, server: str, arguments: list[str], offered: list[str], encoding: str
) -> None:
    """A hover on `compute`, after "😀é" on its line, names compute in every encoding."""
    path = tmp_path / "main.py"
    path.write_text(PYTHON_FIXED)
    async with (
        await spawn_server([find_server(server), *arguments], cwd=tmp_path) as process,
        LspSession(
            process.transport, root_uri=tmp_path.as_uri(), position_encodings=offered
        ) as session,
    ):
        assert session.position_encoding == encoding
        document = session.open_document(path.as_uri(), "python", PYTHON_FIXED)
        offset = PYTHON_FIXED.index("compute(1)") + 2
        position = document.position_at(offset)
        code_points = offset - PYTHON_FIXED.rindex("\n", 0, offset) - 1
        # The emoji and é take more than one unit in utf-8 and utf-16, so a client that
        # sent code points there would land two or three characters early.
        extra = {"utf-8": 4, "utf-16": 1, "utf-32": 0}[encoding]
        assert position["character"] == code_points + extra
        where = {"textDocument": {"uri": document.uri}, "position": position}
        hover = await session.request("textDocument/hover", where, timeout=WAIT)
        assert hover is not None
        assert "compute" in str(hover["contents"])
