"""Through the daemon, a stranger's repository runs nothing it names either: not a program
its git configuration names (``check``, ``check --new-since`` cold and warm), not the
program of its activated ``.venv`` on either side of ``--new-since``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import need, no_traceback
from tests.cli.test_activated_venv import activated, path_with
from tests.daemon.conftest import Daemon
from tests.hostile_repo import hostile_repository, markers

pytestmark = pytest.mark.real_server


def findings(out: str) -> list[tuple[str, int, str]]:
    return [(d["path"], d["line"], d["code"]) for d in json.loads(out)["diagnostics"]]


def test_git_configuration_programs_never_run(daemon: Daemon, tmp_path: Path) -> None:
    need("ruff")
    config = '[tool.adecore-lsp]\nservers = ["ruff"]\n'
    root = hostile_repository(
        tmp_path / "repo", {"pyproject.toml": config, "app.py": "import os\n"}, tmp_path / "m"
    )
    ran = daemon.run("check", "--format", "json", "--no-progress", cwd=root)
    no_traceback(ran)
    assert ran.status == 0, ran
    assert findings(ran.out) == [("app.py", 1, "F401")]
    (root / "app.py").write_text("import os\nimport sys\n", encoding="utf-8")
    # The first on cold servers of a checkout, the second on the warm ones in place.
    for _ in range(2):
        since = daemon.run("check", "--new-since", "HEAD", "--format", "json", cwd=root)
        no_traceback(since)
        assert since.status == 0, since
        assert findings(since.out) == [("app.py", 2, "F401")]
        assert json.loads(since.out)["resolved"] == []
    assert markers(tmp_path / "m") == []


def test_the_activated_venvs_program_never_runs(daemon: Daemon, tmp_path: Path) -> None:
    root, marker = activated(tmp_path)
    env = path_with(str(root / ".venv" / "bin"))
    # --new-since first: on servers not yet warm, the revision's side runs in a checkout.
    for args in (("check", "--new-since", "HEAD"), ("check",), ("check", "--new-since", "HEAD")):
        ran = daemon.run(*args, "--format", "json", "--no-progress", cwd=root, env=env)
        no_traceback(ran)
        assert ran.status == 0, ran
        assert ("app.py", 2, "F401") in findings(ran.out)
        assert not marker.exists(), marker.read_text()
