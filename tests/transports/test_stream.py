"""The stream transport over a fake ByteStream: framing, backlog, and every way it closes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from adecore_lsp.errors import (
    FramingError,
    MessageEncodingError,
    TransportClosedError,
    TransportError,
)
from adecore_lsp.protocol.wire.framing import encode_message
from adecore_lsp.transports.base import LspTransport
from adecore_lsp.transports.stream import create_stream_transport
from adecore_lsp.types import Disposable
from tests.fake_stream import FakeStream

MESSAGES: list[dict[str, Any]] = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"rootUri": None}},
    {
        "jsonrpc": "2.0",
        "method": "window/logMessage",
        "params": {"message": "h\u00e9llo \U0001f600"},
    },
    {"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {}}},
]
WIRE = b"".join(encode_message(message) for message in MESSAGES)


class Recorder:
    """Collects what a transport delivers and how it closes."""

    def __init__(self, transport: LspTransport) -> None:
        self.messages: list[dict[str, Any]] = []
        self.closes: list[BaseException | None] = []
        transport.on_message(self.messages.append)
        transport.on_close(self.closes.append)


def make() -> tuple[FakeStream, LspTransport, Recorder]:
    stream = FakeStream()
    transport = create_stream_transport(stream)
    return stream, transport, Recorder(transport)


def test_messages_before_the_first_listener_are_kept_for_it() -> None:
    """Frames that arrive before anyone listens reach the first listener, in order."""
    stream = FakeStream()
    transport = create_stream_transport(stream)
    stream.feed(WIRE)
    got: list[dict[str, Any]] = []
    transport.on_message(got.append)
    stream.feed(encode_message({"jsonrpc": "2.0", "method": "after"}))
    assert got == [*MESSAGES, {"jsonrpc": "2.0", "method": "after"}]


def test_one_byte_at_a_time() -> None:
    """Frames fed one byte at a time decode to the same messages."""
    stream, _, recorder = make()
    for index in range(len(WIRE)):
        stream.feed(WIRE[index : index + 1])
    assert recorder.messages == MESSAGES
    assert recorder.closes == []


def test_frames_split_at_every_position() -> None:
    """Whatever two pieces the bytes arrive in, the messages are the same."""
    for cut in range(len(WIRE) + 1):
        stream, _, recorder = make()
        stream.feed(WIRE[:cut])
        stream.feed(WIRE[cut:])
        assert recorder.messages == MESSAGES, cut


def test_send_writes_one_frame() -> None:
    """send encodes the message as one Content-Length frame and writes it."""
    stream, transport, _ = make()
    transport.send(MESSAGES[1])
    assert stream.written == [encode_message(MESSAGES[1])]


def test_an_unreadable_frame_closes_with_the_framing_error() -> None:
    """A bad frame closes the stream and each close listener hears the FramingError once."""
    stream, transport, recorder = make()
    second: list[BaseException | None] = []
    transport.on_close(second.append)
    stream.feed(encode_message(MESSAGES[0]) + b"Starting server...\n")
    assert recorder.messages == [MESSAGES[0]]  # what came before the bad frame still arrives
    assert len(recorder.closes) == 1
    assert isinstance(recorder.closes[0], FramingError)
    assert "Starting server" in str(recorder.closes[0])
    assert second == recorder.closes
    assert stream.close_calls == 1
    stream.feed(encode_message(MESSAGES[1]))  # nothing more is read
    stream.end(None)
    assert recorder.messages == [MESSAGES[0]]
    assert len(recorder.closes) == 1


def test_a_body_over_the_limit_closes_the_transport() -> None:
    """max_message_bytes is passed to the decoder: a larger frame is a FramingError."""
    stream = FakeStream()
    transport = create_stream_transport(stream, max_message_bytes=10)
    recorder = Recorder(transport)
    stream.feed(encode_message(MESSAGES[0]))
    assert recorder.messages == []
    assert isinstance(recorder.closes[0], FramingError)


def test_the_stream_ending_between_frames_closes_with_none() -> None:
    """A clean end of the stream closes the transport with None and closes the stream."""
    stream, transport, recorder = make()
    stream.feed(WIRE)
    stream.end(None)
    assert recorder.messages == MESSAGES
    assert recorder.closes == [None]
    assert stream.close_calls == 1
    with pytest.raises(TransportClosedError):
        transport.send(MESSAGES[0])


def test_the_stream_ending_inside_a_frame_is_an_error() -> None:
    """An end in the middle of a frame closes with a FramingError saying how much arrived."""
    stream, _, recorder = make()
    frame = encode_message(MESSAGES[2])
    stream.feed(frame[:-5])
    stream.end(None)
    assert recorder.messages == []
    (reason,) = recorder.closes
    assert isinstance(reason, FramingError)
    assert "inside a frame" in str(reason)
    assert f"{len(frame) - 5 - frame.index(b'{')} bytes" in str(reason)


def test_the_stream_ending_inside_a_header_is_an_error() -> None:
    """An end in the middle of a header is an error as well."""
    stream, _, recorder = make()
    stream.feed(b"Content-Len")
    stream.end(None)
    assert isinstance(recorder.closes[0], FramingError)


def test_a_stream_failure_is_passed_on_as_a_transport_error() -> None:
    """A stream ending with an OSError closes the transport with a TransportError caused by it."""
    stream, _, recorder = make()
    failure = ConnectionResetError("reset by peer")
    stream.end(failure)
    (reason,) = recorder.closes
    assert isinstance(reason, TransportError)
    assert reason.__cause__ is failure
    assert "reset by peer" in str(reason)


def test_a_transport_error_from_the_stream_is_passed_on_as_is() -> None:
    """A TransportError the stream ends with reaches the close listeners unchanged."""
    stream, _, recorder = make()
    failure = TransportError("pipe broke")
    stream.end(failure)
    assert recorder.closes == [failure]


def test_send_after_close_raises() -> None:
    """send after close raises TransportClosedError and writes nothing."""
    stream, transport, recorder = make()
    transport.close()
    with pytest.raises(TransportClosedError):
        transport.send(MESSAGES[0])
    assert stream.written == []
    assert recorder.closes == [None]


def test_close_is_idempotent() -> None:
    """Closing twice closes the stream once and tells each listener once."""
    stream, transport, recorder = make()
    transport.close()
    transport.close()
    stream.end(None)
    assert stream.close_calls == 1
    assert recorder.closes == [None]


def test_close_stops_listening_to_the_stream() -> None:
    """After close the transport has no listeners left on the stream, and ignores late data."""
    stream, transport, recorder = make()
    assert stream.listeners == 2
    transport.close()
    assert stream.listeners == 0
    stream.feed(WIRE)
    assert recorder.messages == []


def test_a_disposed_listener_hears_nothing_more() -> None:
    """Disposing a message listener stops it; the other listeners go on."""
    stream, transport, recorder = make()
    extra: list[dict[str, Any]] = []
    subscription = transport.on_message(extra.append)
    stream.feed(encode_message(MESSAGES[0]))
    subscription.dispose()
    stream.feed(encode_message(MESSAGES[1]))
    assert extra == [MESSAGES[0]]
    assert recorder.messages == MESSAGES[:2]


def test_a_listener_that_closes_stops_delivery_of_the_rest() -> None:
    """A listener closing the transport mid-chunk gets no more messages from that chunk."""
    stream, transport, recorder = make()
    transport.on_message(lambda message: transport.close())
    stream.feed(WIRE)
    assert recorder.messages == [MESSAGES[0]]
    assert recorder.closes == [None]


@pytest.mark.parametrize("params", [float("nan"), "\ud800", {1, 2}, object()])
def test_an_unencodable_message_fails_that_send_only(params: Any) -> None:
    """A message JSON cannot carry raises from send, writes nothing, leaves the transport open."""
    stream, transport, recorder = make()
    message = {"jsonrpc": "2.0", "method": "x", "params": params}
    with pytest.raises(MessageEncodingError):
        transport.send(message)
    assert stream.written == []
    assert recorder.closes == []
    transport.send(MESSAGES[0])
    assert stream.written == [encode_message(MESSAGES[0])]


def test_a_stream_that_already_ended_closes_the_transport_at_once() -> None:
    """A stream that reports its end as soon as one listens closes the new transport."""
    stream = FakeStream()

    def ended(listener: Callable[[BaseException | None], object]) -> Disposable:
        listener(None)
        return Disposable()

    stream.on_close = ended  # type: ignore[method-assign]
    transport = create_stream_transport(stream)
    closes: list[BaseException | None] = []
    transport.on_close(closes.append)
    assert closes == [None]
    assert stream.close_calls == 1
    assert stream.listeners == 0
