"""Content-Length framing: encode_message and ContentLengthDecoder, by table and by Hypothesis."""

from __future__ import annotations

import collections
import enum
import gc
import itertools
import math
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adecore_lsp.errors import ErrorCodes, FramingError, MessageEncodingError
from adecore_lsp.protocol.wire import encoder, framing
from adecore_lsp.protocol.wire.framing import ContentLengthDecoder, encode_message

MESSAGE = {"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 3, "message": "hi"}}
BODY = orjson.dumps(MESSAGE)


def frame(body: bytes, head: bytes | None = None) -> bytes:
    """One frame: ``head`` (default ``Content-Length: N``), a blank line, then ``body``."""
    if head is None:
        head = b"Content-Length: %d" % len(body)
    return head + b"\r\n\r\n" + body


def decode(stream: bytes, sizes: Iterator[int] | None = None) -> list[dict[str, Any]]:
    """Feed ``stream`` in chunks of the given sizes (default: one chunk), collect messages."""
    decoder = ContentLengthDecoder()
    if sizes is None:
        return decoder.feed(stream)
    messages = []
    pos = 0
    while pos < len(stream):
        size = next(sizes)
        messages += decoder.feed(stream[pos : pos + size])
        pos += size
    assert not decoder.in_frame
    return messages


def one_byte_at_a_time(stream: bytes, decoder: ContentLengthDecoder) -> list[dict[str, Any]]:
    """Feed ``stream`` to ``decoder`` one byte per call."""
    messages = []
    for i in range(len(stream)):
        messages += decoder.feed(stream[i : i + 1])
    return messages


def framing_error(stream: bytes, *, bytewise: bool = False) -> FramingError:
    """The FramingError that decoding ``stream`` raises, in one chunk or byte by byte."""
    decoder = ContentLengthDecoder(max_message_bytes=1000)

    def run() -> object:
        return one_byte_at_a_time(stream, decoder) if bytewise else decoder.feed(stream)

    with pytest.raises(FramingError) as caught:
        run()
    assert decoder.failed
    return caught.value


# --- encode_message ---------------------------------------------------------------------


def test_encode_writes_only_content_length_counting_utf8_bytes() -> None:
    """The frame is 'Content-Length: N' + blank line + body, N in bytes, non-ASCII kept raw."""
    message = {"jsonrpc": "2.0", "method": "m", "params": {"text": "é😀 \u2013 ok"}}
    encoded = encode_message(message)
    head, _, body = encoded.partition(b"\r\n\r\n")
    assert head == b"Content-Length: %d" % len(body)
    assert b"Content-Type" not in encoded
    assert "é😀 \u2013 ok".encode() in body
    assert orjson.loads(body) == message


@pytest.mark.parametrize(
    "message",
    [
        MESSAGE,
        {"jsonrpc": "2.0", "id": 1, "result": None},
        {"text": "null and NaN and Infinity are just words", "x": [None, 1.5, -0.0, 1e300]},
        {"astral": "😀" * 100, "nested": {"a": [{"b": ["\u00e9", "\u4e2d"]}]}},
        {"empty": {}, "list": [], "bools": [True, False]},
    ],
)
def test_encode_round_trips_through_the_decoder(message: dict[str, Any]) -> None:
    """What encode_message writes, the decoder reads back equal."""
    assert ContentLengthDecoder().feed(encode_message(message)) == [message]


def nested(depth: int, leaf: object) -> dict[str, Any]:
    """``leaf`` inside ``depth`` levels of alternating dicts and lists."""
    value: Any = leaf
    for level in range(depth):
        value = {"k": value} if level % 2 else [0, value]
    return {"params": value}


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("depth", [0, 1, 100])
def test_encode_refuses_nan_and_infinity_at_any_depth(bad: float, depth: int) -> None:
    """A non-finite float anywhere fails that call with a ValueError naming the value."""
    with pytest.raises(ValueError, match="JSON has no NaN or Infinity") as caught:
        encode_message(nested(depth, bad))
    assert repr(bad) in str(caught.value)
    assert not isinstance(caught.value, TypeError)


def test_encode_names_the_path_of_a_non_finite_float() -> None:
    """The error says where the bad float is, beside harmless nulls."""
    message = {"id": None, "params": {"items": [1.0, None, (2.0, math.inf)]}}
    with pytest.raises(ValueError, match=r"\$\.params\.items\[2\]\[1\] is inf"):
        encode_message(message)


class FloatCode(float, enum.Enum):
    """A float enum, which orjson writes as its value."""

    MISSING = math.nan


class Name(str):
    """A str subclass, which orjson writes as a string."""


class Items(list[Any]):
    """A list subclass, which orjson writes as a list."""


@pytest.mark.parametrize(
    ("message", "path"),
    [
        ({"a": collections.OrderedDict(b=math.nan)}, "$.a.b"),
        ({"a": Items([1, math.inf])}, "$.a[1]"),
        ({"a": (None, [FloatCode.MISSING])}, "$.a[1][0]"),
        ({"a": [True, 1, "s", None, {"b": -math.inf}]}, "$.a[4].b"),
    ],
)
def test_encode_finds_non_finite_floats_in_subclasses_and_tuples(
    message: dict[str, Any], path: str
) -> None:
    """Whatever orjson writes as a list, object or number is searched too."""
    with pytest.raises(ValueError, match=re.escape(f"{path} is ")):
        encode_message(message)


def test_encode_refuses_circular_messages_with_value_error() -> None:
    """A message that contains itself cannot be written, and says so."""
    message: dict[str, Any] = {"a": []}
    message["a"].append(message)
    with pytest.raises(ValueError, match="Recursion") as caught:
        encode_message(message)
    assert not isinstance(caught.value, TypeError)


LONG_TEXT = "x = None  # null\n" * 1000
MANY_VALUES = [{"uri": f"file:///f{i}.py", "type": 2, "v": None} for i in range(200)]


def test_encode_walks_a_short_message_only_when_its_body_holds_null(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A short body without 'null' cannot hide a NaN, so the message is not walked at all."""
    walks: list[tuple[object, int]] = []
    real_walk = encoder._has_non_finite

    def spy(container: Any, budget: int) -> bool | None:
        walks.append((container, budget))
        return real_walk(container, budget)

    monkeypatch.setattr(encoder, "_has_non_finite", spy)
    encode_message({"a": [1.5, 2], "b": "x"})
    assert walks == []
    encode_message({"a": None})
    assert walks == [({"a": None}, encoder._UNLIMITED)]


def test_encode_settles_a_long_text_message_with_one_short_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long body of few values is walked within the budget, its bytes never searched."""
    walks: list[int] = []
    real_walk = encoder._has_non_finite

    def spy(container: Any, budget: int) -> bool | None:
        walks.append(budget)
        return real_walk(container, budget)

    monkeypatch.setattr(encoder, "_has_non_finite", spy)
    # The text says "null" many times, so a search of the bytes would have found one.
    encode_message({"method": "didOpen", "params": {"text": LONG_TEXT, "version": 1}})
    assert walks == [encoder._WALK_BUDGET]


@pytest.mark.parametrize(
    "message",
    [
        {"params": {"text": LONG_TEXT, "n": -math.inf}},
        {"params": {"changes": [*MANY_VALUES, {"x": math.nan}]}},
        {"params": {"changes": [{"x": math.nan}, *MANY_VALUES]}},
        {"params": {"changes": MANY_VALUES, "deep": nested(60, math.inf)}},
    ],
    ids=["long-text", "many-values-nan-last", "many-values-nan-first", "many-values-deep"],
)
def test_encode_finds_non_finite_floats_in_long_messages(message: dict[str, Any]) -> None:
    """Long bodies, settled by the short walk or by the search, still refuse NaN."""
    with pytest.raises(ValueError, match="JSON has no NaN or Infinity"):
        encode_message(message)


def test_encode_passes_nulls_beside_finite_floats_and_other_values() -> None:
    """Nulls, ordinary floats, enums and str subclasses are not mistaken for NaN."""
    for message in (
        {"params": {"text": LONG_TEXT, "f": 0.5, "n": None}},
        {"params": {"changes": [*MANY_VALUES, 1e308, -0.0]}},
        {"params": {"changes": [{"uri": f"file:///f{i}.py", "type": 2} for i in range(300)]}},
        {"error": {"code": ErrorCodes.RequestCancelled, "data": None}, "id": Name("s1")},
    ):
        assert ContentLengthDecoder().feed(encode_message(message)) == [message]


@pytest.mark.parametrize(
    "message", [{"text": "\ud800"}, {"\udfff": 1}, {"deep": [[{"x": "a\ud83dz"}]]}]
)
def test_encode_refuses_lone_surrogates_with_value_error(message: dict[str, Any]) -> None:
    """A lone surrogate fails that call with a ValueError that says so."""
    with pytest.raises(ValueError, match="lone surrogate") as caught:
        encode_message(message)
    assert not isinstance(caught.value, TypeError)


def test_encode_refuses_integers_beyond_64_bits_with_value_error() -> None:
    """An integer JSON peers cannot read back is a ValueError."""
    with pytest.raises(ValueError, match="64-bit") as caught:
        encode_message({"n": 2**70})
    assert not isinstance(caught.value, TypeError)


@pytest.mark.parametrize("message", [{"x": object()}, {"x": {1: 2}}, {"x": {1, 2}}])
def test_encode_refuses_values_json_cannot_hold_with_value_error(message: dict[str, Any]) -> None:
    """A value of a type JSON has no form for, or a non-string key, is a ValueError too."""
    with pytest.raises(MessageEncodingError, match="cannot encode the message as JSON") as caught:
        encode_message(message)
    assert not isinstance(caught.value, TypeError)


UNENCODABLE: list[Any] = [
    {"x": math.nan},
    {"x": [math.inf]},
    {"x": "\ud800"},
    {"x": 2**70},
    nested(300, 1),
    {"x": {1, 2}},
    {"x": object()},
    {1: "non-string key"},
    [{"jsonrpc": "2.0", "method": "batch"}],
    "text",
]


@pytest.mark.parametrize("message", UNENCODABLE)
@pytest.mark.parametrize("encode", [encode_message, encoder.encode_body])
def test_every_encoding_refusal_is_a_message_encoding_error(
    message: Any, encode: Callable[[Any], bytes]
) -> None:
    """Whatever JSON cannot carry, and a message that is not a dict, fails with one type."""
    with pytest.raises(MessageEncodingError, match="cannot encode the message") as caught:
        encode(message)
    assert isinstance(caught.value, ValueError)
    assert caught.value.code == ErrorCodes.InvalidParams


def test_encode_message_is_the_header_then_encode_body() -> None:
    """The frame's body is exactly what encode_body gives, which the WebSocket sends as is."""
    body = encoder.encode_body(MESSAGE)
    assert body == orjson.dumps(MESSAGE)
    assert encode_message(MESSAGE) == b"Content-Length: %d\r\n\r\n%b" % (len(body), body)


def test_a_dict_subclass_is_a_message_too() -> None:
    """An OrderedDict (or any dict subclass) encodes like the dict it is."""
    from collections import OrderedDict

    ordered = OrderedDict(MESSAGE)
    assert encoder.encode_body(ordered) == encoder.encode_body(MESSAGE)
    assert encode_message(ordered) == encode_message(MESSAGE)
    with pytest.raises(MessageEncodingError, match="must be a dict"):
        encode_message([1, 2])  # type: ignore[arg-type]


# --- headers ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "head",
    [
        b"Content-Length: %d",
        b"content-length: %d",
        b"CONTENT-LENGTH: %d",
        b"cOnTeNt-LeNgTh: %d",
        b"Content-Length:%d",
        b"Content-Length :%d",
        b"Content-Length \t: \t%d \t",
        b"Content-Length: 000%d",
        b"X-Unknown: whatever (it is) ignored\r\nContent-Length: %d",
        b"Content-Length: %d\r\nX-Trace: 1",
        b"Content-Length: %d\r\nContent-Length: %d",
        b"Content-Length: %d\r\ncontent-length: 0%d",
    ],
)
@pytest.mark.parametrize("bytewise", [False, True], ids=["one-chunk", "bytewise"])
def test_header_forms_that_are_accepted(head: bytes, bytewise: bool) -> None:
    """Any case, blanks around the colon, unknown headers and equal duplicates are fine."""
    length = len(BODY)
    stream = frame(BODY, head % ((length,) * head.count(b"%d"))) * 2
    decoder = ContentLengthDecoder()
    got = one_byte_at_a_time(stream, decoder) if bytewise else decoder.feed(stream)
    assert got == [MESSAGE, MESSAGE]


@pytest.mark.parametrize(
    "content_type",
    [
        b"application/vscode-jsonrpc; charset=utf-8",
        b"application/vscode-jsonrpc; charset=utf8",
        b"application/vscode-jsonrpc;charset=UTF-8",
        b'application/vscode-jsonrpc; charset="utf-8"',
        b"application/vscode-jsonrpc; CHARSET = Utf8",
        b"application/vscode-jsonrpc",
        b"application/json",
    ],
)
def test_content_type_with_utf8_or_no_charset_is_accepted(content_type: bytes) -> None:
    """A Content-Type is optional; when present it may name utf-8 or utf8, in any case."""
    stream = frame(BODY, b"Content-Type: %b\r\nContent-Length: %d" % (content_type, len(BODY)))
    assert decode(stream) == [MESSAGE]
    assert decode(stream, iter(lambda: 1, 0)) == [MESSAGE]


@pytest.mark.parametrize(
    "content_type",
    [
        b"application/vscode-jsonrpc; charset=latin1",
        b"application/vscode-jsonrpc; charset=utf-16",
        b'application/vscode-jsonrpc; charset="iso-8859-1"',
        b"application/vscode-jsonrpc; charset=utf-8; charset=ascii",
    ],
)
def test_content_type_with_another_charset_is_refused(content_type: bytes) -> None:
    """Only UTF-8 is allowed, so any other charset is a FramingError naming it."""
    stream = frame(BODY, b"Content-Length: %d\r\nContent-Type: %b" % (len(BODY), content_type))
    with pytest.raises(FramingError, match="unsupported charset"):
        decode(stream)


@pytest.mark.parametrize(
    ("head", "reason"),
    [
        (b"X-Only: 1", "no Content-Length"),
        (b"Content-Type: application/vscode-jsonrpc", "no Content-Length"),
        (b"Content-Length: -5", "decimal number"),
        (b"Content-Length: abc", "decimal number"),
        (b"Content-Length: 12abc", "decimal number"),
        (b"Content-Length: ", "decimal number"),
        (b"Content-Length:", "decimal number"),
        (b"Content-Length: +5", "decimal number"),
        (b"Content-Length: 1 2", "decimal number"),
        (b"Content-Length: 1_2", "decimal number"),
        (b"Content-Length: 0x10", "decimal number"),
        (b"Content-Length: \xd9\xa1", "Content-Length header"),
        (b"Content-Length: 5\r\nContent-Length: 6", "conflicting Content-Length values 5 and 6"),
        (b"Content-Length: 1" + b"0" * 5000, "of 5001 digits is over the limit"),
        (b"Content-Length: 99999999999999999999", "over the limit"),
        (b"Content-Length: 1001", "over the limit of 1000 bytes"),
        (b"Content-Length 5", "Content-Length header"),
        (b": 5", "Content-Length header"),
        (b"Content Length: 5", "Content-Length header"),
        (b" Content-Length: 5", "Content-Length header"),
        (b"Content-Length: 5\r\n", "not UTF-8 JSON"),
        (b"Content-Length: 5\nX: 1", "Content-Length header"),
        (b"Content-Length: 5\rX: 1", "Content-Length header"),
        (b"Content-Length: 5\r\nX: caf\xc3\xa9", "Content-Length header"),
        (b"Content-Length: 5\r\nX: a\x00b", "Content-Length header"),
        (b"\xef\xbb\xbfContent-Length: 5", "Content-Length header"),
        (b"", "Content-Length header"),
    ],
)
@pytest.mark.parametrize("bytewise", [False, True], ids=["one-chunk", "bytewise"])
def test_bad_headers_raise_framing_error(head: bytes, reason: str, bytewise: bool) -> None:
    """Missing, negative, non-numeric, junk-tailed, empty, conflicting or oversize lengths fail."""
    error = framing_error(frame(b"{}", head) + b"Content-Length: 2\r\n\r\n{}", bytewise=bytewise)
    assert reason in str(error)


def test_an_oversize_length_fails_before_any_body_arrives() -> None:
    """The cap is checked when the header ends: no body byte needs to be sent or kept."""
    decoder = ContentLengthDecoder(max_message_bytes=10)
    with pytest.raises(FramingError, match="11 bytes is over the limit of 10"):
        decoder.feed(b"Content-Length: 11\r\n\r\n")
    assert not decoder.in_frame
    assert decoder.buffered == 0


def test_a_body_of_exactly_max_message_bytes_is_accepted() -> None:
    """The cap is inclusive."""
    body = orjson.dumps({"a": "x" * 20})
    assert ContentLengthDecoder(max_message_bytes=len(body)).feed(frame(body)) == [
        orjson.loads(body)
    ]


def test_max_message_bytes_must_not_be_negative() -> None:
    """A negative cap is a programming error, reported at construction."""
    with pytest.raises(ValueError, match="max_message_bytes"):
        ContentLengthDecoder(max_message_bytes=-1)
    assert ContentLengthDecoder(max_message_bytes=5).max_message_bytes == 5


def padded_head(block_size: int) -> bytes:
    """A valid header block of exactly ``block_size`` bytes (without the blank line)."""
    start = b"Content-Length: %d\r\nX-Pad: " % len(BODY)
    return start + b"p" * (block_size - len(start))


@pytest.mark.parametrize("cut", [None, 1, 8190, 8191, 8192, 8193, 8194, 8195, 8196, 8197])
def test_a_header_block_of_8_kib_is_read_and_one_byte_more_fails(cut: int | None) -> None:
    """The header block may be 8192 bytes long, at 8193 the decoder gives up on it.

    Also when the chunks are cut inside the closing blank line, or fed one byte at a time.
    """
    for size, fits in ((8192, True), (8193, False)):
        stream = frame(BODY, padded_head(size))
        decoder = ContentLengthDecoder()

        def run(decoder: ContentLengthDecoder = decoder, stream: bytes = stream) -> object:
            if cut is None:
                return one_byte_at_a_time(stream, decoder)
            return decoder.feed(stream[:cut]) + decoder.feed(stream[cut:])

        if fits:
            assert run() == [MESSAGE]
        else:
            with pytest.raises(FramingError, match="no end of header"):
                run()


@pytest.mark.parametrize("bytewise", [False, True], ids=["one-chunk", "bytewise"])
def test_a_long_line_without_a_blank_line_fails_within_the_cap(bytewise: bool) -> None:
    """100 KiB of header-like bytes with no end fail once the cap is passed, not at the end."""
    junk = b"X-Junk: " + b"j" * (100 * 1024)
    decoder = ContentLengthDecoder()
    fed = 0

    def run() -> None:
        nonlocal fed
        for i in range(len(junk)) if bytewise else [0]:
            fed += 1
            decoder.feed(junk[i : i + 1] if bytewise else junk)

    with pytest.raises(FramingError, match="no end of header"):
        run()
    assert fed <= 8192 + 4


# --- bodies -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b'{"a": "\xff"}', "not UTF-8 JSON"),
        (b'{"a": "\xed\xa0\x80"}', "not UTF-8 JSON"),
        (b'{"a": 1', "not UTF-8 JSON"),
        (b"hello", "not UTF-8 JSON"),
        (b"", "not UTF-8 JSON"),
        (b'{"a": NaN}', "not UTF-8 JSON"),
        (b'{"a": Infinity}', "not UTF-8 JSON"),
        (b'{"a": -Infinity}', "not UTF-8 JSON"),
        (b'\xef\xbb\xbf{"a": 1}', "not UTF-8 JSON"),
        (b'{"a": 1} {"b": 2}', "not UTF-8 JSON"),
        (b"[1, 2]", "JSON array, not an object"),
        (b'[{"jsonrpc": "2.0", "method": "batch"}]', "JSON array, not an object"),
        (b"42", "JSON number, not an object"),
        (b"4.5", "JSON number, not an object"),
        (b'"text"', "JSON string, not an object"),
        (b"null", "JSON null, not an object"),
        (b"true", "JSON boolean, not an object"),
    ],
)
@pytest.mark.parametrize("bytewise", [False, True], ids=["one-chunk", "bytewise"])
def test_bodies_that_are_not_a_utf8_json_object_fail(
    body: bytes, reason: str, bytewise: bool
) -> None:
    """A body must be UTF-8, valid JSON (no NaN or Infinity), and a JSON object."""
    error = framing_error(frame(body), bytewise=bytewise)
    assert reason in str(error)
    assert repr(body)[:-1] in str(error)


