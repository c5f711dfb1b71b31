"""When many files are not final, stderr gives their count and the first few names, not
hundreds of names (a big tree's timeout left 582 files unfinished)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from adecore_lsp.cli.common import incomplete
from adecore_lsp.cli.output import Output
from tests.cli.conftest import need, no_traceback, run, write


def said(files: list[str]) -> str:
    err = io.StringIO()
    incomplete(
        Output(quiet=True, out=io.StringIO(), err=err), "diagnostics not final (timeout)", files
    )
    return err.getvalue()


def test_a_few_files_are_each_named_and_many_are_counted() -> None:
    few = [f"f{n}.py" for n in range(5)]
    assert said(few) == (
        "adecore-lsp: error: incomplete: diagnostics not final (timeout): "
        "f0.py, f1.py, f2.py, f3.py, f4.py\n"
    )
    many = [f"f{n}.py" for n in range(582)]
    assert said(many) == (
        "adecore-lsp: error: incomplete: diagnostics not final (timeout): 582 files: "
        "f0.py, f1.py, f2.py, f3.py, f4.py and 577 more\n"
    )
    assert said([]) == "adecore-lsp: error: incomplete: diagnostics not final (timeout)\n"


@pytest.mark.real_server
def test_a_check_that_timed_out_on_many_files_counts_them(tmp_path: Path) -> None:
    need("basedpyright")
    files = {f"pkg/mod{n:02}.py": f"value{n}: int = {n}\n" for n in range(12)}
    files["pyproject.toml"] = '[tool.adecore-lsp]\nservers = ["basedpyright"]\n'
    root = write(tmp_path / "project", files)
    ran = run("check", "--timeout", "0.05", "--format", "json", "--daemon", "off", cwd=root)
    no_traceback(ran)
    assert ran.status == 3, ran
    unfinished = sorted(p for p, s in json.loads(ran.out)["files"].items() if not s["complete"])
    assert len(unfinished) > 5, ran  # basedpyright has not even started within 0.05 s
    line = next(line for line in ran.err.splitlines() if "incomplete: diagnostics" in line)
    first = ", ".join(unfinished[:5])
    assert line == (
        f"adecore-lsp: error: incomplete: diagnostics not final (timeout): {len(unfinished)} "
        f"files: {first} and {len(unfinished) - 5} more"
    )
    assert not re.search(r"mod1[01]\.py", line)  # the last names are counted, not listed
