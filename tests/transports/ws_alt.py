"""A second WebSocket implementation for the tests: aiohttp's client behind ``create_websocket``.

It shows that :class:`WebSocketConnection` is all ``connect_websocket`` needs, and it is the
kind of adapter an application that already uses aiohttp would write.
"""

from __future__ import annotations

import ssl as ssl_module
from collections.abc import Sequence

import aiohttp

from adecore_lsp.errors import FramingError
from adecore_lsp.transports.websocket import WebSocketConnection, WebSocketFactory

__all__ = ["AiohttpConnection", "aiohttp_factory"]

_ABNORMAL_CLOSURE = 1006  # never sent on the wire: aiohttp's word for "no close frame"
_MESSAGE_TOO_BIG = 1009


def aiohttp_factory(session: aiohttp.ClientSession) -> WebSocketFactory:
    """A ``create_websocket`` factory that opens each socket with ``session``."""

    async def open_with_aiohttp(
        url: str,
        *,
        protocols: Sequence[str],
        headers: Sequence[tuple[str, str]],
        ssl: ssl_module.SSLContext | None,
        max_message_bytes: int,
    ) -> WebSocketConnection:
        websocket = await session.ws_connect(
            url,
            protocols=protocols,
            headers=list(headers),
            ssl=True if ssl is None else ssl,
            max_msg_size=max_message_bytes,
            heartbeat=None,
            timeout=aiohttp.ClientWSTimeout(ws_receive=None, ws_close=10.0),
        )
        return AiohttpConnection(websocket, max_message_bytes)

    return open_with_aiohttp


class AiohttpConnection:
    """An aiohttp client WebSocket as a :class:`WebSocketConnection`."""

    def __init__(
        self, websocket: aiohttp.ClientWebSocketResponse[bool], max_message_bytes: int
    ) -> None:
        self._websocket = websocket
        self._limit = max_message_bytes
        self._close_reason = ""

    @property
    def subprotocol(self) -> str | None:
        return self._websocket.protocol

    @property
    def close_code(self) -> int | None:
        code = self._websocket.close_code
        return None if code in (None, _ABNORMAL_CLOSURE) else code

    @property
    def close_reason(self) -> str:
        return self._close_reason

    @property
    def buffered_amount(self) -> int:
        # aiohttp has no public accessor for the bytes its transport still holds.
        transport = self._websocket._writer.transport
        return 0 if transport is None else transport.get_write_buffer_size()

    async def send_text(self, text: str) -> None:
        await self._websocket.send_str(text)

    async def receive(self) -> str | bytes | None:
        while True:
            message = await self._websocket.receive()
            kind = message.type
            if kind is aiohttp.WSMsgType.TEXT or kind is aiohttp.WSMsgType.BINARY:
                data: str | bytes = message.data
                return data
            if kind is aiohttp.WSMsgType.CLOSE:
                self._close_reason = message.extra or ""
                return None
            if kind is aiohttp.WSMsgType.CLOSED or kind is aiohttp.WSMsgType.CLOSING:
                # CLOSING: our own close() runs in another task and finishes the handshake
                # (receiving again would start a second close, with code 1000).
                return None
            if kind is aiohttp.WSMsgType.ERROR:
                error = message.data
                if getattr(error, "code", None) == _MESSAGE_TOO_BIG:
                    raise FramingError(
                        f"the WebSocket peer sent a message over max_message_bytes "
                        f"({self._limit} bytes); closed with code {_MESSAGE_TOO_BIG}"
                    ) from error
                raise error
            # PING and PONG are answered by aiohttp itself.

    async def close(self, code: int = 1000, reason: str = "") -> None:
        await self._websocket.close(code=code, message=reason.encode())

    def abort(self) -> None:
        # aiohttp has no public abort: closing the response would wait for the write buffer
        # to drain, so drop the transport first.
        transport = self._websocket._writer.transport
        if transport is not None:
            transport.abort()
        self._websocket._response.close()
