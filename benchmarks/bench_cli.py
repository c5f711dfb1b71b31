"""The command line's start and its cost over the workspace API, as whole processes.

    python benchmarks/bench_cli.py [--quick] [--runs N]

Three figures, each the median of paired runs (A B A B ...) in one run of this script:

1. ``adecore-lsp --version`` against ``python -c pass`` (the interpreter's own start); the
   target is under 150 ms.
2. ``adecore-lsp check app.py`` with ruff on the sample project, beside the server's own
   share: a bare process that starts ``ruff server``, does the handshake, pulls the file's
   diagnostics and shuts it down with the session layer alone. The target is under 400 ms.
3. ``adecore-lsp check`` (text, printed batch by batch) of a 500+ file code base
   (networkx 3.3, the workspace benchmark's) against a script that makes the same
   ``Workspace`` and calls ``diagnostics()``: the target is within 1.2x. The command's
   peak RSS is reported too.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "sample_project"
BIN = Path(sys.executable).parent
CLI = [sys.executable, "-m", "adecore_lsp"]

BARE_SESSION = """
import asyncio, sys
from pathlib import Path
from adecore_lsp import LspSession, path_to_uri, spawn_server

async def main() -> None:
    root = Path(sys.argv[1])
    app = root / "app.py"
    async with (
        await spawn_server([sys.argv[2], "server"], cwd=root) as server,
        LspSession(server.transport, root_uri=path_to_uri(root), pull_diagnostics=True) as session,
    ):
        uri = path_to_uri(app)
        session.open_document(uri, "python", app.read_text(encoding="utf-8"))
        await session.wait_for_capability("textDocument/diagnostic")
        await session.document_diagnostics(uri)

asyncio.run(main())
"""

API_CHECK = """
import asyncio, sys
from adecore_lsp import Workspace

async def main() -> None:
    async with Workspace(sys.argv[1], servers=["ruff"]) as ws:
        report = await ws.diagnostics(timeout=120)
        assert report.complete, report.reason

asyncio.run(main())
"""


def timed(command: list[str], cwd: Path) -> tuple[float, int]:
    """Wall seconds of one run of ``command`` and its peak RSS in bytes (children's)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    began = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, check=False, timeout=600)
    elapsed = time.perf_counter() - began
    if result.returncode not in (0, 1):
        raise SystemExit(f"{command} failed ({result.returncode}): {result.stderr.decode()}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(peak, before) * 1024


def paired(a: list[str], b: list[str], cwd: Path, runs: int) -> tuple[float, float, float]:
    """Median wall of ``a``, of ``b``, and of the pair ratios a/b, after one warm-up each."""
    timed(a, cwd)
    timed(b, cwd)
    first, second, ratios = [], [], []
    for _ in range(runs):
        x, _peak = timed(a, cwd)
        y, _peak = timed(b, cwd)
        first.append(x)
        second.append(y)
        ratios.append(x / y)
    return statistics.median(first), statistics.median(second), statistics.median(ratios)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="few runs, no 500-file code base")
    parser.add_argument("--runs", type=int, default=None)
    args = parser.parse_args()
    runs = args.runs or (3 if args.quick else 11)
    os.environ["PATH"] = os.pathsep.join([str(BIN), os.environ.get("PATH", "")])
    ruff = str(BIN / "ruff")

    version, bare, ratio = paired([*CLI, "--version"], [sys.executable, "-c", "pass"], ROOT, runs)
    print(
        f"(1) adecore-lsp --version: {version * 1000:.0f} ms median "
        f"(python -c pass {bare * 1000:.0f} ms; ratio {ratio:.2f}x); target under 150 ms"
    )

    check = [*CLI, "check", "app.py", "--quiet"]
    server = [sys.executable, "-c", BARE_SESSION, str(SAMPLE), ruff]
    cli, own, ratio = paired(check, server, SAMPLE, runs)
    print(
        f"(2) adecore-lsp check app.py (ruff): {cli * 1000:.0f} ms median; the server's own "
        f"share (a bare session: start, handshake, one pull, shutdown) {own * 1000:.0f} ms; "
        f"ratio {ratio:.2f}x; target under 400 ms"
    )

    if args.quick:
        return 0
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_workspace_scale import code_base

    base = code_base()
    files = sum(1 for _ in base.rglob("*.py"))
    whole = [*CLI, "check", "--server", "ruff", "--quiet", "--timeout", "120"]
    api = [sys.executable, "-c", API_CHECK, str(base)]
    cli, own, ratio = paired(whole, api, base, max(3, runs // 3))
    _wall, peak = timed(whole, base)
    print(
        f"(3) adecore-lsp check of {base.name} ({files} .py files, ruff): {cli:.2f} s median, "
        f"the workspace API {own:.2f} s, ratio {ratio:.2f}x (target within 1.2x); "
        f"peak RSS of the runs so far {peak / 2**20:.0f} MiB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
