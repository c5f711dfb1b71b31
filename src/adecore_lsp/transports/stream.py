"""A transport over a byte stream, with ``Content-Length`` framing.

The stream is usually a language server's stdin and stdout (see :mod:`.process`). Incoming
bytes go through one :class:`ContentLengthDecoder`; every whole message goes to the
transport's listeners. A frame the decoder cannot read is fatal: the stream is closed and the
close listeners hear the :class:`FramingError`, because nothing after a broken frame can be
trusted to start where the decoder thinks it does.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from inspect import isawaitable

from .._emitter import _STOPPING
from ..errors import FramingError, TransportError
from ..protocol.wire.framing import DEFAULT_MAX_MESSAGE_BYTES, ContentLengthDecoder, encode_message
from ..types import Disposable, JSONObject
from .base import BaseTransport, ByteStream, LspTransport

__all__ = ["create_stream_transport"]

LARGE_MESSAGE_BYTES = 1024 * 1024
"""Bodies larger than this are parsed with full GC collections postponed, when asked for."""
_NO_FULL_COLLECTION = 1 << 30


def create_stream_transport(
    stream: ByteStream,
    *,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    postpone_full_collections: bool = False,
) -> LspTransport:
    """Carry JSON-RPC messages over ``stream`` with ``Content-Length`` framing.

    - ``send`` encodes the message and writes it to the stream. A message that cannot be
      encoded (``NaN``, a lone surrogate, an object JSON cannot carry) raises
      :class:`~adecore_lsp.errors.MessageEncodingError` from that ``send`` alone, before
      anything is written; the transport stays open.
    - A frame that cannot be read, or one larger than ``max_message_bytes``, closes the
      stream, and the close listeners hear the :class:`FramingError`.
    - The stream ending closes the transport: the close listeners hear ``None``, or a
      :class:`FramingError` when it ended inside a frame, or a :class:`TransportError`
      (with the stream's own exception as ``__cause__``) when the stream failed.
    - ``close()`` closes the stream.
    - ``postpone_full_collections``: see :class:`FramedTransport`.
    """
    return _StreamTransport(stream, max_message_bytes, postpone_full_collections)


class FramedTransport(BaseTransport):
    """Content-Length framing over a byte source: decode what arrives, encode what is sent.

    A subclass hands each chunk it reads to :meth:`_on_data` and the end of its source to
    :meth:`_source_ended`, writes frames in :meth:`send`, and closes its source in
    ``_close_underlying``. A frame that cannot be read closes the transport with the
    :class:`FramingError`. Whatever a message listener raises goes to the error handler
    (it is logged) and never touches the connection.

    With ``postpone_full_collections``, the chunk that completes a body over
    :data:`LARGE_MESSAGE_BYTES` is decoded with the GC's full collections postponed: only the
    oldest generation's threshold is raised, process-wide, for that one call, and restored
    even on error. Parsing builds hundreds of thousands of containers, none of them garbage
    yet, and as the heap grows the GC runs full collections over all of it again and again;
    on a 30 MB body this halves the time. It is off by default, since it changes a setting
    that belongs to the whole application. The incremental GC of Python 3.14 ignores that
    threshold, so there it changes nothing.
    """

    def __init__(self, max_message_bytes: int, *, postpone_full_collections: bool = False) -> None:
        super().__init__()
        # on_message: no list per chunk, and the messages before a bad frame still arrive.
        decoder = ContentLengthDecoder(max_message_bytes, on_message=self._on_message)
        self._decoder = decoder
        # Bound once: these run for every chunk and every message the server sends.
        self._feed = (
            _feed_postponing_full_collections(decoder)
            if postpone_full_collections
            else decoder.feed
        )
        self._fire = self._value_listeners.fire
        # The emitter's own list (changed in place, never replaced), for _on_message.
        self._listener_list = self._value_listeners._listeners

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
        if self._decoder.completed > 1:
            self._several_arrived()

    def _several_arrived(self) -> None:
        """The last chunk completed several messages: a subclass that writes may gather
        what the callers they wake send next (the pipe transport does)."""

    def _on_message(self, message: JSONObject) -> None:
        # A listener may close the transport in the middle of a chunk: drop the rest.
        # Channel._receive and Emitter.fire's one-listener case, inlined: this runs for every
        # message, and a Python call less is about 1,000 instructions per round trip.
        if self._closed:
            return
        listeners = self._listener_list
        if len(listeners) == 1:
            try:
                result = listeners[0](message)
            except _STOPPING:
                raise
            except BaseException as error:
                self._value_listeners._on_error(error)
                return
            if result is not None and isawaitable(result):
                self._value_listeners._spawn(result)
        elif not self._fire(message):
            self._backlog.append(message)

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

    def __init__(
        self, stream: ByteStream, max_message_bytes: int, postpone_full_collections: bool
    ) -> None:
        super().__init__(max_message_bytes, postpone_full_collections=postpone_full_collections)
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


def _feed_postponing_full_collections(
    decoder: ContentLengthDecoder,
) -> Callable[[bytes], list[JSONObject]]:
    """``decoder.feed``, run with full collections postponed when a chunk may end a large body.

    A chunk may: when it is itself large, or when it completes the large body being held.
    """
    feed = decoder.feed

    def feed_postponing(data: bytes) -> list[JSONObject]:
        held = decoder.body_length
        completes_large_body = held > LARGE_MESSAGE_BYTES and held - decoder.buffered <= len(data)
        if not (completes_large_body or len(data) > LARGE_MESSAGE_BYTES) or not gc.isenabled():
            return feed(data)
        with _FULL_COLLECTIONS_POSTPONED:
            return feed(data)

    return feed_postponing


class _PostponeFullCollections:
    """Raises the GC's oldest threshold while at least one large body is being parsed.

    Parses in several threads may overlap: the first to start saves the threshold and the
    last to finish restores it, so an interleaving cannot leave it raised for good.
    """

    __slots__ = ("_active", "_lock", "_saved")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active = 0
        self._saved = 0

    def __enter__(self) -> None:
        with self._lock:
            if not self._active:
                young, middle, self._saved = gc.get_threshold()
                gc.set_threshold(young, middle, _NO_FULL_COLLECTION)
            self._active += 1

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            self._active -= 1
            if not self._active:
                young, middle, _ = gc.get_threshold()
                gc.set_threshold(young, middle, self._saved)


_FULL_COLLECTIONS_POSTPONED = _PostponeFullCollections()
