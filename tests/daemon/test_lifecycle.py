"""The daemon's own commands and its life, as a user runs them: start, run, stop, status;
the runtime folder's rights; a dead daemon's stale socket; Ctrl-C in a client; idle timeout;
the memory budget; another version; and that nothing is left running after it."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.cli.conftest import SCRIPTED, need, run, tool_env, write
from tests.daemon.conftest import (
    Daemon,
    alive,
    end,
    start_foreground,
    wait_until,
    watcher_of,
)

pytestmark = pytest.mark.real_server

STUBBORN = f"{sys.executable} {SCRIPTED} stubborn"
"""A server that never answers a hover and does not end when its input does."""


def ruff_project(root: Path) -> Path:
    need("ruff")
    """A project that ruff checks, with one error (F821) and one warning (F401)."""
    config = '[tool.adecore-lsp]\nservers = ["ruff"]\n'
    return write(root, {"pyproject.toml": config, "a.py": "import os\n\nprint(undefined)\n"})


# -- start, stop, status -----------------------------------------------------------------


def test_start_status_stop_in_the_background(daemon_folder: Path, tmp_path: Path) -> None:
    env = {"ADECORE_LSP_RUNTIME_DIR": str(daemon_folder)}
    none = run("daemon", "status", "--format", "json", env=env)
    assert (none.status, json.loads(none.out)) == (
        0,
        {
            "running": False,
            "pid": None,
            "version": None,
            "socket": None,
            "uptime_s": None,
            "memory_budget_mib": None,
            "rss_bytes": None,
            "workspaces": [],
        },
    )
    assert run("daemon", "status", env=env).out == "no daemon is running\n"
    stopped = run("daemon", "stop", env=env)
    assert (stopped.status, stopped.out) == (0, "")
    assert "no daemon is running" in stopped.err

    started = run("daemon", "start", "--idle-timeout", "120", "--memory-budget", "900", env=env)
    assert (started.status, started.out, started.err) == (0, "", "")
    daemon = Daemon(daemon_folder)
    try:
        again = run("daemon", "start", env=env)
        assert again.status == 0
        assert "already running" in again.err
        project = ruff_project(tmp_path / "p")
        checked = daemon.run("check", "--no-progress", cwd=project, mode="auto")
        assert checked.status == 1, checked
        assert "F401" in checked.out
        status = daemon.status()
        assert status["running"] is True
        assert status["memory_budget_mib"] == 900
        assert status["socket"] == str(daemon_folder / "daemon.sock")
        assert status["uptime_s"] > 0
        [workspace] = status["workspaces"]
        assert workspace["root"] == str(project.resolve())
        [server] = workspace["servers"]
        assert server["id"] == "ruff"
        assert server["state"] == "running"
        assert alive(server["pid"])
        assert status["rss_bytes"] >= server["rss_bytes"] > 1_000_000
        text = run("daemon", "status", env=env).out
        assert f"pid {status['pid']}" in text
        assert str(project.resolve()) in text
        assert "ruff: running" in text
        # The log is the daemon's, and only its user's.
        assert stat.S_IMODE(os.stat(daemon_folder / "daemon.log").st_mode) == 0o600
    finally:
        end(daemon)
    assert not (daemon_folder / "daemon.sock").exists()
    assert json.loads(run("daemon", "status", "--format", "json", env=env).out)["running"] is False


def test_folder_and_socket_only_for_their_user(daemon_folder: Path) -> None:
    daemon_folder.mkdir(mode=0o755)
    os.chmod(daemon_folder, 0o755)  # looser than it must be: tightened
    daemon = start_foreground(daemon_folder)
    try:
        assert stat.S_IMODE(os.stat(daemon_folder).st_mode) == 0o700
        sock = daemon_folder / "daemon.sock"
        assert stat.S_ISSOCK(os.stat(sock).st_mode)
        assert stat.S_IMODE(os.stat(sock).st_mode) == 0o600
    finally:
        end(daemon)


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_a_runtime_folder_of_another_user_is_refused(daemon_folder: Path, tmp_path: Path) -> None:
    daemon_folder.mkdir(mode=0o700)
    os.chown(daemon_folder, 65534, 65534)
    env = {"ADECORE_LSP_RUNTIME_DIR": str(daemon_folder)}
    for action in ("start", "run"):
        refused = run("daemon", action, env=env)
        assert refused.status == 2, refused
        assert "belongs to another user" in refused.err
        assert "ADECORE_LSP_RUNTIME_DIR" in refused.err
    project = ruff_project(tmp_path / "p")
    on = run("--daemon", "on", "check", "--no-progress", cwd=project, env=env)
    own = run("--daemon", "off", "check", "--no-progress", cwd=project, env=env)
    assert (on.status, on.out) == (own.status, own.out) == (1, own.out)
    assert "running without the daemon" in on.err
    assert "belongs to another user" in on.err
    auto = run("check", "--no-progress", cwd=project, env=env)
    assert auto == own  # auto says nothing
    assert os.listdir(daemon_folder) == []


def test_a_runtime_folder_too_deep_for_a_socket(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 120)
    ran = run("daemon", "start", env={"ADECORE_LSP_RUNTIME_DIR": str(deep)})
    assert ran.status == 2
    assert "too deep for a socket" in ran.err


def test_daemon_run_ends_on_sigterm_and_sigint(daemon_folder: Path, tmp_path: Path) -> None:
    project = ruff_project(tmp_path / "p")
    for number in (signal.SIGTERM, signal.SIGINT):
        daemon = start_foreground(daemon_folder)
        assert daemon.run("check", "--no-progress", cwd=project).status == 1
        servers = daemon.server_pids()
        assert servers
        assert daemon.process is not None
        daemon.process.send_signal(number)
        assert daemon.process.wait(timeout=30) == 0
        assert not (daemon_folder / "daemon.sock").exists()
        assert not (daemon_folder / "servers.json").exists()
        assert not [pid for pid in servers if alive(pid)]


def test_a_second_daemon_run_is_refused(daemon: Daemon) -> None:
    second = run("daemon", "run", env=daemon.env)
    assert second.status == 2
    assert "already runs" in second.err
    assert daemon.status()["running"]


# -- commands through it -------------------------------------------------------------------


def test_the_daemon_mode_option_and_variable(daemon_folder: Path, tmp_path: Path) -> None:
    project = ruff_project(tmp_path / "p")
    env = {"ADECORE_LSP_RUNTIME_DIR": str(daemon_folder)}
    sock = daemon_folder / "daemon.sock"
    # auto (the default) starts nothing; neither does off with the variable on.
    assert run("check", "--no-progress", cwd=project, env=env).status == 1
    assert not sock.exists()
    off = run("--daemon", "off", "check", cwd=project, env={**env, "ADECORE_LSP_DAEMON": "on"})
    assert off.status == 1
    assert not sock.exists()
    # --trace always runs in the caller's process, whatever the mode.
    trace = tmp_path / "trace.jsonl"
    traced = run("--daemon", "on", "--trace", trace, "check", "a.py", cwd=project, env=env)
    assert traced.status == 1
    assert trace.stat().st_size > 0
    assert not sock.exists()
    # The variable on starts one, silently.
    started = run("check", "--no-progress", cwd=project, env={**env, "ADECORE_LSP_DAEMON": "on"})
    daemon = Daemon(daemon_folder)
    try:
        assert started.status == 1
        assert "F401" in started.out
        assert "daemon" not in started.err
        assert daemon.status()["workspaces"]
    finally:
        end(daemon)


def test_another_environment_is_another_workspace(daemon: Daemon, tmp_path: Path) -> None:
    project = ruff_project(tmp_path / "p")
    assert daemon.run("check", cwd=project).status == 1
    assert daemon.run("check", cwd=project, env={"TERM": "other", "COLUMNS": "20"}).status == 1
    assert len(daemon.status()["workspaces"]) == 1  # TERM and COLUMNS say nothing of it
    assert daemon.run("check", cwd=project, env={"RUFF_CACHE_DIR": str(tmp_path)}).status == 1
    assert len(daemon.status()["workspaces"]) == 2


def test_two_clients_at_once(daemon: Daemon, tmp_path: Path) -> None:
    need("basedpyright")
    project = write(
        tmp_path / "p",
        {
            "pyproject.toml": "[tool.ruff]\n",
            "a.py": "def twice(x: int) -> int:\n    return x * 2\n",
            "b.py": "from a import twice\n\nvalue: str = twice(2)\n",
        },
    )
    expected = {
        "hover": run(
            "--daemon", "off", "hover", "a.py#twice", "--server", "basedpyright", cwd=project
        ),
        "check": run("--daemon", "off", "check", "--no-progress", cwd=project),
    }
    answers: dict[str, list[object]] = {"hover": [], "check": []}

    def client(name: str, args: tuple[str, ...]) -> None:
        answers[name].append(daemon.run(*args, cwd=project))

    threads = [
        threading.Thread(
            target=client, args=("hover", ("hover", "a.py#twice", "--server", "basedpyright"))
        )
        for _ in range(3)
    ] + [
        threading.Thread(target=client, args=("check", ("check", "--no-progress")))
        for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert expected["hover"].status == 0
    assert "twice" in expected["hover"].out
    assert expected["check"].status == 1
    assert answers["hover"] == [expected["hover"]] * 3
    assert answers["check"] == [expected["check"]] * 3


def test_ctrl_c_in_a_client_cancels_the_command_and_the_daemon_lives(
    daemon: Daemon, tmp_path: Path
) -> None:
    project = write(tmp_path / "p", {"a.txt": "hello\n"})
    log = tmp_path / "methods.log"
    client = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "adecore_lsp",
            "--daemon",
            "on",
            "--command",
            STUBBORN,
            "hover",
            "a.txt:1:1",
        ],
        cwd=project,
        env=tool_env({**daemon.env, "SCRIPTED_LOG": str(log)}),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    # The caller's environment reached the server: it logs what it is asked.
    wait_until(lambda: log.exists() and "textDocument/hover" in log.read_text(), 30, "the hover")
    client.send_signal(signal.SIGINT)
    out, err = client.communicate(timeout=30)
    assert client.returncode == 130
    assert out == b""
    assert b"interrupted" in err
    wait_until(lambda: "$/cancelRequest" in log.read_text(), 10, "the cancel")
    status = daemon.status()
    assert status["running"]
    assert status["workspaces"][0]["servers"][0]["state"] == "running"
    # The daemon answers the next command.
    ok = daemon.run("servers", "--format", "json", cwd=project)
    assert ok.status == 0


def test_a_daemon_killed_with_its_watcher_leaves_nothing_running(
    daemon_folder: Path, tmp_path: Path
) -> None:
    """The last resort: with the watcher killed too, the next command ends the servers the
    dead daemon recorded in servers.json."""
    project = write(tmp_path / "p", {"a.txt": "hello\n"})
    daemon = start_foreground(daemon_folder)
    ran = daemon.run("--command", STUBBORN, "check", "a.txt", "--timeout", "1", cwd=project)
    assert ran.status == 3, ran  # a silent server: the wait timed out
    [server] = daemon.server_pids()
    wait_until(lambda: (daemon_folder / "servers.json").exists(), 10, "servers.json")
    assert daemon.process is not None
    watcher = watcher_of(daemon.process.pid)
    assert watcher is not None
    # Stopped first, so that it cannot start another watcher in between.
    daemon.process.send_signal(signal.SIGSTOP)
    os.kill(watcher, signal.SIGKILL)
    daemon.process.kill()
    daemon.process.wait(timeout=10)
    time.sleep(1)
    assert alive(server)  # it does not end with its input, and nobody ended it
    assert (daemon_folder / "daemon.sock").exists()  # stale
    # The next command finds the stale socket, ends the dead daemon's servers, runs here.
    own = run("--daemon", "off", "check", "--no-progress", cwd=ruff_project(tmp_path / "r"))
    after = daemon.run("check", "--no-progress", cwd=tmp_path / "r", mode="auto")
    assert after == own
    assert not (daemon_folder / "daemon.sock").exists()
    assert not (daemon_folder / "servers.json").exists()
    wait_until(lambda: not alive(server), 10, "the stubborn server's end")


def test_idle_timeout_ends_servers_then_the_daemon(daemon_folder: Path, tmp_path: Path) -> None:
    project = ruff_project(tmp_path / "p")
    daemon = start_foreground(daemon_folder, "--idle-timeout", "1")
    assert daemon.process is not None
    assert daemon.run("check", cwd=project).status == 1
    [server] = daemon.server_pids()
    wait_until(lambda: not alive(server), 10, "the idle workspace's shutdown")
    assert daemon.process.wait(timeout=15) == 0
    assert not (daemon_folder / "daemon.sock").exists()


def test_the_memory_budget_shuts_the_least_recently_used_down(
    daemon_folder: Path, tmp_path: Path
) -> None:
    first, second = ruff_project(tmp_path / "first"), ruff_project(tmp_path / "second")
    measuring = start_foreground(daemon_folder)
    try:
        assert measuring.run("check", cwd=first).status == 1
        one = measuring.status()["rss_bytes"]
    finally:
        end(measuring)
    # Room for one ruff, not for two.
    budget = max(1, int(one * 1.6) // 2**20)
    daemon = start_foreground(daemon_folder, "--memory-budget", str(budget))
    try:
        assert daemon.run("check", cwd=first).status == 1
        assert daemon.run("check", cwd=second).status == 1
        status = daemon.status()
        assert [w["root"] for w in status["workspaces"]] == [str(second.resolve())]
        assert status["rss_bytes"] <= budget * 2**20
        assert daemon.run("check", cwd=first).status == 1
        assert [w["root"] for w in daemon.status()["workspaces"]] == [str(first.resolve())]
    finally:
        end(daemon)


# -- another version -------------------------------------------------------------------------


class OtherVersion:
    """A daemon of another version on the socket: it says its version, and stops when asked."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(mode=0o700, parents=True)
        self.path = folder / "daemon.sock"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(self.path))
        self.sock.listen()
        self.asked: list[dict[str, object]] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopped.is_set():
            connection, _ = self.sock.accept()
            with connection, connection.makefile("rb") as reader:
                json.loads(reader.readline())
                connection.sendall(b'{"hello":"0.0.0-other"}\n')
                line = reader.readline()
                if line:
                    request = json.loads(line)
                    self.asked.append(request)
                    if "stop" in request:
                        self.sock.close()
                        os.unlink(self.path)
                        self.stopped.set()


