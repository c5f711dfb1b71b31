"""``check`` of notebooks against the same code as ``.py`` files, in one run.

    python benchmarks/bench_notebooks.py [--quick] [--runs N]

Two trees are generated side by side in a temporary folder: 50 notebooks of 20 code cells
(each cell a small function with one unused import, so that every notebook has findings in
many cells), and 50 ``.py`` files holding the same code, the cells one after another. Both
are checked with ruff through the same path, as whole processes
(``python -m adecore_lsp check --server ruff --format json``), in pairs, the one that goes
first alternating; the figure is the median of the per-pair ratios notebooks / files (wall
time), with the medians of each. The target is at most 1.5x. A second figure times the
notebook model alone (parse, cell URIs, joined document, placing every finding) per notebook,
to show it grows with the cells, not with the findings.

``--quick``: 5 notebooks of 4 cells and one pair, for the smoke test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLI = [sys.executable, "-m", "adecore_lsp"]
CONFIG = '[tool.adecore-lsp]\nservers = ["ruff"]\n'


def cell_code(notebook: int, cell: int) -> str:
    return (
        f"import os\n\n\ndef f_{notebook}_{cell}(value: int) -> int:\n"
        f"    total = value * {cell + 1}\n    return total + {notebook}\n"
    )


def make_trees(base: Path, notebooks: int, cells: int) -> tuple[Path, Path]:
    """The notebook tree and the file tree, with the same code."""
    nb_root, py_root = base / "notebooks", base / "files"
    for root in (nb_root, py_root):
        root.mkdir(parents=True)
        (root / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    for number in range(notebooks):
        sources = [cell_code(number, cell) for cell in range(cells)]
        document = {
            "cells": [
                {
                    "cell_type": "code",
                    "execution_count": None,
                    "metadata": {},
                    "outputs": [],
                    "source": source.splitlines(keepends=True),
                }
                for source in sources
            ],
            "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
            "nbformat": 4,
            "nbformat_minor": 4,
        }
        (nb_root / f"nb_{number}.ipynb").write_text(json.dumps(document, indent=1), "utf-8")
        (py_root / f"mod_{number}.py").write_text("\n\n".join(sources), encoding="utf-8")
    return nb_root, py_root


def check(root: Path) -> tuple[float, int]:
    """The wall time of one ``check`` of ``root``, and how many findings it printed."""
    began = time.perf_counter()
    done = subprocess.run(
        [*CLI, "check", "--server", "ruff", "--format", "json", "--quiet"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    took = time.perf_counter() - began
    if done.returncode not in (0, 1):
        raise SystemExit(f"check of {root} failed ({done.returncode}):\n{done.stderr}")
    return took, len(json.loads(done.stdout)["diagnostics"])


def model_cost(root: Path) -> float:
    """Seconds per notebook for the model alone: parse, cell URIs, joined document, and the
    places of 20 findings per cell."""
    from adecore_lsp.protocol.documents.notebooks import join_code_cells, parse_notebook

    files = sorted(root.glob("*.ipynb"))
    began = time.perf_counter()
    for path in files:
        notebook = parse_notebook(path.read_text(encoding="utf-8"))
        uri = path.as_uri()
        for cell in notebook.code_cells:
            notebook.cell_uri(uri, cell.number)
        joined = join_code_cells(notebook)
        for line in range(len(joined.line_cells)):
            for _finding in range(20):
                joined.to_cell(line, 4)
    return (time.perf_counter() - began) / max(1, len(files))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runs", type=int, default=7, help="paired runs")
    args = parser.parse_args()
    notebooks, cells, runs = (5, 4, 1) if args.quick else (50, 20, args.runs)
    with tempfile.TemporaryDirectory(prefix="bench-notebooks-") as folder:
        nb_root, py_root = make_trees(Path(folder), notebooks, cells)
        check(nb_root)  # warm the file system and the bytecode
        check(py_root)
        mine: list[float] = []
        base: list[float] = []
        ratios: list[float] = []
        counts = (0, 0)
        for run in range(runs):
            if run % 2:
                (b, nb_count), (a, py_count) = check(py_root), check(nb_root)
            else:
                (a, nb_count), (b, py_count) = check(nb_root), check(py_root)
            mine.append(a)
            base.append(b)
            ratios.append(a / b)
            counts = (nb_count, py_count)
        ratio = statistics.median(ratios)
        print(
            f"check of {notebooks} notebooks of {cells} cells against the same code as "
            f"{notebooks} .py files, ruff, {runs} pairs (findings: {counts[0]} / {counts[1]})"
        )
        print(
            f"  notebooks {statistics.median(mine):6.2f} s  files {statistics.median(base):6.2f} s"
            f"  ratio {ratio:5.2f}x (pairs {min(ratios):.2f}-{max(ratios):.2f})"
            f"  at most 1.5x {'met' if ratio <= 1.5 else 'NOT met'}"
        )
        print(f"  the notebook model alone: {model_cost(nb_root) * 1e3:.2f} ms per notebook")


if __name__ == "__main__":
    main()