def test_the_decoder_never_changes_the_gc_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Decoding large bodies, good and bad, leaves the process-wide GC settings alone."""
    calls: list[object] = []
    monkeypatch.setattr(gc, "set_threshold", lambda *args: calls.append(args))
    monkeypatch.setattr(gc, "disable", lambda: calls.append("disable"))
    large = encode_message({"a": "x" * (2 * 1024 * 1024)})
    bad = frame(b'{"a": "' + b"x" * (2 * 1024 * 1024) + b"\xff" + b'"}')
    for sizes in (None, iter(lambda: 65536, 0)):
        assert len(decode(large + frame(BODY), sizes)) == 2
        with pytest.raises(FramingError, match="not UTF-8 JSON"):
            decode(bad, sizes)
    assert calls == []
    assert gc.isenabled()


# --- chunking ---------------------------------------------------------------------------


def test_three_frames_and_half_a_fourth_give_three_and_keep_the_rest() -> None:
    """A chunk's whole frames come out in order; the partial one waits for its end."""
    messages = [{"id": i, "text": "é" * i} for i in range(4)]
    frames = [encode_message(m) for m in messages]
    half = len(frames[3]) // 2
    decoder = ContentLengthDecoder()
    assert decoder.feed(b"".join(frames[:3]) + frames[3][:half]) == messages[:3]
    assert decoder.in_frame
    assert decoder.feed(frames[3][half:]) == [messages[3]]
    assert not decoder.in_frame


