"""A transport over a byte stream, with ``Content-Length`` framing.

The stream is usually a language server's stdin and stdout (see :mod:`.process`). Incoming
bytes go through one :class:`ContentLengthDecoder`; every whole message goes to the
transport's listeners. A frame the decoder cannot read is fatal: the stream is closed and the
close listeners hear the :class:`FramingError`, because nothing after a broken frame can be
trusted to start where the decoder thinks it does.
"""

from __future__ import annotations

from ..errors import FramingError, TransportError
from ..protocol.framing import ContentLengthDecoder, encode_message
from ..types import Disposable, JSONObject
from .base import BaseTransport, ByteStream, LspTransport

__all__ = ["DEFAULT_MAX_MESSAGE_BYTES", "FramedTransport", "create_stream_transport"]

DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024
"""The largest message body accepted unless told otherwise (32 MiB)."""


def create_stream_transport(
    stream: ByteStream, *, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
) -> LspTransport:
    """Carry JSON-RPC messages over ``stream`` with ``Content-Length`` framing.

    - ``send`` encodes the message and writes it to the stream. A message that cannot be
      encoded (``NaN``, a lone surrogate, an object JSON cannot carry) raises from that
      ``send`` alone; the transport stays open.
    - A frame that cannot be read, or one larger than ``max_message_bytes``, closes the
      stream, and the close listeners hear the :class:`FramingError`.
    - The stream ending closes the transport: the close listeners hear ``None``, or a
      :class:`FramingError` when it ended inside a frame, or a :class:`TransportError`
      (with the stream's own exception as ``__cause__``) when the stream failed.
    - ``close()`` closes the stream.
    """
    return _StreamTransport(stream, max_message_bytes)


class FramedTransport(BaseTransport):
    """Content-Length framing over a byte source: decode what arrives, encode what is sent.

    A subclass hands each chunk it reads to :meth:`_on_data` and the end of its source to
    :meth:`_source_ended`, writes frames in :meth:`send`, and closes its source in
    ``_close_underlying``. A frame that cannot be read closes the transport with the
    :class:`FramingError`.
    """

    def __init__(self, max_message_bytes: int) -> None:
        super().__init__()
        # on_message: no list per chunk, and the messages before a bad frame still arrive.
        self._decoder = ContentLengthDecoder(max_message_bytes, on_message=self._on_message)
        # Bound once: this runs for every chunk the server sends.
        self._feed = self._decoder.feed

    def _on_data(self, data: bytes) -> None:
        # After the close, what still arrives (a server's last words) is dropped.
        if self._closed:
            return
        try:
            self._feed(data)
        except FramingError as error:
            self._fail(error)
        except Exception as error:  # a decoder fault must still end the transport cleanly
            failure = FramingError(f"could not decode the stream: {error!r}")
            failure.__cause__ = error
            self._fail(failure)

    def _on_message(self, message: JSONObject) -> None:
        # A listener may close the transport in the middle of a chunk: drop the rest.
        if self._closed:
            return
        # BaseTransport._receive and Emitter.fire, inlined for one listener (the session):
        # this runs for every message.
        emitter = self._message_listeners
        listeners = emitter._listeners
        if len(listeners) != 1:
            if listeners:
                emitter.fire(message)
            else:
                self._backlog.append(message)
            return
        try:
            result = listeners[0](message)
        except Exception as error:
            emitter._on_error(error)
            return
        if result is not None:
            emitter.settle(result)

    def _source_ended(self, reason: BaseException | None) -> None:
        """The source ended (``None``: cleanly) or failed: close with the reason, once."""
        if self._closed:
            return
        if reason is None:
            if self._decoder.in_frame:
                reason = FramingError(
                    "the stream ended inside a frame "
                    f"({self._decoder.buffered} bytes of it had arrived)"
                )
        elif not isinstance(reason, TransportError):
            failure = TransportError(f"the stream failed: {reason!r}")
            failure.__cause__ = reason
            reason = failure
        self._fail(reason)

    def _fail(self, reason: BaseException | None) -> None:
        """Close the source and report ``reason`` to the close listeners, once."""
        if self._closed:
            return
        try:
            self._close_underlying()
        finally:
            self._finish(reason)


class _StreamTransport(FramedTransport):
    """:class:`FramedTransport` over a :class:`ByteStream`."""

    def __init__(self, stream: ByteStream, max_message_bytes: int) -> None:
        super().__init__(max_message_bytes)
        self._stream = stream
        self._subscriptions: list[Disposable] = []
        self._subscriptions.append(stream.on_data(self._on_data))
        # Subscribed last: a stream that has already ended reports it at once.
        self._subscriptions.append(stream.on_close(self._source_ended))

    def send(self, message: JSONObject) -> None:
        # BaseTransport.send and _send in one call, as this runs for every message sent.
        if self._closed:
            super().send(message)  # raises TransportClosedError
            return
        # encode_message raises before anything is written, so a bad message costs nothing.
        self._stream.write(encode_message(message))

    def _send(self, message: JSONObject) -> None:
        self._stream.write(encode_message(message))

    def _close_underlying(self) -> None:
        # Stop listening first: closing the stream may report its own close back to us.
        subscriptions, self._subscriptions = self._subscriptions, []
        for subscription in subscriptions:
            subscription.dispose()
        self._stream.close()
