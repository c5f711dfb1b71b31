"""``check`` of many files prints each batch's findings as it finishes, in path order, and
they are the same findings as the whole report's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adecore_lsp.cli.check import STREAM_BATCH
from tests.cli.conftest import need, run

pytestmark = pytest.mark.real_server


def test_many_files_stream_the_same_findings_as_one_report(tmp_path: Path) -> None:
    need("ruff")
    count = 2 * STREAM_BATCH + 30
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n", encoding="utf-8")
    for number in range(count):
        (tmp_path / f"m{number:03}.py").write_text("import os\n", encoding="utf-8")
    streamed = run("check", "--server", "ruff", "--quiet", cwd=tmp_path)
    whole = run("check", "--server", "ruff", "--quiet", "--format", "json", cwd=tmp_path)
    assert streamed.status == 0, streamed
    assert whole.status == 0, whole
    lines = streamed.out.splitlines()
    assert (
        lines[-1]
        == f"0 errors, {count} warnings in {count} files"
        + lines[-1][len(f"0 errors, {count} warnings in {count} files") :]
    )
    findings = lines[:-1]
    assert findings == sorted(findings)
    reported = json.loads(whole.out)["diagnostics"]
    assert [f"{d['path']}:{d['line']}:{d['column']}" for d in reported] == [
        line.split(": ", 1)[0] for line in findings
    ]