@pytest.mark.parametrize("text", ["é", "😀", "é😀中"])
def test_multibyte_characters_split_across_reads_decode_once(text: str) -> None:
    """Every cut through a multi-byte character still yields the message exactly once."""
    message = {"text": text * 3}
    stream = encode_message(message) * 2
    for cut in range(1, len(stream)):
        decoder = ContentLengthDecoder()
        assert decoder.feed(stream[:cut]) + decoder.feed(stream[cut:]) == [message, message]


def test_a_stream_fed_one_byte_at_a_time_decodes_the_same() -> None:
    """Byte-sized chunks, through headers, blank lines and bodies, change nothing."""
    messages: list[dict[str, Any]] = [
        MESSAGE,
        {"jsonrpc": "2.0", "id": 1, "result": {"x": ["😀", None]}},
        {},
    ]
    stream = b"".join(encode_message(m) for m in messages)
    assert one_byte_at_a_time(stream, ContentLengthDecoder()) == messages


def test_in_frame_and_buffered_follow_the_unfinished_frame() -> None:
    """Both say whether, and how much of, a frame is held: nothing between frames."""
    stream = encode_message(MESSAGE)
    head_size = stream.index(b"\r\n\r\n") + 4
    decoder = ContentLengthDecoder()
    assert (decoder.in_frame, decoder.buffered) == (False, 0)
    decoder.feed(stream[:5])
    assert (decoder.in_frame, decoder.buffered) == (True, 5)
    decoder.feed(stream[5 : head_size + 3])
    assert (decoder.in_frame, decoder.buffered) == (True, 3)
    decoder.feed(stream[head_size + 3 : -1])
    assert (decoder.in_frame, decoder.buffered) == (True, len(BODY) - 1)
    assert decoder.feed(stream[-1:]) == [MESSAGE]
    assert (decoder.in_frame, decoder.buffered) == (False, 0)
    assert decoder.feed(b"") == []


