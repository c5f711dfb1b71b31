"""What every feature call does first: positions, the capability check, late registrations."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from adecore_lsp import ErrorCodes, LspError

from .conftest import TEXT, URI, Start

HOVER = {"contents": {"kind": "markdown", "value": "greet(name)"}}


async def test_an_index_is_a_position_in_the_negotiated_encoding(start: Start) -> None:
    """An int is an index into the open document's text; the server gets a Position."""
    session, server = await start({"hoverProvider": True, "positionEncoding": "utf-16"})
    session.open_document(URI, "python", TEXT)
    server.on("textDocument/hover", lambda params: HOVER)
    after_emoji = TEXT.index("😀") + 1
    assert await session.hover(URI, after_emoji) == HOVER
    [request] = server.messages("textDocument/hover")
    # Line 1, after "    return f'hi {name} " (23 characters) and the emoji (2 UTF-16 units).
    assert request["params"] == {
        "textDocument": {"uri": URI},
        "position": {"line": 1, "character": 25},
    }
    await session.hover(URI, {"line": 3, "character": 1})
    assert server.messages("textDocument/hover")[1]["params"]["position"] == {
        "line": 3,
        "character": 1,
    }


@pytest.mark.parametrize(
    ("at", "error", "words"),
    [
        (len(TEXT) + 1, ValueError, "outside the text"),
        (-1, ValueError, "outside the text"),
        ({"line": -1, "character": 0}, ValueError, "non-negative"),
        ({"line": 0}, ValueError, "non-negative"),
        ({"line": 0, "character": 1.5}, ValueError, "non-negative"),
        (True, TypeError, "Position"),
        ("3", TypeError, "Position"),
    ],
)
async def test_a_bad_position_is_refused_before_anything_is_sent(
    start: Start, at: Any, error: type[Exception], words: str
) -> None:
    session, server = await start({"hoverProvider": True})
    session.open_document(URI, "python", TEXT)
    with pytest.raises(error, match=words):
        await session.hover(URI, at)
    assert server.messages("textDocument/hover") == []


async def test_an_index_into_a_document_that_is_not_open_is_refused(start: Start) -> None:
    session, _server = await start({"hoverProvider": True})
    with pytest.raises(ValueError, match="is not open") as caught:
        await session.hover("file:///w/closed.py", 3)
    assert "file:///w/closed.py" in str(caught.value)


async def test_a_range_whose_end_is_before_its_start_is_refused(start: Start) -> None:
    session, server = await start({"documentFormattingProvider": True, "inlayHintProvider": True})
    session.open_document(URI, "python", TEXT)
    with pytest.raises(ValueError, match="ends before it starts"):
        await session.inlay_hints(URI, (10, 2))
    with pytest.raises(ValueError, match="ends before it starts"):
        await session.inlay_hints(
            URI, {"start": {"line": 2, "character": 0}, "end": {"line": 1, "character": 0}}
        )
    with pytest.raises(ValueError, match="pair"):
        await session.inlay_hints(URI, (1, 2, 3))
    assert server.messages("textDocument/inlayHint") == []


async def test_an_unsupported_method_names_itself_and_the_server(start: Start) -> None:
    """MethodNotFound, naming the method and the server; nothing is sent."""
    session, server = await start({}, registration_grace=0)
    with pytest.raises(LspError) as caught:
        await session.hover(URI, {"line": 0, "character": 0})
    assert caught.value.code == ErrorCodes.MethodNotFound
    assert "textDocument/hover" in caught.value.message
    assert "fakels" in caught.value.message
    assert server.messages("textDocument/hover") == []


async def test_a_capability_registered_just_after_the_handshake_is_waited_for(
    start: Start,
) -> None:
    """ruff registers formatting ~14 ms after initialize: the call waits, then goes."""
    session, server = await start({}, registration_grace=5.0)
    server.on("textDocument/formatting", lambda params: [])

    async def register_later() -> None:
        await asyncio.sleep(0)
        await server.request(
            "client/registerCapability",
            {"registrations": [{"id": "f", "method": "textDocument/formatting"}]},
        )

    registering = asyncio.ensure_future(register_later())
    assert await session.formatting(URI) == []
    await registering
    [request] = server.messages("textDocument/formatting")
    assert request["params"]["options"] == {"tabSize": 4, "insertSpaces": True}


async def test_after_the_grace_a_missing_capability_is_refused_at_once(start: Start) -> None:
    session, _server = await start({}, registration_grace=0.05)
    await asyncio.sleep(0.06)
    loop = asyncio.get_running_loop()
    began = loop.time()
    with pytest.raises(LspError) as caught:
        await session.formatting(URI)
    assert caught.value.code == ErrorCodes.MethodNotFound
    assert loop.time() - began < 0.05


async def test_the_grace_wait_counts_against_the_deadline(start: Start) -> None:
    session, _server = await start({}, registration_grace=10.0)
    loop = asyncio.get_running_loop()
    began = loop.time()
    with pytest.raises(LspError) as caught:
        await session.formatting(URI, timeout=0.05)
    assert caught.value.code == ErrorCodes.MethodNotFound
    assert loop.time() - began < 1.0


async def test_wait_for_capability(start: Start) -> None:
    session, server = await start({"hoverProvider": True})
    assert await session.wait_for_capability("textDocument/hover", timeout=0)
    assert not await session.wait_for_capability("textDocument/rename", timeout=0)
    assert not await session.wait_for_capability("textDocument/rename", timeout=0.01)

    async def register_later() -> None:
        await server.round_trip()
        await server.request(
            "client/registerCapability",
            {
                "registrations": [
                    {"id": "w", "method": "workspace/didChangeWatchedFiles"},
                    {"id": "r", "method": "textDocument/rename"},
                ]
            },
        )

    registering = asyncio.ensure_future(register_later())
    assert await session.wait_for_capability("textDocument/rename", URI, timeout=5)
    await registering


async def test_execute_command(start: Start) -> None:
    session, server = await start({"executeCommandProvider": {"commands": ["fix"]}})
    server.on("workspace/executeCommand", lambda params: params)
    assert await session.execute_command("fix", [1]) == {"command": "fix", "arguments": [1]}
    assert await session.execute_command("fix") == {"command": "fix"}
