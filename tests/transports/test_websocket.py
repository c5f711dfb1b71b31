"""connect_websocket() against a real ``websockets`` server on the loopback interface.

Most cases run twice: through the default ``websockets`` client, and through
``create_websocket`` with aiohttp's client (``ws_alt``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import json
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from http import HTTPStatus
from typing import Any, TypeVar

import aiohttp
import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from adecore_lsp.errors import (
    FramingError,
    MessageEncodingError,
    SendBufferFullError,
    TransportClosedError,
    TransportError,
)
from adecore_lsp.transports import websocket as websocket_module
from adecore_lsp.transports.base import LspTransport
from adecore_lsp.transports.websocket import (
    SEND_BUFFER_LIMIT,
    WebSocketConnection,
    WebSocketFactory,
    WebSocketTransport,
    connect_websocket,
)
from adecore_lsp.types import JSONObject

from . import ws_alt

T = TypeVar("T")
Opener = Callable[..., Awaitable[WebSocketTransport]]
Handler = Callable[[ServerConnection], Awaitable[None]]

GUARD = 20.0  # seconds; only a bound against hangs, never an ordering device


async def guard(awaitable: Awaitable[T], seconds: float = GUARD) -> T:
    """Await ``awaitable``, failing the test instead of hanging."""
    return await asyncio.wait_for(awaitable, seconds)


@pytest.fixture(autouse=True)
async def no_leftovers() -> AsyncIterator[None]:
    """After each test: no task of the test still runs and no resource is left unclosed."""
    yield
    for _ in range(3):
        await asyncio.sleep(0)
    gc.collect()
    current = asyncio.current_task()
    leftovers = [task for task in asyncio.all_tasks() if task is not current and not task.done()]
    assert leftovers == []


@pytest.fixture(params=["websockets", "aiohttp"])
async def open_ws(request: pytest.FixtureRequest) -> AsyncIterator[Opener]:
    """connect_websocket with the default client, or with aiohttp's through the factory."""
    if request.param == "websockets":
        yield connect_websocket
        return
    async with aiohttp.ClientSession() as session:
        yield functools.partial(connect_websocket, create_websocket=ws_alt.aiohttp_factory(session))


@contextlib.asynccontextmanager
async def serving(handler: Handler, **options: Any) -> AsyncIterator[str]:
    """Run a websockets server on 127.0.0.1 with ``handler``; yield its ws:// URL."""
    if "sock" not in options:
        options.update(host="127.0.0.1", port=0)
    async with serve(handler, **options) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}"


def received_close_code(connection: ServerConnection) -> int | None:
    """The close code the server got from the client."""
    frame = connection.protocol.close_rcvd
    return None if frame is None else int(frame.code)


class Inbox:
    """Collects the messages and the close reasons a transport delivers."""

    def __init__(self, transport: LspTransport) -> None:
        self.messages: asyncio.Queue[JSONObject] = asyncio.Queue()
        self.reasons: list[BaseException | None] = []
        self._closed = asyncio.Event()
        transport.on_message(self.messages.put_nowait)
        transport.on_close(self._on_close)

    def _on_close(self, reason: BaseException | None) -> None:
        self.reasons.append(reason)
        self._closed.set()

    async def next(self) -> JSONObject:
        return await guard(self.messages.get())

    async def closed(self) -> BaseException | None:
        await guard(self._closed.wait())
        assert len(self.reasons) == 1
        return self.reasons[0]


