"""The daemon's parts on their own: the wire format, the runtime folder and its lock, what
makes a workspace another one, what ``daemon status`` prints, a dead daemon's leftovers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp.cli.executor import WorkspaceRequest
from adecore_lsp.daemon import client, commands, groups, paths, pool, server, watching, wire
from adecore_lsp.daemon.watcher import line as watcher_line
from adecore_lsp.workspace.servers.registry import Registry


def test_a_message_a_line_and_names_that_are_not_unicode() -> None:
    odd = os.fsdecode(b"caf\xe9.py")  # a name read with surrogateescape
    line = wire.encode({"run": {"argv": ["check", odd]}})
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert wire.decode(line) == {"run": {"argv": ["check", odd]}}
    with pytest.raises(ValueError, match="not a message"):
        wire.decode(b"[1, 2]\n")
    with pytest.raises(json.JSONDecodeError):
        wire.decode(b"{not json\n")


def test_where_the_runtime_folder_is() -> None:
    both = {"ADECORE_LSP_RUNTIME_DIR": "/a", "XDG_RUNTIME_DIR": "/b"}
    assert paths.runtime_folder(both) == "/a"
    assert paths.runtime_folder({"XDG_RUNTIME_DIR": "/run/user/7"}) == "/run/user/7/adecore-lsp"
    assert paths.runtime_folder({}) == f"/tmp/adecore-lsp-{os.getuid()}"


def test_a_runtime_folder_that_cannot_be_used(tmp_path: Path) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert "is not a folder" in (paths.unusable(a_file) or "")
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(real)
    assert "a link is not taken" in (paths.unusable(tmp_path / "link") or "")
    assert "cannot be made" in (paths.unusable(a_file / "below") or "")
    assert "too deep" in (paths.unusable(tmp_path / ("x" * 110)) or "")
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o777)
    os.chmod(loose, 0o777)
    assert paths.unusable(loose) is None
    assert oct(loose.stat().st_mode & 0o777) == oct(0o700)


def test_one_daemon_a_folder(tmp_path: Path) -> None:
    held = paths.hold_lock(tmp_path)
    assert held is not None
    try:
        assert paths.hold_lock(tmp_path) is None
        assert paths.lock_is_held(tmp_path)
    finally:
        os.close(held)
    assert not paths.lock_is_held(tmp_path)
    assert not paths.lock_is_held(tmp_path / "missing")


def test_what_makes_a_workspace_another(tmp_path: Path) -> None:
    request = WorkspaceRequest(tmp_path, None, Registry.default(), 60.0, None)
    base = {"PATH": "/usr/bin", "HOME": "/home/u"}
    key = pool.workspace_key(request, base)
    volatile = {
        "PWD": "/x",
        "OLDPWD": "/y",
        "SHLVL": "3",
        "_": "/bin/sh",
        "TERM": "dumb",
        "COLUMNS": "80",
        "LINES": "24",
        "NO_COLOR": "1",
        "DISPLAY": ":0",
        "SSH_AUTH_SOCK": "/tmp/agent",
    }
    assert pool.workspace_key(request, {**base, **volatile}) == key
    assert pool.workspace_key(request, {**base, "VIRTUAL_ENV": "/v"}) != key
    assert pool.workspace_key(request, {**base, "PATH": "/opt/bin"}) != key
    chosen = WorkspaceRequest(tmp_path, ["ruff"], Registry.default(), 60.0, None)
    assert pool.workspace_key(chosen, base) != key
    (tmp_path / "pyproject.toml").write_text('[tool.adecore-lsp]\nservers = ["ruff"]\n')
    assert pool.workspace_key(request, base) != key  # the project's configuration changed
    trusted = WorkspaceRequest(tmp_path, None, Registry.default(), 60.0, True)
    assert pool.workspace_key(trusted, base) != pool.workspace_key(request, base)


def test_status_as_text() -> None:
    shown = commands._text(
        {
            "running": True,
            "pid": 41,
            "version": "1.2",
            "socket": "/run/user/1/adecore-lsp/daemon.sock",
            "uptime_s": 4000.0,
            "memory_budget_mib": 2048,
            "rss_bytes": 300 * 2**20,
            "workspaces": [
                {
                    "root": "/src/app",
                    "servers": [
                        {
                            "id": "ruff",
                            "pid": 50,
                            "state": "running",
                            "rss_bytes": 30 * 2**20,
                            "restarts": 0,
                        },
                        {
                            "id": "basedpyright",
                            "pid": None,
                            "state": "crashed",
                            "rss_bytes": None,
                            "restarts": 2,
                        },
                    ],
                    "last_used_s": 75.0,
                }
            ],
        }
    )
    assert shown.splitlines() == [
        "daemon 1.2: pid 41, up 1.1 h, socket /run/user/1/adecore-lsp/daemon.sock",
        "servers' memory 300 MiB of a budget of 2048 MiB",
        "/src/app (last used 1 min ago)",
        "  ruff: running, pid 50, 30 MiB",
        "  basedpyright: crashed, pid None, ? MiB, 2 restarts",
    ]
    empty = commands._text(
        {
            **commands.NOT_RUNNING,
            "running": True,
            "pid": 1,
            "version": "1",
            "socket": "s",
            "uptime_s": 3.0,
            "memory_budget_mib": 1,
            "rss_bytes": 0,
        }
    )
    assert "no workspace held" in empty
    assert commands._text(commands.NOT_RUNNING) == "no daemon is running\n"


def test_the_default_memory_budget_is_a_quarter_of_the_machine() -> None:
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    budget = server.memory_budget_default()
    assert 0 < budget <= total // 4


def test_a_dead_daemons_leftovers(tmp_path: Path) -> None:
    """The socket goes; a recorded group still led by a process with the recorded start
    time is killed, others (another start time, garbage) are left alone."""
    (tmp_path / "daemon.sock").write_text("")
    leader = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )
    other = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )
    try:
        started = groups.start_time(leader.pid)
        assert started is not None
        other_start = groups.start_time(other.pid)
        assert other_start is not None
        (tmp_path / "servers.json").write_text(
            json.dumps(
                {
                    "groups": [
                        {"pgid": leader.pid, "start": started},
                        {"pgid": other.pid, "start": other_start + 1},  # pid reused since
                        {"pgid": "x"},
                        {"start": 1},
                    ]
                }
            )
        )
        client.clean_up_after_a_dead_daemon(str(tmp_path))
        assert leader.wait(timeout=10) == -9
        assert other.poll() is None
        assert not (tmp_path / "daemon.sock").exists()
        assert not (tmp_path / "servers.json").exists()
    finally:
        for process in (leader, other):
            process.kill()
            process.wait()
    assert groups.start_time(2**22 + 12345) is None
    (tmp_path / "servers.json").write_text("not json")
    client.clean_up_after_a_dead_daemon(str(tmp_path))  # nothing to read: nothing done


@pytest.mark.parametrize(
    ("argv", "env", "expected"),
    [
        (["check"], {}, "auto"),
        (["--daemon", "on", "hover", "a.py#f"], {}, "on"),
        (["hover", "a.py#f", "--daemon=on"], {}, "on"),
        (["check", "--daemon", "off"], {"ADECORE_LSP_DAEMON": "on"}, None),
        (["check"], {"ADECORE_LSP_DAEMON": "on"}, "on"),
        (["check"], {"ADECORE_LSP_DAEMON": "off"}, None),
        (["check"], {"ADECORE_LSP_DAEMON": "sometimes"}, "auto"),
        (["-q", "--root", "src", "--server=ruff", "check", "--format", "json"], {}, "auto"),
        (["check", "--trace", "t.jsonl"], {}, None),
        (["--replay=t.jsonl", "hover", "x"], {}, None),
        (["mcp"], {}, None),
        (["daemon", "status"], {}, None),
        (["--help"], {}, None),
        (["check", "-h"], {}, None),
        (["--version"], {}, None),
        ([], {}, None),
        (["--dae", "on", "check"], {}, None),  # abbreviated: the parser reads it
        (["chek"], {}, None),  # a mistake: the parser says it
        (["--daemon", "maybe", "check"], {}, None),
        (["--root"], {}, None),
        (["check", "--", "--trace"], {}, "auto"),  # a path named --trace
    ],
)
def test_which_commands_go_to_the_daemon_before_parsing(
    argv: list[str], env: dict[str, str], expected: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adecore_lsp.cli import modes

    monkeypatch.delenv("ADECORE_LSP_DAEMON", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert modes.route(argv) == expected


def test_the_watcher_is_a_small_program() -> None:
    """The watcher's program imports no more of the package than itself and its helpers,
    and none of the standard library's heavy modules: it starts quickly and stays small."""
    program = watching.PROGRAM.replace("sys.exit(main())", "print(sorted(sys.modules))")
    ran = subprocess.run(
        [sys.executable, "-I", "-S", "-c", program, watching.PACKAGE_PARENT],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    modules = set(json.loads(ran.stdout.replace("'", '"')))
    ours = {name for name in modules if name.startswith("adecore_lsp")}
    assert ours == {
        "adecore_lsp",
        "adecore_lsp._version",
        "adecore_lsp.daemon",
        "adecore_lsp.daemon.groups",
        "adecore_lsp.daemon.watcher",
        "adecore_lsp.transports",
        "adecore_lsp.transports._proc_groups",
    }
    assert not {"asyncio", "subprocess", "pathlib", "typing", "threading"} & modules


def test_a_new_watcher_finds_the_groups_in_its_pipe_as_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The groups are written before the watcher runs: a daemon killed the moment after it
    started a watcher (a new one, after the last died) still leaves it what to end."""
    seen: list[bytes] = []
    real = subprocess.Popen

    def popen(args: Any, **options: Any) -> Any:
        stdin = options["stdin"]
        os.set_blocking(stdin, False)
        try:
            seen.append(os.read(stdin, 65536))  # what the watcher would read first
        except BlockingIOError:
            seen.append(b"")  # nothing yet
        return real([sys.executable, "-c", "pass"], stdin=subprocess.DEVNULL)

    monkeypatch.setattr(subprocess, "Popen", popen)
    watcher = watching.Watcher(tmp_path)
    watcher.record([os.getpid()])
    watcher.start()
    assert seen == [watcher_line([(os.getpid(), groups.start_time(os.getpid()))])]
    monkeypatch.undo()
    watcher._close_pipe()
    assert watcher._process is not None
    watcher._process.wait()
