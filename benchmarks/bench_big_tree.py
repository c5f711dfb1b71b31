"""A check that takes longer than its timeout while the server works: textual with basedpyright.

    python benchmarks/bench_big_tree.py [--quick] [--runs N] [--timeout SECONDS]

The tree is PyPI's textual 8.2.8 sdist (968 Python files, no type checker configuration),
fetched once into a temporary folder. Each run checks it, in turns, with ``basedpyright
--outputjson`` in that folder and with ``check --server basedpyright`` (``--format json``,
then ``--format text``, which prints a batch of 100 files at a time), under the default
``--timeout`` (60 s) unless told. For each: whether the check is complete, its files, errors
and warnings beside the command line's, whether the findings are the same ones (path, line,
column, severity), and the wall and CPU time (the process and everything it started);
medians over the runs. ``--quick`` checks a generated package of 60 modules instead, with
``--timeout 10``: the script still runs, the figures mean little.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path

BENCH = Path(tempfile.gettempdir()) / "adecore-lsp-bench-big-tree"
BIN = Path(sys.executable).parent
REQUIREMENT = "textual==8.2.8"
PIP_DOWNLOAD = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q"]
CHECK = [sys.executable, "-m", "adecore_lsp", "check", "--daemon", "off", "--no-progress"]

Finding = tuple[str, int, int, str]
Findings = Counter[Finding]
"""Each finding's place and severity, counted (two findings may share a place)."""


def textual() -> Path:
    """The unpacked textual sdist (downloaded the first time)."""
    folder = BENCH / REQUIREMENT.replace("==", "-")
    if not (folder / "pyproject.toml").exists():
        BENCH.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [*PIP_DOWNLOAD, "--dest", str(BENCH), REQUIREMENT], check=True, capture_output=True
        )
        with tarfile.open(BENCH / f"{folder.name}.tar.gz") as tar:
            members = [m for m in tar.getmembers() if ".." not in Path(m.name).parts]
            if hasattr(tarfile, "data_filter"):
                tar.extractall(BENCH, members=members, filter="data")
            else:
                tar.extractall(BENCH, members=members)
    return folder


def generated(modules: int) -> Path:
    """A package of ``modules`` modules importing earlier ones, one type error each."""
    root = BENCH / f"generated-{modules}"
    (root / "pkg").mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[project]\nname = "generated"\nversion = "0"\n')
    (root / "pkg" / "__init__.py").write_text("")
    for index in range(modules):
        earlier = sorted({j for j in (index - 1, index // 2, index // 3) if 0 <= j < index})
        imports = "".join(f"from pkg.m{j} import f{j}\n" for j in earlier)
        uses = "".join(f"\n\ndef use{j}() -> int:\n    return len(f{j}(4))\n" for j in earlier)
        (root / "pkg" / f"m{index}.py").write_text(
            f"{imports}\n\ndef f{index}(x: int) -> str:\n    return str(x)\n\n\n"
            f"def g{index}() -> int:\n    return f{index}(3)\n{uses}"
        )
    return root


def environment() -> dict[str, str]:
    return dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", NO_COLOR="1")


def timed(argv: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Run ``argv``; its result, wall seconds and CPU seconds (with all it started)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=environment())
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done, wall, cpu


def theirs(root: Path) -> tuple[Findings, int, float, float]:
    done, wall, cpu = timed([str(BIN / "basedpyright"), "--outputjson"], root)
    document = json.loads(done.stdout)
    # A finding about a whole file (an import cycle) has no range on the command line; its
    # language server places it at 1:1.
    start = {"line": 0, "character": 0}
    found = Counter(
        (
            Path(d["file"]).relative_to(root).as_posix(),
            d.get("range", {"start": start})["start"]["line"] + 1,
            d.get("range", {"start": start})["start"]["character"] + 1,
            d["severity"],
        )
        for d in document["generalDiagnostics"]
        if d["severity"] in ("error", "warning")
    )
    return found, document["summary"]["filesAnalyzed"], wall, cpu


def ours_json(root: Path, timeout: list[str]) -> tuple[Findings, int, bool, float, float]:
    argv = [*CHECK, "--server", "basedpyright", "--format", "json", *timeout, "."]
    done, wall, cpu = timed(argv, root)
    document = json.loads(done.stdout)
    found = Counter(
        (d["path"], d["line"], d["column"], d["severity"])
        for d in document["diagnostics"]
        if d["severity"] in ("error", "warning")
    )
    return found, len(document["files"]), bool(document["complete"]), wall, cpu


def ours_text(root: Path, timeout: list[str]) -> tuple[str, int, float, float]:
    argv = [*CHECK, "--server", "basedpyright", *timeout, "."]
    done, wall, cpu = timed(argv, root)
    summary = done.stdout.splitlines()[-1] if done.stdout else ""
    return summary, done.returncode, wall, cpu


def counts(found: Findings) -> str:
    by: Counter[str] = Counter()
    for (*_, severity), count in found.items():
        by[severity] += count
    return f"{by['error']:,} errors, {by['warning']:,} warnings"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=None)
    args = parser.parse_args()
    root = generated(60) if args.quick else textual()
    timeout = ["--timeout", f"{args.timeout:g}"] if args.timeout is not None else []
    if args.quick and args.timeout is None:
        timeout = ["--timeout", "10"]
    said = " ".join(timeout) or "--timeout 60 (the default)"
    print(f"tree: {root.name}; check {said}; {args.runs} run(s), medians")
    walls: dict[str, list[float]] = {"theirs": [], "json": [], "text": []}
    cpus: dict[str, list[float]] = {"theirs": [], "json": [], "text": []}
    for _ in range(args.runs):
        their_found, their_files, wall, cpu = theirs(root)
        walls["theirs"].append(wall)
        cpus["theirs"].append(cpu)
        our_found, our_files, complete, wall, cpu = ours_json(root, timeout)
        walls["json"].append(wall)
        cpus["json"].append(cpu)
        summary, status, wall, cpu = ours_text(root, timeout)
        walls["text"].append(wall)
        cpus["text"].append(cpu)
    base = statistics.median(walls["theirs"])
    print(f"basedpyright --outputjson: {their_files:,} files, {counts(their_found)}")
    differ = (our_found - their_found).total() + (their_found - our_found).total()
    print(
        f"check --format json: complete={complete}, {our_files:,} files, {counts(our_found)}; "
        f"the same findings: {differ == 0}" + (f" ({differ} differ)" if differ else "")
    )
    print(f"check --format text: exit {status}; {summary}")
    print(f"{'':28}{'wall':>10}{'CPU':>10}{'wall ratio':>12}")
    for name, label in (
        ("theirs", "basedpyright --outputjson"),
        ("json", "check --format json"),
        ("text", "check (text, batches)"),
    ):
        wall = statistics.median(walls[name])
        cpu = statistics.median(cpus[name])
        print(f"{label:28}{wall:>9.1f}s{cpu:>9.1f}s{wall / base:>11.2f}x")


if __name__ == "__main__":
    main()
