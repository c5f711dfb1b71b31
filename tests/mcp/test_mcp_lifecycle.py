"""``adecore-lsp mcp`` at its edges: a server that is not installed, one that never finishes,
the root from the client's roots or the current folder, stdout carrying MCP alone, the
language servers shut down when the client goes away, and no SDK installed."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import find_server

from .harness import Client, alive, server_argv, server_env, structured, text, wait_until

pytestmark = pytest.mark.real_server

SILENT = Path(__file__).with_name("silent_lsp.py")

APP = "import os\n\n\ndef main() -> None:\n    print(undefined)\n"


def project(root: Path, config: str | None = None) -> Path:
    (root / "app.py").write_text(APP, encoding="utf-8")
    if config is not None:
        (root / "adecore-lsp.toml").write_text(config, encoding="utf-8")
    return root.resolve()


def toml_string(value: str) -> str:
    return json.dumps(value)


def test_a_timeout_is_an_incomplete_answer_said_in_words(tmp_path: Path) -> None:
    command = [sys.executable, str(SILENT)]
    root = project(
        tmp_path,
        'servers = ["silent"]\n'
        "[server.silent]\n"
        f"command = [{', '.join(toml_string(part) for part in command)}]\n"
        'languages = { ".py" = "python" }\n',
    )
    client = Client.stdio("--root", root, "--timeout", "1", "--trust")
    try:
        result = client.call("diagnostics", {"paths": ["app.py"]})
        found = structured(result)
        assert found["complete"] is False
        assert found["reason"] == "timeout"
        assert found["items"] == []
        assert found["total"] == 0
        assert (
            "INCOMPLETE: diagnostics of app.py are not final: silent said nothing new for 1 s "
            "(no answer, no diagnostics, no progress that moved; --timeout 1); ask again."
        ) in text(result)
        outline = client.call("symbols", {"path": "app.py"})
        assert outline.is_error
        assert "textDocument/documentSymbol" in text(outline)
    finally:
        client.close()


def test_a_server_still_working_gives_what_is_final_before_the_call_is_cut_off(
    tmp_path: Path,
) -> None:
    """Progress that keeps moving is waited for, but a call answers within its own bound
    (twice --timeout): at one and a half, incomplete, saying the server was still working."""
    moving = Path(__file__).parents[1] / "cli" / "scripted_lsp.py"
    command = [sys.executable, str(moving), "moving-progress"]
    root = project(
        tmp_path,
        'servers = ["busy"]\n'
        "[server.busy]\n"
        f"command = [{', '.join(toml_string(part) for part in command)}]\n"
        'languages = { ".py" = "python" }\n',
    )
    client = Client.stdio("--root", root, "--timeout", "2", "--trust")
    try:
        result = client.call("diagnostics", {"paths": ["app.py"]})
        assert not result.is_error, text(result)
        found = structured(result)
        assert found["complete"] is False
        assert found["reason"] == "timeout"
        assert (
            "INCOMPLETE: diagnostics of app.py are not final: busy was still working when the "
            "call's time was up (3 s); ask again."
        ) in text(result)
    finally:
        client.close()


@pytest.fixture(scope="module")
def scripted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Client, Path]]:
    """A server whose .py files go to the silent server (which logs what it gets to the
    path given with it) and .txt files to one that is not installed."""
    root = tmp_path_factory.mktemp("scripted")
    log = root / "received.log"
    command = [sys.executable, str(SILENT), str(log)]
    project(
        root,
        'servers = ["silent", "nowhere"]\n'
        "[server.silent]\n"
        f"command = [{', '.join(toml_string(part) for part in command)}]\n"
        'languages = { ".py" = "python" }\n'
        "[server.nowhere]\n"
        'command = ["adecore-lsp-test-no-such-server", "--stdio"]\n'
        'languages = { ".txt" = "plaintext" }\n'
        'install = "pip install nowhere-lsp"\n',
    )
    (root / "notes.txt").write_text("notes\n", encoding="utf-8")
    client = Client.stdio("--root", root, "--timeout", "20", "--trust")
    try:
        yield client, log
    finally:
        client.close()


def test_a_server_that_is_not_installed_is_a_tool_error(scripted: tuple[Client, Path]) -> None:
    client, _log = scripted
    for _ in range(2):  # the second call is served as the first was
        result = client.call("diagnostics", {"paths": ["notes.txt"]})
        assert result.is_error
        message = text(result)
        assert "the language server nowhere is not installed" in message
        assert "pip install nowhere-lsp" in message
    hover = client.call("hover", {"target": "notes.txt:1:1"})
    assert hover.is_error
    assert "nowhere is not installed" in text(hover)


def test_a_cancelled_call_cancels_its_lsp_request(scripted: tuple[Client, Path]) -> None:
    client, log = scripted
    client.call_cancelled("hover", {"target": "app.py:1:1"}, after=1.0)
    assert wait_until(lambda: "$/cancelRequest" in log.read_text(encoding="utf-8"))
    received = log.read_text(encoding="utf-8").splitlines()
    assert received.index("textDocument/hover") < received.index("$/cancelRequest")
    # The server goes on: the next call is answered.
    [status] = structured(client.call("restart"))["items"]
    assert status["id"] == "silent"


def test_the_root_is_the_clients_first_root(tmp_path: Path) -> None:
    find_server("ruff")
    (tmp_path / "client-root").mkdir()
    root = project(tmp_path / "client-root")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    client = Client.stdio("--server", "ruff", cwd=elsewhere, roots=[root, elsewhere])
    try:
        assert client.initialized is not None
        assert "your first root" in (client.initialized.instructions or "")
        found = structured(client.call("diagnostics", {"paths": ["app.py"]}))
        assert {item["code"] for item in found["items"]} == {"F401", "F821"}
        outside = client.call("symbols", {"path": str(elsewhere / "x.py")})
        assert outside.is_error
        assert "outside the workspace root" in text(outside)
    finally:
        client.close()


def test_without_roots_the_root_is_the_current_folder(tmp_path: Path) -> None:
    find_server("ruff")
    root = project(tmp_path)
    client = Client.stdio("--server", "ruff", cwd=root)
    try:
        found = structured(client.call("diagnostics"))
        assert {(item["path"], item["code"]) for item in found["items"]} == {
            ("app.py", "F401"),
            ("app.py", "F821"),
        }
    finally:
        client.close()


def _send(process: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
    process.stdin.flush()


def test_stdout_carries_mcp_alone_and_the_servers_end_with_stdin(tmp_path: Path) -> None:
    find_server("ruff")
    root = project(tmp_path)
    process = subprocess.Popen(
        server_argv("--root", root, "--server", "ruff"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(),
        cwd=root,
    )
    try:
        hello = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        }
        _send(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        _send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"name": "diagnostics", "arguments": {}}
        _send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(2)]
        restart = {"name": "restart", "arguments": {}}
        _send(process, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": restart})
        lines.append(process.stdout.readline())
        assert process.stdin is not None
        process.stdin.close()
        process.stdin = None  # closed: the client went away
        rest, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err.decode()
    messages = [json.loads(line) for line in [*lines, *rest.splitlines()] if line.strip()]
    assert [message.get("id") for message in messages] == [1, 2, 3]
    assert all(message["jsonrpc"] == "2.0" for message in messages)
    result = messages[1]["result"]
    assert result["isError"] is False, result
    assert {item["code"] for item in result["structuredContent"]["items"]} == {"F401", "F821"}
    assert b"Traceback" not in err
    # The client went away (stdin closed): the server shut ruff down before it exited.
    [status] = messages[2]["result"]["structuredContent"]["items"]
    assert status["id"] == "ruff"
    assert not alive(status["pid"]), f"ruff (pid {status['pid']}) outlived the MCP server"


def test_without_the_sdk_the_command_says_how_to_install_it() -> None:
    code = (
        "import sys; sys.modules['mcp'] = None\n"
        "from adecore_lsp.mcp.__main__ import main\n"
        "raise SystemExit(main([]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert 'pip install "adecore-lsp[mcp]"' in done.stderr


def test_other_commands_never_import_the_sdk() -> None:
    code = (
        "import sys, adecore_lsp, adecore_lsp.sync\n"
        "from adecore_lsp.cli import parser, mcp_command\n"
        "parser.build_parser().parse_args(['check'])\n"
        "assert 'mcp' not in sys.modules, 'mcp was imported'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 0, done.stderr