async def echo(connection: ServerConnection) -> None:
    async for frame in connection:
        await connection.send(frame)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def small_buffer_socket() -> socket.socket:
    """A listening socket whose connections have a small receive buffer."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.setblocking(False)
    return listener


async def finish(transport: WebSocketTransport) -> None:
    transport.close()
    await guard(transport.wait_closed())


# Round trips


async def test_round_trip(open_ws: Opener) -> None:
    """A sent message reaches the server as one JSON text frame and its echo comes back."""
    frames: asyncio.Queue[str | bytes] = asyncio.Queue()

    async def handler(connection: ServerConnection) -> None:
        async for frame in connection:
            frames.put_nowait(frame)
            await connection.send(frame)

    async with serving(handler) as url:
        transport = await open_ws(url)
        assert isinstance(transport, LspTransport)
        inbox = Inbox(transport)
        message = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"a": [1, None]}}
        transport.send(message)
        frame = await guard(frames.get())
        assert isinstance(frame, str)
        assert "Content-Length" not in frame
        assert json.loads(frame) == message
        assert await inbox.next() == message
        await finish(transport)


async def test_non_ascii_and_astral_characters(open_ws: Opener) -> None:
    """Accents, CJK, emoji and astral characters survive both directions unchanged."""
    text = "héllo wörld ✓ 漢字 😀 𝄞 \u2028 \U0010fffd"
    frames: asyncio.Queue[str | bytes] = asyncio.Queue()

    async def handler(connection: ServerConnection) -> None:
        frame = await connection.recv()
        frames.put_nowait(frame)
        await connection.send(json.dumps({"id": 2, "result": text}, ensure_ascii=False))
        await connection.wait_closed()

    async with serving(handler) as url:
        transport = await open_ws(url)
        inbox = Inbox(transport)
        transport.send({"id": 1, "method": "x", "params": {"text": text}})
        frame = await guard(frames.get())
        assert isinstance(frame, str)
        assert json.loads(frame)["params"]["text"] == text
        assert (await inbox.next())["result"] == text
        await finish(transport)


async def test_five_megabyte_message_both_ways(open_ws: Opener) -> None:
    """A 5 MB message goes out and comes back whole."""
    big = "a1é😀" * 625_000  # 8 bytes of UTF-8 each: 5 MB
    message = {"jsonrpc": "2.0", "method": "big", "params": {"text": big}}

    async with serving(echo, max_size=None) as url:
        transport = await open_ws(url)
        inbox = Inbox(transport)
        transport.send(message)
        assert transport.buffered_amount >= 5_000_000
        assert await inbox.next() == message
        await finish(transport)


async def test_unencodable_message_raises_and_transport_stays_open(open_ws: Opener) -> None:
    """send raises MessageEncodingError at once, and the transport goes on."""
    async with serving(echo) as url:
        transport = await open_ws(url)
        inbox = Inbox(transport)
        with pytest.raises(MessageEncodingError, match="cannot encode"):
            transport.send({"x": object()})
        with pytest.raises(MessageEncodingError, match="lone surrogate"):
            transport.send({"lone surrogate": "\ud800"})
        with pytest.raises(MessageEncodingError, match="dict"):
            transport.send([1, 2])  # type: ignore[arg-type]
        assert not transport.closed
        transport.send({"id": 3})
        assert await inbox.next() == {"id": 3}
        await finish(transport)


async def test_backlog_and_close_reach_the_first_listener(open_ws: Opener) -> None:
    """Messages and the close that come before any listener are handed to the first one."""

    async def handler(connection: ServerConnection) -> None:
        for n in range(3):
            await connection.send(json.dumps({"n": n}))
        await connection.close()

    async with serving(handler) as url:
        transport = await open_ws(url)
        await guard(transport.wait_closed())
        assert transport.closed
        inbox = Inbox(transport)
        assert [await inbox.next() for _ in range(3)] == [{"n": 0}, {"n": 1}, {"n": 2}]
        assert await inbox.closed() is None


# Frames the transport refuses


async def test_binary_frame_closes_with_framing_error(open_ws: Opener) -> None:
    """A binary frame closes the socket with 1003 and reports a FramingError quoting it."""
    codes: asyncio.Queue[int | None] = asyncio.Queue()

    async def handler(connection: ServerConnection) -> None:
        await connection.send(json.dumps({"n": 1}))
        await connection.send(b'{"jsonrpc": "2.0", "method": "binary"}')
        await connection.wait_closed()
        codes.put_nowait(received_close_code(connection))

    async with serving(handler) as url:
        transport = await open_ws(url)
        inbox = Inbox(transport)
        assert await inbox.next() == {"n": 1}
        reason = await inbox.closed()
        assert isinstance(reason, FramingError)
        assert "binary frame" in str(reason)
        assert '{"jsonrpc": "2.0"' in str(reason)
        assert await guard(codes.get()) == 1003
        with pytest.raises(TransportClosedError) as raised:
            transport.send({"id": 1})
        assert raised.value.__cause__ is reason
        await guard(transport.wait_closed())


@pytest.mark.parametrize(
    ("frame", "complaint"),
    [
        ("Content-Length: 2\r\n\r\n{}", "not JSON"),
        ('{"jsonrpc": "2.0", "id": 1', "not JSON"),
        ('{"value": NaN}', "not JSON"),
        ("", "not JSON"),
        ("[1, 2]", "JSON array, not an object"),
        ("42", "JSON number, not an object"),
        ('"text"', "JSON string, not an object"),
        ("null", "JSON null, not an object"),
    ],
)
async def test_text_frame_not_a_json_object_closes(
    open_ws: Opener, frame: str, complaint: str
) -> None:
    """A text frame that is not a JSON object closes the socket with 1007 and a FramingError."""
    codes: asyncio.Queue[int | None] = asyncio.Queue()

    async def handler(connection: ServerConnection) -> None:
        await connection.send(frame)
        await connection.wait_closed()
        codes.put_nowait(received_close_code(connection))

    async with serving(handler) as url:
        transport = await open_ws(url)
        inbox = Inbox(transport)
        reason = await inbox.closed()
        assert isinstance(reason, FramingError)
        assert complaint in str(reason)
        assert repr(frame[:20])[:-1] in str(reason)
        assert await guard(codes.get()) == 1007
        assert inbox.messages.empty()
        await guard(transport.wait_closed())


async def test_message_over_max_message_bytes_closes_with_1009(open_ws: Opener) -> None:
    """A message larger than max_message_bytes closes the socket with 1009 and a FramingError."""
    codes: asyncio.Queue[int | None] = asyncio.Queue()

    async def handler(connection: ServerConnection) -> None:
        await connection.send(json.dumps({"n": 1}))
        await connection.send(json.dumps({"text": "x" * 2000}))
        await connection.wait_closed()
        codes.put_nowait(received_close_code(connection))

    async with serving(handler, compression=None) as url:
        transport = await open_ws(url, max_message_bytes=1024)
        inbox = Inbox(transport)
        assert await inbox.next() == {"n": 1}
        reason = await inbox.closed()
        assert isinstance(reason, FramingError)
        assert "max_message_bytes (1024 bytes)" in str(reason)
        assert await guard(codes.get()) == 1009
        await guard(transport.wait_closed())


# Closing


@pytest.mark.parametrize("code", [1000, 1001])
async def test_server_closes_normally(open_ws: Opener, code: int) -> None:
    """A close with 1000 or 1001 by the server delivers what came before, then None."""

    async def handler(connection: ServerConnection) -> None:
        await connection.send(json.dumps({"last": True}))
        await connection.close(code, "bye")

    async with serving(handler) as url:
        transport = await open_ws(url)
        inbox = Inbox(transport)
        assert await inbox.next() == {"last": True}
        assert await inbox.closed() is None
        with pytest.raises(TransportClosedError):
            transport.send({"id": 1})
        await guard(transport.wait_closed())


@pytest.mark.parametrize(("code", "reason"), [(1011, "internal error"), (4000, "going down")])
async def test_server_closes_abnormally(open_ws: Opener, code: int, reason: str) -> None:
    """Any other close code gives a TransportClosedError naming the code and reason."""

    async def handler(connection: ServerConnection) -> None:
        await connection.close(code, reason)

    async with serving(handler) as url:
        transport = await open_ws(url)
        inbox = Inbox(transport)
        error = await inbox.closed()
        assert isinstance(error, TransportClosedError)
        assert f"code {code}: {reason}" in str(error)
        await guard(transport.wait_closed())


async def test_connection_dropped_without_handshake(open_ws: Opener) -> None:
    """A connection dropped without a close frame gives a TransportClosedError saying so."""

    async def handler(connection: ServerConnection) -> None:
        connection.transport.abort()
        await connection.wait_closed()

    async with serving(handler) as url:
        transport = await open_ws(url)
        inbox = Inbox(transport)
        error = await inbox.closed()
        assert isinstance(error, TransportClosedError)
        assert "without a closing handshake" in str(error)
        await guard(transport.wait_closed())


async def test_our_close(open_ws: Opener) -> None:
    """close() reports None once, is idempotent, sends 1000, and later sends raise."""
    codes: asyncio.Queue[int | None] = asyncio.Queue()

    async def handler(connection: ServerConnection) -> None:
        await connection.wait_closed()
        codes.put_nowait(received_close_code(connection))

    async with serving(handler) as url:
        transport = await open_ws(url)
        inbox = Inbox(transport)
        transport.close()
        transport.close()
        assert inbox.reasons == [None]
        late: list[BaseException | None] = []
        transport.on_close(late.append)
        assert late == [None]
        with pytest.raises(TransportClosedError):
            transport.send({"id": 1})
        await guard(transport.wait_closed())
        transport.close()
        assert inbox.reasons == [None]
        assert await guard(codes.get()) == 1000


async def test_close_flushes_queued_messages_first(open_ws: Opener) -> None:
    """Messages sent just before close() still reach the server, in order, before the close."""
    go = asyncio.Event()
    received: list[int] = []
    codes: asyncio.Queue[int | None] = asyncio.Queue()

    async def handler(connection: ServerConnection) -> None:
        await go.wait()
        async for frame in connection:
            received.append(json.loads(frame)["n"])
        codes.put_nowait(received_close_code(connection))

    # The server reads nothing before close() runs, so most messages are still queued then.
    options = {"sock": small_buffer_socket(), "max_queue": 1, "compression": None}
    async with serving(handler, max_size=None, **options) as url:
        transport = await open_ws(url)
        padding = "p" * (256 * 1024)
        try:
            for n in range(30):  # 7.5 MiB: under the send limit, over what sockets buffer
                transport.send({"jsonrpc": "2.0", "method": "exit", "n": n, "padding": padding})
                await asyncio.sleep(0)
            assert transport.buffered_amount > 1024 * 1024
            transport.close()
        finally:
            go.set()
        await guard(transport.wait_closed())
        assert await guard(codes.get()) == 1000
        assert received == list(range(30))


async def test_messages_after_our_close_are_not_delivered(open_ws: Opener) -> None:
    """Once close() has run, a message still in flight from the server is dropped."""

    async def handler(connection: ServerConnection) -> None:
        await connection.recv()
        with contextlib.suppress(Exception):
            await connection.send(json.dumps({"late": True}))
        await connection.wait_closed()

    async with serving(handler) as url:
        transport = await open_ws(url)
        inbox = Inbox(transport)
        transport.send({"trigger": True})
        transport.close()
        await guard(transport.wait_closed())
        assert inbox.messages.empty()
        assert inbox.reasons == [None]


# Opening


@contextlib.asynccontextmanager
async def silent_tcp_server() -> AsyncIterator[tuple[str, asyncio.Event, asyncio.Event]]:
    """A TCP server that reads the HTTP upgrade request and never answers it.

    Yields its URL, an event set once the request has arrived, and one set once the
    client has dropped the socket.
    """
    got_request = asyncio.Event()
    dropped = asyncio.Event()

    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            await reader.readuntil(b"\r\n\r\n")
            got_request.set()
            await reader.read()  # returns at end of stream
        dropped.set()
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()

    server = await asyncio.start_server(on_client, "127.0.0.1", 0)
    async with server:
        port = server.sockets[0].getsockname()[1]
        yield f"ws://127.0.0.1:{port}/lsp", got_request, dropped


async def test_open_timeout_when_handshake_never_answered(open_ws: Opener) -> None:
    """A server that accepts TCP but never answers the handshake fails with TimeoutError."""
    async with silent_tcp_server() as (url, got_request, dropped):
        started = time.monotonic()
        with pytest.raises(TimeoutError, match=r"did not open within 0\.3 s") as raised:
            await open_ws(url, timeout=0.3)
        assert time.monotonic() - started < 5.0
        assert url in str(raised.value)
        assert got_request.is_set()
        await guard(dropped.wait())  # no half-open socket is left behind


@pytest.mark.parametrize("timeout", [None, 0, 30.0])
async def test_cancel_during_opening(open_ws: Opener, timeout: float | None) -> None:
    """Cancelling the opening drops the socket; a timeout of 0 or None never expires."""
    async with silent_tcp_server() as (url, got_request, dropped):
        opening = asyncio.ensure_future(open_ws(url, timeout=timeout))
        await guard(got_request.wait())
        for _ in range(5):
            await asyncio.sleep(0)
        assert not opening.done()
        opening.cancel()
        with pytest.raises(asyncio.CancelledError):
            await opening
        await guard(dropped.wait())


async def test_refused_connection(open_ws: Opener) -> None:
    """A refused connection raises ConnectionError naming the URL, with the OSError as cause."""
    url = f"ws://127.0.0.1:{free_port()}/lsp"
    with pytest.raises(ConnectionError) as raised:
        await open_ws(url)
    assert url in str(raised.value)
    assert raised.value.__cause__ is not None


async def test_password_is_not_shown_in_errors(open_ws: Opener) -> None:
    """A password in the URL does not appear in the error message."""
    url = f"ws://user:s3cret@127.0.0.1:{free_port()}/lsp"
    with pytest.raises(ConnectionError) as raised:
        await open_ws(url)
    assert "s3cret" not in str(raised.value)
    assert "user:***@127.0.0.1" in str(raised.value)


async def test_http_error_answer(open_ws: Opener) -> None:
    """An HTTP answer other than the upgrade raises ConnectionError naming the status."""

    def refuse(connection: ServerConnection, request: Request) -> Response:
        return connection.respond(HTTPStatus.NOT_FOUND, "no LSP here\n")

    async with serving(echo, process_request=refuse) as url:
        with pytest.raises(ConnectionError, match="404"):
            await open_ws(url)


@pytest.mark.parametrize(
    ("url", "options", "error"),
    [
        ("http://127.0.0.1:8080/", {}, ValueError),
        ("127.0.0.1:8080", {}, ValueError),
        ("ws://", {}, ValueError),
        ("ws://127.0.0.1:port/", {}, ValueError),
        ("ws://127.0.0.1:8080/", {"timeout": -1}, ValueError),
        ("ws://127.0.0.1:8080/", {"max_message_bytes": 0}, ValueError),
        ("ws://127.0.0.1:8080/", {"protocols": ["two words"]}, ValueError),
        ("ws://127.0.0.1:8080/", {"protocols": "lsp"}, TypeError),
        ("ws://127.0.0.1:8080/", {"headers": {"X-Evil": "a\r\nHost: b"}}, ValueError),
        ("ws://127.0.0.1:8080/", {"ssl": "yes"}, TypeError),
        (b"ws://127.0.0.1:8080/", {}, TypeError),
    ],
)
async def test_bad_arguments(
    open_ws: Opener, url: Any, options: dict[str, Any], error: type
) -> None:
    """A bad URL or option raises ValueError or TypeError before anything is opened."""
    with pytest.raises(error):
        await open_ws(url, **options)


async def test_ssl_context_needs_wss(open_ws: Opener) -> None:
    """An SSL context with a ws:// URL is a ValueError."""
    import ssl

    with pytest.raises(ValueError, match="wss://"):
        await open_ws("ws://127.0.0.1:8080/", ssl=ssl.create_default_context())


