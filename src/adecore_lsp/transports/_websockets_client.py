"""The default WebSocket client of :func:`~adecore_lsp.transports.websocket.connect_websocket`.

It adapts a connection of the ``websockets`` package (its asyncio client) to the small
``WebSocketConnection`` interface the transport talks to, so that another WebSocket library
can stand in through ``create_websocket``.
"""

from __future__ import annotations

import ssl as ssl_module
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import FramingError

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

__all__ = ["INVALID_PAYLOAD", "MESSAGE_TOO_BIG", "UNSUPPORTED_DATA", "open_with_websockets"]

UNSUPPORTED_DATA = 1003
INVALID_PAYLOAD = 1007
MESSAGE_TOO_BIG = 1009

# Close codes websockets itself sends when it refuses a frame.
_REFUSED = frozenset({1002, INVALID_PAYLOAD, MESSAGE_TOO_BIG})

_PING_INTERVAL = 20.0
"""Pings keep idle connections alive through proxies."""


async def open_with_websockets(
    url: str,
    *,
    protocols: Sequence[str],
    headers: Sequence[tuple[str, str]],
    ssl: ssl_module.SSLContext | None,
    max_message_bytes: int,
) -> _WebsocketsConnection:
    """The default factory: the ``websockets`` package's asyncio client."""
    try:
        from websockets.asyncio.client import connect
        from websockets.typing import Subprotocol
    except ImportError as error:  # pragma: no cover - websockets is a dependency
        raise ImportError("connect_websocket needs the websockets package, 13 or newer") from error
    options: dict[str, Any] = {}
    if ssl is not None:
        options["ssl"] = ssl
    connection = await connect(
        url,
        subprotocols=[Subprotocol(name) for name in protocols] or None,
        additional_headers=list(headers) or None,
        open_timeout=None,  # connect_websocket keeps the deadline
        max_size=max_message_bytes,
        # Pings keep idle connections alive through proxies; a server busy with a long
        # request may answer late, so a missing pong never closes the connection.
        ping_interval=_PING_INTERVAL,
        ping_timeout=None,
        **options,
    )
    return _WebsocketsConnection(connection, max_message_bytes)


class _WebsocketsConnection:
    """A ``websockets`` client connection as a :class:`WebSocketConnection`."""

    def __init__(self, connection: ClientConnection, max_message_bytes: int) -> None:
        self._connection = connection
        self._limit = max_message_bytes

    @property
    def subprotocol(self) -> str | None:
        return self._connection.subprotocol

    @property
    def close_code(self) -> int | None:
        received = self._connection.protocol.close_rcvd
        return None if received is None else int(received.code)

    @property
    def close_reason(self) -> str:
        received = self._connection.protocol.close_rcvd
        return "" if received is None else received.reason

    @property
    def buffered_amount(self) -> int:
        return self._connection.transport.get_write_buffer_size()

    async def send_text(self, text: str) -> None:
        await self._connection.send(text)

    async def receive(self) -> str | bytes | None:
        from websockets.exceptions import ConnectionClosed

        try:
            return await self._connection.recv()
        except ConnectionClosed as closed:
            sent = closed.sent
            # websockets closed the connection itself: a frame it refused to read.
            if sent is not None and closed.rcvd_then_sent is not True and sent.code in _REFUSED:
                raise FramingError(_refusal(int(sent.code), sent.reason, self._limit)) from closed
            if closed.rcvd is None:
                raise
            return None

    async def close(self, code: int = 1000, reason: str = "") -> None:
        await self._connection.close(code, reason)

    def abort(self) -> None:
        self._connection.transport.abort()


def _refusal(code: int, detail: str, limit: int) -> str:
    """The message of the FramingError for a frame the WebSocket library refused."""
    if code == MESSAGE_TOO_BIG:
        what = f"a message over max_message_bytes ({limit} bytes)"
    elif code == INVALID_PAYLOAD:
        what = "a text frame that is not UTF-8"
    else:
        what = "a frame that breaks the WebSocket protocol"
    return f"the WebSocket peer sent {what}; closed with code {code}" + (
        f" ({detail})" if detail else ""
    )
