"""What a change broke, and what it costs to know: ``check --new-since`` and MCP ``edit``.

    python benchmarks/bench_changes.py [--quick] [--runs N] [--calls N] [--no-basedpyright]

1. ``check --new-since HEAD`` against a plain ``check`` of the same tree, in one run. The tree
   is networkx 3.3's sdist (650 Python files, fetched once into ``build/bench-sdists`` by
   ``bench_check_vs_cli.networkx``), copied into a temporary folder, made a git repository
   with one commit, then one file changed (``import sys, os`` added at its end, which ruff reports
   as unsorted imports under networkx's rules). Both commands run as whole processes
   (``python -m adecore_lsp check [--new-since HEAD] --server ruff --format json``), in pairs,
   the one that goes first alternating. Three settings:

   - ``--daemon off``: each command starts its servers (the new-since side also a twin
     workspace on a temporary copy of HEAD's committed files);
   - ``--daemon on``, warm: a daemon of this script's own (``ADECORE_LSP_RUNTIME_DIR`` in a
     temporary folder, stopped at the end) that has run both commands once before timing;
   - basedpyright, ``--daemon off``, on ``networkx/algorithms/flow`` (the workspace root
     below the repository's top; one file of it changed).

   The figures are medians of wall time and the median of the per-pair ratios
   new-since / plain. The target is at most 2.2x.

2. MCP ``edit`` on a warm workspace: the MCP server runs in this process, reached with the
   SDK's own client over its in-memory transport (``mcp.Client(server, mode="legacy")``, as
   ``bench_mcp.py``), on a copy of the sample project with a second module that calls
   ``greet``. Both files are opened (a ``diagnostics`` call), then ``edit`` of app.py
   alternates between two texts (one with an undefined name, one without). Every message
   with the language servers is stamped with ``time.monotonic()`` as the workspace traces it;
   per call, the figure is the answer at the client less the last diagnostics report read
   before it (a ``publishDiagnostics`` or the answer to a ``textDocument/diagnostic``). The
   target is the server's settle window (registry data) + 50 ms; median and p90 are printed,
   with ruff alone and with basedpyright alone.

``--quick`` makes a 30-file generated tree, one pair per setting, ruff only, and three edits.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench_check_vs_cli import networkx
from bench_daemon import daemon
from bench_mcp import reports_before
from bench_workspace import Tap, servers_on_path
from mcp import Client

from adecore_lsp.mcp.server import build
from adecore_lsp.mcp.state import Options
from adecore_lsp.workspace.servers.registry import Registry

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "sample_project"
CLI = [sys.executable, "-m", "adecore_lsp"]
TARGET_RATIO = 2.2
MARGIN = 0.050
CHANGED = "networkx/algorithms/flow/maxflow.py"
APPENDED = "\n\nimport sys, os\n"
CALLER = 'from app import greet\n\n\ndef welcome() -> str:\n    return greet("you")\n'
EDIT_TEXTS = ("    return mesage\n", "    return message\n")
"""The last line of app.py, in turn: broken, then fixed."""

QUICK_FILES = 30
QUICK_MODULE = '"""Module {k}."""\n\nimport sys\n\n\ndef f{k}(x: int) -> int:\n    return x + {k}\n'


def git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", *args],
        cwd=folder,
        check=True,
        capture_output=True,
    )


def repository(into: Path, quick: bool) -> tuple[Path, str]:
    """A git repository of the tree with one commit and one file changed since; its folder
    and the changed file's path."""
    tree = into / "tree"
    if quick:
        package = tree / "quick"
        package.mkdir(parents=True)
        (tree / "pyproject.toml").write_text("[project]\nname = 'quick'\n", encoding="utf-8")
        for k in range(QUICK_FILES):
            (package / f"module_{k}.py").write_text(QUICK_MODULE.format(k=k), encoding="utf-8")
        changed = "quick/module_0.py"
    else:
        shutil.copytree(networkx(), tree)
        changed = CHANGED
    git(tree, "init", "-q")
    git(tree, "add", "-A")
    git(tree, "commit", "-q", "-m", "base")
    with open(tree / changed, "a", encoding="utf-8") as file:
        file.write(APPENDED)
    return tree, changed