async def test_subprotocol_negotiation(open_ws: Opener) -> None:
    """The offered subprotocols reach the server and the chosen one is reported."""
    offered: asyncio.Queue[str | None] = asyncio.Queue()

    async def handler(connection: ServerConnection) -> None:
        assert connection.request is not None
        header = connection.request.headers.get("Sec-WebSocket-Protocol")
        offered.put_nowait(None if header is None else ",".join(header.replace(" ", "").split(",")))
        await connection.wait_closed()

    async with serving(handler, subprotocols=["lsp.v1"]) as url:
        transport = await open_ws(url, protocols=["jsonrpc", "lsp.v1"])
        assert transport.subprotocol == "lsp.v1"
        assert await guard(offered.get()) == "jsonrpc,lsp.v1"
        await finish(transport)

    async with serving(handler) as url:
        transport = await open_ws(url)
        assert transport.subprotocol is None
        assert await guard(offered.get()) is None
        await finish(transport)


@pytest.mark.parametrize(
    "headers",
    [
        {"Authorization": "Bearer t0ken", "X-Workspace": "demo"},
        [("Authorization", "Bearer t0ken"), ("X-Workspace", "demo")],
    ],
)
async def test_headers_reach_the_server(open_ws: Opener, headers: Any) -> None:
    """Extra headers, as a mapping or as pairs, are part of the opening handshake."""
    seen: asyncio.Queue[tuple[str | None, str | None]] = asyncio.Queue()

    async def handler(connection: ServerConnection) -> None:
        assert connection.request is not None
        request_headers = connection.request.headers
        seen.put_nowait((request_headers.get("Authorization"), request_headers.get("X-Workspace")))
        await connection.wait_closed()

    async with serving(handler) as url:
        transport = await open_ws(url, headers=headers)
        assert await guard(seen.get()) == ("Bearer t0ken", "demo")
        await finish(transport)


