"""A server's stdin and stdout as one framed transport: the path of every message.

The stdout pipe's chunks go straight to the decoder (no byte stream, no task, no extra turn
of the loop), and ``send`` writes to the stdin pipe itself. Messages sent in a row can be
held and written together (:meth:`PipeTransport.held_writes`), and so are the messages that
callers woken by several answers of one read send next. :mod:`.process` starts the server
and joins its pipes to this.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

from ..errors import TransportError
from ..protocol.wire.encoder import encode_message
from ..types import JSONObject
from .stream import FramedTransport

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

READ_SIZE = 64 * 1024
"""Bytes read from a pipe at a time. asyncio's default (256 KiB) is above the allocator's
mmap threshold, so every read maps and unmaps fresh memory; 64 KiB reads made sequential
request/response round trips about 1.7 times faster."""

FIRST_BYTES = 200
"""How much of the start of a server's stdout is kept, to quote when it is not LSP."""


def write_failed(error: BaseException | None) -> TransportError:
    message = "could not write to the language server: its stdin is closed"
    if error is not None:
        message = f"could not write to the language server: {error}"
    failure = TransportError(message)
    failure.__cause__ = error
    return failure


def read_failed(error: BaseException) -> TransportError:
    failure = TransportError(f"could not read from the language server: {error}")
    failure.__cause__ = error
    return failure


class PipeTransport(FramedTransport):
    """The transport of a server started by ``spawn_server``: its stdin and stdout, framed.

    The stdout pipe's protocol hands each chunk to :meth:`_on_data`, and ``send`` writes to
    the stdin pipe itself: no byte stream in between, as this is the path of every message.
    Messages that arrive before the first listener wait in the transport's backlog.
    """

    def __init__(self, max_message_bytes: int, *, postpone_full_collections: bool = False) -> None:
        super().__init__(max_message_bytes, postpone_full_collections=postpone_full_collections)
        self._stdin: asyncio.WriteTransport | None = None
        self._stdin_lost = False
        self._stdin_error: BaseException | None = None
        self.first_bytes = b""
        """The start of what the server wrote on stdout (up to ``FIRST_BYTES``)."""
        self._held: list[bytes] | None = None
        self._held_bytes = 0
        self._held_for_answers = False

    def send(self, message: JSONObject) -> None:
        if self._closed:
            super().send(message)  # raises TransportClosedError
            return
        # encode_message raises before anything is written, so a bad message costs nothing.
        frame = encode_message(message)
        held = self._held
        if held is not None:
            if not held and not self._held_for_answers:
                # Should the block wait for anything, what it sent goes out meanwhile.
                asyncio.get_running_loop().call_soon(self._write_held)
            held.append(frame)
            self._held_bytes += len(frame)
            if self._held_bytes >= HELD_BYTES:
                self._write_held()
            return
        # _write inlined: this runs for every message sent.
        stdin = self._stdin
        if stdin is None or self._stdin_lost or stdin.is_closing():
            self._fail(write_failed(self._stdin_error))
            return
        stdin.write(frame)

    @contextlib.contextmanager
    def held_writes(self) -> Iterator[None]:
        """Within the block, the messages sent go out in one write at its end (or at the
        next turn of the loop, should the block wait for something: a request inside it is
        never kept from its answer). A thousand ``didOpen`` in a row cost one system call
        rather than a thousand."""
        if self._held is not None and not self._held_for_answers:
            yield
            return
        if self._held is None:
            self._held = []
        self._held_for_answers = False  # the block's now: it ends the hold
        try:
            yield
        finally:
            self._write_held()
            self._held = None

    def _several_arrived(self) -> None:
        if self._held is None and not self._closed:
            # Several messages in one read (answers, say) wake several callers in the next
            # turn of the loop, each sending its next message: those go out in one write
            # after them all (this callback is queued behind their wake-ups), not one write
            # each.
            self._held = []
            self._held_for_answers = True
            asyncio.get_running_loop().call_soon(self._end_hold_for_answers)

    def _end_hold_for_answers(self) -> None:
        # What the woken callers sent goes out, also when a block of held_writes took the
        # hold over meanwhile (its own later messages go out as that block says).
        self._write_held()
        if self._held_for_answers:
            self._held_for_answers = False
            self._held = None

    def _write_held(self) -> None:
        held = self._held
        if held:
            frames = b"".join(held)
            held.clear()
            self._held_bytes = 0
            if not self._closed:
                self._write(frames)

    def _write(self, frame: bytes) -> None:
        stdin = self._stdin
        # A failed write marks the pipe closing at once but reports the loss a turn later;
        # meanwhile the pipe transport would drop (and, after a few, log) more writes.
        if stdin is None or self._stdin_lost or stdin.is_closing():
            self._fail(write_failed(self._stdin_error))
            return
        stdin.write(frame)

    def _send(self, message: JSONObject) -> None:
        self.send(message)

    def _close_underlying(self) -> None:
        # End stdin after what is queued (and what is held: the exit notification may be).
        # Reading goes on, dropping what comes (see _on_data), so a server writing its last
        # words never blocks on a full pipe instead of exiting.
        self._write_held()
        self._held = None
        self._held_for_answers = False
        stdin = self._stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()

    # Called by _ServerProtocol.

    def _attach(self, stdin: asyncio.WriteTransport | None) -> None:
        self._stdin = stdin
        if stdin is not None and self._closed:
            stdin.close()

    def _stdin_closed(self, error: BaseException | None) -> None:
        self._stdin_lost = True
        self._stdin_error = error
        if error is not None:
            # A broken pipe: the server is gone or has closed its stdin.
            self._fail(write_failed(error))

    def _stdout_closed(self, error: BaseException | None) -> None:
        self._source_ended(None if error is None else read_failed(error))


