"""Benchmark ``ws.diagnostics()`` over a real code base: the client's CPU and memory.

The code base is the source distribution of networkx 3.3 (650 ``.py`` files), fetched once
with ``pip download --no-deps --no-binary :all:`` (through whatever index pip is set up
with) into ``build/bench-sdists/`` and unpacked there; later runs reuse it. For each server
(ruff, pull; pyrefly, versioned push), each run is a child process of this script, so that
its peak RSS is its own: a ``Workspace`` on the unpacked folder with that one server, and one
``ws.diagnostics()`` of every file. Measured from before the workspace is made to the return:
the wall time, the client's CPU time (``time.process_time()``: this process only, not the
server's), and the server's CPU time (utime + stime of its process and any children, from
``/proc/<pid>/stat``, read before it shuts down; the pid from ``ws.running``). Then the
client's peak RSS (``ru_maxrss``), the files and diagnostics, and ``report.complete``.

Targets: the client's CPU time under 10% of the server's, and the client's peak RSS under
100 MiB. ``--profile`` prints the client's 25 costliest functions (cProfile, by own time;
the run is slower under it). ``--quick`` runs once per server on 12 small generated files,
with no download.

Run ``python benchmarks/bench_workspace_scale.py [--quick] [--runs N] [--server ID ...]
[--profile]``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

from adecore_lsp import Workspace

PACKAGE = "networkx"
VERSION = "3.3"
SDISTS = Path(__file__).resolve().parent.parent / "build" / "bench-sdists"
SERVERS = ("ruff", "pyrefly")
CPU_TARGET = 0.10
"""The client's CPU time over the server's."""
RSS_TARGET = 100 * 1024 * 1024
"""The client's peak RSS, in bytes."""
QUICK_FILES = 12
MODULE = (
    "import os\n\n\n"
    "def compute_{k}(value: int) -> str:\n"
    "    unused = {k}\n"
    "    return value + missing_{k}\n"
)


def servers_on_path() -> None:
    """Put the servers installed beside this Python on PATH, as an activated venv has them."""
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])


