"""What JSON cannot carry fails ``send`` alike on every transport, and nothing is written.

Each transport kind is driven against a real peer that echoes: a byte stream the test reads,
a spawned echo program, the other end of a memory pair, and a local WebSocket server. After
the refused message, the next good one must come back alone: proof that nothing was sent and
that the transport stayed open.
"""

from __future__ import annotations

import asyncio
import math
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from adecore_lsp.errors import MessageEncodingError
from adecore_lsp.protocol.wire.framing import ContentLengthDecoder
from adecore_lsp.transports.base import LspTransport
from adecore_lsp.transports.memory import create_memory_transport_pair
from adecore_lsp.transports.process import spawn_server
from adecore_lsp.transports.stream import create_stream_transport
from adecore_lsp.transports.websocket import connect_websocket
from tests.fake_stream import FakeStream

ECHO = [sys.executable, str(Path(__file__).parent / "programs" / "server.py"), "echo"]
GUARD = 20.0
"""Seconds a test waits for an echo before failing instead of hanging."""

GOOD = {"jsonrpc": "2.0", "id": 1, "method": "after", "params": {"text": "h\u00e9"}}


def deep(depth: int) -> dict[str, Any]:
    """A message nested ``depth`` lists deep."""
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return {"jsonrpc": "2.0", "method": "deep", "params": value}


def notification(params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "bad", "params": params}


BAD_MESSAGES = [
    pytest.param(notification(math.nan), "NaN", id="nan"),
    pytest.param(notification({"a": [1.0, -math.inf]}), "Infinity", id="infinity"),
    pytest.param(notification("broken \ud83d text"), "lone surrogate", id="lone-surrogate"),
    pytest.param(notification(2**64), "64-bit", id="int-beyond-64-bits"),
    pytest.param(deep(1000), "Recursion", id="too-deep"),
    pytest.param(notification({1, 2}), "set", id="set"),
    pytest.param(notification(object()), "object", id="object"),
    pytest.param(notification({1: "key"}), "str", id="non-str-key"),
    pytest.param([GOOD], "dict", id="not-a-dict"),
]


class Peer:
    """One transport under test and the messages its peer echoed back to it."""

    def __init__(self, transport: LspTransport, pump: Callable[[], None] = lambda: None) -> None:
        self.transport = transport
        self.echoed: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.closes: list[BaseException | None] = []
        self._pump = pump
        transport.on_message(self.echoed.put_nowait)
        transport.on_close(self.closes.append)

    async def next_echo(self) -> dict[str, Any]:
        self._pump()
        return await asyncio.wait_for(self.echoed.get(), GUARD)


async def stream_peer(stack: AsyncExitStack) -> Peer:
    """A stream transport whose peer echoes every frame written, when pumped."""
    stream = FakeStream()
    transport = create_stream_transport(stream)
    # The peer reads the frames with a decoder of its own, then feeds them back.
    peer_decoder = ContentLengthDecoder()

    def pump() -> None:
        written, stream.written = stream.written, []
        for chunk in written:
            assert peer_decoder.feed(chunk), "a write that is not a whole frame"
            stream.feed(chunk)

    stack.callback(transport.close)
    return Peer(transport, pump)


async def process_peer(stack: AsyncExitStack) -> Peer:
    server = await spawn_server(ECHO)
    stack.push_async_callback(server.aclose, grace_period=0.5)
    return Peer(server.transport)


async def memory_peer(stack: AsyncExitStack) -> Peer:
    near, far = create_memory_transport_pair()
    far.on_message(far.send)
    stack.callback(near.close)
    return Peer(near)


async def websocket_peer(stack: AsyncExitStack) -> Peer:
    async def echo(connection: ServerConnection) -> None:
        async for frame in connection:
            await connection.send(frame)

    server = await stack.enter_async_context(serve(echo, "127.0.0.1", 0))
    port = next(iter(server.sockets)).getsockname()[1]
    transport = await connect_websocket(f"ws://127.0.0.1:{port}")

    async def close() -> None:
        transport.close()
        await transport.wait_closed()

    stack.push_async_callback(close)
    return Peer(transport)


PEERS: dict[str, Callable[[AsyncExitStack], Awaitable[Peer]]] = {
    "stream": stream_peer,
    "process": process_peer,
    "memory": memory_peer,
    "websocket": websocket_peer,
}


@pytest.fixture(params=list(PEERS))
async def peer(request: pytest.FixtureRequest) -> AsyncIterator[Peer]:
    async with AsyncExitStack() as stack:
        yield await PEERS[request.param](stack)


@pytest.mark.parametrize(("message", "says"), BAD_MESSAGES)
async def test_a_message_json_cannot_carry_fails_send_alike_on_every_transport(
    peer: Peer, message: Any, says: str
) -> None:
    """MessageEncodingError (a ValueError) from send; nothing goes out; the next send works."""
    with pytest.raises(MessageEncodingError, match="cannot encode the message") as caught:
        peer.transport.send(message)
    assert says in str(caught.value)
    assert isinstance(caught.value, ValueError)
    peer.transport.send(GOOD)
    assert await peer.next_echo() == GOOD
    assert peer.echoed.empty()
    assert peer.closes == []
