"""Pull diagnostics against real servers that only answer pulls once pull is declared.

Each test opens a file with an error and waits, by events only, for ``on_diagnostics`` to
hear it from the session's own pulls; then it fixes the file and waits for the empty report of
the new version.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import LspSession, path_to_uri, spawn_server
from tests.integration.conftest import find_server
from tests.integration.test_interop_npm import TSCONFIG, ts7_binary

pytestmark = pytest.mark.real_server

WAIT = 30.0
"""Seconds a server may take to report (basedpyright and ty start slowly on a busy machine)."""

Report = dict[str, Any]


async def until(
    reports: asyncio.Queue[Report], wanted: Callable[[Report], bool], what: str
) -> Report:
    """The first report that ``wanted`` accepts; the others are skipped."""

    async def wait() -> Report:
        while True:
            report = await reports.get()
            if wanted(report):
                return report

    try:
        return await asyncio.wait_for(wait(), WAIT)
    except asyncio.TimeoutError:
        pytest.fail(f"no report {what} within {WAIT:g} s")


def codes(report: Report) -> list[Any]:
    return [item.get("code") for item in report["diagnostics"]]


async def check_pulled(
    command: list[str],
    root: Path,
    name: str,
    language_id: str,
    broken: str,
    fixed: str,
    code: str,
) -> None:
    """The error's code is heard for version 1 (from pulls), then nothing for version 2."""
    path = root / name
    path.write_text(broken, encoding="utf-8")
    uri = path_to_uri(path)
    reports: asyncio.Queue[Report] = asyncio.Queue()
    async with (
        await spawn_server(command, cwd=root) as server,
        LspSession(
            server.transport, root_uri=path_to_uri(root), pull_diagnostics=True, timeout=WAIT
        ) as session,
    ):
        session.on_diagnostics(reports.put_nowait)
        pushes: list[Any] = []
        session.on_notification("textDocument/publishDiagnostics", pushes.append)
        session.open_document(uri, language_id, broken)
        report = await until(
            reports,
            lambda r: r.get("version") == 1 and code in [str(c) for c in codes(r)],
            f"with {code} for version 1",
        )
        assert report["uri"] == uri
        assert session.diagnostics(uri) == report["diagnostics"]
        session.change_document(uri, fixed)
        report = await until(
            reports,
            lambda r: r.get("version") == 2 and not r["diagnostics"],
            "without diagnostics for version 2",
        )
        assert session.diagnostics(uri) == []
        pushed = [p for p in pushes if p.get("uri") == uri]
        assert pushed == [], "the server pushed: the reports may not have come from pulls"


async def test_ruff_reports_an_unused_import_by_pull(tmp_path: Path) -> None:
    """ruff server answers pulls (static diagnosticProvider): F401 reaches on_diagnostics."""
    await check_pulled(
        [find_server("ruff"), "server"],
        tmp_path,
        "app.py",
        "python",
        "import os\n",
        "x = 1\n",
        "F401",
    )


async def test_ty_registers_pulls_and_reports_by_them(tmp_path: Path) -> None:
    """ty registers textDocument/diagnostic after initialized: the session pulls then."""
    await check_pulled(
        [find_server("ty"), "server"],
        tmp_path,
        "app.py",
        "python",
        'x: int = "not a number"\n',
        "x: int = 1\n",
        "invalid-assignment",
    )


async def test_basedpyright_reports_by_pull(tmp_path: Path) -> None:
    """basedpyright switches to pull when the client declares it."""
    (tmp_path / "pyrightconfig.json").write_text('{"typeCheckingMode": "basic"}')
    await check_pulled(
        [find_server("basedpyright-langserver"), "--stdio"],
        tmp_path,
        "app.py",
        "python",
        'x: int = "not a number"\n',
        "x: int = 1\n",
        "reportAssignmentType",
    )


async def test_typescript_7_reports_by_pull_only(tmp_path: Path) -> None:
    """TypeScript 7 never pushes: with pull, on_diagnostics still hears its errors."""
    (tmp_path / "tsconfig.json").write_text(TSCONFIG)
    await check_pulled(
        [ts7_binary(), "--lsp", "--stdio"],
        tmp_path,
        "main.ts",
        "typescript",
        'export const n: number = "two";\n',
        "export const n: number = 2;\n",
        "2322",
    )
