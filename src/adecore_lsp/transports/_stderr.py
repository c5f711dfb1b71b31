"""A language server's stderr as text lines: bounded in number and in length.

Reading stderr all the time keeps a chatty server from blocking on a full pipe; keeping only
the most recent lines, each at most a bounded size, keeps that from costing memory.
"""

from __future__ import annotations

from collections import deque

from .._emitter import Emitter

__all__ = ["STDERR_MAX_LINES", "STDERR_MAX_LINE_BYTES", "StderrLines"]

STDERR_MAX_LINES = 1000
"""How many of the most recent stderr lines a :class:`ServerProcess` keeps."""

STDERR_MAX_LINE_BYTES = 64 * 1024
"""A longer stderr line is split into pieces of at most this many bytes."""


class StderrLines:
    """Splits stderr into text lines; keeps the most recent ones and tells listeners."""

    def __init__(self, max_lines: int, max_line_bytes: int) -> None:
        self.lines: deque[str] = deque(maxlen=max_lines)
        self.listeners: Emitter[str] = Emitter()
        self._max_line_bytes = max_line_bytes
        self._partial = bytearray()

    def feed(self, data: bytes) -> None:
        pieces = data.split(b"\n")
        tail = pieces.pop()
        partial = self._partial
        if pieces:
            if partial:
                partial += pieces[0]
                pieces[0] = bytes(partial)
                partial.clear()
            for piece in pieces:
                self._line(piece)
        partial += tail
        limit = self._max_line_bytes
        # A line that never ends must not grow without bound: hand it on in pieces.
        while len(partial) > limit:
            cut = _char_boundary(partial, limit)
            self._push(bytes(partial[:cut]))
            del partial[:cut]

    def close(self) -> None:
        if self._partial:
            line = bytes(self._partial)
            self._partial.clear()
            self._line(line)

    def _line(self, raw: bytes) -> None:
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        limit = self._max_line_bytes
        while len(raw) > limit:
            cut = _char_boundary(raw, limit)
            self._push(raw[:cut])
            raw = raw[cut:]
        self._push(raw)

    def _push(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace")
        self.lines.append(text)
        if self.listeners:
            self.listeners.fire(text)


def _char_boundary(data: bytes | bytearray, limit: int) -> int:
    """The largest cut at or below ``limit`` that does not split a UTF-8 character."""
    cut = limit
    # Step back over at most three continuation bytes (0b10xxxxxx).
    while cut > max(limit - 3, 1) and (data[cut] & 0xC0) == 0x80:
        cut -= 1
    return cut if (data[cut] & 0xC0) != 0x80 else limit
