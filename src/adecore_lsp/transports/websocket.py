"""connect_websocket(): LSP over a WebSocket, one JSON text frame per message.

There is no standard WebSocket binding for LSP; the convention every client and server
follows is one JSON-RPC message per text frame with no ``Content-Length`` header inside. A
binary frame, or text that is not a JSON object, is a peer speaking another dialect, so the
transport closes the socket and reports a :class:`FramingError` rather than guessing.

The socket itself comes from a factory: by default the ``websockets`` package (13 or newer),
or any other library through a small adapter that satisfies :class:`WebSocketConnection`.
"""

from __future__ import annotations

import asyncio
import ssl as ssl_module
from collections import deque
from collections.abc import Awaitable, Mapping, Sequence
from typing import Protocol, TypeAlias, runtime_checkable
from urllib.parse import SplitResult, urlsplit, urlunsplit

from ..errors import FramingError, SendBufferFullError, TransportClosedError
from ..protocol.wire.encoder import encode_body
from ..protocol.wire.framing import DEFAULT_MAX_MESSAGE_BYTES, parse_json
from ..types import JSONObject
from ._websockets_client import (
    INVALID_PAYLOAD,
    MESSAGE_TOO_BIG,
    UNSUPPORTED_DATA,
    open_with_websockets,
)
from .base import BaseTransport

__all__ = [
    "WebSocketConnection",
    "WebSocketFactory",
    "connect_websocket",
]

SEND_BUFFER_LIMIT = 8 * 1024 * 1024
"""Once more than this many bytes wait to be sent, ``send`` refuses new messages."""

CLOSE_TIMEOUT = 10.0
"""Seconds a close may take (flushing queued messages, then the closing handshake)."""

_QUOTE_LENGTH = 60
# Close codes of RFC 6455 that end a connection in good order (1005: a close frame
# without a code, which browsers send).
_ORDERLY_CODES = frozenset({1000, 1001, 1005})


HeadersArg: TypeAlias = Mapping[str, str] | Sequence[tuple[str, str]] | None