def run(command: Sequence[str], cwd: Path, env: dict[str, str]) -> tuple[float, dict[str, Any]]:
    """Wall seconds of one command and its JSON output; fails unless it ran to the end."""
    began = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, timeout=900)
    took = time.perf_counter() - began
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr!r}")
    output: dict[str, Any] = json.loads(done.stdout)
    if not output.get("complete"):
        raise SystemExit(f"{' '.join(command)}: not complete ({output.get('reason')})")
    return took, output


def paired(
    since: Sequence[str], plain: Sequence[str], cwd: Path, env: dict[str, str], runs: int
) -> tuple[list[float], list[float], dict[str, Any]]:
    """Wall times of ``runs`` pairs, the one that goes first alternating (one pair first,
    untimed, warms the caches); and the first new-since output."""
    _, shown = run(since, cwd, env)
    run(plain, cwd, env)
    mine: list[float] = []
    base: list[float] = []
    for turn in range(runs):
        if turn % 2 == 0:
            mine.append(run(since, cwd, env)[0])
            base.append(run(plain, cwd, env)[0])
        else:
            base.append(run(plain, cwd, env)[0])
            mine.append(run(since, cwd, env)[0])
    return mine, base, shown


def spread(values: Sequence[float]) -> str:
    return f"{min(values):.2f}-{max(values):.2f}"


def report_pairs(name: str, mine: list[float], base: list[float]) -> float:
    ratios = [m / b for m, b in zip(mine, base, strict=True)]
    ratio = statistics.median(ratios)
    verdict = "met" if ratio <= TARGET_RATIO else "MISSED"
    print(
        f"  {name:<34} new-since {statistics.median(mine):6.2f} s  plain "
        f"{statistics.median(base):6.2f} s  ratio {ratio:5.2f}x "
        f"(pairs {spread(ratios)})  at most {TARGET_RATIO}x {verdict}"
    )
    return ratio


