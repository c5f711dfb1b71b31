"""``adecore-lsp mcp --http``: several clients share one workspace, so one process per server."""

from __future__ import annotations

import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.integration.conftest import find_server

from .harness import (
    Client,
    alive,
    children,
    free_port,
    server_argv,
    server_env,
    structured,
    wait_for_port,
    wait_until,
)

pytestmark = [
    pytest.mark.real_server,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts processes in /proc"),
]

APP = "import os\n\n\ndef helper(x: int) -> int:\n    return x + 1\n\n\nprint(helper(1))\n"


def servers_of(pid: int) -> dict[str, list[int]]:
    """The language servers among ``pid``'s children, by name."""
    found: dict[str, list[int]] = {"basedpyright": [], "ruff": []}
    for child, command in children(pid):
        for name, pids in found.items():
            if name in command:
                pids.append(child)
    return found


def test_two_clients_share_one_process_per_server(tmp_path: Path) -> None:
    find_server("basedpyright-langserver")
    find_server("ruff")
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    port = free_port()
    argv = server_argv(
        "--http",
        f"127.0.0.1:{port}",
        "--root",
        tmp_path,
        "--server",
        "basedpyright",
        "--server",
        "ruff",
    )
    log = (tmp_path / "stderr.txt").open("wb")
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, env=server_env()
    )
    try:
        wait_for_port(port, process)
        url = f"http://127.0.0.1:{port}/mcp"
        first, second = Client.http(url), Client.http(url)
        try:
            with ThreadPoolExecutor(2) as pool:
                answers = list(
                    pool.map(
                        lambda client: client.call("diagnostics", {"paths": ["app.py"]}),
                        (first, second),
                    )
                )
            for answer in answers:
                found = structured(answer)
                assert {item["code"] for item in found["items"]} >= {"F401"}
                assert {item["server"] for item in found["items"]} == {"basedpyright", "ruff"}
            running = servers_of(process.pid)
            assert {name: len(pids) for name, pids in running.items()} == {
                "basedpyright": 1,
                "ruff": 1,
            }
            hover = structured(second.call("hover", {"target": "app.py#helper"}))
            assert "def helper(x: int) -> int" in hover["markdown"]
            restarted = structured(first.call("restart"))
            pids = {item["id"]: item["pid"] for item in restarted["items"]}
            assert sorted(pids) == ["basedpyright", "ruff"]
            # The other client sees the servers the first one restarted: the same workspace.
            again = structured(second.call("restart", {"server": "ruff"}))
            assert [item["restarts"] for item in again["items"]] == [2]
            assert wait_until(
                lambda: (
                    {n: len(p) for n, p in servers_of(process.pid).items()}
                    == {"basedpyright": 1, "ruff": 1}
                )
            )
            final = [pid for pids in servers_of(process.pid).values() for pid in pids]
        finally:
            first.close()
            second.close()
        # The clients went away; the servers live as long as the HTTP server does.
        assert all(alive(pid) for pid in final)
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)
        assert wait_until(lambda: not any(alive(pid) for pid in final)), "a server outlived it"
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        log.close()
    assert b"Traceback" not in (tmp_path / "stderr.txt").read_bytes()
