"""The daemon against every command starting its servers afresh, as whole processes.

    python benchmarks/bench_daemon.py [hover|check|hold|all] [--quick] [--runs N]

All in one run of this script, on a daemon of its own (a runtime folder under ``/tmp``):

- **hover**: ``adecore-lsp hover src/flask/app.py#Flask/wsgi_app`` with basedpyright on
  flask 3.0.3 (24 files, its sdist from PyPI): through the warm daemon, with
  ``--daemon off`` (every call starting basedpyright), and the floor, the same hover from a
  script holding one ``sync.Workspace`` (the server's own time). Medians of N calls each,
  taken in turns. Targets: the whole command through the daemon at most 1/10 of
  ``--daemon off``; the daemon's time for the command at most 2x the floor (the whole
  command pays the interpreter's start and the client besides: the next figure).
- **client**: the client's own cost, the command line's wall time through the daemon less
  the daemon's time for the command (measured by a bare client of the socket in this
  script, from sending the command to its exit status), beside ``python -c pass``; and
  ``-X importtime`` of the client's path (what it imports, the slowest imports). Target: at
  most 60 ms.
- **check**: ``adecore-lsp check src --server ruff`` of flask through the warm daemon
  against ``ruff check src`` (with its cache, as people run it; ``--no-cache`` too), in
  pairs. Target: within 1.5x of ``ruff check``.
- **hold**: 20 workspaces (copies of flask's sources, ruff each) held by one daemon: the
  daemon's own RSS (servers aside) and the servers' together; then a daemon whose memory
  budget has room for a third of them, to see that the budget holds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "build" / "bench"
BIN = Path(sys.executable).parent
SCRIPT = BIN / "adecore-lsp"
CLI = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "adecore_lsp"]
"""The console script, as people run it."""
TARGET = "src/flask/app.py#Flask/wsgi_app"

FLOOR = """
import json, sys, time
from adecore_lsp.sync import Workspace

root, target, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
with Workspace(root, servers=["basedpyright"], timeout=120) as ws:
    ws.hover(target)  # the server started and warm
    times = []
    for _ in range(calls):
        began = time.perf_counter()
        ws.hover(target)
        times.append(time.perf_counter() - began)
print(json.dumps(times))
"""


def flask() -> Path:
    """flask 3.0.3's sdist, unpacked under build/bench (downloaded from PyPI once)."""
    folder = BENCH / "flask-3.0.3"
    if not (folder / "src" / "flask" / "app.py").exists():
        archive = BENCH / "flask-3.0.3.tar.gz"
        if not archive.exists():
            BENCH.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "--no-binary",
                    ":all:",
                    "--quiet",
                    "--dest",
                    str(BENCH),
                    "flask==3.0.3",
                ],
                check=True,
            )
        with tarfile.open(archive) as tar:
            members = [m for m in tar.getmembers() if ".." not in Path(m.name).parts]
            tar.extractall(BENCH, members=members, filter="data")
    return folder


def wall(command: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    """Wall seconds of one run; fails on a status other than 0 and 1."""
    began = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, timeout=600)
    took = time.perf_counter() - began
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr!r}")
    return took


@contextmanager
def daemon(*options: str) -> Iterator[tuple[dict[str, str], Path]]:
    """A daemon of this script's own: the environment that reaches it, and its folder."""
    base = Path(tempfile.mkdtemp(prefix="adl-bench-", dir="/tmp"))
    folder = base / "rt"
    env = {**os.environ, "ADECORE_LSP_RUNTIME_DIR": str(folder)}
    process = subprocess.Popen(
        [*CLI, "daemon", "run", *options],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not (folder / "daemon.sock").exists():
            if time.monotonic() > deadline or process.poll() is not None:
                raise SystemExit("the daemon did not start")
            time.sleep(0.05)
        yield env, folder
    finally:
        subprocess.run([*CLI, "daemon", "stop"], env=env, capture_output=True, timeout=60)
        process.wait(timeout=60)
        shutil.rmtree(base, ignore_errors=True)


def status(env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [*CLI, "daemon", "status", "--format", "json"], env=env, capture_output=True, check=True
    )
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def in_daemon(folder: Path, argv: Sequence[str], cwd: Path) -> float:
    """The daemon's time for one command: a bare client of the socket, from sending the
    command to its exit status (the interpreter's start and the command line's imports
    left out)."""
    from adecore_lsp.daemon.wire import VERSION

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(folder / "daemon.sock"))
        reader = sock.makefile("rb")
        sock.sendall(json.dumps({"hello": VERSION}).encode() + b"\n")
        reader.readline()
        request = {
            "run": {
                "argv": list(argv),
                "cwd": str(cwd),
                "env": dict(os.environ),
                "tty": {"out": False, "err": False},
            }
        }
        began = time.perf_counter()
        sock.sendall(json.dumps(request).encode() + b"\n")
        while True:
            line = reader.readline()
            if not line or "exit" in json.loads(line):
                return time.perf_counter() - began


