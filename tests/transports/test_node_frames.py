"""Frames a real Node.js server writes: legal JSON orjson refuses still arrives.

``JSON.stringify`` escapes a lone surrogate (``"\\ud83d"``, the end of a string cut in the
middle of an emoji), and a server may write a number beyond float range. Both are legal JSON;
the stream transport must deliver them and stay open.
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import AsyncIterator

import pytest

from adecore_lsp.transports.process import ServerProcess, spawn_server
from tests.transports.readers import message_reader

# Writes three frames, then echoes stdin to stdout until stdin ends.
NODE_SERVER = r"""
const cut = "broken \ud83d\ude00".slice(0, 8);  // "broken " and half an emoji
const bodies = [
  JSON.stringify({jsonrpc: "2.0", method: "window/logMessage", params: {type: 3, message: cut}}),
  '{"jsonrpc": "2.0", "method": "$/huge", "params": {"value": 1e400, "negative": -1e400}}',
  JSON.stringify({jsonrpc: "2.0", method: "$/after"}),
];
for (const body of bodies) {
  const bytes = Buffer.from(body, "utf8");
  process.stdout.write("Content-Length: " + bytes.length + "\r\n\r\n");
  process.stdout.write(bytes);
}
process.stdin.pipe(process.stdout);
"""


def find_node() -> str:
    """The path of ``node``: a missing one skips the test, and fails it in CI.

    The same rule as the integration tests' servers (``tests/integration/conftest.py``).
    """
    found = shutil.which("node")
    if found is None:
        reason = "node is not on PATH; this test runs a real Node.js program as the server"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return found


@pytest.fixture
async def node_server() -> AsyncIterator[ServerProcess]:
    """The script above under Node."""
    server = await spawn_server([find_node(), "-e", NODE_SERVER])
    yield server
    await server.aclose(grace_period=0.5)


async def test_node_frames_with_a_lone_surrogate_and_1e400_arrive(
    node_server: ServerProcess,
) -> None:
    """Both odd messages arrive as the standard library reads them; the transport stays open."""
    transport = node_server.transport
    closes: list[BaseException | None] = []
    transport.on_close(closes.append)
    next_message = message_reader(transport)

    assert await next_message() == {
        "jsonrpc": "2.0",
        "method": "window/logMessage",
        "params": {"type": 3, "message": "broken \ud83d"},
    }
    assert await next_message() == {
        "jsonrpc": "2.0",
        "method": "$/huge",
        "params": {"value": math.inf, "negative": -math.inf},
    }
    assert await next_message() == {"jsonrpc": "2.0", "method": "$/after"}
    # Still open: a message sent now comes back through Node's echo.
    transport.send({"jsonrpc": "2.0", "id": 1, "result": None})
    assert await next_message() == {"jsonrpc": "2.0", "id": 1, "result": None}
    assert closes == []
