"""The MCP server's side of ``safety.md``: SIGTERM with stdin open ends it and every server;
HTTP checks ``Host`` and ``Origin`` and refuses other binds unless ``--allow-remote``, then
asks for a bearer token; an untrusted root is said in the instructions."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
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

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"},
    },
}


def post(port: int, headers: dict[str, str]) -> int:
    """The status of an ``initialize`` POSTed to ``/mcp`` with ``headers``."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        body = json.dumps(INITIALIZE).encode()
        connection.request(
            "POST",
            "/mcp",
            body=body,
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                **headers,
            },
        )
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    port = free_port()
    (tmp_path / "app.py").write_text("x = 1\n")
    process = subprocess.Popen(
        server_argv("--http", f"127.0.0.1:{port}", "--root", tmp_path, "--server", "ruff"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=server_env(),
    )
    try:
        wait_for_port(port, process)
        yield port, process
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)


def test_a_loopback_bind_checks_host_then_origin(
    served: tuple[int, subprocess.Popen[bytes]],
) -> None:
    port, _process = served
    assert post(port, {"Host": f"127.0.0.1:{port}"}) == 200
    assert post(port, {"Host": f"localhost:{port}"}) == 200
    assert post(port, {"Host": "[::1]:1"}) == 200
    # A page of another site (DNS rebinding names the address by its own host).
    assert post(port, {"Host": f"evil.example:{port}"}) == 421
    assert post(port, {"Host": f"127.0.0.1:{port}", "Origin": "http://evil.example"}) == 403
    assert post(port, {"Host": f"127.0.0.1:{port}", "Origin": f"http://localhost:{port}"}) == 200


def test_another_bind_is_refused_without_allow_remote(tmp_path: Path) -> None:
    done = subprocess.run(
        server_argv("--http", f"0.0.0.0:{free_port()}", "--root", tmp_path),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=server_env(),
        timeout=60,
    )
    assert done.returncode == 2
    assert b"not a loopback address" in done.stderr
    assert b"--allow-remote" in done.stderr


def test_allow_remote_needs_the_bearer_token(tmp_path: Path) -> None:
    port = free_port()
    env = {**server_env(), "ADECORE_LSP_MCP_TOKEN": "s3cret-token"}
    process = subprocess.Popen(
        server_argv(
            "--http",
            f"0.0.0.0:{port}",
            "--allow-remote",
            "--allowed-host",
            "dev.box",
            "--root",
            tmp_path,
        ),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        wait_for_port(port, process)
        good = {"Host": f"dev.box:{port}"}
        assert post(port, good) == 401
        assert post(port, {**good, "Authorization": "Bearer wrong"}) == 401
        assert post(port, {**good, "Authorization": "Bearer s3cret-token"}) == 200
        assert post(port, {"Host": "evil.example", "Authorization": "Bearer s3cret-token"}) == 421
    finally:
        process.send_signal(signal.SIGTERM)
        _out, err = process.communicate(timeout=30)
    assert b"bearer token:" not in err  # given in the environment: never printed


def test_a_generated_token_is_printed_once(tmp_path: Path) -> None:
    port = free_port()
    process = subprocess.Popen(
        server_argv("--http", f"0.0.0.0:{port}", "--allow-remote", "--root", tmp_path),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=server_env(),
    )
    try:
        wait_for_port(port, process)
        assert post(port, {"Host": f"127.0.0.1:{port}"}) == 401
    finally:
        process.send_signal(signal.SIGTERM)
        _out, err = process.communicate(timeout=30)
    lines = [line for line in err.decode().splitlines() if "bearer token:" in line]
    assert len(lines) == 1
    token = lines[0].split("adecore-lsp mcp: bearer token: ", 1)[1]
    assert len(token) >= 32


@pytest.mark.real_server
def test_sigterm_with_stdin_open_ends_every_server(tmp_path: Path) -> None:
    """A host that sends SIGTERM and keeps our stdin open: exit 0 within 10 s, servers gone."""
    find_server("ruff")
    (tmp_path / "app.py").write_text("import os\n")
    process = subprocess.Popen(
        server_argv("--root", tmp_path, "--server", "ruff"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=server_env(),
    )
    try:
        assert process.stdin is not None
        assert process.stdout is not None
        for message in (
            INITIALIZE,
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "diagnostics", "arguments": {"paths": ["app.py"]}},
            },
        ):
            process.stdin.write(json.dumps(message).encode() + b"\n")
            process.stdin.flush()
        answers = [json.loads(process.stdout.readline()) for _ in range(2)]
        assert answers[1]["id"] == 2
        assert wait_until(lambda: any("ruff" in cmd for _pid, cmd in children(process.pid)))
        ruff = [pid for pid, cmd in children(process.pid) if "ruff" in cmd]
        began = time.monotonic()
        process.send_signal(signal.SIGTERM)
        status = process.wait(timeout=15)
        assert status == 0
        assert time.monotonic() - began < 10
        assert wait_until(lambda: not any(alive(pid) for pid in ruff), timeout=2)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()


def test_the_instructions_say_what_an_untrusted_root_ignored(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    (tmp_path / "adecore-lsp.toml").write_text(
        '[server.ruff]\ncommand = ["sh", "-c", "touch owned"]\n'
    )
    client = Client.stdio("--root", tmp_path)
    try:
        assert client.initialized is not None
        instructions = client.initialized.instructions or ""
    finally:
        client.close()
    assert "is not trusted" in instructions
    assert "[server.ruff] command" in instructions
    assert "adecore-lsp trust" in instructions
    trusted = Client.stdio("--root", tmp_path, "--trust")
    try:
        assert trusted.initialized is not None
        assert "is not trusted" not in (trusted.initialized.instructions or "")
        assert structured(trusted.call("restart"))["items"] == []
    finally:
        trusted.close()
    assert not (tmp_path / "owned").exists()
    assert os.environ.get("ADECORE_LSP_TRUST") is None