def code_base() -> Path:
    """The unpacked source distribution, downloaded and unpacked on first use."""
    folder = SDISTS / f"{PACKAGE}-{VERSION}"
    done = folder / ".unpacked"
    if done.exists():
        return folder
    archive = SDISTS / f"{PACKAGE}-{VERSION}.tar.gz"
    if not archive.exists():
        SDISTS.mkdir(parents=True, exist_ok=True)
        print(f"downloading the {PACKAGE} {VERSION} source distribution into {SDISTS}")
        subprocess.run(
            [
                *(sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"),
                *("--quiet", "--dest", str(SDISTS), f"{PACKAGE}=={VERSION}"),
            ],
            check=True,
        )
    with tarfile.open(archive) as tar:
        members = [
            member
            for member in tar.getmembers()
            if (member.isfile() or member.isdir())
            and not member.name.startswith("/")
            and ".." not in Path(member.name).parts
        ]
        if hasattr(tarfile, "data_filter"):  # 3.10.12 and later
            tar.extractall(SDISTS, members=members, filter="data")
        else:
            tar.extractall(SDISTS, members=members)
    done.touch()
    return folder


def small_project(folder: Path) -> Path:
    """``QUICK_FILES`` small modules with a few findings each, for ``--quick``."""
    (folder / "pyproject.toml").write_text("[project]\nname = 'quick'\n", encoding="utf-8")
    package = folder / "quick"
    package.mkdir()
    for k in range(QUICK_FILES):
        (package / f"module_{k}.py").write_text(MODULE.format(k=k), encoding="utf-8")
    return folder


def process_tree_cpu(pid: int) -> float:
    """User plus system CPU seconds of ``pid`` and its live descendants (/proc)."""
    children: dict[int, list[int]] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the name: state, ppid, ... utime is field 14 of the line, stime 15.
        children.setdefault(int(fields[1]), []).append(int(entry))
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        total += times.get(current, 0.0)
        todo.extend(children.get(current, []))
    return total


async def one_run(server: str, root: Path) -> dict[str, Any]:
    """One workspace with ``server`` over ``root``, one ``ws.diagnostics()``; the figures."""
    rss_start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    cpu_began = time.process_time()
    began = time.monotonic()
    async with Workspace(root, servers=[server]) as ws:
        report = await ws.diagnostics(timeout=600)
        wall = time.monotonic() - began
        client_cpu = time.process_time() - cpu_began
        pids = [status.pid for status in ws.running if status.pid is not None]
        server_cpu = sum(process_tree_cpu(pid) for pid in pids)
    return {
        "server": server,
        "files": len(report.files),
        "diagnostics": len(report.items),
        "complete": report.complete,
        "reason": report.reason,
        "incomplete": sum(not status.complete for status in report.files.values()),
        "wall": wall,
        "client_cpu": client_cpu,
        "server_cpu": server_cpu,
        "servers": len(pids),
        "rss_start": rss_start,
        "rss_peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }


def child(server: str, root: Path, profile: bool) -> int:
    """The child process: one run, its figures as one JSON line (the profile on stderr)."""
    servers_on_path()
    if not profile:
        result = asyncio.run(one_run(server, root))
    else:
        profiler = cProfile.Profile()
        result = profiler.runcall(asyncio.run, one_run(server, root))
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(25)
        print(text.getvalue(), file=sys.stderr)
    print(json.dumps(result))
    return 0


def run_child(server: str, root: Path, profile: bool) -> dict[str, Any]:
    """One run in a child process: its figures, with its profile under "profile"."""
    command = [sys.executable, __file__, "--child", server, str(root)]
    done = subprocess.run(
        [*command, *(["--profile"] if profile else [])],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the run with {server} failed:\n{done.stdout}{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    result["profile"] = done.stderr.strip() if profile else ""
    return result


def report_runs(results: list[dict[str, Any]]) -> list[str]:
    """Print a row per run and the verdicts of the server's median run."""
    mib = 1024 * 1024
    for r in results:
        ratio = f"{r['client_cpu'] / r['server_cpu']:.1%}" if r["server_cpu"] else "n/a"
        print(
            f"  {r['server']:8} {r['files']:6} {r['diagnostics']:7} {r['wall']:8.2f}"
            f" {r['client_cpu']:10.2f} {r['server_cpu']:10.2f} {ratio:>9}"
            f" {r['rss_peak'] / mib:8.1f} {r['rss_start'] / mib:8.1f}"
            f"  {r['complete']!s:5} {r['reason'] or ''}"
        )
    server = results[0]["server"]
    peak = max(r["rss_peak"] for r in results)
    measured = [r["client_cpu"] / r["server_cpu"] for r in results if r["server_cpu"]]
    if measured:
        ratio = statistics.median(measured)
        cpu_verdict = (
            f"{server}: client CPU / server CPU {ratio:.1%} (median of {len(measured)}),"
            f" target under {CPU_TARGET:.0%}: {'met' if ratio < CPU_TARGET else 'MISSED'}"
        )
    else:
        cpu_verdict = f"{server}: the server's CPU time was under a clock tick; no ratio"
    verdicts = [
        cpu_verdict,
        f"{server}: client peak RSS {peak / mib:.1f} MiB (max), target under"
        f" {RSS_TARGET / mib:g} MiB: {'met' if peak < RSS_TARGET else 'MISSED'}",
    ]
    if not all(r["complete"] for r in results):
        verdicts.append(f"{server}: a run was not complete")
    return verdicts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="12 generated files, one run")
    parser.add_argument("--runs", type=int, default=3, help="runs per server")
    parser.add_argument("--server", action="append", help="a server id (repeatable)")
    parser.add_argument("--profile", action="store_true", help="profile the client (cProfile)")
    parser.add_argument("--child", nargs=2, metavar=("SERVER", "ROOT"), help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        server, root = arguments.child
        return child(server, Path(root), arguments.profile)
    servers = arguments.server or list(SERVERS)
    runs = 1 if arguments.quick else arguments.runs
    with tempfile.TemporaryDirectory() as name:
        root = small_project(Path(name)) if arguments.quick else code_base()
        python_files = sum(1 for _ in root.rglob("*.py"))
        shown = "generated files" if arguments.quick else root.name
        print(f"ws.diagnostics() over {shown} ({python_files} .py files), {runs} runs per server")
        print(
            f"  {'server':8} {'files':>6} {'diags':>7} {'wall s':>8} {'client CPU':>10}"
            f" {'server CPU':>10} {'ratio':>9} {'peak RSS':>8} {'at start':>8}  complete"
        )
        print(f"  {'':32} {'s':>10} {'s':>10} {'':9} {'MiB':>8} {'MiB':>8}")
        verdicts: list[str] = []
        for server in servers:
            results = [run_child(server, root, arguments.profile) for _ in range(runs)]
            verdicts.extend(report_runs(results))
            for result in results:
                if result["profile"]:
                    print(f"  the client's costliest functions with {server}:")
                    print(result["profile"])
    for line in verdicts:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
