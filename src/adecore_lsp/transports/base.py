"""The transport protocols, and the bookkeeping every transport shares.

A transport carries whole JSON-RPC messages. What every transport must do the same way lives
in :class:`BaseTransport`: keeping messages that arrive before the first listener, calling each
close listener exactly once with the reason, and refusing to send once closed. The first two
are :class:`Channel`'s, which byte streams share too.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar, runtime_checkable

from .._emitter import Emitter
from ..errors import TransportClosedError
from ..types import Disposable, JSONObject

__all__ = ["ByteStream", "CloseListener", "LspTransport", "MessageListener"]

T = TypeVar("T")

MessageListener = Callable[[JSONObject], object]
CloseListener = Callable[[BaseException | None], object]


@runtime_checkable
class LspTransport(Protocol):
    """Sends and receives whole JSON-RPC messages over one connection."""

    def send(self, message: JSONObject) -> None:
        """Queue ``message`` for the peer; raises ``TransportClosedError`` once closed."""

    def on_message(self, listener: MessageListener) -> Disposable:
        """Hear every message; the first listener also gets those that came before it."""

    def on_close(self, listener: CloseListener) -> Disposable:
        """Hear the close once: ``None`` for an orderly close, else the exception."""

    def close(self) -> None:
        """Close the connection; idempotent."""


@runtime_checkable
class ByteStream(Protocol):
    """A duplex byte stream, such as a server process's stdin and stdout."""

    def write(self, chunk: bytes) -> None:
        """Queue ``chunk`` for the peer without waiting."""

    def on_data(self, listener: Callable[[bytes], object]) -> Disposable:
        """Hear each chunk read from the peer."""

    def on_close(self, listener: CloseListener) -> Disposable:
        """Hear the end of the stream once: ``None`` at a clean end, else the exception."""

    def close(self) -> None:
        """End the stream: stop reading and close the write side; idempotent."""


class Channel(Generic[T]):
    """Values to listeners, kept for the first one, and a close told to each listener once.

    Shared by transports (values are messages) and byte streams (values are chunks). A
    subclass calls :meth:`_receive` with each value, :meth:`_listen` to add a value listener,
    and :meth:`_finish` when it ends. Listener failures are contained by the emitters and
    never reach the subclass.
    """

    def __init__(self) -> None:
        self._value_listeners: Emitter[T] = Emitter()
        self._close_listeners: Emitter[BaseException | None] = Emitter()
        self._backlog: deque[T] = deque()
        self._closed = False
        self._close_reason: BaseException | None = None

    @property
    def closed(self) -> bool:
        """Whether the channel has closed, by either side."""
        return self._closed

    @property
    def close_reason(self) -> BaseException | None:
        """What ended the channel: ``None`` while open or after an orderly close."""
        return self._close_reason

    def on_close(self, listener: CloseListener) -> Disposable:
        if self._closed:
            self._close_listeners.call(listener, self._close_reason)
            return Disposable()
        return self._close_listeners.add(listener)

    def _listen(self, listener: Callable[[T], object]) -> Disposable:
        """Add a value listener; the first one takes the backlog, in order, at once."""
        disposable = self._value_listeners.add(listener)
        while self._backlog and not disposable.disposed:
            self._value_listeners.call(listener, self._backlog.popleft())
        return disposable

    def _receive(self, value: T) -> None:
        """Hand one value to the listeners, or keep it for the first one."""
        if not self._value_listeners.fire(value):
            self._backlog.append(value)

    def _finish(self, reason: BaseException | None) -> None:
        """Mark the channel closed and tell each close listener once."""
        if self._closed:
            return
        self._closed = True
        self._close_reason = reason
        listeners = self._close_listeners
        self._close_listeners = Emitter()
        listeners.fire(reason)


class BaseTransport(Channel[JSONObject]):
    """Backlog before the first listener, once-only close, and send-after-close checks.

    Subclasses implement :meth:`_send` and :meth:`_close_underlying`, call :meth:`_receive`
    with each incoming message and :meth:`_finish` when the connection ends on its own.
    """

    def send(self, message: JSONObject) -> None:
        if self._closed:
            raise TransportClosedError(self._closed_message()) from self._close_reason
        self._send(message)

    def _closed_message(self) -> str:
        if self._close_reason is None:
            return "the transport is closed"
        return f"the transport is closed: {self._close_reason}"

    def on_message(self, listener: MessageListener) -> Disposable:
        return self._listen(listener)

    def close(self) -> None:
        if self._closed:
            return
        try:
            self._close_underlying()
        finally:
            self._finish(None)

    def _send(self, message: JSONObject) -> None:
        raise NotImplementedError

    def _close_underlying(self) -> None:
        raise NotImplementedError