def test_bytearray_and_memoryview_chunks_are_copied_not_kept() -> None:
    """Chunks may be any bytes-like object, and reusing the caller's buffer is safe."""
    stream = encode_message(MESSAGE)
    buffer = bytearray(stream[:30])
    decoder = ContentLengthDecoder()
    assert decoder.feed(buffer) == []
    buffer[:] = b"\x00" * 30
    assert decoder.feed(memoryview(stream)[30:]) == [MESSAGE]


# --- failure ----------------------------------------------------------------------------


def test_a_banner_on_stdout_is_quoted_in_the_error() -> None:
    """A server's log line before its first header shows up, escaped, in the message."""
    stream = b"Listening on port 2087\n" + encode_message(MESSAGE)
    error = framing_error(stream)
    assert str(error).startswith(
        "expected a Content-Length header, got b'Listening on port 2087\\nContent-Length: "
    )
    assert str(error).endswith("...'")


@pytest.mark.parametrize("bytewise", [False, True], ids=["one-chunk", "bytewise"])
def test_a_banner_alone_fails_at_once_instead_of_waiting(bytewise: bool) -> None:
    """A log line with no header after it fails as soon as it arrives, without a hang."""
    error = framing_error(b"Listening on port 2087", bytewise=bytewise)
    assert "got b'Listening" in str(error)


