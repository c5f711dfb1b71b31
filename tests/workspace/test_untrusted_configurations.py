"""pyrefly is not started while its own configuration, in a folder that is not trusted,
names a program (issue 35), and a warm pyrefly stops when one comes: the daemon's
workspace, kept between commands, is told of the files that came (``watch_tree``) before
pyrefly would read them. ``tests/cli/test_untrusted_configurations.py`` runs each key."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from adecore_lsp import Workspace
from adecore_lsp.errors import LspError
from adecore_lsp.workspace.servers import trust
from tests.integration.conftest import find_server
from tests.workspace.conftest import write

pytestmark = pytest.mark.real_server

BASE = os.path.realpath(getattr(sys, "_base_executable", "") or sys.executable)
EVIL = 'python-interpreter-path = "{root}/evil"\n'


def repository(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    """A repository with ``files`` and a marker interpreter ``evil``; its marker's log."""
    log = tmp_path / "ran"
    root = write(tmp_path / "repo", {".git/HEAD": "ref: refs/heads/main\n", **files})
    evil = root / "evil"
    evil.write_text(f'#!/bin/sh\necho ran >> "{log}"\nexec "{BASE}" "$@"\n', encoding="utf-8")
    evil.chmod(evil.stat().st_mode | stat.S_IXUSR)
    return root, log


async def test_a_warm_pyrefly_stops_when_its_configuration_comes_to_name_a_program(
    tmp_path: Path,
) -> None:
    find_server("pyrefly")
    root, log = repository(tmp_path, {"app.py": "import os\n"})
    async with Workspace(root, trust=False, servers=["pyrefly"]) as ws:
        first = await ws.diagnostics(["app.py"])
        assert first.complete, first
        [handle] = ws.started()
        assert handle.live is not None
        (root / "pyrefly.toml").write_text(EVIL.format(root=root), encoding="utf-8")
        ws.watch_tree()  # what the daemon does before each command
        second = await ws.diagnostics(["app.py"])
        assert handle.live is None
        assert not second.complete
        reason = second.files["app.py"].reason
        assert isinstance(reason, str)
        assert reason.startswith(
            "pyrefly was not started: pyrefly.toml python-interpreter-path names a program"
        )
        with pytest.raises(LspError, match="pyrefly was not started"):
            await ws.session_for("app.py")
        # A file it had open changes on disk: nothing starts it to take the change.
        (root / "app.py").write_text("import sys\n", encoding="utf-8")
        third = await ws.diagnostics(["app.py"])
        assert third.files["app.py"].reason == reason
        assert handle.live is None
    assert not log.exists()


async def test_a_project_nested_in_a_trusted_root_keeps_pyrefly_from_starting(
    tmp_path: Path,
) -> None:
    """The root is trusted in the store; a nested project with its own configuration is not,
    and its ``pyrefly.toml`` names a program: pyrefly, one process for the whole root,
    would read it with any file it indexes, so it is not started; the reason names the
    project to trust. Trusting the project lets it start (and run the program)."""
    find_server("pyrefly")
    root, log = repository(
        tmp_path,
        {
            "pyproject.toml": "[tool.adecore-lsp]\n",
            "app.py": "import os\n",
            "examples/sample/pyproject.toml": '[tool.adecore-lsp]\nservers = ["pyrefly"]\n',
            "examples/sample/m.py": "y = 1\n",
        },
    )
    (root / "examples/sample/pyrefly.toml").write_text(EVIL.format(root=root))
    trust.add(root)
    async with Workspace(root, servers=["pyrefly"]) as ws:
        assert ws.trusted
        report = await ws.diagnostics(["app.py"])
    assert not log.exists()
    assert report.files["app.py"].reason == (
        "pyrefly was not started: examples/sample/pyrefly.toml python-interpreter-path names "
        "a program pyrefly would run, in a project that is not trusted (examples/sample); "
        "run `adecore-lsp trust examples/sample` (or pass --trust) to allow them"
    )
    trust.add(root / "examples/sample")
    async with Workspace(root, servers=["pyrefly"]) as ws:
        report = await ws.diagnostics(["app.py"])
    assert report.complete, report
    assert log.exists()  # pyrefly's own behaviour, now that everything is trusted


async def test_a_pyrefly_of_a_nested_project_is_judged_by_the_whole_untrusted_root(
    tmp_path: Path,
) -> None:
    """A nested project that sets pyrefly's settings gets a pyrefly of its own, rooted
    there; the root's configuration (above it) names a program that process would read."""
    find_server("pyrefly")
    settings = "[tool.adecore-lsp.server.pyrefly.settings.python.pyrefly]\n"
    root, log = repository(
        tmp_path,
        {
            "examples/sample/pyproject.toml": f'{settings}displayTypeErrors = "force-on"\n',
            "examples/sample/m.py": "y = 1\n",
        },
    )
    (root / "pyrefly.toml").write_text(EVIL.format(root=root))
    async with Workspace(root, trust=False, servers=["pyrefly"]) as ws:
        [handle] = ws.handles_for(root / "examples/sample/m.py")
        assert handle.root == root / "examples/sample"
        report = await ws.diagnostics(["examples/sample/m.py"])
    assert not log.exists()
    reason = report.files["examples/sample/m.py"].reason
    assert isinstance(reason, str)
    assert reason.startswith("pyrefly was not started: pyrefly.toml python-interpreter-path")
