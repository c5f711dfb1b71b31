"""Progress on a stderr that is not a terminal (a CI log, a pipe): at most one line per
server per phase, a phase being one progress token from its ``begin`` to its ``end``."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

from adecore_lsp.cli.output import Output
from adecore_lsp.cli.progress import progress_printer
from tests.cli.conftest import need, no_traceback, run, write


def printed(reports: list[tuple[str, dict[str, Any]]]) -> list[str]:
    err = io.StringIO()
    printer = progress_printer(Output(quiet=False, out=io.StringIO(), err=err), enabled=True)
    for server, params in reports:
        printer.progress(server, params)
    printer.close()
    return err.getvalue().splitlines()


def phase(token: str, *values: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"token": token, "value": value} for value in values]


def test_a_phase_is_said_once_when_it_has_something_to_say() -> None:
    analysis = phase(
        "t1",
        {"kind": "begin", "title": ""},
        {"kind": "report", "message": "12 files to analyze", "percentage": 0},
        {"kind": "report", "message": "3 files to analyze", "percentage": 75},
        {"kind": "end"},
    )
    indexing = phase(
        "i",
        {"kind": "begin", "title": "Indexing", "message": "crates"},
        {"kind": "report", "message": "3/9"},
    )
    silent = phase("s", {"kind": "begin", "title": ""}, {"kind": "report"}, {"kind": "end"})
    again = phase("t2", {"kind": "begin"}, {"kind": "report", "message": "12 files to analyze"})
    reports = [
        *(("pyright", params) for params in analysis),
        # Two servers' phases interleaved, one never ended.
        ("gopls", indexing[0]),
        *(("pyright", params) for params in silent),
        ("gopls", indexing[1]),
        # A phase that says what the server said before, and reports of unknown tokens.
        *(("pyright", params) for params in again),
        ("pyright", {"token": "unknown", "value": {"kind": "report", "message": "x"}}),
        ("pyright", {"token": "t3", "value": "not a value"}),
        ("ty", {"token": "t4", "value": {"kind": "begin", "title": "Checking\x1b[2J\nnow"}}),
    ]
    assert printed(reports) == [
        "pyright: 12 files to analyze",
        "gopls: Indexing crates",
        "ty: Checking\\x1b[2J now",  # a control character shown, never sent
    ]


def test_a_real_servers_check_says_each_phase_at_most_once(tmp_path: Path) -> None:
    """basedpyright opens a progress token for each analysis, and analyses again as files
    open: many phases, each said at most once, the same words never twice."""
    need("basedpyright")
    files = {f"pkg/mod{n}.py": f"def f{n}(x: int) -> int:\n    return x + {n}\n" for n in range(6)}
    files["pkg/__init__.py"] = ""
    files["pyproject.toml"] = '[tool.adecore-lsp]\nservers = ["basedpyright"]\n'
    root = write(tmp_path / "project", files)
    trace = tmp_path / "trace.jsonl"
    ran = run("check", "--daemon", "off", "--trace", trace, cwd=root)
    no_traceback(ran)
    assert ran.status == 0, ran
    received = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    kinds = Counter(
        entry["message"]["params"]["value"]["kind"]
        for entry in received
        if entry.get("direction") == "receive" and entry["message"].get("method") == "$/progress"
    )
    lines = [line for line in ran.err.splitlines() if line.startswith("basedpyright: ")]
    assert kinds["begin"] > 1  # several phases, each with reports: a line each before
    assert 1 <= len(lines) <= kinds["begin"]
    assert len(lines) == len(set(lines))
    assert all(line.endswith("to analyze") for line in lines), ran.err


def test_progress_disabled_says_nothing() -> None:
    """``--quiet`` and ``--no-progress``."""
    err = io.StringIO()
    printer = progress_printer(Output(quiet=False, out=io.StringIO(), err=err), enabled=False)
    printer.progress("pyright", phase("t", {"kind": "begin", "title": "Analyzing"})[0])
    printer.close()
    assert err.getvalue() == ""
