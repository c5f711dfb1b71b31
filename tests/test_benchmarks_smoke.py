"""The benchmark scripts still run: each one, in its quick mode, exits 0 and prints its table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"

RUNS = [
    # script and arguments, what its output must hold, seconds it may take
    (["bench_framing.py", "--quick"], ["(a) 2000 notifications", "(b) one response"], 100),
    (["bench_documents.py", "--quick"], [], 200),
    (["bench_roundtrip.py", "all", "--quick"], ["req/s"], 300),
    (["bench_roundtrip.py", "sequential", "--quick", "--other-timer"], ["req/s"], 300),
    (["bench_interop.py", "--quick"], ["largest client share"], 120),
    (["bench_capabilities.py", "--registrations", "2000"], ["2,000 registrations", "target"], 120),
    (["bench_normalize.py", "--quick"], ["semantic tokens", "%"], 120),
    (["bench_apply_edit.py", "--quick"], ["apply_edit"], 120),
    (["bench_crash.py", "--quick"], ["torn sets after recovery          0"], 120),
    (
        ["bench_crash.py", "--quick", "--rename"],
        ["that renames a file", "torn sets after recovery          0"],
        120,
    ),
    (
        ["bench_workspace.py", "all", "--quick"],
        ["(1) latency of final diagnostics", "ruff", "pyrefly", "nothing leaked"],
        120,
    ),
    (["bench_workspace_scale.py", "--quick"], ["generated files", "client peak RSS"], 120),
    (["bench_cli.py", "--quick"], ["(1) adecore-lsp --version", "(2) adecore-lsp check"], 120),
    (["bench_mcp.py", "--quick"], ["(1) diagnostics", "(2) tools/list", "(3) hover"], 120),
    (
        ["bench_changes.py", "--quick"],
        ["(1) check --new-since HEAD", "--daemon on (warm)", "(2) edit", "ruff"],
        60,
    ),
    (["bench_monorepo.py", "--quick"], ["(1) references (python)", "complete=True"], 120),
    (
        ["bench_corpus.py", "--quick"],
        ["basedpyright  tests/test_quick.py", "6 of 6 pairs equal"],
        300,
    ),
    (["bench_hook.py", "--quick"], ["hook warm", "ruff", "target"], 120),
    (
        ["bench_big_tree.py", "--quick"],
        ["check --format json: complete=True", "the same findings: True"],
        120,
    ),
    (
        ["bench_notebooks.py", "--quick"],
        ["check of 5 notebooks of 4 cells", "the notebook model alone"],
        60,
    ),
    (
        ["bench_load.py", "all", "--quick"],
        [
            "(1) sessions: 10 ruff server processes",
            "(2) cancellations: 1,000 requests",
            "all invariants hold",
        ],
        60,
    ),
]


@pytest.mark.parametrize(
    ("arguments", "expected", "seconds"), RUNS, ids=[" ".join(run[0]) for run in RUNS]
)
def test_quick_run_exits_cleanly(arguments: list[str], expected: list[str], seconds: int) -> None:
    """The script exits 0 and prints what its table is made of (the figures are its job)."""
    script, *rest = arguments
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *rest],
        capture_output=True,
        text=True,
        timeout=seconds,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for text in expected:
        assert text in done.stdout
