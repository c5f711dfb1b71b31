"""connect_websocket() against real language servers that speak LSP over a WebSocket.

jedi-language-server can serve one session over a WebSocket (``--ws``). On pygls 1 it sends
text frames, the convention the transport follows; on pygls 2 it sends binary frames, which
the transport refuses. The project installs the pygls 1 generation in its own venv at
``build/servers/jedi-pygls1``; the main venv holds the current one.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import LspError, LspSession, SessionState
from adecore_lsp.errors import FramingError
from adecore_lsp.transports.websocket import WebSocketTransport, connect_websocket
from adecore_lsp.types import JSONObject

pytestmark = pytest.mark.real_server

REPO = Path(__file__).resolve().parents[2]
JEDI_PYGLS1 = REPO / "build" / "servers" / "jedi-pygls1" / "bin" / "jedi-language-server"
JEDI_PYGLS2 = Path(sys.executable).parent / "jedi-language-server"
START_TIMEOUT = 30.0  # seconds for the server's port to accept the WebSocket
REPLY_TIMEOUT = 30.0

SOURCE = '''def greet(name):
    """Say hello to someone."""
    return "hello " + name


greet("world")
'''


def require(executable: Path, install_hint: str) -> None:
    """Skip when the server is missing, except in CI, where it must be there."""
    if executable.exists():
        return
    message = f"{executable} is missing; {install_hint}"
    if os.environ.get("CI", "").lower() not in ("", "0", "false"):
        pytest.fail(message)
    pytest.skip(message)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def websocket_server(executable: Path, log: Path) -> AsyncIterator[str]:
    """Start ``executable --ws`` on a free loopback port; yield its URL; kill it after."""
    port = free_port()
    with log.open("wb") as stderr:
        process = await asyncio.create_subprocess_exec(
            str(executable),
            "--ws",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=stderr,
            stderr=stderr,
        )
    try:
        yield f"ws://127.0.0.1:{port}"
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()


async def open_when_ready(url: str, process_log: Path) -> WebSocketTransport:
    """Connect as soon as the server listens; a refused connection means not yet."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            return await connect_websocket(url, timeout=5.0)
        except ConnectionError:
            if time.monotonic() > deadline:
                log = process_log.read_text(errors="replace")
                pytest.fail(f"{url} did not accept within {START_TIMEOUT} s; log:\n{log}")
            # Polling an outside process: there is no event to wait for.
            await asyncio.sleep(0.1)


def hover_text(hover: Any) -> str:
    """The text of a Hover result, whatever shape its contents take."""
    contents = hover["contents"]
    items = contents if isinstance(contents, list) else [contents]
    return "\n".join(item if isinstance(item, str) else item["value"] for item in items)


async def test_jedi_on_pygls1_hover_over_websocket(tmp_path: Path) -> None:
    """A full session with jedi-language-server on pygls 1: handshake, open, hover, shutdown."""
    require(
        JEDI_PYGLS1,
        "create it with: python -m venv build/servers/jedi-pygls1 && "
        'build/servers/jedi-pygls1/bin/pip install "jedi-language-server==0.41.4" websockets',
    )
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    module = workspace / "greeting.py"
    module.write_text(SOURCE)
    log = tmp_path / "server.log"

    async with websocket_server(JEDI_PYGLS1, log) as url:
        transport = await open_when_ready(url, log)
        closes: list[BaseException | None] = []
        transport.on_close(closes.append)
        errors: list[BaseException] = []
        session = LspSession(transport, root_uri=workspace.as_uri(), timeout=REPLY_TIMEOUT)
        session.on_error(errors.append)
        await session.initialize()
        assert session.supports("textDocument/hover")
        assert session.position_encoding == "utf-16"  # pygls 1 names it explicitly
        session.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": module.as_uri(),
                    "languageId": "python",
                    "version": 1,
                    "text": SOURCE,
                }
            },
        )
        hover = await session.request(
            "textDocument/hover",
            {"textDocument": {"uri": module.as_uri()}, "position": {"line": 5, "character": 1}},
        )
        text = hover_text(hover)
        assert "greet" in text
        assert "Say hello to someone." in text

        # shutdown, exit, then the session closes the socket (pygls 1 leaves it open).
        await session.shutdown()
        assert session.state is SessionState.CLOSED
        await asyncio.wait_for(transport.wait_closed(), REPLY_TIMEOUT)
        assert closes == [None]
        assert errors == []


async def test_jedi_on_pygls2_session_ends_with_a_clear_reason(tmp_path: Path) -> None:
    """A session over pygls 2's binary frames fails initialize with the FramingError as cause."""
    require(JEDI_PYGLS2, "install the project's servers extra into the venv that runs the tests")
    log = tmp_path / "server.log"
    async with websocket_server(JEDI_PYGLS2, log) as url:
        transport = await open_when_ready(url, log)
        session = LspSession(transport, timeout=REPLY_TIMEOUT)
        started = time.monotonic()
        with pytest.raises(LspError) as caught:
            await session.initialize()
        assert time.monotonic() - started < REPLY_TIMEOUT
        assert isinstance(caught.value.__cause__, FramingError)
        assert "binary frame" in str(caught.value.__cause__)
        assert session.state is SessionState.CLOSED


async def test_jedi_on_pygls2_binary_frames_are_refused(tmp_path: Path) -> None:
    """jedi-language-server on pygls 2 answers in binary frames: a clear FramingError, no hang."""
    require(JEDI_PYGLS2, "install the project's servers extra into the venv that runs the tests")
    log = tmp_path / "server.log"

    async with websocket_server(JEDI_PYGLS2, log) as url:
        transport = await open_when_ready(url, log)
        closed: asyncio.Future[BaseException | None] = asyncio.get_running_loop().create_future()
        transport.on_close(closed.set_result)
        messages: list[JSONObject] = []
        transport.on_message(messages.append)

        transport.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"processId": os.getpid(), "rootUri": None, "capabilities": {}},
            }
        )
        reason = await asyncio.wait_for(closed, REPLY_TIMEOUT)
        assert isinstance(reason, FramingError)
        assert "binary frame" in str(reason)
        assert "jsonrpc" in str(reason)  # the start of the frame is quoted
        assert messages == []
        await asyncio.wait_for(transport.wait_closed(), REPLY_TIMEOUT)