# Flow control


async def test_send_buffer_limit(open_ws: Opener) -> None:
    """Past 8 MiB unsent, send raises SendBufferFullError; every accepted message still arrives."""
    start_reading = asyncio.Event()
    all_in = asyncio.Event()
    received: list[int] = []
    expected = [-1]

    async def handler(connection: ServerConnection) -> None:
        await start_reading.wait()
        async for frame in connection:
            received.append(json.loads(frame)["params"]["n"])
            if len(received) == expected[0]:
                all_in.set()

    # The server does not read until told; with max_queue=1 websockets stops reading the
    # socket, so the kernel buffers fill, then the library's, then the transport's queue.
    options = {"sock": small_buffer_socket(), "max_queue": 1, "compression": None}
    async with serving(handler, max_size=None, **options) as url:
        transport = await open_ws(url)
        chunk = "x" * (256 * 1024)
        accepted = 0
        refused: SendBufferFullError | None = None
        try:
            while refused is None and accepted < 1000:  # a bound: more than sockets buffer
                try:
                    transport.send({"method": "fill", "params": {"n": accepted, "data": chunk}})
                except SendBufferFullError as error:
                    refused = error
                else:
                    accepted += 1
                    await asyncio.sleep(0)
            assert isinstance(refused, TransportError)
            assert "the peer is not reading" in str(refused)
            assert transport.buffered_amount > SEND_BUFFER_LIMIT
            assert not transport.closed
            expected[0] = accepted
        finally:
            start_reading.set()
        await guard(all_in.wait(), 60)
        assert received == list(range(accepted))
        transport.send({"method": "fill", "params": {"n": accepted, "data": ""}})
        transport.close()
        await guard(transport.wait_closed())
        assert received[-1] == accepted