def test_the_quote_is_about_80_bytes_with_an_ellipsis() -> None:
    """Long junk is cut to its first 80 bytes, escaped, with '...' inside the quotes."""
    junk = bytes(range(1, 128)) * 3
    message = str(framing_error(junk))
    assert message == "expected a Content-Length header, got " + repr(junk[:80])[:-1] + "...'"


def test_a_failed_decoder_keeps_failing_and_says_why() -> None:
    """After an error every feed raises, naming the first error, whatever it is fed."""
    decoder = ContentLengthDecoder()
    with pytest.raises(FramingError) as first:
        decoder.feed(b"Content-Length: 1x\r\n\r\n{}")
    assert decoder.failed
    assert decoder.error is first.value
    assert not decoder.in_frame
    for chunk in (encode_message(MESSAGE), b"", b"x"):
        with pytest.raises(FramingError, match="failed earlier: Content-Length must be") as later:
            decoder.feed(chunk)
        assert later.value.__cause__ is first.value


def test_framing_error_is_a_value_error() -> None:
    """Callers catching ValueError also catch framing errors."""
    assert isinstance(framing_error(b"junk\r\n\r\n"), ValueError)


# --- on_message -------------------------------------------------------------------------


def test_on_message_gets_each_message_and_feed_returns_nothing() -> None:
    """With a callback, messages go to it in order and feed returns an empty list."""
    got: list[dict[str, Any]] = []
    decoder = ContentLengthDecoder(on_message=got.append)
    messages = [{"n": i} for i in range(5)]
    stream = b"".join(encode_message(m) for m in messages)
    assert decoder.feed(stream[:7]) == []
    assert decoder.feed(stream[7:]) == []
    assert got == messages