def test_a_daemon_of_another_version(daemon_folder: Path, tmp_path: Path) -> None:
    project = ruff_project(tmp_path / "p")
    other = OtherVersion(daemon_folder)
    own = run("--daemon", "off", "check", "--no-progress", cwd=project)
    env = {"ADECORE_LSP_RUNTIME_DIR": str(daemon_folder)}
    # auto: as if none ran.
    assert run("check", "--no-progress", cwd=project, env=env) == own
    status = run("daemon", "status", "--format", "json", env=env)
    assert json.loads(status.out)["running"] is False
    assert "0.0.0-other" in status.err
    assert not other.stopped.is_set()
    # on: it is stopped, and ours takes its place.
    on = run("--daemon", "on", "check", "--no-progress", cwd=project, env=env)
    daemon = Daemon(daemon_folder)
    try:
        assert on == own
        assert other.stopped.wait(5)
        assert {"stop": {}} in other.asked
        assert daemon.status()["running"] is True
    finally:
        end(daemon)
    assert time.monotonic()  # the daemon of another version never ran a command
    assert not any("run" in request for request in other.asked)


CLIENT_MODULES = {
    "adecore_lsp",
    "adecore_lsp.__main__",
    "adecore_lsp._version",
    "adecore_lsp.cli",
    "adecore_lsp.cli.main",
    "adecore_lsp.cli.modes",
    "adecore_lsp.daemon",
    "adecore_lsp.daemon.client",
    "adecore_lsp.daemon.paths",
    "adecore_lsp.daemon.wire",
}
"""What a command sent to the daemon may import of the package (daemon.md, "Speed")."""

