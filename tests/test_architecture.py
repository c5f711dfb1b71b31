"""The workspace layer is floors (docs/architecture.md): each imports only the floors below
it, type-only imports included, and the protocol core imports nothing above it. The
contracts live in pyproject.toml (``[tool.importlinter]``); import-linter keeps them."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKSPACE = ROOT / "src" / "adecore_lsp" / "workspace"
FLOORS = ["model", "disk", "servers", "files", "checks", "questions", "edits", "workspace"]
"""Bottom to top, as pyproject.toml's layers contract and docs/architecture.md say."""


def lint_imports(cwd: Path, source: Path) -> subprocess.CompletedProcess[str]:
    """import-linter run on ``source`` (the folder holding ``adecore_lsp``) with the
    contracts of ``cwd``'s pyproject.toml."""
    environment = {**os.environ, "PYTHONPATH": str(source)}
    return subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command; "
         "lint_imports_command()", "--no-cache"],
        cwd=cwd, env=environment, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_the_floors_and_the_core_keep_their_contracts() -> None:
    ran = lint_imports(ROOT, ROOT / "src")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "Contracts: 2 kept, 0 broken." in ran.stdout


def test_an_import_back_up_a_floor_breaks_the_contract(tmp_path: Path) -> None:
    # A copy of the package where the disk floor names the edits floor (for a type only).
    shutil.copytree(ROOT / "src" / "adecore_lsp", tmp_path / "src" / "adecore_lsp")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    units = tmp_path / "src" / "adecore_lsp" / "workspace" / "disk" / "units.py"
    text = units.read_text(encoding="utf-8")
    marker = "from __future__ import annotations\n"
    units.write_text(
        text.replace(
            marker,
            marker + "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
            "    from ..edits.editing import apply  # noqa: F401\n",
            1,
        ),
        encoding="utf-8",
    )
    ran = lint_imports(tmp_path, tmp_path / "src")
    assert ran.returncode == 1
    assert "The workspace layer's floors import only floors below them BROKEN" in ran.stdout
    assert "adecore_lsp.workspace.disk.units -> adecore_lsp.workspace.edits.editing" in ran.stdout


def test_each_floor_is_a_package_and_nothing_lies_beside_them() -> None:
    """Every module of the layer sits in a floor (or is the facade, the values, the package)."""
    loose = sorted(
        path.name
        for path in WORKSPACE.glob("*.py")
        if path.stem not in {"__init__", "model", "workspace", "closing"}
    )
    assert loose == []
    floors = sorted(path.name for path in WORKSPACE.iterdir() if (path / "__init__.py").exists())
    assert floors == sorted(FLOORS[1:-1])


def test_no_module_of_the_layer_takes_the_workspace_itself() -> None:
    """A floor takes the narrow collaborator it needs (its ``needs`` Protocol), never the
    ``Workspace`` facade above it."""
    takers = []
    for path in WORKSPACE.rglob("*.py"):
        if path.parent == WORKSPACE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and any(a.name == "Workspace" for a in node.names):
                takers.append(path.relative_to(WORKSPACE).as_posix())
    assert takers == []


def test_every_module_of_the_layer_is_under_600_lines() -> None:
    long = {
        path.relative_to(WORKSPACE).as_posix(): lines
        for path in WORKSPACE.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}