def test_on_message_hears_the_messages_before_a_bad_frame() -> None:
    """The frames before a broken one in the same chunk are delivered, then feed raises."""
    got: list[dict[str, Any]] = []
    decoder = ContentLengthDecoder(on_message=got.append)
    with pytest.raises(FramingError):
        decoder.feed(encode_message(MESSAGE) * 2 + b"oops\r\n\r\n")
    assert got == [MESSAGE, MESSAGE]


def test_an_exception_from_on_message_propagates_and_fails_the_decoder() -> None:
    """The rest of the chunk is lost, so the decoder cannot go on."""

    def explode(message: dict[str, Any]) -> None:
        raise RuntimeError("listener bug")

    decoder = ContentLengthDecoder(on_message=explode)
    with pytest.raises(RuntimeError, match="listener bug"):
        decoder.feed(encode_message(MESSAGE) * 2)
    assert decoder.failed
    with pytest.raises(FramingError, match="stopped on RuntimeError"):
        decoder.feed(encode_message(MESSAGE))


def test_a_chunk_that_is_not_bytes_raises_type_error_and_changes_nothing() -> None:
    """Feeding text is a programming error: a TypeError, and the decoder is not failed."""
    decoder = ContentLengthDecoder()
    with pytest.raises(TypeError):
        decoder.feed("Content-Length: 2\r\n\r\n{}")  # type: ignore[arg-type]
    assert not decoder.failed
    assert decoder.feed(frame(b"{}")) == [{}]


