"""What ``adecore-lsp hook`` costs an agent per edit: a hook call on a warm daemon beside a warm
``check`` of the same file, and the first call of a session.

    python benchmarks/bench_hook.py [--quick] [--edits N]

A project of two modules, one calling the other, a git repository with one
commit, and a daemon of this script's own (``ADECORE_LSP_RUNTIME_DIR`` and ``XDG_STATE_HOME``
in a temporary folder, stopped at the end). For ruff alone and for basedpyright alone:

1. the first hook call of a session, the daemon not running: the whole process, daemon start
   and server start included (bounded by the hook's deadline);
2. then, in turns, N edits of ``app.py`` (one adds a line with an error, the next takes it
   out), each followed by (a) the hook, as Claude Code runs it (``adecore-lsp hook
   claude-code PostToolUse`` with the documented input on stdin), and (b) after the same
   kind of edit, ``adecore-lsp --daemon on check app.py`` (one warm check: what the agent
   would pay to ask itself); and (c) ``adecore-lsp --version``, the floor of a process.

Each is timed as a whole process; the figures are medians, and the ratio hook / check per pair.
A hook call keeps the findings it saw, so the next edit's side before needs no check: the
target is a hook within a warm check + 100 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
FIXTURE = ROOT / "tests" / "fixtures" / "hooks" / "claude-code__PostToolUse.json"
BROKEN = 'wrong: int = "text"\n'


def _env(folder: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    env["ADECORE_LSP_RUNTIME_DIR"] = str(folder / "runtime")
    env["XDG_STATE_HOME"] = str(folder / "state")
    return env


def _timed(argv: list[str], root: Path, env: dict[str, str], given: str = "") -> float:
    began = time.perf_counter()
    done = subprocess.run(
        argv, cwd=root, env=env, input=given, capture_output=True, text=True, timeout=120
    )
    took = time.perf_counter() - began
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv[3:])} failed ({done.returncode}): {done.stderr[-500:]}")
    return took


def _project(folder: Path, server: str) -> Path:
    root = folder / "project"
    root.mkdir()
    (root / "adecore-lsp.toml").write_text(f'servers = ["{server}"]\n', encoding="utf-8")
    (root / "greeter.py").write_text("def greet(name: str) -> str:\n    return name\n")
    (root / "app.py").write_text("from greeter import greet\n\nprint(greet('x'))\n")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run(
            ["git", "-c", "user.name=b", "-c", "user.email=b@b", *args],
            cwd=root,
            check=True,
            capture_output=True,
        )
    return root


def _edit(root: Path, number: int) -> str:
    """Add the broken line (even edits) or take it out (odd ones); the hook's input."""
    path = root / "app.py"
    text = path.read_text(encoding="utf-8")
    old, new = ("", BROKEN) if number % 2 == 0 else (BROKEN, "")
    anchor = "print(greet('x'))\n"
    path.write_text(text.replace(anchor + old, anchor + new, 1), encoding="utf-8")
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    data.update(cwd=str(root), session_id="bench", tool_name="Edit")
    data["tool_input"] = {
        "file_path": str(path),
        "old_string": anchor + old,
        "new_string": anchor + new,
    }
    return json.dumps(data)


def measure(server: str, edits: int) -> dict[str, float]:
    cli = [sys.executable, "-m", "adecore_lsp"]
    hook = [*cli, "hook", "claude-code", "PostToolUse"]
    with tempfile.TemporaryDirectory(prefix="bench-hook-") as name:
        folder = Path(name)
        (folder / "runtime").mkdir(mode=0o700)
        env = _env(folder)
        root = _project(folder, server)
        try:
            first = _timed(hook, root, env, _edit(root, 0))
            _timed(hook, root, env, _edit(root, 1))  # the session's state in place
            hooks, checks, ratios = [], [], []
            for number in range(2, 2 + edits):
                took = _timed(hook, root, env, _edit(root, number))
                _edit(root, number + 1)
                check = _timed([*cli, "--daemon", "on", "check", "app.py"], root, env)
                _edit(root, number)  # back to the text the next hook edits from
                hooks.append(took)
                checks.append(check)
                ratios.append(took / check)
            floor = statistics.median(
                _timed([*cli, "--version"], root, env) for _ in range(max(3, edits // 2))
            )
        finally:
            subprocess.run([*cli, "daemon", "stop"], cwd=root, env=env, capture_output=True)
    return {
        "first": first,
        "hook": statistics.median(hooks),
        "check": statistics.median(checks),
        "ratio": statistics.median(ratios),
        "floor": floor,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="ruff only, 4 edits")
    parser.add_argument("--edits", type=int, default=20)
    args = parser.parse_args()
    servers = ["ruff"] if args.quick else ["ruff", "basedpyright"]
    edits = 4 if args.quick else args.edits
    print(f"hook after an edit of one file, {edits} edits, medians of whole processes")
    print(f"{'server':14} {'first call':>11} {'hook warm':>10} {'check warm':>11} "
          f"{'hook/check':>11} {'process floor':>14}")  # fmt: skip
    for server in servers:
        found = measure(server, edits)
        print(
            f"{server:14} {found['first'] * 1000:9.0f}ms {found['hook'] * 1000:8.0f}ms "
            f"{found['check'] * 1000:9.0f}ms {found['ratio']:10.2f}x "
            f"{found['floor'] * 1000:12.0f}ms"
        )
    print("target: a warm hook within a warm check + 100 ms")


if __name__ == "__main__":
    main()
