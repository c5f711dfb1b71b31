"""A trace of every message between a workspace and its servers, one JSON line each.

Each line is ``{"time": seconds since the trace began, "direction": "send" or
"receive", "server": id, "message": ...}``: enough to read what happened, and to answer
the same calls again without the server (``adecore_lsp.testing``).
"""

from __future__ import annotations

import os
import time
from typing import IO, Any

import orjson

from ...transports.base import CloseListener, LspTransport, MessageListener
from ...types import Disposable, JSONObject

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


class Trace:
    """Writes trace lines to a file, flushed per line so that a crash loses nothing."""

    def __init__(self, target: str | os.PathLike[str] | IO[bytes]) -> None:
        if isinstance(target, (str, os.PathLike)):
            self._file: IO[bytes] = open(target, "wb")  # noqa: SIM115 - closed by close()
            self._owned = True
        else:
            self._file = target
            self._owned = False
        self._began = time.monotonic()

    def write(self, server: str, direction: str, message: Any) -> None:
        line = {
            "time": round(time.monotonic() - self._began, 6),
            "direction": direction,
            "server": server,
            "message": message,
        }
        try:
            self._file.write(orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE))
            self._file.flush()
        except (TypeError, ValueError, OSError):
            pass  # a message JSON cannot carry is refused by the transport itself

    def close(self) -> None:
        if self._owned:
            self._file.close()


class TracingTransport:
    """An :class:`~adecore_lsp.LspTransport` that writes each message to a :class:`Trace`."""

    def __init__(self, inner: LspTransport, trace: Trace, server: str) -> None:
        self._inner = inner
        self._trace = trace
        self._server = server

    def send(self, message: JSONObject) -> None:
        self._inner.send(message)
        self._trace.write(self._server, "send", message)

    def on_message(self, listener: MessageListener) -> Disposable:
        trace, server = self._trace, self._server

        def traced(message: JSONObject) -> object:
            trace.write(server, "receive", message)
            return listener(message)

        return self._inner.on_message(traced)

    def on_close(self, listener: CloseListener) -> Disposable:
        return self._inner.on_close(listener)

    def close(self) -> None:
        self._inner.close()
