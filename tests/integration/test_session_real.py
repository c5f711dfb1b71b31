"""LspSession against real language servers: handshake, configuration, requests, cancel, exit."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import LspSession, SessionState, spawn_server
from adecore_lsp.protocol.wire.configuration import configuration_value
from tests.integration.conftest import RecordingTransport, find_server

pytestmark = pytest.mark.real_server

SOURCE = 'import os\n\n\ndef greet(name):\n    return "hi " + name\n\n\ngreet("x")\n'


def project(tmp_path: Path) -> Path:
    (tmp_path / "main.py").write_text(SOURCE)
    return tmp_path


def did_open(session: LspSession, path: Path) -> str:
    return session.open_document(path.as_uri(), "python", SOURCE).uri


async def test_pylsp_handshake_configuration_hover_cancel_and_exit(tmp_path: Path) -> None:
    """pylsp: the settings sent after initialized take effect; hover works; cancel is clean."""
    root = project(tmp_path)
    command = [find_server("pylsp")]
    async with await spawn_server(command, cwd=root) as server:
        transport = RecordingTransport(server.transport)
        settings = {"pylsp": {"plugins": {"pycodestyle": {"enabled": False}}}}
        session = LspSession(transport, root_uri=root.as_uri(), configuration=settings)
        diagnostics: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        session.on_diagnostics(diagnostics.put_nowait)
        errors: list[BaseException] = []
        session.on_error(errors.append)
        result = await session.initialize()
        assert result["serverInfo"]["name"] == "pylsp"
        assert session.position_encoding == "utf-16"  # pylsp names none
        assert [m.get("method") for m in transport.sent[:3]] == [
            "initialize",
            "initialized",
            "workspace/didChangeConfiguration",
        ]
        uri = did_open(session, root / "main.py")
        report = await asyncio.wait_for(diagnostics.get(), 30)
        assert report["uri"] == uri
        sources = {d.get("source") for d in report["diagnostics"]}
        assert "pyflakes" in sources  # `import os` is unused
        assert "pycodestyle" not in sources  # turned off by the configuration

        hover = await session.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 5}},
        )
        assert "greet" in str(hover["contents"])

        # Cancel a request right away: one $/cancelRequest goes out, the session goes on.
        call = asyncio.ensure_future(
            session.request(
                "textDocument/references",
                {
                    "textDocument": {"uri": uri},
                    "position": {"line": 3, "character": 5},
                    "context": {"includeDeclaration": True},
                },
            )
        )
        await asyncio.sleep(0)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        cancels = [m for m in transport.sent if m.get("method") == "$/cancelRequest"]
        assert len(cancels) == 1
        assert await session.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})

        await session.shutdown()
        assert session.state is SessionState.CLOSED
        assert [m.get("method") for m in transport.sent[-2:]] == ["shutdown", "exit"]
        assert await asyncio.wait_for(server.wait(), 10) == 0
        assert errors == []


async def test_pyrefly_asks_for_configuration_and_gets_the_settings(tmp_path: Path) -> None:
    """pyrefly's workspace/configuration requests are answered from the session's settings."""
    root = project(tmp_path)
    async with await spawn_server([find_server("pyrefly"), "lsp"], cwd=root) as server:
        transport = RecordingTransport(server.transport)
        settings = {"python": {"pyrefly": {"displayTypeErrors": "force-on"}}}
        async with LspSession(transport, root_uri=root.as_uri(), configuration=settings) as session:
            assert session.position_encoding == "utf-16"  # pyrefly never picks utf-8
            uri = did_open(session, root / "main.py")
            hover = await session.request(
                "textDocument/hover",
                {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 5}},
            )
            assert "greet" in str(hover)
            answered = transport.answers_to("workspace/configuration")
            assert answered, "pyrefly asked for no configuration"
            for params, result in answered:
                assert len(result) == len(params["items"])
                for item, value in zip(params["items"], result, strict=True):
                    assert value == configuration_value(settings, item.get("section"))
        assert session.state is SessionState.CLOSED
        assert await asyncio.wait_for(server.wait(), 10) == 0