# --- linear time ------------------------------------------------------------------------


def test_one_byte_at_a_time_the_work_is_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 1 MB message fed bytewise: each header byte checked once, the body parsed once.

    The structural counts show that nothing is rescanned; the timing check (10x the bytes
    must take far less than 100x the time) guards the parts that cannot be counted.
    """
    header_steps = 0
    table = framing._AUTOMATON

    class CountingTable:
        def __getitem__(self, index: int) -> int:
            nonlocal header_steps
            header_steps += 1
            return table[index]

    parsed: list[int] = []
    real_loads = framing._loads

    def counting_loads(body: bytes) -> Any:
        parsed.append(len(body))
        return real_loads(body)

    monkeypatch.setattr(framing, "_AUTOMATON", CountingTable())
    monkeypatch.setattr(framing, "_loads", counting_loads)

    def run(size: int) -> float:
        stream = encode_message({"text": "é" * (size // 2)})
        head = stream.index(b"\r\n\r\n")
        nonlocal header_steps
        header_steps = 0
        parsed.clear()
        decoder = ContentLengthDecoder()
        started = time.process_time()
        messages = one_byte_at_a_time(stream, decoder)
        elapsed = time.process_time() - started
        assert len(messages) == 1
        assert header_steps <= head + 4
        assert parsed == [len(stream) - head - 4]
        return elapsed

    small = run(100_000)
    large = run(1_000_000)
    assert large < 40 * max(small, 1e-3)


# --- Hypothesis -------------------------------------------------------------------------

json_text = st.sampled_from(
    ["", "é", "😀", "中文", 'a\x00\n"b', "Content-Length: 5\r\n\r\n"]
) | st.text(st.characters(codec="utf-8", categories=["L", "N", "P", "S", "Zs", "Cc"]), max_size=8)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | json_text,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(json_text, children, max_size=4)
    ),
    max_leaves=6,
)
json_objects = st.dictionaries(json_text, json_values, max_size=4)


@st.composite
def headers(draw: st.DrawFn, body: bytes) -> bytes:
    """A header block for ``body``: mixed case, optional Content-Type and unknown headers."""
    name = draw(st.sampled_from([b"Content-Length", b"content-length", b"CONTENT-length"]))
    blank = st.sampled_from([b"", b" ", b"\t", b"  "])
    lines = [name + draw(blank) + b":" + draw(blank) + b"%d" % len(body) + draw(blank)]
    if draw(st.booleans()):
        charset = draw(st.sampled_from([b"utf-8", b"UTF8", b'"utf-8"']))
        lines.append(b"content-TYPE: application/vscode-jsonrpc; charset=" + charset)
    if draw(st.booleans()):
        lines.append(b"X-Extra: " + draw(st.sampled_from([b"1", b"a b", b""])))
    return b"\r\n".join(draw(st.permutations(lines)))


@st.composite
def streams(draw: st.DrawFn) -> tuple[bytes, list[dict[str, Any]]]:
    """A valid stream of several frames, and the messages it holds."""
    messages = draw(st.lists(json_objects, min_size=1, max_size=4))
    stream = b""
    for message in messages:
        body = orjson.dumps(message)
        stream += draw(headers(body)) + b"\r\n\r\n" + body
    return stream, messages


def split(stream: bytes, cuts: list[int]) -> list[bytes]:
    """Cut ``stream`` at the given offsets (any order, repeats and ends allowed)."""
    points = sorted({0, len(stream), *(cut % (len(stream) + 1) for cut in cuts)})
    return [stream[a:b] for a, b in itertools.pairwise(points)]


def outcome(chunks: list[bytes]) -> tuple[list[dict[str, Any]], bool, bool]:
    """What a decoder with on_message makes of ``chunks``: messages, failed, in_frame."""
    got: list[dict[str, Any]] = []
    decoder = ContentLengthDecoder(max_message_bytes=4096, on_message=got.append)
    for chunk in chunks:
        try:
            assert decoder.feed(chunk) == []
        except FramingError:
            break
    if decoder.failed:
        with pytest.raises(FramingError):
            decoder.feed(b"Content-Length: 2\r\n\r\n{}")
    for message in got:
        assert type(message) is dict
    return got, decoder.failed, decoder.in_frame


# Bounded: a few hundred examples, and each must finish well within the deadline (no hang).
fuzz = settings(max_examples=200, deadline=2000, suppress_health_check=[HealthCheck.too_slow])


@fuzz
@given(streams(), st.lists(st.integers(0, 10_000), max_size=30))
def test_any_split_of_a_valid_stream_decodes_to_the_same_messages(
    stream_and_messages: tuple[bytes, list[dict[str, Any]]], cuts: list[int]
) -> None:
    """However a valid stream is cut, the messages come out the same, with feed's lists."""
    stream, messages = stream_and_messages
    decoder = ContentLengthDecoder()
    got = []
    for chunk in split(stream, cuts):
        got += decoder.feed(chunk)
    assert got == messages
    assert not decoder.in_frame