async def test_close_gives_up_on_a_peer_that_never_reads(
    open_ws: Opener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A close that cannot flush within CLOSE_TIMEOUT drops the socket instead of hanging."""
    monkeypatch.setattr(websocket_module, "CLOSE_TIMEOUT", 0.3)
    release = asyncio.Event()

    async def handler(connection: ServerConnection) -> None:
        await release.wait()

    # The server connection never reads either, so it notices the dropped socket only when
    # it closes after the test: keep its own close timeout short.
    options = {"sock": small_buffer_socket(), "max_queue": 1, "compression": None}
    async with serving(handler, max_size=None, close_timeout=0.5, **options) as url:
        transport = await open_ws(url)
        inbox = Inbox(transport)
        try:
            chunk = "y" * (1024 * 1024)
            with contextlib.suppress(SendBufferFullError):
                for n in range(40):
                    transport.send({"n": n, "data": chunk})
                    await asyncio.sleep(0)
            started = time.monotonic()
            transport.close()
            assert inbox.reasons == [None]
            await guard(transport.wait_closed())
            assert time.monotonic() - started < 5.0
        finally:
            release.set()


# The factory contract, through a scripted connection


class ScriptedConnection:
    """A WebSocketConnection whose incoming frames and failures the test scripts."""

    subprotocol: str | None = None
    close_reason = ""
    buffered_amount = 0

    def __init__(self) -> None:
        self.incoming: asyncio.Queue[str | bytes | BaseException | None] = asyncio.Queue()
        self.sent: list[str] = []
        self.send_error: Exception | None = None
        self.close_code: int | None = None
        self.closed_with: tuple[int, str] | None = None
        self.aborted = False

    async def send_text(self, text: str) -> None:
        if self.send_error is not None:
            raise self.send_error
        self.sent.append(text)

    async def receive(self) -> str | bytes | None:
        item = await self.incoming.get()
        if isinstance(item, BaseException):
            raise item
        return item

    async def close(self, code: int = 1000, reason: str = "") -> None:
        if self.closed_with is None:
            self.closed_with = (code, reason)
            self.close_code = code  # the peer echoes the close frame
            self.incoming.put_nowait(None)

    def abort(self) -> None:
        if not self.aborted:
            self.aborted = True
            self.incoming.put_nowait(None)


def factory_of(connection: WebSocketConnection, calls: list[dict[str, Any]]) -> WebSocketFactory:
    async def factory(url: str, **options: Any) -> WebSocketConnection:
        calls.append({"url": url, **options})
        return connection

    return factory


async def test_factory_gets_normalized_options() -> None:
    """The factory gets the URL and every option, with protocols and headers as tuples."""
    calls: list[dict[str, Any]] = []
    connection = ScriptedConnection()
    transport = await connect_websocket(
        "wss://example.test/lsp",
        protocols=["lsp"],
        headers={"Authorization": "Bearer t"},
        create_websocket=factory_of(connection, calls),
        max_message_bytes=4096,
    )
    assert calls == [
        {
            "url": "wss://example.test/lsp",
            "protocols": ("lsp",),
            "headers": (("Authorization", "Bearer t"),),
            "ssl": None,
            "max_message_bytes": 4096,
        }
    ]
    transport.send({"id": 1})
    transport.close()
    await guard(transport.wait_closed())
    assert connection.sent == ['{"id":1}']
    assert connection.closed_with == (1000, "")


async def test_factory_that_ignores_cancellation_has_its_socket_dropped() -> None:
    """A factory that opens a socket after its deadline passed has that socket aborted."""
    connection = ScriptedConnection()
    cancelled = asyncio.Event()
    release = asyncio.Event()

    async def stubborn(url: str, **options: Any) -> WebSocketConnection:
        try:
            await asyncio.Event().wait()  # until the deadline cancels it
        except asyncio.CancelledError:
            cancelled.set()
        await release.wait()
        return connection  # opened all the same

    opening = asyncio.ensure_future(
        connect_websocket("ws://x.test/", timeout=0.05, create_websocket=stubborn)
    )
    await guard(cancelled.wait())
    assert not opening.done()  # the caller waits for the factory to let go
    release.set()
    with pytest.raises(TimeoutError):
        await guard(opening)
    assert connection.aborted


@pytest.mark.parametrize(
    ("raised", "expected"),
    [
        (ConnectionRefusedError(111, "refused"), ConnectionError),
        (OSError("unreachable"), ConnectionError),
        (RuntimeError("handshake answered 403"), ConnectionError),
        (TimeoutError("tcp timeout"), TimeoutError),
        (ValueError("bad option"), ValueError),
    ],
)
async def test_factory_errors_are_translated(raised: Exception, expected: type) -> None:
    """A factory's failure reaches the caller as ConnectionError or TimeoutError naming the URL."""

    async def failing(url: str, **options: Any) -> WebSocketConnection:
        raise raised

    with pytest.raises(expected) as caught:
        await connect_websocket("ws://host.test:9/lsp", create_websocket=failing)
    if expected is not ValueError:
        assert "ws://host.test:9/lsp" in str(caught.value)
        assert caught.value.__cause__ is raised


async def test_oversize_message_from_a_factory_without_a_limit() -> None:
    """A message over max_message_bytes that the factory let through still closes with 1009."""
    connection = ScriptedConnection()
    transport = await connect_websocket(
        "ws://x.test/", create_websocket=factory_of(connection, []), max_message_bytes=1024
    )
    inbox = Inbox(transport)
    connection.incoming.put_nowait(json.dumps({"text": "é" * 600}))  # 600 chars, 1200 bytes
    reason = await inbox.closed()
    assert isinstance(reason, FramingError)
    assert "max_message_bytes (1024 bytes)" in str(reason)
    await guard(transport.wait_closed())
    assert connection.closed_with is not None
    assert connection.closed_with[0] == 1009


async def test_receive_failure_becomes_transport_closed_error() -> None:
    """An exception from receive ends the transport with a TransportClosedError caused by it."""
    connection = ScriptedConnection()
    transport = await connect_websocket("ws://x.test/", create_websocket=factory_of(connection, []))
    inbox = Inbox(transport)
    failure = ConnectionResetError(104, "reset by peer")
    connection.incoming.put_nowait(failure)
    reason = await inbox.closed()
    assert isinstance(reason, TransportClosedError)
    assert reason.__cause__ is failure
    await guard(transport.wait_closed())


async def test_send_failure_ends_the_transport_with_its_cause() -> None:
    """A send_text that fails drops the connection, and the close reason carries that failure."""
    connection = ScriptedConnection()
    connection.send_error = RuntimeError("socket went away")
    transport = await connect_websocket("ws://x.test/", create_websocket=factory_of(connection, []))
    inbox = Inbox(transport)
    transport.send({"id": 1})
    reason = await inbox.closed()
    assert connection.aborted
    assert isinstance(reason, TransportClosedError)
    assert reason.__cause__ is connection.send_error
    await guard(transport.wait_closed())
