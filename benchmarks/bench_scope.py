"""``adecore-lsp check`` of real projects whose configuration names what they check, against
each checker's own command line: the files and findings of both, and the time.

    python benchmarks/bench_scope.py [--only click,flask,werkzeug] [--servers basedpyright,pyrefly]

The trees are PyPI sdists fetched once into a temporary folder (pallets' click 8.5.1, flask
3.1.3 and werkzeug 3.1.9, whose ``[tool.pyright] include`` names ``src`` and, for click and
flask, a typing-test folder; pyrefly reads the same folders from ``[tool.mypy] files`` in
place of a configuration of its own). For each tree and server: the findings (errors and
warnings) and files of the command line (``basedpyright --outputjson``, ``pyrefly check
--output-format json``), of ``check --server ID --format json``, whether the findings are
the same, and the wall time of each. With ``--before PATH`` (a ``src`` folder of another
version of the library), the same check run from it is shown too.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(tempfile.gettempdir()) / "adecore-lsp-bench-scope"
"""Outside this repository: pyrefly reads the ``.gitignore`` of the folders above a project,
and this repository's ignores ``build/`` (its command line would check nothing there)."""
BIN = Path(sys.executable).parent
TREES = {"click": "click==8.5.1", "flask": "flask==3.1.3", "werkzeug": "werkzeug==3.1.9"}

PIP_DOWNLOAD = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q"]
CHECK = [sys.executable, "-m", "adecore_lsp", "check"]

Finding = tuple[str, int, int]


def tree(name: str) -> Path:
    """The unpacked sdist of ``name`` (downloaded the first time)."""
    requirement = TREES[name]
    folder = BENCH / requirement.replace("==", "-")
    if not (folder / "pyproject.toml").exists():
        BENCH.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [*PIP_DOWNLOAD, "--dest", str(BENCH), requirement],
            check=True,
            capture_output=True,
        )
        archive = BENCH / f"{folder.name}.tar.gz"
        with tarfile.open(archive) as tar:
            members = [m for m in tar.getmembers() if ".." not in Path(m.name).parts]
            if hasattr(tarfile, "data_filter"):
                tar.extractall(BENCH, members=members, filter="data")
            else:
                tar.extractall(BENCH, members=members)
    return folder


def environment(pythonpath: str | None = None) -> dict[str, str]:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", NO_COLOR="1")
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return env


def theirs(server: str, root: Path) -> tuple[set[Finding], int | None, float]:
    """The command line's findings, files (when it says) and wall seconds."""
    began = time.perf_counter()
    if server == "basedpyright":
        done = subprocess.run(
            [BIN / "basedpyright", "--outputjson"],
            cwd=root,
            capture_output=True,
            text=True,
            env=environment(),
        )
        document = json.loads(done.stdout)
        found = {
            (
                Path(d["file"]).relative_to(root).as_posix(),
                d["range"]["start"]["line"] + 1,
                d["range"]["start"]["character"] + 1,
            )
            for d in document["generalDiagnostics"]
            if d["severity"] in ("error", "warning")
        }
        return found, document["summary"]["filesAnalyzed"], time.perf_counter() - began
    done = subprocess.run(
        [BIN / "pyrefly", "check", "--output-format", "json"],
        cwd=root,
        capture_output=True,
        text=True,
        env=environment(),
    )
    errors = json.loads(done.stdout or "{}").get("errors", [])
    found = {
        (d["path"], d["line"], d["column"])
        for d in errors
        if d.get("severity", "error") in ("error", "warn")
    }
    return found, None, time.perf_counter() - began


def ours(server: str, root: Path, pythonpath: str | None = None) -> tuple[set[Finding], int, float]:
    """``check``'s findings (errors and warnings), files and wall seconds."""
    began = time.perf_counter()
    done = subprocess.run(
        [*CHECK, "--server", server, "--format", "json", "--no-progress", "--timeout", "600"],
        cwd=root,
        capture_output=True,
        text=True,
        env=environment(pythonpath),
    )
    document = json.loads(done.stdout)
    found = {
        (d["path"], d["line"], d["column"])
        for d in document["diagnostics"]
        if d["severity"] in ("error", "warning")
    }
    return found, len(document["files"]), time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(TREES))
    parser.add_argument("--servers", default="basedpyright,pyrefly")
    parser.add_argument("--before", help="a src folder of another version of the library")
    args = parser.parse_args()
    header = f"{'tree':<10} {'server':<13} {'CLI':>16} {'check':>16} {'same':>5}"
    header += f" {'CLI s':>6} {'check s':>8}"
    if args.before:
        header += f" {'before':>16}"
    print(header)
    for name in args.only.split(","):
        root = tree(name)
        for server in args.servers.split(","):
            cli_found, cli_files, cli_wall = theirs(server, root)
            found, files, wall = ours(server, root)
            cli = f"{len(cli_found)} in {cli_files if cli_files is not None else '?'}"
            line = f"{name:<10} {server:<13} {cli:>16} {f'{len(found)} in {files}':>16}"
            line += f" {'yes' if found == cli_found else 'no':>5} {cli_wall:6.1f} {wall:8.1f}"
            if args.before:
                before, before_files, _wall = ours(server, root, args.before)
                line += f" {f'{len(before)} in {before_files}':>16}"
            print(line, flush=True)
            if found != cli_found:
                extra = sorted(found - cli_found)[:3]
                missing = sorted(cli_found - found)[:3]
                print(f"{'':<24} only check: {extra}; only the CLI: {missing}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
