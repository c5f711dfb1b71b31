"""The benchmark scripts still run: each one, in its quick mode, exits 0."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def test_bench_framing_quick_run_exits_cleanly() -> None:
    """`bench_framing.py --quick` decodes both workloads, prints its table and exits 0."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_framing.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "(a) 2000 notifications" in done.stdout
    assert "(b) one response" in done.stdout


def test_bench_documents_quick_run_exits_cleanly() -> None:
    """`bench_documents.py --quick` types into a file, converts positions and exits 0."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_documents.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=200,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_bench_roundtrip_quick_run_exits_cleanly() -> None:
    """`bench_roundtrip.py all --quick` runs every workload against the C echo server."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_roundtrip.py"), "all", "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "req/s" in done.stdout


def test_bench_interop_quick_run_exits_cleanly() -> None:
    """`bench_interop.py --quick` times spawn to ready for two real servers and exits 0."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_interop.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "largest client share" in done.stdout  # the figure itself is the benchmark's job


def test_bench_capabilities_small_run_exits_cleanly() -> None:
    """`bench_capabilities.py --registrations 2000` times supports() and says if it met 10 µs."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_capabilities.py"), "--registrations", "2000"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2,000 registrations" in done.stdout
    assert "target" in done.stdout


def test_bench_roundtrip_takes_another_timer() -> None:
    """`--other-timer` runs the sequential workload with one more asyncio timer armed."""
    done = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "bench_roundtrip.py"),
            "sequential",
            "--quick",
            "--other-timer",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "req/s" in done.stdout


def test_bench_normalize_quick_run_exits_cleanly() -> None:
    """`bench_normalize.py --quick` normalises every workload and prints its share."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_normalize.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "semantic tokens" in done.stdout
    assert "%" in done.stdout


def test_bench_apply_edit_quick_run_exits_cleanly() -> None:
    """`bench_apply_edit.py --quick` applies 1,000 edits across 100 files once and exits 0."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_apply_edit.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "apply_edit" in done.stdout
