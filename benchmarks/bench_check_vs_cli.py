"""``adecore-lsp check`` against each server's own command line, on real trees, in one run.

    python benchmarks/bench_check_vs_cli.py [--quick] [--runs N] [--only ID,...]

The trees are real code nobody here wrote, fetched once into ``build/bench`` (PyPI's
networkx 3.3 sdist, npm's @tanstack/query-core 5.59.0, PyPI's lz4 4.3.3 sdist):

| server | tree | its own command line |
| --- | --- | --- |
| ruff | networkx (650 files) | ``ruff check --no-cache`` |
| pyrefly | networkx/algorithms/flow | ``pyrefly check`` |
| basedpyright | networkx/algorithms/flow | ``basedpyright`` |
| tsc (TypeScript 7) | query-core/src | ``tsc -p . --noEmit`` (the native binary) |
| typescript-language-server | query-core/src | ``tsc -p . --noEmit`` (TypeScript 5) |
| clangd | lz4's C library (8 files) | ``clangd --check=FILE`` for each file |

Each pair runs in turns (ours, theirs, ours, ...); the figures are medians of wall and CPU
time (the process and everything it started). Then the fixed cost of one ``check`` with
ruff is taken apart: the interpreter's start, the imports, the server's start and handshake
(a bare session that asks nothing), and the per-file work of the 650-file check beside
ruff's own per-file CPU, and the per-file CPU of the client alone beside ruff's as its server.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "build" / "bench"
NPM = ROOT / "build" / "servers" / "npm" / "node_modules"
BIN = Path(sys.executable).parent
CLI = [sys.executable, "-m", "adecore_lsp"]
TSCONFIG = {
    "compilerOptions": {
        "strict": True,
        "target": "ES2022",
        "module": "ESNext",
        "moduleResolution": "bundler",
        "lib": ["ES2022", "DOM"],
        "noEmit": True,
        "skipLibCheck": True,
    },
    "include": ["src"],
    "exclude": ["src/__tests__"],
}

BARE_START = """
import asyncio, sys
from pathlib import Path
from adecore_lsp import LspSession, path_to_uri, spawn_server

async def main() -> None:
    root = Path(sys.argv[1])
    async with (
        await spawn_server([sys.argv[2], "server"], cwd=root) as server,
        LspSession(server.transport, root_uri=path_to_uri(root)) as session,
    ):
        pass

asyncio.run(main())
"""

SPLIT = """
import resource, runpy, sys
sys.argv = ["adecore-lsp", *sys.argv[1:]]
try:
    runpy.run_module("adecore_lsp", run_name="__main__")
    code = 0
except SystemExit as exit:
    code = exit.code
usage = resource.getrusage(resource.RUSAGE_SELF)
sys.stderr.write(f"\\nclient-cpu {usage.ru_utime + usage.ru_stime}\\n")
raise SystemExit(code)
"""
"""The command line, reporting its own CPU time apart from its servers'."""

IMPORTS = (
    "import adecore_lsp.cli.local, adecore_lsp.cli.executor, adecore_lsp.cli.check, "
    "adecore_lsp.workspace.workspace"
)
SESSION_IMPORTS = "import asyncio, adecore_lsp.session, adecore_lsp.transports.process"


def _download(command: Sequence[str], into: Path) -> None:
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run(command, cwd=into, check=True, capture_output=True)


def _unpack(archive: Path, into: Path) -> None:
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if ".." not in Path(m.name).parts]
        if hasattr(tarfile, "data_filter"):
            tar.extractall(into, members=members, filter="data")
        else:
            tar.extractall(into, members=members)


def networkx() -> Path:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_workspace_scale import code_base

    return code_base()


