"""A ByteStream whose peer is the test, shared by the transport, fuzz and security tests."""

from __future__ import annotations

from collections.abc import Callable

from adecore_lsp import Disposable
from adecore_lsp._emitter import Emitter


class FakeStream:
    """A ByteStream whose peer is the test: it records writes and feeds data or an end."""

    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.close_calls = 0
        self._data: Emitter[bytes] = Emitter()
        self._close: Emitter[BaseException | None] = Emitter()

    def write(self, chunk: bytes) -> None:
        self.written.append(chunk)

    def on_data(self, listener: Callable[[bytes], object]) -> Disposable:
        return self._data.add(listener)

    def on_close(self, listener: Callable[[BaseException | None], object]) -> Disposable:
        return self._close.add(listener)

    def close(self) -> None:
        self.close_calls += 1

    def feed(self, data: bytes) -> None:
        self._data.fire(data)

    def end(self, reason: BaseException | None = None) -> None:
        self._close.fire(reason)

    @property
    def listeners(self) -> int:
        return len(self._data) + len(self._close)
