"""The hook finds a caller broken in a file the session never opened: after an agent's edit
(Claude Code's ``PostToolUse``), and at the stop after a shell edit the hook never heard of
(``sed``, a codemod): every file changed since the turn began, with its dependents. Against
basedpyright, ty, typescript-language-server and gopls, through the daemon."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import need, run, tool_env
from tests.hostile_repo import git

pytestmark = pytest.mark.real_server

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "hooks"

PYTHON = {
    "lib.py": "def area(width: int, height: int) -> int:\n    return width * height\n\n\n"
    "def label(name: str) -> str:\n    return name\n",
    "app.py": "from lib import area\n\nsize: int = area(2, 3)\n",
    "shop.py": "from lib import label\n\ntag: str = label('x')\n",
    "alone.py": "x: int = 1\n",
}
TYPESCRIPT = {
    "tsconfig.json": '{"compilerOptions": {"strict": true, "noEmit": true}}\n',
    "lib.ts": "export function area(width: number, height: number): number {\n"
    "  return width * height;\n}\n\nexport function label(name: string): string {\n"
    "  return name;\n}\n",
    "app.ts": 'import { area } from "./lib";\n\nexport const size: number = area(2, 3);\n',
    "shop.ts": 'import { label } from "./lib";\n\nexport const tag: string = label("x");\n',
    "alone.ts": "export const x: number = 1;\n",
}
GO = {
    "go.mod": "module example.com/demo\n\ngo 1.21\n",
    "lib/lib.go": "package lib\n\n// Area is the area.\nfunc Area(width, height int) int {\n"
    "\treturn width * height\n}\n\n// Label is the label.\nfunc Label(name string) string {\n"
    "\treturn name\n}\n",
    "app/app.go": 'package app\n\nimport "example.com/demo/lib"\n\n// Size is the size.\n'
    "var Size int = lib.Area(2, 3)\n",
    "shop/shop.go": 'package shop\n\nimport "example.com/demo/lib"\n\n// Tag is the tag.\n'
    'var Tag string = lib.Label("x")\n',
    "alone/alone.go": "package alone\n\n// X is x.\nvar X int = 1\n",
}

# Each language: its files, the edit that breaks app's caller (through the agent's tool), the
# shell edit that breaks shop's caller, the untouched module, the two callers.
CASES: dict[str, tuple[dict[str, str], str, tuple[str, str], tuple[str, str], str, str, str]] = {
    "basedpyright": (
        PYTHON,
        "lib.py",
        ("-> int:\n    return width * height", "-> str:\n    return str(width)"),
        ("-> str:\n    return name", "-> int:\n    return 1"),
        "alone.py",
        "app.py",
        "shop.py",
    ),
    "typescript-language-server": (
        TYPESCRIPT,
        "lib.ts",
        ("): number {\n  return width * height;", "): string {\n  return `${width}`;"),
        ("): string {\n  return name;", "): number {\n  return 1;"),
        "alone.ts",
        "app.ts",
        "shop.ts",
    ),
    "gopls": (
        GO,
        "lib/lib.go",
        ("int) int {\n\treturn width * height", "int) string {\n\treturn name(width)"),
        ("string) string {\n\treturn name", "string) int {\n\treturn len(name)"),
        "alone/alone.go",
        "app/app.go",
        "shop/shop.go",
    ),
}
CASES["ty"] = (PYTHON, *CASES["basedpyright"][1:])
GO_HELPER = "\n// name is a name.\nfunc name(n int) string {\n\treturn string(rune(n))\n}\n"


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    (tmp_path / "runtime").mkdir(mode=0o700)
    env = {
        "ADECORE_LSP_RUNTIME_DIR": str(tmp_path / "runtime"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    yield tmp_path, env
    for root in tmp_path.glob("*/"):
        if (root / ".git").exists():
            run("daemon", "stop", cwd=root, env=env)


def project(base: Path, server: str) -> Path:
    need(server)
    files = dict(CASES[server][0])
    if server == "gopls":
        files["lib/lib.go"] += GO_HELPER
    root = base / server
    for name, text in {**files, "adecore-lsp.toml": f'servers = ["{server}"]\n'}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def hook_out(
    root: Path, env: dict[str, str], event: str, given: dict[str, Any], timeout: float = 180
) -> str:
    """What ``hook claude-code EVENT`` prints, given ``given`` on stdin (it exits 0)."""
    done = subprocess.run(
        [sys.executable, "-m", "adecore_lsp", "hook", "claude-code", event],
        cwd=root,
        env=tool_env(env),
        input=json.dumps(given),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def hook(root: Path, env: dict[str, str], event: str, given: dict[str, Any]) -> dict[str, Any]:
    out = hook_out(root, env, event, given)
    said: dict[str, Any] = json.loads(out) if out.strip() else {}
    return said


def edit_input(root: Path, name: str, old: str, new: str) -> dict[str, Any]:
    """Claude Code's documented PostToolUse input of an Edit, made on disk first."""
    path = root / name
    path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    data: dict[str, Any] = json.loads(
        (FIXTURES / "claude-code__PostToolUse.json").read_text(encoding="utf-8")
    )
    data.update(session_id="s", cwd=str(root), tool_name="Edit")
    data["tool_input"] = {"file_path": str(path), "old_string": old, "new_string": new}
    return data


def stop_input(root: Path, active: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (FIXTURES / "claude-code__Stop.json").read_text(encoding="utf-8")
    )
    data.update(session_id="s", cwd=str(root), stop_hook_active=active)
    return data


@pytest.mark.parametrize("server", sorted(CASES))
def test_the_hook_names_callers_broken_after_an_edit_and_by_the_shell_at_the_stop(
    daemon: tuple[Path, dict[str, str]], server: str
) -> None:
    base, env = daemon
    root = project(base, server)
    _files, lib, (old, new), (shell_old, shell_new), alone, app, shop = CASES[server]
    # A first edit of a module nothing imports: silent (and the turn's baseline is kept).
    quiet = hook(root, env, "PostToolUse", edit_input(root, alone, "1", "2"))
    assert quiet == {}
    # The agent's edit of lib breaks app's caller, in a file no one opened.
    said = hook(root, env, "PostToolUse", edit_input(root, lib, old, new))
    assert said.get("decision") == "block", said
    assert f"{app}:" in said["reason"]
    assert shop not in said["reason"]
    # Then the shell breaks shop's caller: no hook hears of it, the stop does.
    path = root / lib
    path.write_text(path.read_text(encoding="utf-8").replace(shell_old, shell_new, 1))
    held = hook(root, env, "Stop", stop_input(root))
    assert held.get("decision") == "block", held
    assert f"{shop}:" in held["reason"]
    assert f"{app}:" in held["reason"]
    assert alone not in held["reason"]
    # Held again for the same errors, the agent is let go.
    let_go = hook(root, env, "Stop", stop_input(root, active=True))
    assert "decision" not in let_go


def test_a_stop_with_no_call_before_it_takes_git_head_as_the_turns_beginning(
    daemon: tuple[Path, dict[str, str]],
) -> None:
    """A turn whose only edits were the shell's: the stop is the session's first call, and
    what differs from HEAD is what the turn changed."""
    base, env = daemon
    root = project(base, "basedpyright")
    path = root / "lib.py"
    path.write_text(path.read_text(encoding="utf-8").replace("-> int:", "-> str:", 1))
    held = hook(root, env, "Stop", stop_input(root))
    assert held.get("decision") == "block", held
    assert "app.py:3:" in held["reason"]