def query_core() -> Path:
    folder = BENCH / "query-core"
    if not (folder / "tsconfig.json").exists():
        archive = BENCH / "tanstack-query-core-5.59.0.tgz"
        if not archive.exists():
            _download(["npm", "pack", "@tanstack/query-core@5.59.0", "--silent"], BENCH)
        _unpack(archive, BENCH)
        if folder.exists():
            shutil.rmtree(folder)
        (BENCH / "package").rename(folder)
        # The tests need vitest's types, which the package does not bring: the library's
        # own sources are the tree both sides check.
        shutil.rmtree(folder / "src" / "__tests__", ignore_errors=True)
        (folder / "tsconfig.json").write_text(json.dumps(TSCONFIG, indent=2) + "\n")
    return folder


def lz4() -> Path:
    folder = BENCH / "lz4-4.3.3" / "lz4libs"
    if not (folder / "compile_flags.txt").exists():
        archive = BENCH / "lz4-4.3.3.tar.gz"
        if not archive.exists():
            _download(
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
                    "lz4==4.3.3",
                ],
                BENCH,
            )
        _unpack(archive, BENCH)
        (folder / "compile_flags.txt").write_text("-xc\n-std=c99\n-I.\n")
    return folder


def run_timed(command: Sequence[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one run (CPU of the process and all it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def run_split(command: Sequence[str], cwd: Path) -> tuple[float, float]:
    """CPU seconds of one run of the command line (``command`` its arguments): the client's
    own, and its servers' (everything it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-c", SPLIT, *command],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    client = float(done.stderr.rsplit("client-cpu ", 1)[1].split()[0])
    return client, total - client


def paired(
    ours: Sequence[str], theirs: Sequence[Sequence[str]], cwd: Path, runs: int
) -> tuple[float, float, float, float]:
    """Medians (our wall, our CPU, their wall, their CPU); ``theirs`` may be several
    commands run one after the other (clangd --check, a file at a time)."""
    mine: list[tuple[float, float]] = []
    other: list[tuple[float, float]] = []
    run_timed(ours, cwd)  # warm the caches once
    for _ in range(runs):
        mine.append(run_timed(ours, cwd))
        wall = cpu = 0.0
        for command in theirs:
            w, c = run_timed(command, cwd)
            wall, cpu = wall + w, cpu + c
        other.append((wall, cpu))
    return (
        statistics.median(w for w, _ in mine),
        statistics.median(c for _, c in mine),
        statistics.median(w for w, _ in other),
        statistics.median(c for _, c in other),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run, ruff only")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default=None, help="server ids, comma-separated")
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    os.environ["PATH"] = os.pathsep.join([str(BIN), str(NPM / ".bin"), os.environ["PATH"]])
    nx = networkx()
    flow = nx / "networkx" / "algorithms" / "flow"
    ts7 = NPM / "@typescript" / "typescript-linux-x64" / "lib" / "tsc"
    quiet = ["--quiet", "--timeout", "300", "--format", "json"]
    cases: list[tuple[str, Path, list[str], list[list[str]]]] = [
        (
            "ruff",
            nx,
            [*CLI, "check", "--server", "ruff", *quiet],
            [["ruff", "check", "--no-cache", "--output-format", "concise", "."]],
        ),
    ]
    if not args.quick:
        core, c_lib = query_core(), lz4()
        cases += [
            (
                "pyrefly",
                flow,
                [*CLI, "check", "--server", "pyrefly", *quiet],
                [["pyrefly", "check", "."]],
            ),
            (
                "basedpyright",
                flow,
                [*CLI, "check", "--server", "basedpyright", *quiet],
                [["basedpyright", "."]],
            ),
            (
                "tsc",
                core,
                [*CLI, "check", "--server", "tsc", "src", *quiet],
                [[str(ts7), "-p", ".", "--noEmit"]],
            ),
            (
                "typescript-language-server",
                core,
                [*CLI, "check", "--server", "typescript-language-server", "src", *quiet],
                [["tsc", "-p", ".", "--noEmit"]],
            ),
            (
                "clangd",
                c_lib,
                [*CLI, "check", "--server", "clangd", *quiet],
                [
                    ["clangd", f"--check={name}"]
                    for name in sorted(p.name for p in c_lib.glob("*.c"))
                ],
            ),
        ]
    wanted = set(args.only.split(",")) if args.only else None
    print(f"check against each server's own command line, median of {runs} paired runs")
    for server, tree, ours, theirs in cases:
        if wanted is not None and server not in wanted:
            continue
        wall, cpu, own_wall, own_cpu = paired(ours, theirs, tree, runs)
        print(
            f"  {server:<28} {tree.name:<14} ours {wall:6.2f} s ({cpu:6.2f} s CPU)  "
            f"its own {own_wall:6.2f} s ({own_cpu:6.2f} s CPU)  ratio {wall / own_wall:5.2f}x"
        )
    if wanted is not None and "ruff" not in wanted:
        return 0
    # The fixed cost of one check with ruff, taken apart, and the per-file work.
    sample = ROOT / "examples" / "sample_project"
    ruff = str(BIN / "ruff")
    times = max(3, runs)

    def median_wall(command: list[str]) -> float:
        return statistics.median(run_timed(command, sample)[0] for _ in range(times))

    interpreter = median_wall([sys.executable, "-c", "pass"])
    imports = median_wall([sys.executable, "-c", IMPORTS])
    session_imports = median_wall([sys.executable, "-c", SESSION_IMPORTS])
    start = median_wall([sys.executable, "-c", BARE_START, str(sample), ruff])
    one, one_cpu, own_one, own_one_cpu = paired(
        [*CLI, "check", "app.py", "--server", "ruff", *quiet],
        [[ruff, "check", "--no-cache", "app.py"]],
        sample,
        times,
    )
    many = sum(1 for _ in nx.rglob("*.py"))
    _whole, whole_cpu, _own_whole, own_whole_cpu = paired(
        [*CLI, "check", "--server", "ruff", *quiet],
        [["ruff", "check", "--no-cache", "--output-format", "concise", "."]],
        nx,
        max(1, runs // 2),
    )
    per_file = (whole_cpu - one_cpu) / (many - 1)
    own_per_file = (own_whole_cpu - own_one_cpu) / (many - 1)
    # The same per-file work taken apart: the client's own CPU, and ruff's as a server.
    check_one = ["check", "app.py", "--server", "ruff", *quiet]
    check_all = ["check", "--server", "ruff", *quiet]
    run_split(check_all, nx)  # warm the caches once
    ones = [run_split(check_one, sample) for _ in range(times)]
    alls = [run_split(check_all, nx) for _ in range(times)]
    client_per_file = (
        statistics.median(c for c, _ in alls) - statistics.median(c for c, _ in ones)
    ) / (many - 1)
    server_per_file = (
        statistics.median(s for _, s in alls) - statistics.median(s for _, s in ones)
    ) / (many - 1)
    print("the fixed cost of one check with ruff (sample_project/app.py), medians:")
    print(f"  the interpreter's start (python -c pass)   {interpreter * 1e3:6.0f} ms")
    print(f"  the imports of the command line            {(imports - interpreter) * 1e3:6.0f} ms")
    print(f"  ruff's start and handshake (bare session)  {(start - session_imports) * 1e3:6.0f} ms")
    print(f"  the whole check of one file                {one * 1e3:6.0f} ms")
    print(f"  ruff check of the same file                {own_one * 1e3:6.0f} ms")
    print(
        f"per-file CPU over {many} files (server and client together): ours "
        f"{per_file * 1e3:.2f} ms, ruff's own command line {own_per_file * 1e3:.2f} ms"
    )
    both = client_per_file + server_per_file
    print(
        f"  taken apart: the client {client_per_file * 1e3:.3f} ms, ruff as a server "
        f"{server_per_file * 1e3:.3f} ms; client and server / the server alone "
        f"{both / server_per_file:.2f}x (target <= 1.5x), / ruff's command line "
        f"{both / own_per_file:.2f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