def mutate(stream: bytes, edits: list[tuple[int, int, int]]) -> bytes:
    """Apply byte edits: (0, i, b) replaces, (1, i, b) inserts, (2, i, _) deletes at i."""
    data = bytearray(stream)
    for kind, index, byte in edits:
        at = index % (len(data) + 1)
        if kind == 0 and at < len(data):
            data[at] = byte
        elif kind == 1:
            data.insert(at, byte)
        else:
            del data[at : at + 1]
    return bytes(data)


edit_lists = st.lists(
    st.tuples(st.integers(0, 2), st.integers(0, 10_000), st.integers(0, 255)), max_size=4
)
header_junk = st.lists(
    st.sampled_from(
        [
            b"Content-Length",
            b"content-length",
            b"Content-Type",
            b":",
            b" ",
            b"\t",
            b"\r\n",
            b"\r",
            b"\n",
            b"12",
            b"0",
            b"-1",
            b"99999999999",
            b"{}",
            b'{"a":1}',
            b"[]",
            b";",
            b"charset=utf8",
            b"charset=latin1",
            b"\x00",
            b"\xff",
            b"NaN",
            b"\r\n\r\n",
        ]
    ),
    max_size=25,
).map(b"".join)


@fuzz
@given(
    st.one_of(
        st.binary(max_size=200),
        header_junk,
        st.tuples(streams(), edit_lists).map(lambda pair: mutate(pair[0][0], pair[1])),
    ),
    st.lists(st.integers(0, 10_000), max_size=20),
)
def test_any_bytes_decode_or_raise_framing_error_the_same_however_split(
    data: bytes, cuts: list[int]
) -> None:
    """Random and mutated streams give messages or a FramingError, never anything else.

    The outcome (messages delivered, failed or not, inside a frame or not) does not depend
    on how the bytes are cut.
    """
    whole = outcome([data])
    assert outcome(split(data, cuts)) == whole
    assert outcome([data[i : i + 1] for i in range(len(data))]) == whole


def test_hypothesis_strategies_cover_both_outcomes() -> None:
    """The fuzz inputs above include streams that decode and streams that fail."""
    assert outcome([frame(b"{}")]) == ([{}], False, False)
    assert outcome([b"\x00"]) == ([], True, False)
    assert outcome([b"Content-Length: 5\r\n"]) == ([], False, True)


def test_completed_counts_the_messages_each_feed_finished() -> None:
    """A transport reads ``completed`` to see several messages arrive in one read."""
    got: list[Any] = []
    decoder = ContentLengthDecoder(on_message=got.append)
    three = b"".join(encode_message({"id": n, "result": n}) for n in range(3))
    decoder.feed(three)
    assert decoder.completed == 3
    one = encode_message({"id": 9, "result": "x" * 100})
    decoder.feed(one[:40])  # a frame that has not ended
    assert decoder.completed == 0
    decoder.feed(one[40:] + encode_message({"id": 10, "result": None}))
    assert decoder.completed == 2  # the held frame ended, and one more
    decoder.feed(b"")
    assert decoder.completed == 0
    assert [m["id"] for m in got] == [0, 1, 2, 9, 10]
