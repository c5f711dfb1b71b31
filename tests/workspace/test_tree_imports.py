"""The import graph kept in step with the disk: a changed file's imports are read again,
and what it depends on follows them (a file whose imports read the same keeps its edges)."""

from __future__ import annotations

import os
from pathlib import Path

from adecore_lsp.workspace.checks.tree_imports import TreeImports


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    # A stamp that differs from the last look's, however coarse the file system's clock.
    stamp = path.stat().st_mtime_ns + 1_000_000_000
    os.utime(path, ns=(stamp, stamp))


def _dependents(tree: TreeImports, root: Path, name: str) -> set[str]:
    return {Path(p).name for p in tree.dependents([(root / name).as_posix()])}


def test_a_changed_import_moves_the_edge_and_a_changed_body_keeps_it(tmp_path: Path) -> None:
    (tmp_path / "b.py").write_text("def f() -> int:\n    return 1\n", encoding="utf-8")
    (tmp_path / "c.py").write_text("def g() -> int:\n    return 2\n", encoding="utf-8")
    (tmp_path / "a.py").write_text("from b import f\n\nf()\n", encoding="utf-8")
    tree = TreeImports(tmp_path)
    tree.refresh()
    assert _dependents(tree, tmp_path, "b.py") == {"a.py"}
    assert _dependents(tree, tmp_path, "c.py") == set()

    # The body changes, the imports read the same: the edge stays.
    _write(tmp_path / "a.py", "from b import f\n\nprint(f())\n")
    changes = tree.refresh()
    assert [Path(p).name for p in changes.changed] == ["a.py"]
    assert _dependents(tree, tmp_path, "b.py") == {"a.py"}

    # The import changes: the edge follows it.
    _write(tmp_path / "a.py", "from c import g\n\nprint(g())\n")
    tree.refresh()
    assert _dependents(tree, tmp_path, "b.py") == set()
    assert _dependents(tree, tmp_path, "c.py") == {"a.py"}

    # Another form of import of the first module: the edge comes back.
    _write(tmp_path / "a.py", "import b\n")
    tree.refresh()
    assert _dependents(tree, tmp_path, "b.py") == {"a.py"}
    assert _dependents(tree, tmp_path, "c.py") == set()
