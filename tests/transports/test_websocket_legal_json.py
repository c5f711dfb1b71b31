"""Over a WebSocket too, legal JSON that orjson refuses arrives and the connection goes on."""

from __future__ import annotations

import math

from websockets.asyncio.server import ServerConnection, serve

from adecore_lsp.transports.websocket import connect_websocket
from tests.transports.readers import message_reader

# What a Node.js server's JSON.stringify writes for a string cut inside an emoji, and a
# number beyond float range; then a plain message.
TEXT_FRAMES = [
    '{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"cut \\ud83d"}}',
    '{"jsonrpc":"2.0","method":"$/huge","params":{"value":1e400}}',
    '{"jsonrpc":"2.0","method":"$/after"}',
]


async def send_then_echo(connection: ServerConnection) -> None:
    for text in TEXT_FRAMES:
        await connection.send(text)
    async for frame in connection:
        await connection.send(frame)


async def test_a_lone_surrogate_and_1e400_arrive_over_a_websocket() -> None:
    """The odd frames are read as the standard library reads them; the socket stays open."""
    async with serve(send_then_echo, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        transport = await connect_websocket(f"ws://127.0.0.1:{port}")
        next_message = message_reader(transport)

        assert await next_message() == {
            "jsonrpc": "2.0",
            "method": "window/logMessage",
            "params": {"type": 3, "message": "cut \ud83d"},
        }
        assert await next_message() == {
            "jsonrpc": "2.0",
            "method": "$/huge",
            "params": {"value": math.inf},
        }
        assert await next_message() == {"jsonrpc": "2.0", "method": "$/after"}
        transport.send({"jsonrpc": "2.0", "id": 1, "result": None})
        assert await next_message() == {"jsonrpc": "2.0", "id": 1, "result": None}
        assert not transport.closed
        transport.close()
        await transport.wait_closed()
