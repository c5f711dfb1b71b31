"""One repository, one warm workspace: commands run through the daemon from the root of a uv
workspace and from inside one of its packages share a workspace (keyed by the repository's
root) and give the same places as in their own process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import need, write
from tests.cli.test_monorepo_python import USES, UV_TREE

from .conftest import Daemon

pytestmark = pytest.mark.real_server


def test_a_package_and_the_root_share_one_workspace(daemon: Daemon, tmp_path: Path) -> None:
    need("basedpyright")
    root = write(tmp_path / "repo", UV_TREE).resolve()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    common = ("--server", "basedpyright", "--format", "json", "--no-progress")
    at_root = daemon.run("references", "packages/a/src/alpha/__init__.py:1:5", *common, cwd=root)
    in_b = daemon.run(
        "references", "../a/src/alpha/__init__.py:1:5", *common, cwd=root / "packages/b"
    )
    alone = daemon.run(
        "references", "src/alpha/__init__.py:1:5", *common, cwd=root / "packages/a", mode="off"
    )
    for ran in (at_root, in_b, alone):
        assert ran.status == 0, ran
        assert [(p["path"], p["line"], p["column"]) for p in json.loads(ran.out)] == USES
    assert at_root.out == in_b.out == alone.out
    workspaces = daemon.status()["workspaces"]
    assert [workspace["root"] for workspace in workspaces] == [str(root)]
    assert sorted(server["id"] for server in workspaces[0]["servers"]) == [
        "basedpyright",
        "basedpyright",
    ]