SITE = {"_distutils_hack", "sitecustomize", "usercustomize", "coverage"}
"""What the interpreter's start may bring whatever runs (setuptools' hook, coverage's)."""


def test_the_client_imports_the_standard_library_only(daemon: Daemon, tmp_path: Path) -> None:
    project = ruff_project(tmp_path / "p")
    assert daemon.run("check", cwd=project).status == 1  # warm
    # Measured without coverage's start-up hook, which brings pathlib and typing of its own.
    env = {
        key: value
        for key, value in tool_env(daemon.env).items()
        if not key.startswith("COVERAGE_PROCESS")
    }
    traced = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "adecore_lsp", "--daemon", "on", "check"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert traced.returncode == 1, traced.stderr
    assert "F821" in traced.stdout
    imported = {
        line.split("|")[2].strip()
        for line in traced.stderr.splitlines()
        if line.startswith("import time:") and "|" in line and "imported package" not in line
    }
    ours = {name for name in imported if name.startswith("adecore_lsp")}
    assert ours <= CLIENT_MODULES, sorted(ours - CLIENT_MODULES)
    assert "argparse" not in imported  # the daemon parses the command
    assert "pathlib" not in imported
    assert "typing" not in imported
    foreign = {
        name
        for name in imported
        if name.split(".")[0] not in sys.stdlib_module_names
        and name.split(".")[0] not in SITE
        and not name.startswith("adecore_lsp")
    }
    assert not foreign, sorted(foreign)
