"""The load benchmark still runs: its quick mode checks every invariant and exits 0."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_load.py"


def test_bench_load_quick_run_exits_cleanly() -> None:
    """`bench_load.py all --quick` runs both workloads with every invariant intact."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "all", "--quick"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(1) sessions: 10 ruff server processes" in done.stdout
    assert "(2) cancellations: 1,000 requests" in done.stdout
    assert "all invariants hold" in done.stdout
