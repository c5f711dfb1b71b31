"""Content-Length framing, without I/O: messages to bytes and bytes back to messages.

:func:`encode_message` turns one JSON-RPC message into one frame. :class:`ContentLengthDecoder`
takes the bytes a stream delivers, in chunks of any size, and hands back each whole message.
Nothing here reads or writes: a transport owns the stream and calls these.

A frame is ``Content-Length: N\\r\\n\\r\\n`` followed by N bytes of UTF-8 JSON. The decoder is
strict, because a stream that goes wrong (most often a server printing a log line to its
stdout) cannot be resynchronised safely: it raises :class:`~adecore_lsp.errors.FramingError`
quoting the bytes it could not read, and stays failed.

Bodies are parsed by orjson. The few legal JSON texts it refuses (an escaped lone surrogate,
which ``JSON.stringify`` writes for broken text, and numbers beyond float range) are parsed
again by the standard library's parser, only after orjson has refused them. Nothing here
touches process-wide state such as the GC's settings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import orjson

from ...errors import FramingError
from ...types import JSONObject
from .encoder import encode_message

__all__ = ["DEFAULT_MAX_MESSAGE_BYTES", "ContentLengthDecoder", "encode_message"]

DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024
"""The largest message body accepted unless told otherwise (32 MiB), on every transport."""

_TERMINATOR = b"\r\n\r\n"
_MAX_HEADER_BYTES = 8 * 1024
"""The longest header block (without its closing blank line) the decoder waits for."""
_SEARCH_SPAN = _MAX_HEADER_BYTES + len(_TERMINATOR)
_QUOTE_BYTES = 80
_MAX_LENGTH_DIGITS = 15
"""More significant digits than this is far beyond any sane size cap (and ``int()``'s limit)."""

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError

# The header nearly every server writes, read in one step; anything else takes _parse_head.
_USUAL_HEAD = re.compile(rb"Content-Length: ([0-9]{1,%d})\r\n\r\n" % _MAX_LENGTH_DIGITS)
# One header line: a token name, blanks, a colon, then visible ASCII and blanks (RFC 9110).
_HEADER_LINE = re.compile(rb"([!#$%&'*+\-.^_`|~0-9A-Za-z]+)[ \t]*:([\t\x20-\x7e]*)")
_CHARSET = re.compile(rb";[ \t]*charset[ \t]*=[ \t]*(\"[^\"]*\"|[^; \t]*)", re.IGNORECASE)
_UTF8_NAMES = frozenset((b"utf-8", b"utf8"))
_BAD = 255
"""The automaton's state for bytes that cannot continue a header block."""


def _header_automaton() -> bytes:
    """Build the transition table that checks a header block arriving in pieces.

    States: 0 at a line start, 1 in a name, 2 in blanks after a name, 3 in a value, 4 after a
    value's CR, 5 after a CR at a line start. Entry ``state * 256 + byte`` is the next state,
    or ``_BAD``. It accepts exactly the prefixes of blocks that ``_HEADER_LINE`` accepts, so a
    banner line is refused as soon as it arrives instead of after a long wait.
    """
    token = b"!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    table = bytearray([_BAD] * (6 * 256))
    for byte in token:
        table[0 * 256 + byte] = 1
        table[1 * 256 + byte] = 1
    for byte in b" \t":
        table[1 * 256 + byte] = 2
        table[2 * 256 + byte] = 2
    table[1 * 256 + ord(":")] = 3
    table[2 * 256 + ord(":")] = 3
    for byte in b"\t" + bytes(range(0x20, 0x7F)):
        table[3 * 256 + byte] = 3
    table[3 * 256 + ord("\r")] = 4
    table[4 * 256 + ord("\n")] = 0
    table[0 * 256 + ord("\r")] = 5
    return bytes(table)


_AUTOMATON = _header_automaton()


def _quote(data: bytes | bytearray) -> str:
    """Show the first bytes of ``data`` escaped, with ``...`` inside the quotes if cut."""
    text = repr(bytes(data[:_QUOTE_BYTES]))
    if len(data) > _QUOTE_BYTES:
        text = f"{text[:-1]}...{text[-1]}"
    return text


class ContentLengthDecoder:
    """Turns the chunks of a byte stream into whole JSON-RPC messages.

    Feed each chunk as it arrives; :meth:`feed` returns the messages it completes, in order.
    Chunk boundaries do not matter: a frame may be split anywhere, and one chunk may hold
    many frames. The work is linear in the bytes fed, however they are split.

    Header names are matched without regard to case, blanks around the colon are allowed,
    headers other than ``Content-Length`` and ``Content-Type`` are ignored, and a
    ``Content-Type`` may only name the charset ``utf-8`` (or ``utf8``). Bytes that cannot
    begin a header, such as a log line, fail as soon as they arrive rather than when (or
    if) a blank line follows.

    For transports: :attr:`in_frame` and :attr:`buffered` tell whether a stream that ends
    now ends inside a frame, and :attr:`failed` and :attr:`error` whether the decoder has
    given up.

    Args:
        max_message_bytes: the largest body accepted. A larger ``Content-Length`` fails as
            soon as its header is read, before any of the body is kept.
        on_message: if given, each message is passed to it as soon as it is read, and
            :meth:`feed` returns an empty list. This spares building a list per chunk, and
            hands on the messages that precede a bad frame in the same chunk. If it raises,
            the exception propagates and the decoder fails, since the rest of that chunk is
            lost. It must not call :meth:`feed` itself.
    """

    __slots__ = (
        "_body",
        "_error",
        "_filled",
        "_head",
        "_head_state",
        "_max_message_bytes",
        "_on_message",
        "completed",
    )

    def __init__(
        self,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        *,
        on_message: Callable[[JSONObject], object] | None = None,
    ) -> None:
        if max_message_bytes < 0:
            raise ValueError(f"max_message_bytes must be >= 0, got {max_message_bytes}")
        self._max_message_bytes = max_message_bytes
        self._on_message = on_message
        self._error: FramingError | None = None
        # An unfinished header block (at most _SEARCH_SPAN - 1 bytes) and the automaton
        # state at its end.
        self._head: bytearray | None = None
        self._head_state = 0
        # An unfinished body, allocated at its full length once the header has passed the
        # size cap, and how much of it has arrived. Filling it in place copies each byte
        # once, and tiny chunks cost no more memory than big ones.
        self._body: bytearray | None = None
        self._filled = 0
        self.completed = 0
        """How many messages the last :meth:`feed` completed (a transport that sees several
        come in one read may gather the messages their callers send next)."""

    @property
    def max_message_bytes(self) -> int:
        """The largest body this decoder accepts."""
        return self._max_message_bytes

    @property
    def failed(self) -> bool:
        """Whether the decoder has met bytes it cannot read; every later feed raises."""
        return self._error is not None

    @property
    def error(self) -> FramingError | None:
        """The error the decoder failed with, or ``None``."""
        return self._error

    @property
    def in_frame(self) -> bool:
        """Whether part of a frame is held: the stream ending now would cut a message."""
        return self._head is not None or self._body is not None

    @property
    def body_length(self) -> int:
        """The length of the unfinished body being collected, or 0 when none is.

        With :attr:`buffered`, it tells whether the next chunk completes a large body: a
        transport that wants to prepare for a large parse can check it before feeding.
        """
        body = self._body
        return 0 if body is None else len(body)

    @property
    def buffered(self) -> int:
        """How many bytes of an unfinished frame's header or body are held (0 between frames)."""
        if self._head is not None:
            return len(self._head)
        return self._filled

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[JSONObject]:
        """Take the next bytes of the stream and return the messages they complete.

        Args:
            chunk: the next bytes, of any length.

        Returns:
            The whole messages completed by ``chunk``, in stream order; an empty list when
            the decoder was built with ``on_message``.

        Raises:
            FramingError: ``chunk`` completes a frame that cannot be read (a missing, bad or
                conflicting ``Content-Length``, another charset, a header block over 8 KiB,
                a body over ``max_message_bytes``, a body that is not a UTF-8 JSON object),
                or the decoder failed earlier. Messages before the bad frame in the same
                chunk are not returned (``on_message`` gets them).
        """
        if self._error is not None:
            raise FramingError(f"the decoder failed earlier: {self._error}") from self._error
        messages: list[JSONObject] = []
        completed = 0
        if not chunk:
            self.completed = 0
            return messages
        if type(chunk) is not bytes:
            # A copy: the caller may reuse its buffer, and bytes is what the parse needs.
            chunk = bytes(chunk)
        emit = self._on_message or messages.append
        # The decoding itself is inline, not a method of its own: a call less per chunk.
        try:
            pos = 0
            if self._body is not None:
                pos = self._continue_body(chunk, emit)
            elif self._head is not None:
                pos = self._continue_head(chunk, emit)
            if pos < 0:
                return messages
            if pos > 0:
                completed = 1  # the frame held from the chunks before ended in this one
            # The hot loop: one match, one slice and one parse per frame, names bound locally.
            size = len(chunk)
            limit = self._max_message_bytes
            loads = _loads
            match = _USUAL_HEAD.match
            find = chunk.find
            while pos < size:
                usual = match(chunk, pos)
                if usual is not None:
                    length = int(usual[1])
                    start = usual.end()
                else:
                    end = find(_TERMINATOR, pos, pos + _SEARCH_SPAN)
                    if end < 0:
                        self._hold_head(chunk[pos:])
                        return messages
                    length = _parse_head(chunk[pos:end], chunk[pos : pos + _QUOTE_BYTES + 1], limit)
                    start = end + 4
                if length > limit:
                    raise _too_large(length, limit)
                stop = start + length
                if stop > size:
                    self._start_body(chunk, start, length)
                    return messages
                try:
                    message = loads(chunk[start:stop])
                except _JSONDecodeError as exc:
                    # Legal JSON that orjson refuses takes this path; nothing else pays for it.
                    message = _load_refused(chunk[start:stop], exc)
                if type(message) is not dict:
                    raise _not_object(chunk[start:stop], message)
                emit(message)
                completed += 1
                pos = stop
        except FramingError as exc:
            self._fail(exc)
            raise
        except BaseException as exc:
            # Raised by on_message (or out of memory): the rest of the chunk is lost.
            self._fail(FramingError(f"decoding stopped on {exc!r}; the rest of the chunk is lost"))
            raise
        finally:
            self.completed = completed
        return messages

    def _fail(self, error: FramingError) -> None:
        """Enter the failed state for good and drop what was held."""
        self._error = error
        self._head = None
        self._body = None
        self._filled = 0

    def _start_body(self, chunk: bytes, start: int, length: int) -> None:
        """Keep the first bytes of a body that ``chunk`` does not finish."""
        body = bytearray(length)
        got = len(chunk) - start
        body[:got] = memoryview(chunk)[start:]
        self._body = body
        self._filled = got

    def _continue_body(self, chunk: bytes, emit: Callable[[JSONObject], object]) -> int:
        """Add ``chunk`` to the held body; return where the next frame starts, or -1."""
        body = self._body
        assert body is not None
        filled = self._filled
        need = len(body) - filled
        size = len(chunk)
        if size < need:
            body[filled : filled + size] = chunk
            self._filled = filled + size
            return -1
        body[filled:] = chunk if size == need else memoryview(chunk)[:need]
        self._body = None
        self._filled = 0
        emit(_load(body))
        return need

    def _continue_head(self, chunk: bytes, emit: Callable[[JSONObject], object]) -> int:
        """Add ``chunk`` to the held header; return where the next frame starts, or -1."""
        head = self._head
        assert head is not None
        held = len(head)
        # The blank line may straddle the held and the new bytes; else look in the new ones,
        # no further than the header cap allows (held <= _SEARCH_SPAN - 1, so the bound is
        # positive).
        seam = bytes(head[-3:])
        found = (seam + chunk[:3]).find(_TERMINATOR)
        if found >= 0:
            cut = found + 4 - len(seam)
        else:
            found = chunk.find(_TERMINATOR, 0, _SEARCH_SPAN - held)
            if found < 0:
                self._hold_more(chunk)
                return -1
            cut = found + 4
        if held + cut > _SEARCH_SPAN:
            raise _header_too_long(head + chunk[: _QUOTE_BYTES + 1])
        head += chunk[:cut]
        self._head = None
        length = _parse_head(bytes(head[:-4]), head[: _QUOTE_BYTES + 1], self._max_message_bytes)
        if length > self._max_message_bytes:
            raise _too_large(length, self._max_message_bytes)
        stop = cut + length
        if stop > len(chunk):
            self._start_body(chunk, cut, length)
            return -1
        emit(_load(chunk[cut:stop]))
        return stop

    def _hold_head(self, data: bytes) -> None:
        """Keep the start of a header block that the chunk does not finish."""
        self._head = bytearray()
        self._head_state = 0
        self._hold_more(data)

    def _hold_more(self, data: bytes) -> None:
        """Check ``data`` as the next bytes of the held header block, then keep it."""
        head = self._head
        assert head is not None
        room = _SEARCH_SPAN - 1 - len(head)
        state = self._head_state
        table = _AUTOMATON
        # Each byte is checked once, when it arrives; only the cap's worth is ever checked.
        for byte in data[:room] if len(data) > room else data:
            state = table[state * 256 + byte]
            if state == _BAD:
                raise _not_a_header(head + data[: _QUOTE_BYTES + 1])
        if len(data) > room:
            raise _header_too_long(head + data[: _QUOTE_BYTES + 1])
        self._head_state = state
        head += data


def _parse_head(block: bytes, quoted: bytes | bytearray, limit: int) -> int:
    """Read a whole header block and return its ``Content-Length``.

    Args:
        block: the header lines without the closing blank line.
        quoted: the first bytes of the frame, to show in an error.
        limit: the size cap, to refuse a length too long to convert before converting it.
    """
    length: bytes | None = None
    for line in block.split(b"\r\n"):
        match = _HEADER_LINE.fullmatch(line)
        if match is None:
            raise _not_a_header(quoted)
        name = match[1].lower()
        value = match[2].strip(b" \t")
        if name == b"content-length":
            if not value.isdigit():
                raise FramingError(
                    f"Content-Length must be a decimal number, got {value!r} in {_quote(quoted)}"
                )
            value = value.lstrip(b"0") or b"0"
            if length is not None and value != length:
                raise FramingError(
                    f"conflicting Content-Length values {length.decode()} and "
                    f"{value.decode()} in {_quote(quoted)}"
                )
            length = value
        elif name == b"content-type":
            _check_charset(value, quoted)
    if length is None:
        raise FramingError(f"the header has no Content-Length, got {_quote(quoted)}")
    if len(length) > _MAX_LENGTH_DIGITS:
        raise FramingError(
            f"a Content-Length of {len(length)} digits is over the limit of {limit} bytes "
            "(max_message_bytes)"
        )
    return int(length)


def _check_charset(content_type: bytes, quoted: bytes | bytearray) -> None:
    """Refuse a ``Content-Type`` that names a charset other than UTF-8."""
    for match in _CHARSET.finditer(content_type):
        charset = match[1].strip(b'"').lower()
        if charset not in _UTF8_NAMES:
            raise FramingError(
                f"unsupported charset {charset.decode()!r} (only utf-8 is accepted) in "
                f"{_quote(quoted)}"
            )


def _load(body: bytes | bytearray) -> JSONObject:
    """Parse a body that must be a UTF-8 JSON object."""
    try:
        message = _loads(body)
    except _JSONDecodeError as exc:
        message = _load_refused(body, exc)
    if type(message) is not dict:
        raise _not_object(body, message)
    return message


def _load_refused(body: bytes | bytearray, refusal: ValueError) -> object:
    """Parse a body orjson refused, if it is legal JSON after all; else raise a FramingError.

    ``refusal`` is orjson's error, quoted when the body is really bad.
    """
    try:
        return _parse_standard_json(bytes(body).decode("utf-8"))
    except ValueError:  # UnicodeDecodeError and json.JSONDecodeError are ValueErrors
        raise _bad_body(body, refusal) from refusal


def parse_json(text: str | bytes | bytearray | memoryview) -> object:
    """Parse one JSON text as JSON allows it: orjson first, the standard library if it refuses.

    For the transports that get whole messages without framing (the WebSocket one).

    Accepts what orjson refuses although it is legal JSON: an escaped lone surrogate
    (``"\\ud83d"``, kept as a ``str`` holding it) and numbers beyond float range (``1e400``,
    read as ``inf``). Refuses ``NaN`` and ``Infinity``, which are not JSON, and bytes that are
    not UTF-8.

    Raises:
        ValueError: ``text`` is not one JSON text (orjson's error says why).
    """
    try:
        return _loads(text)
    except _JSONDecodeError as refusal:
        try:
            decoded = text if isinstance(text, str) else bytes(text).decode("utf-8")
            return _parse_standard_json(decoded)
        except ValueError:
            raise refusal from None


def _parse_standard_json(text: str) -> object:
    """Parse ``text`` with the standard library, refusing NaN and the infinities.

    Raises:
        ValueError: ``text`` is not JSON, or nests too deep to parse.
    """
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except RecursionError as exc:
        raise ValueError("the JSON text nests too deep") from exc


def _refuse_constant(name: str) -> object:
    """``parse_constant`` for ``json.loads``: NaN, Infinity and -Infinity are not JSON."""
    raise ValueError(f"{name} is not JSON")


def _not_a_header(quoted: bytes | bytearray) -> FramingError:
    return FramingError(f"expected a Content-Length header, got {_quote(quoted)}")


def _header_too_long(quoted: bytes | bytearray) -> FramingError:
    return FramingError(
        f"no end of header (a blank line) within {_MAX_HEADER_BYTES} bytes, got {_quote(quoted)}"
    )


def _too_large(length: int, limit: int) -> FramingError:
    return FramingError(
        f"a message of {length} bytes is over the limit of {limit} bytes (max_message_bytes)"
    )


def _bad_body(body: bytes | bytearray, exc: ValueError) -> FramingError:
    return FramingError(f"the message body is not UTF-8 JSON ({exc}), got {_quote(body)}")


def _not_object(body: bytes | bytearray, message: object) -> FramingError:
    kind = {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(message), "number"
    )
    return FramingError(f"the message body is a JSON {kind}, not an object, got {_quote(body)}")