def median_ms(values: Sequence[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms"


def hover(project: Path, runs: int) -> None:
    argv = ["hover", TARGET, "--server", "basedpyright"]
    with daemon() as (env, folder):
        wall([*CLI, "--daemon", "on", *argv], project, env)  # the server started, warm
        warm, cold = [], []
        for index in range(runs):
            warm.append(wall([*CLI, "--daemon", "on", *argv], project, env))
            if index < max(3, runs // 2):
                cold.append(wall([*CLI, "--daemon", "off", *argv], project, env))
        floor_run = subprocess.run(
            [sys.executable, "-c", FLOOR, str(project), TARGET, str(runs)],
            capture_output=True,
            check=True,
            timeout=600,
        )
        floor = json.loads(floor_run.stdout)
        inside = [in_daemon(folder, argv, project) for _ in range(runs)]
        bare = [wall([sys.executable, "-c", "pass"], project) for _ in range(runs)]
        importtime = subprocess.run(
            [
                sys.executable,
                "-X",
                "importtime",
                *(CLI if SCRIPT.exists() else CLI[1:]),
                "--daemon",
                "on",
                *argv,
            ],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
        ).stderr
    w, c, f = (statistics.median(x) for x in (warm, cold, floor))
    i, b = statistics.median(inside), statistics.median(bare)
    print(f"hover, basedpyright on flask 3.0.3 ({runs} calls each, medians):")
    print(
        f"  --daemon on, the whole command   {w * 1000:7.1f} ms   on/off {w / c:.3f}"
        " (target <= 0.1)"
    )
    print(f"  --daemon off, the whole command  {c * 1000:7.1f} ms")
    print(
        f"  the daemon's time for it         {i * 1000:7.1f} ms   daemon/floor {i / f:.2f}x"
        " (target <= 2x)"
    )
    print(
        f"  one sync.Workspace (the floor)   {f * 1000:7.1f} ms   whole command/floor {w / f:.1f}x"
    )
    print("client's own cost:")
    print(f"  the whole command less the daemon's time  {(w - i) * 1000:6.1f} ms (target <= 60 ms)")
    print(f"  python -c pass                            {b * 1000:6.1f} ms")
    report_imports(importtime)


def report_imports(importtime: str) -> None:
    """What ``-X importtime`` says of the client's path: how many modules, which of them
    are the package's or outside the standard library, and the slowest top-level ones."""
    rows = []
    for line in importtime.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if match:
            rows.append((int(match[2]), len(match[3]), match[4]))
    ours = sorted({name for _, _, name in rows if name.startswith("adecore_lsp")})
    stdlib = set(sys.stdlib_module_names)
    foreign = sorted(
        {name for _, _, name in rows if name.split(".")[0] not in stdlib | {"adecore_lsp"}}
    )
    top = sorted((row for row in rows if row[1] == 1), reverse=True)[:5]
    total = sum(cumulative for cumulative, depth, _ in rows if depth == 1)
    print(f"  -X importtime: {len(rows)} modules, {total / 1000:.1f} ms at top level")
    print(f"    the package's: {', '.join(ours)}")
    print(f"    outside the standard library: {', '.join(foreign) or 'none'}")
    print("    slowest: " + ", ".join(f"{name} {us / 1000:.1f} ms" for us, _, name in top))


def check(project: Path, runs: int) -> None:
    ruff = str(BIN / "ruff")
    argv = ["check", "src", "--server", "ruff", "--quiet"]
    ours = [*CLI, "--daemon", "on", *argv]
    with daemon() as (env, folder):
        wall(ours, project, env)
        wall([ruff, "check", "src"], project)
        mine, theirs, uncached, inside, bare = [], [], [], [], []
        for _ in range(runs):
            mine.append(wall(ours, project, env))
            theirs.append(wall([ruff, "check", "src"], project))
            uncached.append(wall([ruff, "check", "--no-cache", "src"], project))
            inside.append(in_daemon(folder, argv, project))
            bare.append(wall([sys.executable, "-c", "pass"], project))
    ratios = [a / b for a, b in zip(mine, theirs, strict=True)]
    print(f"check src with ruff, flask 3.0.3 ({runs} pairs, medians):")
    print(
        f"  --daemon on, the whole command   {median_ms(mine)}   /ruff check "
        f"{statistics.median(ratios):.2f}x (target <= 1.5x)"
    )
    print(
        f"  the daemon's time for it         {median_ms(inside)}   /ruff check "
        f"{statistics.median(inside) / statistics.median(theirs):.2f}x"
    )
    print(f"  ruff check                       {median_ms(theirs)}")
    print(f"  ruff check --no-cache            {median_ms(uncached)}")
    print(f"  python -c pass                   {median_ms(bare)}")


def rss_of(pid: int) -> int:
    with open(f"/proc/{pid}/status") as file:
        for line in file:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def hold(project: Path, count: int) -> None:
    base = Path(tempfile.mkdtemp(prefix="adl-roots-", dir="/tmp"))
    try:
        roots = []
        for index in range(count):
            root = base / f"root{index:02}"
            shutil.copytree(project / "src", root / "src")
            (root / "pyproject.toml").write_text('[tool.adecore-lsp]\nservers = ["ruff"]\n')
            roots.append(root)
        with daemon() as (env, _folder):
            for root in roots:
                wall([*CLI, "check", "--quiet"], root, env)
            held = status(env)
            own = rss_of(held["pid"])
            servers = held["rss_bytes"]
            print(f"{count} workspaces held (ruff each, flask's sources):")
            print(
                f"  workspaces {len(held['workspaces'])}; the daemon itself "
                f"{own / 2**20:.0f} MiB; the servers together {servers / 2**20:.0f} MiB "
                f"({servers / max(1, len(held['workspaces'])) / 2**20:.0f} MiB each)"
            )
        budget = max(1, servers // 3 // 2**20)
        with daemon("--memory-budget", str(budget)) as (env, _folder):
            peak = 0
            for root in roots:
                wall([*CLI, "check", "--quiet"], root, env)
                peak = max(peak, status(env)["rss_bytes"])
            after = status(env)
            print(
                f"  with a budget of {budget} MiB: {len(after['workspaces'])} workspaces kept, "
                f"the servers {after['rss_bytes'] / 2**20:.0f} MiB after each command at most "
                f"{peak / 2**20:.0f} MiB; the budget "
                f"{'holds' if peak <= budget * 2**20 else 'is passed'}"
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "workload", nargs="?", default="all", choices=("hover", "check", "hold", "all")
    )
    parser.add_argument("--quick", action="store_true", help="few runs, 3 workspaces")
    parser.add_argument("--runs", type=int, default=None)
    args = parser.parse_args()
    runs = args.runs or (3 if args.quick else 20)
    os.environ["PATH"] = os.pathsep.join([str(BIN), os.environ.get("PATH", "")])
    project = flask()
    # The package's bytecode, as an installed package has it (an editable install under
    # PYTHONDONTWRITEBYTECODE would compile every module on every start).
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "src")],
        check=True,
        capture_output=True,
    )
    if args.workload in ("hover", "all"):
        hover(project, runs)
    if args.workload in ("check", "all"):
        check(project, runs)
    if args.workload in ("hold", "all"):
        hold(project, 3 if args.quick else 20)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
