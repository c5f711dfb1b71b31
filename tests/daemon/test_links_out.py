"""Through the daemon, a link out of the root is never read either: the whole root, cold and
warm, ``--new-since`` and a file named (``tests/cli/test_links_out.py`` for the rest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import need, no_traceback
from tests.cli.test_links_out import SERVERS, left_out_line
from tests.daemon.conftest import Daemon
from tests.links_out import LEFT_OUT, leaked, stranger_with_links

pytestmark = pytest.mark.real_server


@pytest.mark.parametrize("server", SERVERS)
def test_through_the_daemon(daemon: Daemon, tmp_path: Path, server: str) -> None:
    need(server)
    root = stranger_with_links(tmp_path, git=True)
    # What each says: findings, nothing new since HEAD, a refusal.
    for args, status in (
        (("check",), 1),
        (("check", "--new-since", "HEAD"), 0),
        (("check", "creds.py"), 2),
    ):
        for _ in range(2):  # cold, then warm
            ran = daemon.run(*args, "--server", server, "--format", "github", cwd=root)
            no_traceback(ran)
            assert leaked(ran.out, ran.err) == [], ran
            assert ran.status == status, ran
    whole = daemon.run("check", "--server", server, "--format", "json", cwd=root)
    assert left_out_line(3, LEFT_OUT) in whole.err, whole
