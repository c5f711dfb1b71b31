"""A server that wrote a message and exited before its session was even made: the session
starts closed, the handshake fails with the documented error, and nothing else is said.

The transport of such a server is closed with a message kept for its first listener, so it
calls the session back while the session subscribes. A real child process does it here; the
workspace meets it when a server is that quick (``connect`` below waits for the exit, so
that the test does not depend on a race).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

import pytest

from adecore_lsp import LspError, LspSession, ServerProcess, SessionState, spawn_server
from adecore_lsp.errors import TransportClosedError
from adecore_lsp.workspace.servers.registry import ServerSpec
from adecore_lsp.workspace.workspace import Workspace

SERVER = [sys.executable, str(Path(__file__).with_name("one_frame_server.py"))]


async def exited(command: list[str], cwd: Path | None = None) -> ServerProcess:
    """``command`` started, its one message written, and the process and its stdout ended."""
    server = await spawn_server(command, cwd=cwd)
    assert await server.wait() == 0
    for _ in range(500):
        if getattr(server.transport, "closed", False):
            break
        await asyncio.sleep(0.01)
    assert getattr(server.transport, "closed", False), "stdout did not end"
    return server


def said(caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]) -> str:
    """Whatever reached the logs (any logger, any level from DEBUG) or stderr."""
    logged = "\n".join(
        f"{record.name} {record.levelname}: {record.getMessage()} {record.exc_info!r}"
        for record in caplog.records
    )
    return logged + capsys.readouterr().err


async def test_a_session_on_a_server_that_already_exited(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)
    server = await exited(SERVER)
    try:
        session = LspSession(server.transport)
        assert session.state is SessionState.CLOSED
        with pytest.raises(LspError, match="the session is closed") as raised:
            await session.initialize()
        assert isinstance(raised.value.__cause__, TransportClosedError)
        assert "the server closed the connection" in str(raised.value.__cause__)
        await session.shutdown()  # ends at once, quietly
        assert session.state is SessionState.CLOSED
    finally:
        await server.aclose()
    assert said(caplog, capsys) == ""


async def test_a_workspace_server_that_exited_before_its_handshake(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)
    (tmp_path / "a.txt").write_text("hello\n")
    spec = ServerSpec("one-frame", SERVER, languages={".txt": "plaintext"})

    async def connect(spec: ServerSpec, root: Path) -> ServerProcess:
        return await exited(spec.command, root)

    async with Workspace(tmp_path, servers=[spec], connect=connect) as ws:
        with pytest.raises(LspError) as raised:
            await ws.session_for("a.txt")
    assert str(raised.value) == (
        "the language server one-frame exited before its handshake (exit status 0)"
    )
    output = said(caplog, capsys)
    assert "AttributeError" not in output
    assert "Traceback" not in output
    assert "raised" not in output  # the emitter's "a listener raised"
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


async def test_a_workspace_server_that_exits_during_its_handshake_is_said_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """A server that writes a message and exits after its session was made (during the
    handshake): the workspace's error says so, and no log line repeats it."""
    caplog.set_level(logging.DEBUG)
    (tmp_path / "a.txt").write_text("hello\n")
    late = [*SERVER, "--linger", "0.3"]
    spec = ServerSpec("one-frame", late, languages={".txt": "plaintext"})
    async with Workspace(tmp_path, servers=[spec]) as ws:
        with pytest.raises(LspError) as raised:
            await ws.session_for("a.txt")
    assert str(raised.value) == (
        "the language server one-frame exited before its handshake (exit status 0)"
    )
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert "Traceback" not in said(caplog, capsys)
