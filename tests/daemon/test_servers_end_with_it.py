"""A daemon's servers end with it, however it ends: killed outright (kill -9), its watcher
ends them at once, with no command run after; the watcher itself is restarted should it
die first, and exits once its work is done; ``daemon stop`` ends everything before it
returns.

The server here is the worst case: it ignores SIGTERM, SIGHUP and the end of its input, and
its child (in its process group) does too; only SIGKILL ends them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import run, write
from tests.daemon.conftest import Daemon, alive, end, wait_until, watcher_of

STUBBORN = Path(__file__).with_name("stubborn_server.py")

END_WITHIN = 10.0
"""Seconds the servers of a killed daemon may take to end (SIGTERM, 2 s, SIGKILL), on a
loaded machine."""


@pytest.fixture
def leftovers() -> Iterator[list[int]]:
    """Pids killed after the test, whatever it found: a failing test leaves nothing behind."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def stubborn_servers(daemon: Daemon, tmp_path: Path, leftovers: list[int]) -> tuple[int, int]:
    """A stubborn server kept warm by ``daemon``: its pid and its child's."""
    project = write(tmp_path / "p", {"a.txt": "hello\n"})
    pids = tmp_path / "pids"
    command = f"{sys.executable} {STUBBORN} {pids}"
    ran = daemon.run("--command", command, "check", "a.txt", "--timeout", "1", cwd=project)
    assert ran.status == 3, ran  # it publishes nothing: the wait timed out
    server, child = (int(pid) for pid in pids.read_text().split())
    leftovers += [server, child]
    assert alive(server)
    assert alive(child)
    assert os.getpgid(child) == server  # one process group
    assert daemon.server_pids() == [server]
    return server, child


def test_a_daemon_killed_outright_takes_its_servers_with_it(
    daemon: Daemon, tmp_path: Path, leftovers: list[int]
) -> None:
    assert daemon.process is not None
    server, child = stubborn_servers(daemon, tmp_path, leftovers)
    watcher = watcher_of(daemon.process.pid)
    daemon.process.kill()
    daemon.process.wait(timeout=10)
    killed = time.monotonic()
    wait_until(lambda: not alive(server) and not alive(child), END_WITHIN, "the servers' end")
    assert time.monotonic() - killed < END_WITHIN
    # No command ran since: the watcher did it, and is gone too.
    assert watcher is not None
    wait_until(lambda: not alive(watcher), 10, "the watcher's exit")
    assert daemon.log is not None
    assert f"the daemon (pid {daemon.process.pid}) ended without stopping" in (
        daemon.log.read_text()
    )
    assert (daemon.folder / "daemon.sock").exists()  # left for the next command
    status = run("daemon", "status", env=daemon.env)
    assert (status.status, status.out) == (0, "no daemon is running\n")


def test_a_watcher_that_dies_is_started_again(
    daemon: Daemon, tmp_path: Path, leftovers: list[int]
) -> None:
    assert daemon.process is not None
    server, child = stubborn_servers(daemon, tmp_path, leftovers)
    pid = daemon.process.pid
    first = watcher_of(pid)
    assert first is not None
    os.kill(first, signal.SIGKILL)
    wait_until(lambda: watcher_of(pid) not in (None, first), 10, "another watcher")
    wait_until(lambda: not os.path.exists(f"/proc/{first}"), 10, "the dead watcher reaped")
    second = watcher_of(pid)
    assert second is not None
    daemon.process.kill()
    daemon.process.wait(timeout=10)
    wait_until(lambda: not alive(server) and not alive(child), END_WITHIN, "the servers' end")
    wait_until(lambda: not alive(second), 10, "the second watcher's exit")


def test_daemon_stop_ends_the_servers_and_the_watcher(
    daemon: Daemon, tmp_path: Path, leftovers: list[int]
) -> None:
    assert daemon.process is not None
    server, child = stubborn_servers(daemon, tmp_path, leftovers)
    watcher = watcher_of(daemon.process.pid)
    assert watcher is not None
    end(daemon)  # `daemon stop`, which returns once the daemon has exited
    assert [pid for pid in (server, child, watcher) if alive(pid)] == []
    assert daemon.process.returncode == 0
    assert not (daemon.folder / "servers.json").exists()
