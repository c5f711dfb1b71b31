"""An untrusted repository whose own ``.venv`` is activated (its ``bin`` first on ``PATH``)
and holds a program named like a server: ``check --new-since`` starts it on neither side,
although the revision's side runs in a checkout outside the repository."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path

import pytest

from adecore_lsp.workspace.servers.registry import ServerSpec
from adecore_lsp.workspace.servers.server_facts import version_of
from tests.hostile_repo import commit_all, git
from tests.integration.conftest import VENV_BIN

from .conftest import need, no_traceback, run, write

pytestmark = pytest.mark.real_server

APP = "import os\n"


def activated(tmp_path: Path) -> tuple[Path, Path]:
    """A committed repository checked by ruff whose ``.venv/bin/ruff`` leaves a marker; the
    repository and the marker's path."""
    need("ruff")
    marker = tmp_path / "shim-ran"
    root = write(tmp_path / "repo", {"pyproject.toml": '[tool.adecore-lsp]\nservers = ["ruff"]\n'})
    (root / "app.py").write_text(APP, encoding="utf-8")
    (root / ".gitignore").write_text(".venv/\n", encoding="utf-8")
    shim = root / ".venv" / "bin" / "ruff"
    shim.parent.mkdir(parents=True)
    shim.write_text(f'#!/bin/sh\necho "$@" >> "{marker}"\nexit 1\n', encoding="utf-8")
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    git(root, "init", "-q")
    commit_all(root)
    # The change: one new unused import.
    (root / "app.py").write_text(APP + "import sys\n", encoding="utf-8")
    return root, marker


def path_with(first: str) -> dict[str, str]:
    """``PATH`` of an activated environment: ``first``, then the real servers' folder."""
    return {"PATH": os.pathsep.join([first, str(VENV_BIN), os.environ.get("PATH", "")])}


@pytest.mark.parametrize("entry", ["absolute", "relative"])
def test_new_since_never_starts_the_activated_venvs_program(tmp_path: Path, entry: str) -> None:
    root, marker = activated(tmp_path)
    # A relative entry is what the checkout would find too, were it looked up from there.
    first = str(root / ".venv" / "bin") if entry == "absolute" else os.path.join(".venv", "bin")
    env = path_with(first)
    ran = run(
        "check", "--new-since", "HEAD", "--format", "json", "--no-progress", cwd=root, env=env
    )
    no_traceback(ran)
    assert ran.status == 0, ran
    document = json.loads(ran.out)
    assert [(d["path"], d["line"], d["code"]) for d in document["diagnostics"]] == [
        ("app.py", 2, "F401")
    ]
    assert document["complete"] is True
    assert not marker.exists(), marker.read_text()
    # The plain check of the same tree agrees that the shim is not to be run.
    plain = run("check", "--format", "json", "--no-progress", cwd=root, env=env)
    assert plain.status == 0, plain
    assert not marker.exists(), marker.read_text()


def test_a_version_program_is_taken_from_beside_the_server_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``basedpyright --version`` says basedpyright's version: the program is looked for
    beside the server's executable, never on ``PATH``, where an activated ``.venv`` of an
    untrusted root may hold one of that name."""
    marker = tmp_path / "shim-ran"

    def program(path: Path, body: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        path.chmod(0o755)

    server = tmp_path / "tools" / "fake-langserver"
    program(server, "exit 0")
    activated = tmp_path / "repo" / ".venv" / "bin"
    program(activated / "fake", f'touch "{marker}"\necho 9.9.9')
    monkeypatch.setenv("PATH", os.pathsep.join([str(activated), os.environ["PATH"]]))
    spec = ServerSpec("fake", [str(server)], version_command=["fake", "--version"])
    assert asyncio.run(version_of(spec, str(server))) is None
    assert not marker.exists()
    program(tmp_path / "tools" / "fake", "echo fake 1.2.3")
    assert asyncio.run(version_of(spec, str(server))) == "1.2.3"
