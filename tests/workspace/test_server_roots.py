"""The folder each server runs from in a monorepo, as its registry policy says: one process
for the repository (ruff, TypeScript), one per go.work (gopls), one per folder holding the
server's own configuration (basedpyright: a uv member's bare pyproject.toml starts none)."""

from __future__ import annotations

from pathlib import Path

from adecore_lsp import Registry, Workspace


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root.resolve()


TREE = {
    "pyproject.toml": '[project]\nname = "r"\n[tool.uv.workspace]\nmembers = ["packages/*"]\n',
    "packages/a/pyproject.toml": '[project]\nname = "a"\n[tool.pyright]\nstrict = ["src"]\n',
    "packages/a/src/alpha/__init__.py": "def greet() -> str:\n    return 'hi'\n",
    "packages/b/pyproject.toml": '[project]\nname = "b"\n[tool.ruff]\nline-length = 60\n',
    "packages/b/src/beta/__init__.py": "from alpha import greet\n",
    "packages/c/pyrightconfig.json": "{}\n",
    "packages/c/c.py": "x = 1\n",
    "web/tsconfig.json": "{}\n",
    "web/package.json": "{}\n",
    "web/src/app.ts": "export const x = 1;\n",
    "go/go.work": "go 1.19\n\nuse ./app\n",
    "go/app/go.mod": "module app\n",
    "go/app/cmd/main.go": "package main\n",
    "lone/go.mod": "module lone\n",
    "lone/lone.go": "package lone\n",
}


def roots(root: Path, server: str, *paths: str) -> list[str]:
    ws = Workspace(root, trust=True)
    spec = Registry.default().get(server)
    return [
        ws.server_choice.root_for(spec, root / path).relative_to(root).as_posix() for path in paths
    ]


def test_basedpyright_runs_per_folder_holding_its_configuration(tmp_path: Path) -> None:
    root = write(tmp_path, TREE)
    found = roots(
        root,
        "basedpyright",
        "packages/a/src/alpha/__init__.py",
        "packages/b/src/beta/__init__.py",
        "packages/c/c.py",
    )
    # b's pyproject.toml holds ruff's settings, not pyright's: b is checked from the root.
    assert found == ["packages/a", ".", "packages/c"]


def test_ruff_and_typescript_take_the_whole_repository(tmp_path: Path) -> None:
    root = write(tmp_path, TREE)
    assert roots(root, "ruff", "packages/a/src/alpha/__init__.py", "packages/b/x.py") == [
        ".",
        ".",
    ]
    assert roots(root, "typescript-language-server", "web/src/app.ts") == ["."]
    assert roots(root, "tsc", "web/src/app.ts") == ["."]


def test_gopls_runs_per_go_work_and_per_module_no_go_work_covers(tmp_path: Path) -> None:
    root = write(tmp_path, TREE)
    assert roots(root, "gopls", "go/app/cmd/main.go", "lone/lone.go") == ["go", "lone"]
