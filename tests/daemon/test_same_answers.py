"""Through the daemon, every command gives the stdout, stderr and exit status it gives in
its own process (``--daemon off``), against ruff and basedpyright: cold in the daemon, and
again warm (the answer does not depend on what a warm server did before).

A share of the command-line tests' runs (navigation in text and json, ``check`` in every
format, the edits' diffs, ``servers``, ``capabilities``, and the usual mistakes), each run
three times: in its own process, through the daemon, and through it again.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import Ran, need, run_all, write
from tests.cli.test_commands import GREET_COL, PY_FILES
from tests.daemon.conftest import Daemon, end, short_folder, start_foreground

pytestmark = pytest.mark.real_server

BP = ("--server", "basedpyright")
RUFF = ("--server", "ruff")

JOBS: dict[str, tuple[str, ...]] = {
    "hover": ("hover", "lib.py#Greeter/greet", *BP),
    "hover json": ("hover", "lib.py#Greeter/greet", *BP, "--format", "json"),
    "definition": ("definition", f"app.py:5:{GREET_COL}", *BP),
    "references": ("references", "lib.py#Greeter/greet", "--context", "1", *BP),
    "references json": ("references", "lib.py#Greeter/greet", *BP, "--format", "json"),
    "symbols": ("symbols", "lib.py", *BP),
    "symbols kind": ("symbols", "lib.py", "--kind", "method", *BP, "--format", "json"),
    "find": ("find", "greet", *BP),
    "callers": ("callers", "lib.py#Greeter/greet", *BP),
    "callees json": ("callees", "lib.py#Greeter/shout", *BP, "--format", "json"),
    "check ruff": ("check", "bad.py", "pkg", *RUFF),
    "check the root json": ("check", *RUFF, "--format", "json"),
    "check ruff sarif": ("check", "bad.py", *RUFF, "--format", "sarif"),
    "check ruff github": ("check", "pkg", "ugly.py", *RUFF, "--format", "github"),
    "check both": ("check", "app.py", "lib.py", "bad.py"),
    "check basedpyright jsonl": ("check", "bad.py", *BP, "--format", "jsonl"),
    "check a folder": ("check", "pkg"),
    "rename diff": ("rename", "lib.py#Greeter/greet", "welcome", *BP),
    "format check": ("format", "ugly.py", *RUFF, "--check"),
    "fix diff": ("fix", "bad.py", *RUFF),
    "capabilities": ("capabilities", "lib.py", *RUFF),
    "capabilities json": ("capabilities", *RUFF, "--format", "json"),
    "servers json": ("servers", "--format", "json"),
    "no such file": ("check", "nowhere.py", *RUFF),
    "no such target": ("hover", "lib.py#Nobody", *BP),
    "nothing to check": ("check", "empty"),
    "not utf-8": ("check", "latin", *RUFF, "--format", "json"),
    "bad option": ("check", "--fail-on", "never"),
}

EXTRA_FILES = {
    "bad.py": "import os\nimport sys\n\n\ndef f() -> int:\n    return undefined_name\n",
    "ugly.py": "import sys\nx=1\ndef f( a ):\n  return a\n",
    "pkg/__init__.py": "",
    "pkg/mod.py": "import json\n",
    "empty/notes.txt": "no code here\n",
}


@pytest.fixture(scope="module")
def project() -> Iterator[Path]:
    need("ruff")
    need("basedpyright")
    base = short_folder()
    root = write(base / "project", {**PY_FILES, **EXTRA_FILES})
    (root / "latin").mkdir()
    (root / "latin" / "latin.py").write_bytes(b"name = '\xe9t\xe9'\n")
    try:
        yield root
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def runs(project: Path) -> Iterator[dict[str, tuple[Ran, Ran, Ran]]]:
    """Each job in its own process, through the daemon, and through it again."""
    common = ("--no-progress",)
    jobs = {name: (*args, *common) for name, args in JOBS.items()}
    own = run_all({name: ("--daemon", "off", *args) for name, args in jobs.items()}, cwd=project)
    daemon: Daemon = start_foreground(project.parent / "rt")
    try:
        through = [
            run_all(
                {name: ("--daemon", "on", *args) for name, args in jobs.items()},
                cwd=project,
                env=daemon.env,
                workers=4,
            )
            for _ in range(2)
        ]
        assert daemon.server_pids(), "the daemon holds no server after the runs"
        yield {name: (own[name], through[0][name], through[1][name]) for name in jobs}
    finally:
        end(daemon)


@pytest.mark.parametrize("name", list(JOBS))
def test_the_same_answer_through_the_daemon(
    name: str, runs: dict[str, tuple[Ran, Ran, Ran]]
) -> None:
    own, cold, warm = runs[name]
    assert "Traceback" not in own.err, own
    assert cold == own, f"through the daemon (cold):\n{cold}\nin its own process:\n{own}"
    assert warm == own, f"through the daemon (warm):\n{warm}\nin its own process:\n{own}"


def test_the_runs_said_something(runs: dict[str, tuple[Ran, Ran, Ran]]) -> None:
    """The comparison is not of empty answers: findings, failures and usage errors all came."""
    statuses = {name: ran[0].status for name, ran in runs.items()}
    assert statuses["hover"] == 0
    assert statuses["check ruff"] == 1
    assert statuses["no such file"] == 2
    assert statuses["nothing to check"] == 2
    assert statuses["bad option"] == 2
    assert "greet" in runs["hover"][0].out
    assert "undefined_name" in runs["check both"][0].out
    assert statuses["not utf-8"] == 3
    assert statuses["check the root json"] == 3  # latin/latin.py is not UTF-8
    assert "not_utf8" in runs["not utf-8"][0].out