@runtime_checkable
class WebSocketConnection(Protocol):
    """An open WebSocket, as :func:`connect_websocket` drives it.

    Adapt another WebSocket library by implementing these members and returning such an
    object from a :class:`WebSocketFactory`. The transport calls ``receive`` from one task
    and ``send_text`` from another, one call at a time each; ``close`` may run while both
    are waiting.
    """

    @property
    def subprotocol(self) -> str | None:
        """The subprotocol the server chose, or ``None``."""

    @property
    def close_code(self) -> int | None:
        """The code of the close frame received from the peer; ``None`` if none came."""

    @property
    def close_reason(self) -> str:
        """The reason of the close frame received from the peer; ``""`` if none came."""

    @property
    def buffered_amount(self) -> int:
        """Bytes handed to ``send_text`` but not yet written to the network (0 if unknown)."""

    async def send_text(self, text: str) -> None:
        """Send ``text`` as one text frame, waiting while the library's buffer is full.

        Raise any exception once the connection is closed.
        """

    async def receive(self) -> str | bytes | None:
        """The next message: ``str`` for a text frame, ``bytes`` for a binary one.

        Return ``None`` once the connection is closed; ``close_code`` then tells how.
        Raise :class:`FramingError` for a message the library refused (too large, not
        UTF-8) after closing the connection, or any other exception when the connection
        failed without a closing handshake.
        """

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Perform the closing handshake and wait until the connection is closed.

        Idempotent; does nothing once the connection is closed.
        """

    def abort(self) -> None:
        """Drop the connection at once, without a closing handshake. Idempotent."""


class WebSocketFactory(Protocol):
    """Opens a WebSocket: the ``create_websocket`` argument of :func:`connect_websocket`.

    ``protocols`` are the subprotocols to offer (may be empty), ``headers`` the extra HTTP
    headers of the opening handshake (name, value pairs, may be empty), ``ssl`` the TLS
    context for ``wss://`` URLs (``None``: the library's default), and
    ``max_message_bytes`` the largest message to accept. Return once the socket is open.
    If the awaiting task is cancelled, drop whatever was opened and let the cancellation
    through; :func:`connect_websocket` enforces the opening deadline itself this way.
    """

    def __call__(
        self,
        url: str,
        *,
        protocols: Sequence[str],
        headers: Sequence[tuple[str, str]],
        ssl: ssl_module.SSLContext | None,
        max_message_bytes: int,
    ) -> Awaitable[WebSocketConnection]: ...


class WebSocketTransport(BaseTransport):
    """An :class:`LspTransport` over an open :class:`WebSocketConnection`.

    One task reads frames and hands each message to the listeners; one task writes the
    queued messages in order. :func:`connect_websocket` builds it; build it directly only to
    wrap a connection you opened yourself.
    """

    def __init__(
        self,
        connection: WebSocketConnection,
        url: str,
        *,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    ) -> None:
        super().__init__()
        self._connection = connection
        self._url = url
        self._max_message_bytes = max_message_bytes
        self._loop = asyncio.get_running_loop()
        self._queue: deque[tuple[str, int]] = deque()
        self._queued_bytes = 0
        self._sending = False
        self._flush_then_stop = False
        self._wake = asyncio.Event()
        self._writer_error: BaseException | None = None
        self._reader = self._loop.create_task(self._read_loop())
        self._writer = self._loop.create_task(self._write_loop())
        self._closer: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        """The URL the socket was opened to."""
        return self._url

    @property
    def subprotocol(self) -> str | None:
        """The subprotocol the server chose, or ``None``."""
        return self._connection.subprotocol

    @property
    def buffered_amount(self) -> int:
        """Bytes accepted by ``send`` that have not been written to the network yet."""
        # While a message is being handed over it is counted whole; once it has been,
        # what the library still holds is counted instead.
        unflushed = 0 if self._sending else self._connection.buffered_amount
        return self._queued_bytes + unflushed

    async def wait_closed(self) -> None:
        """Wait until the transport is closed and the socket with it; never raises."""
        await asyncio.wait({self._reader, self._writer})
        # Any close started before the reader ended; it may still be finishing.
        if self._closer is not None:
            await asyncio.wait({self._closer})

    def _send(self, message: JSONObject) -> None:
        # Raises MessageEncodingError before anything is queued, as every transport does.
        data = encode_body(message)
        if self.buffered_amount > SEND_BUFFER_LIMIT:
            raise SendBufferFullError(
                f"{self.buffered_amount} bytes already wait to be sent to {_redact(self._url)}"
                f" (the limit is {SEND_BUFFER_LIMIT}); the peer is not reading"
            )
        self._queue.append((data.decode(), len(data)))
        self._queued_bytes += len(data)
        self._wake.set()

    def _close_underlying(self) -> None:
        # Queued messages (an ``exit`` notification, say) still go out before the close.
        self._flush_then_stop = True
        self._wake.set()
        self._start_closing(1000, "", flush=True)

    async def _read_loop(self) -> None:
        connection = self._connection
        try:
            while True:
                data = await connection.receive()
                if data is None:
                    break
                if self._closed:
                    continue  # closing: drain until the closing handshake completes
                try:
                    message = self._decode(data)
                except _BadFrame as bad:
                    self._fail(bad.error, bad.code, bad.reason)
                    continue
                self._receive(message)
        except asyncio.CancelledError:
            connection.abort()
            raise
        except FramingError as error:
            # The connection closed it already; the close below is for a factory that did not.
            self._fail(error, INVALID_PAYLOAD, "")
            return
        except Exception as error:
            failure = TransportClosedError(
                f"the WebSocket connection to {_redact(self._url)} ended without a closing "
                f"handshake: {error}"
            )
            failure.__cause__ = error
            self._end(failure)
            return
        self._end(self._close_outcome())

    def _decode(self, data: str | bytes) -> JSONObject:
        if isinstance(data, (bytes, bytearray, memoryview)):
            raw = bytes(data)
            raise _BadFrame(
                UNSUPPORTED_DATA,
                "binary frames are not accepted; send JSON text frames",
                f"the WebSocket peer sent a binary frame ({len(raw)} bytes, starting "
                f"{raw[:_QUOTE_LENGTH]!r}); LSP over WebSocket takes one JSON text frame "
                "per message",
            )
        limit = self._max_message_bytes
        if len(data) > limit // 4 and len(data.encode("utf-8", "surrogatepass")) > limit:
            raise _BadFrame(
                MESSAGE_TOO_BIG,
                "message too big",
                f"the WebSocket peer sent a message over max_message_bytes ({limit} bytes)",
            )
        try:
            message = parse_json(data)
        except ValueError as error:
            raise _BadFrame(
                INVALID_PAYLOAD,
                "a text frame was not JSON",
                f"a WebSocket text frame is not JSON ({error}): starting {data[:_QUOTE_LENGTH]!r}",
            ) from error
        if not isinstance(message, dict):
            raise _BadFrame(
                INVALID_PAYLOAD,
                "a text frame was not a JSON object",
                f"a WebSocket text frame holds a JSON {_json_kind(message)}, not an "
                f"object: starting {data[:_QUOTE_LENGTH]!r}",
            )
        return message

    def _close_outcome(self) -> TransportClosedError | None:
        """The close reason for a connection that ended without an exception."""
        code = self._connection.close_code
        if code in _ORDERLY_CODES:
            return None
        url = _redact(self._url)
        if code is None:
            outcome = TransportClosedError(
                f"the WebSocket connection to {url} ended without a closing handshake"
            )
        else:
            reason = self._connection.close_reason
            outcome = TransportClosedError(
                f"the WebSocket peer at {url} closed the connection with code {code}"
                + (f": {reason}" if reason else "")
            )
        outcome.__cause__ = self._writer_error
        return outcome

    async def _write_loop(self) -> None:
        connection = self._connection
        try:
            while True:
                while self._queue:
                    text, size = self._queue[0]
                    self._sending = True
                    try:
                        await connection.send_text(text)
                    finally:
                        self._sending = False
                    self._queue.popleft()
                    self._queued_bytes -= size
                if self._flush_then_stop:
                    return
                self._wake.clear()
                await self._wake.wait()
        except asyncio.CancelledError:
            raise
        except Exception as error:
            # The reader sees the connection end and reports it; aborting makes sure it
            # does even if the connection is still up, keeping this error as the cause.
            self._writer_error = error
            connection.abort()

    def _end(self, reason: BaseException | None) -> None:
        """The connection ended under us: drop what was not sent and tell the listeners."""
        self._drop_queue()
        self._finish(reason)

    def _fail(self, error: FramingError, code: int, reason: str) -> None:
        """The peer sent what we cannot read: report it, then close the socket with ``code``."""
        self._drop_queue()
        self._finish(error)
        self._start_closing(code, reason, flush=False)

    def _drop_queue(self) -> None:
        self._writer.cancel()
        self._queue.clear()
        self._queued_bytes = 0

    def _start_closing(self, code: int, reason: str, *, flush: bool) -> None:
        if self._closer is not None:
            return
        if self._loop.is_closed():
            self._connection.abort()
            return
        self._closer = self._loop.create_task(self._close_socket(code, reason, flush))

    async def _close_socket(self, code: int, reason: str, flush: bool) -> None:
        try:
            await asyncio.wait_for(self._close_gracefully(code, reason, flush), CLOSE_TIMEOUT)
        except asyncio.CancelledError:
            self._connection.abort()
            raise
        except Exception:
            # Too slow, or the connection failed while closing: drop it.
            self._connection.abort()
        finally:
            self._writer.cancel()

    async def _close_gracefully(self, code: int, reason: str, flush: bool) -> None:
        if flush:
            await asyncio.wait({self._writer})
        else:
            self._writer.cancel()
        await self._connection.close(code, reason)


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "string" if isinstance(value, str) else "array"


class _BadFrame(Exception):
    """A frame the transport refuses: the close code and reason, and what to report."""

    def __init__(self, code: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.error = FramingError(message)


async def connect_websocket(
    url: str,
    *,
    protocols: Sequence[str] | None = None,
    timeout: float | None = 10.0,
    create_websocket: WebSocketFactory | None = None,
    headers: HeadersArg = None,
    ssl: ssl_module.SSLContext | None = None,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
) -> WebSocketTransport:
    """Open a WebSocket to a language server and return the transport once it is open.

    Args:
        url: A ``ws://`` or ``wss://`` URL.
        protocols: Subprotocols to offer; ``transport.subprotocol`` is the one chosen.
        timeout: Seconds the opening may take; ``0`` or ``None`` waits for ever.
        create_websocket: Opens the socket with another library; the default uses
            the ``websockets`` package.
        headers: Extra HTTP headers of the opening handshake, such as the app's own
            ``Authorization``: a mapping, or (name, value) pairs.
        ssl: The TLS context for a ``wss://`` URL; the default verifies certificates.
        max_message_bytes: The largest message accepted from the server; a larger one
            closes the socket (code 1009) with a :class:`FramingError`.

    Raises:
        ValueError: The URL or an option is invalid.
        TimeoutError: The socket did not open within ``timeout``.
        ConnectionError: The socket could not be opened: refused, unreachable, a TLS
            failure, or an HTTP answer other than the WebSocket upgrade. The message
            names the URL; ``__cause__`` is the underlying error.

    Cancelling the awaiting task cancels the opening and drops any half-open socket.
    """
    _check_url(url, ssl)
    offered = _check_protocols(protocols)
    header_pairs = _check_headers(headers)
    deadline = _check_timeout(timeout)
    if isinstance(max_message_bytes, bool) or not isinstance(max_message_bytes, int):
        raise TypeError("max_message_bytes must be an int")
    if max_message_bytes <= 0:
        raise ValueError(f"max_message_bytes must be positive, not {max_message_bytes}")
    factory: WebSocketFactory = create_websocket or open_with_websockets
    opening = factory(
        url,
        protocols=offered,
        headers=header_pairs,
        ssl=ssl,
        max_message_bytes=max_message_bytes,
    )
    connection = await _open(opening, _redact(url), deadline)
    return WebSocketTransport(connection, url, max_message_bytes=max_message_bytes)


async def _open(
    opening: Awaitable[WebSocketConnection], url: str, timeout: float | None
) -> WebSocketConnection:
    """Await ``opening`` within ``timeout``; on cancellation or timeout, drop what it opens."""
    task: asyncio.Future[WebSocketConnection] = asyncio.ensure_future(opening)
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except asyncio.CancelledError:
        await _discard(task)
        raise
    if not done:
        await _discard(task)
        raise TimeoutError(f"the WebSocket {url} did not open within {timeout} s")
    try:
        return task.result()
    except (TimeoutError, asyncio.TimeoutError) as error:
        raise TimeoutError(f"the WebSocket {url} did not open: {error}") from error
    except OSError as error:
        raise ConnectionError(f"could not open the WebSocket {url}: {error}") from error
    except (ValueError, TypeError):
        raise
    except Exception as error:
        raise ConnectionError(f"could not open the WebSocket {url}: {error}") from error


async def _discard(task: asyncio.Future[WebSocketConnection]) -> None:
    """Cancel an opening and wait for it to let go of its socket."""

    def drop(finished: asyncio.Future[WebSocketConnection]) -> None:
        if finished.cancelled() or finished.exception() is not None:
            return
        finished.result().abort()  # it opened after all: nobody will use it

    task.cancel()
    task.add_done_callback(drop)
    # asyncio.wait does not cancel the task if we are cancelled again meanwhile; the
    # callback still drops the socket then.
    await asyncio.wait({task})


def _check_url(url: str, ssl: ssl_module.SSLContext | None) -> SplitResult:
    if not isinstance(url, str):
        raise TypeError(f"url must be a str, not {type(url).__name__}")
    problem = None
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as error:
        problem = str(error)
    else:
        if parts.scheme.lower() not in ("ws", "wss"):
            problem = "the scheme must be ws or wss"
        elif not parts.hostname:
            problem = "it names no host"
    if problem is not None:
        raise ValueError(f"not a WebSocket URL: {_redact(url)!r} ({problem})")
    if ssl is not None:
        if not isinstance(ssl, ssl_module.SSLContext):
            raise TypeError(f"ssl must be an ssl.SSLContext, not {type(ssl).__name__}")
        if parts.scheme.lower() == "ws":
            raise ValueError("an ssl context needs a wss:// URL")
    return parts


def _check_protocols(protocols: Sequence[str] | None) -> tuple[str, ...]:
    if protocols is None:
        return ()
    if isinstance(protocols, str):
        raise TypeError("protocols must be a sequence of names, not one str")
    offered = tuple(protocols)
    for name in offered:
        if not isinstance(name, str) or not name or any(c in name for c in ' ,;"\t\r\n'):
            raise ValueError(f"not a subprotocol name: {name!r}")
    return offered


def _check_headers(headers: HeadersArg) -> tuple[tuple[str, str], ...]:
    if headers is None:
        return ()
    pairs = tuple(headers.items() if isinstance(headers, Mapping) else headers)
    for pair in pairs:
        if len(pair) != 2 or not all(isinstance(part, str) for part in pair):
            raise TypeError(f"a header must be a pair of str, not {pair!r}")
        name, value = pair
        if not name or any(c in name for c in " :\r\n") or any(c in value for c in "\r\n"):
            raise ValueError(f"not a valid header: {name!r}: {value!r}")
    return pairs


def _check_timeout(timeout: float | None) -> float | None:
    if timeout is None or timeout == 0:
        return None
    if timeout < 0:
        raise ValueError(f"timeout must not be negative, not {timeout}")
    return float(timeout)


def _redact(url: str) -> str:
    """``url`` without a password, for messages and logs."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        host = parts.netloc.rpartition("@")[2]
        return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))
    except ValueError:
        return url