def part_one(quick: bool, runs: int, with_basedpyright: bool) -> bool:
    env = {**os.environ}
    common = ["--format", "json", "--quiet", "--timeout", "600"]
    met = True
    with tempfile.TemporaryDirectory(prefix="adl-changes-") as folder:
        tree, changed = repository(Path(folder), quick)
        files = sum(1 for _ in tree.rglob("*.py"))
        print(
            f"(1) check --new-since HEAD against a plain check, {files} files, {changed} "
            f"changed; medians of {runs} paired runs (wall)"
        )
        ruff = ["check", "--server", "ruff", *common]
        for setting in ("off", "on"):
            since = [*CLI, "--daemon", setting, *ruff, "--new-since", "HEAD"]
            plain = [*CLI, "--daemon", setting, *ruff]
            if setting == "off":
                mine, base, shown = paired(since, plain, tree, env, runs)
            else:
                with daemon() as (daemon_env, _folder):
                    mine, base, shown = paired(since, plain, tree, daemon_env, runs)
            introduced = [d["path"] for d in shown["diagnostics"]]
            if set(introduced) != {changed}:
                raise SystemExit(f"new-since found {introduced}, not findings in {changed} alone")
            label = "ruff, --daemon off" if setting == "off" else "ruff, --daemon on (warm)"
            met = report_pairs(label, mine, base) <= TARGET_RATIO and met
        if with_basedpyright and not quick and shutil.which("basedpyright-langserver"):
            flow = tree / "networkx" / "algorithms" / "flow"
            pyright = ["check", "--server", "basedpyright", "--root", ".", *common]
            since = [*CLI, "--daemon", "off", *pyright, "--new-since", "HEAD"]
            plain = [*CLI, "--daemon", "off", *pyright]
            mine, base, _shown = paired(since, plain, flow, env, max(3, runs // 2))
            count = sum(1 for _ in flow.rglob("*.py"))
            ratio = report_pairs(f"basedpyright, flow ({count} files)", mine, base)
            met = ratio <= TARGET_RATIO and met
    return met


async def edits(servers: list[str], calls: int) -> tuple[list[float], list[float]]:
    """Per ``edit`` call: the answer less the last diagnostics report before it, and the
    whole call."""
    tap = Tap()
    late: list[float] = []
    whole: list[float] = []
    with tempfile.TemporaryDirectory(prefix="adl-edit-") as folder:
        root = Path(folder) / "sample_project"
        shutil.copytree(SAMPLE, root)
        (root / "caller.py").write_text(CALLER, encoding="utf-8")
        app = build(Options(root=root, servers=servers, trace=tap, log_level="ERROR"))
        async with Client(app, mode="legacy", cache=None) as client:
            first = await client.call_tool("diagnostics", {"paths": ["app.py", "caller.py"]})
            if first.is_error:
                raise SystemExit(f"diagnostics failed: {first.content}")
            for turn in range(calls + 1):
                old, new = EDIT_TEXTS[turn % 2], EDIT_TEXTS[(turn + 1) % 2]
                start = len(tap.lines)
                began = time.monotonic()
                result = await client.call_tool(
                    "edit", {"path": "app.py", "edits": [{"old": old, "new": new}]}
                )
                returned = time.monotonic()
                structured = result.structured_content or {}
                if result.is_error or not structured.get("complete"):
                    raise SystemExit(f"edit not final: {result.content}")
                # The fixed text resolves the undefined name, the broken one brings it back.
                said = structured.get("resolved" if turn % 2 == 0 else "introduced")
                if not said:
                    raise SystemExit(f"edit {turn} saw no change in findings: {structured}")
                if turn == 0:
                    continue  # the first edit opens what the edit path opens
                reports = reports_before(tap, start, returned)
                if not reports:
                    raise SystemExit("no report came for the edited text")
                late.append(returned - max(reports))
                whole.append(returned - began)
    return late, whole


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def part_two(quick: bool, calls: int, with_basedpyright: bool) -> bool:
    registry = Registry.default()
    servers = ["ruff"]
    if with_basedpyright and not quick and shutil.which("basedpyright-langserver"):
        servers.append("basedpyright")
    print(
        f"(2) edit on a warm workspace: the answer less the server's last diagnostics report, "
        f"{calls} calls"
    )
    met = True
    for server in servers:
        late, whole = asyncio.run(edits([server], calls))
        settle = registry.get(server).settle
        target = settle + MARGIN
        median, p90 = statistics.median(late), percentile(late, 0.9)
        verdict = "met" if p90 <= target else ("median met" if median <= target else "MISSED")
        print(
            f"  {server:<14} median {median * 1e3:6.1f} ms  p90 {p90 * 1e3:6.1f} ms  "
            f"max {max(late) * 1e3:6.1f} ms  (settle {settle * 1e3:.0f} ms + 50 ms: "
            f"{verdict}; under 50 ms alone: median "
            f"{'yes' if median <= MARGIN else 'no'})  whole call median "
            f"{statistics.median(whole) * 1e3:.0f} ms"
        )
        met = met and median <= target
    return met


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runs", type=int, default=7, help="paired runs per setting")
    parser.add_argument("--calls", type=int, default=30, help="edit calls per server")
    parser.add_argument("--no-basedpyright", action="store_true")
    parser.add_argument("--only", choices=("1", "2"), default=None)
    args = parser.parse_args()
    servers_on_path()
    if shutil.which("ruff") is None:
        raise SystemExit("ruff is not installed (bash scripts/test.sh installs it)")
    # The package's bytecode first: PYTHONDONTWRITEBYTECODE would have every command of (1)
    # compile the modules it imports again.
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "src")],
        check=True,
        capture_output=True,
    )
    runs = 1 if args.quick else args.runs
    calls = 3 if args.quick else args.calls
    met = True
    if args.only in (None, "1"):
        met = part_one(args.quick, runs, not args.no_basedpyright) and met
    if args.only in (None, "2"):
        met = part_two(args.quick, calls, not args.no_basedpyright) and met
    print("all targets met" if met else "some target missed")


if __name__ == "__main__":
    main()