class DirectStdout(asyncio.Protocol):
    """The stdout pipe's protocol: each chunk goes to the transport's decoder at once.

    asyncio's subprocess transport hands every chunk on with ``call_soon``, which costs one
    more turn of the event loop (another poll of the selector) per chunk: a bare client's
    sequential round trip over stdio took 29 us that way against 24 us without it. This
    wrapper delivers each chunk in the turn that read it, in the same order; the end of the
    pipe still goes to asyncio's own protocol, which the subprocess transport needs to finish.
    """

    def __init__(self, inner: asyncio.Protocol, pipes: PipeTransport) -> None:
        self._inner = inner
        on_data = pipes._on_data

        def first(data: bytes) -> None:
            # The first chunk is kept (what a server that does not speak LSP wrote), then
            # the transport's own method takes over: not even a frame more per chunk.
            pipes.first_bytes = data[:FIRST_BYTES]
            self.data_received = on_data  # type: ignore[method-assign]
            on_data(data)

        self.data_received = first  # type: ignore[method-assign]

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._inner.connection_lost(exc)


HELD_BYTES = 256 << 10
"""Held messages go out once they come to this many bytes: a few writes for a batch of
documents, without a copy of all of them in memory at once."""

STDIN_PIPE_BYTES = 1 << 20
"""The size asked for the server's stdin pipe on Linux (the default is 64 KiB)."""


def widen_stdin(subprocess_transport: asyncio.SubprocessTransport) -> None:
    """On Linux, give the server's stdin pipe ``STDIN_PIPE_BYTES``: a batch of ``didOpen``
    (megabytes of text) then goes out in a few writes rather than hundreds, each waiting for
    the server to drain the last. Elsewhere, or past the system's limit for the user
    (``/proc/sys/fs/pipe-max-size``), the pipe keeps its size."""
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    pipe = subprocess_transport.get_pipe_transport(0)
    fileno = getattr(pipe.get_extra_info("pipe") if pipe is not None else None, "fileno", None)
    if set_size is None or fileno is None:
        return
    with contextlib.suppress(OSError, ValueError):
        fcntl.fcntl(fileno(), set_size, STDIN_PIPE_BYTES)


def tune_read_pipes(
    subprocess_transport: asyncio.SubprocessTransport, pipes: PipeTransport
) -> None:
    """Read stdout and stderr in READ_SIZE pieces, and stdout chunks straight to ``on_stdout``.

    The one place that leans on how an event loop's pipes work beyond the documented API,
    and each step checks first and is skipped when it does not apply:

    - the read size is the ``max_size`` attribute of asyncio's Unix read pipe transport,
      undocumented; other loops (uvloop, Windows) have no such attribute;
    - the direct stdout path swaps the pipe's protocol with the public ``get_protocol`` and
      ``set_protocol``, keeping asyncio's own protocol for the end of the pipe; only a plain
      :class:`asyncio.Protocol` is swapped (a buffered one keeps its own path).

    Without either, chunks still arrive through ``pipe_data_received``, a turn later.
    """
    for fd in (1, 2):
        pipe = subprocess_transport.get_pipe_transport(fd)
        if pipe is not None and isinstance(getattr(pipe, "max_size", None), int):
            pipe.max_size = READ_SIZE  # type: ignore[attr-defined]
    stdout = subprocess_transport.get_pipe_transport(1)
    if isinstance(stdout, asyncio.ReadTransport):
        inner = stdout.get_protocol()
        if isinstance(inner, asyncio.Protocol) and not isinstance(inner, DirectStdout):
            stdout.set_protocol(DirectStdout(inner, pipes))
