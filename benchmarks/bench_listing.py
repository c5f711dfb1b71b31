"""What the link check costs a listing of the root and the first read of each file.

    python benchmarks/bench_listing.py [--files 5000] [--repeat 15]

A generated tree of ``--files`` Python files in folders of 50 (a git repository, then the
same tree without ``.git``, so both listings run), listed by ``root_files`` as it is (every
file whose real path lies outside the root left out) against the same listing without the
check, in the same run: git's listing and ``_files``'s walk, taken as they were before. Then
``confined`` of every file (one ``realpath`` each, what the first read of a file adds)
against the listing itself. Best of ``--repeat`` runs by turns; ratios to the listing
without the check.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from adecore_lsp.workspace.disk import git
from adecore_lsp.workspace.disk import listing as files


def make_tree(root: Path, count: int) -> None:
    for number in range(count):
        folder = root / f"pkg{number // 50}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"m{number}.py").write_text(f"value = {number}\n")


def wanted(path: Path) -> bool:
    return path.suffix == ".py"


def unchecked(root: Path) -> list[Path]:
    """The listing as it was before the link check: git's, else the walk."""
    if (root / ".git").exists():
        listing = ("ls-files", "-z", "--cached", "--others", "--exclude-standard")
        names = git.run(root, *listing, timeout=30).decode("utf-8", "surrogateescape")
        listed = [path for name in names.split("\0") if name and (path := root / name).is_file()]
        return sorted(
            path
            for path in listed
            if path.is_relative_to(root)
            and not files.SKIPPED_FOLDERS.intersection(path.relative_to(root).parts[:-1])
            and wanted(path)
        )
    found: list[Path] = []

    def take(entry: os.DirEntry[str]) -> None:
        path = Path(entry.path)
        if wanted(path):
            found.append(path)

    files._files(
        os.fspath(root), files._root_rules(os.fspath(root)), files._skipped_folder, take, None
    )
    return sorted(found)


def best(one: Callable[[], object], other: Callable[[], object], repeat: int) -> list[float]:
    """The best time of each of two works, run by turns (a load that comes and goes on a
    shared machine falls on both alike)."""
    times: list[list[float]] = [[], []]
    for _ in range(repeat):
        for index, work in enumerate((one, other)):
            start = time.perf_counter()
            work()
            times[index].append(time.perf_counter() - start)
    return [min(each) for each in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="adecore-lsp-bench-listing-"))
    try:
        root = (base / "repo").resolve()
        make_tree(root, args.files)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
        print(f"{args.files} files, best of {args.repeat}")
        print("| listing | without the check | with it | ratio |")
        print("| --- | --- | --- | --- |")
        for kind in ("git", "walk"):
            if kind == "walk":
                shutil.rmtree(root / ".git")
            assert files.root_files(root, wanted, links_out=set()) == unchecked(root)
            before, after = best(
                lambda: unchecked(root),
                lambda: files.root_files(root, wanted, links_out=set()),
                args.repeat,
            )
            ratio = after / before
            print(f"| {kind} | {before * 1000:.1f} ms | {after * 1000:.1f} ms | {ratio:.2f} |")
        listed = files.root_files(root, wanted)
        listing, reads = best(
            lambda: files.root_files(root, wanted),
            lambda: [files.confined(root, path) for path in listed],
            args.repeat,
        )
        print(
            f"| `confined` of every file (first reads) | {listing * 1000:.1f} ms (the walk) | "
            f"{reads * 1000:.1f} ms | {reads / listing:.2f} |"
        )
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
