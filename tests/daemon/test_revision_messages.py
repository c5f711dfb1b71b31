"""Through the daemon, ``check --new-since`` compares the revision's messages as the
repository's: an import cycle a comment left alone is not new, cold (the revision's side in
a temporary folder) and warm (in place), and no temporary path is printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import no_traceback
from tests.cli.test_changes import cycle_message, cycle_repo, temp_env
from tests.daemon.conftest import Daemon

pytestmark = pytest.mark.real_server


def test_an_import_cycle_left_alone_is_not_new(daemon: Daemon, tmp_path: Path) -> None:
    root = cycle_repo(tmp_path)
    env = temp_env(tmp_path)
    with (root / "pkg" / "a.py").open("a", encoding="utf-8") as file:
        file.write("# a comment\n")
    # The first on cold servers, from the revision's files in a temporary folder; the
    # second on the warm ones in place.
    for _ in range(2):
        ran = daemon.run("check", "--new-since", "HEAD", "--format", "json", cwd=root, env=env)
        no_traceback(ran)
        assert ran.status == 0, ran
        document = json.loads(ran.out)
        assert (document["diagnostics"], document["resolved"]) == ([], [])
        assert "adecore-lsp-since" not in ran.out + ran.err  # the temporary folder's name
    # The cycle is there all along: a plain check through the daemon reports it.
    plain = daemon.run("check", "--format", "json", cwd=root, env=env)
    assert cycle_message(json.loads(plain.out)) == [
        "Cycle detected in import chain\n  pkg/a.py\n  pkg/b.py"
    ]
