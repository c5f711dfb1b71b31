"""Legal JSON that orjson refuses: decoded by the standard library's parser, not fatal.

orjson refuses two things JSON allows: an escaped lone surrogate (``JSON.stringify`` and
``json.dumps`` write one for broken text) and numbers beyond float range. The decoder parses
those bodies again with ``json`` and goes on; bodies that are really bad still fail.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import orjson
import pytest

from adecore_lsp.errors import FramingError
from adecore_lsp.protocol.wire.framing import ContentLengthDecoder, parse_json


def frame(body: bytes) -> bytes:
    """One frame with a plain Content-Length header."""
    return b"Content-Length: %d\r\n\r\n%b" % (len(body), body)


AFTER = {"jsonrpc": "2.0", "method": "after"}
AFTER_FRAME = frame(b'{"jsonrpc": "2.0", "method": "after"}')
BIG_TEXT = "x" * (2 * 1024 * 1024)


# Bodies orjson refuses that are legal JSON, and what they decode to.
LEGAL: list[tuple[bytes, dict[str, Any]]] = [
    (b'{"text": "a\\ud83d"}', {"text": "a\ud83d"}),
    (b'{"text": "\\udc80z"}', {"text": "\udc80z"}),
    (b'{"\\udfff": 1}', {"\udfff": 1}),
    (b'{"text": "\\ud83d\\ud83d\\ude00"}', {"text": "\ud83d\U0001f600"}),
    (b'{"n": 1e400}', {"n": math.inf}),
    (b'{"n": -1e400, "m": [2E+999]}', {"n": -math.inf, "m": [math.inf]}),
    (
        b'{"jsonrpc": "2.0", "method": "window/logMessage", '
        b'"params": {"message": "\\ud800 h\xc3\xa9"}}',
        {"jsonrpc": "2.0", "method": "window/logMessage", "params": {"message": "\ud800 h\u00e9"}},
    ),
    (
        b'{"big": "' + BIG_TEXT.encode() + b'", "n": 1e400}',
        {"big": BIG_TEXT, "n": math.inf},
    ),
]


def feed_all(stream: bytes, sizes: Iterator[int] | None) -> list[dict[str, Any]]:
    """Decode ``stream`` in one chunk, or in chunks of the given sizes."""
    decoder = ContentLengthDecoder()
    if sizes is None:
        return decoder.feed(stream)
    messages: list[dict[str, Any]] = []
    pos = 0
    while pos < len(stream):
        size = next(sizes)
        messages += decoder.feed(stream[pos : pos + size])
        pos += size
    assert not decoder.failed
    return messages


CHUNKINGS: dict[str, Callable[[], Iterator[int] | None]] = {
    "one-chunk": lambda: None,
    "64-kib": lambda: iter(lambda: 65536, 0),
    "7-bytes": lambda: iter(lambda: 7, 0),
}
# Every body in every chunking, except the 2 MiB one seven bytes at a time (too slow; 64 KiB
# chunks take the same path through the held body).
CASES = [
    pytest.param(body, expected, chunking, id=f"{index}-{chunking}")
    for index, (body, expected) in enumerate(LEGAL)
    for chunking in CHUNKINGS
    if len(body) < 100_000 or chunking != "7-bytes"
]


@pytest.mark.parametrize(("body", "expected", "chunking"), CASES)
def test_legal_json_that_orjson_refuses_is_decoded(
    body: bytes, expected: dict[str, Any], chunking: str
) -> None:
    """The message arrives as the standard library reads it, and the next one follows."""
    messages = feed_all(frame(body) + AFTER_FRAME, CHUNKINGS[chunking]())
    assert messages == [expected, AFTER]


def test_a_lone_surrogate_arrives_as_a_str_holding_it() -> None:
    """The broken text is kept, not replaced: the application decides what to do with it."""
    (message,) = ContentLengthDecoder().feed(frame(b'{"text": "\\ud83d"}'))
    assert message["text"] == "\ud83d"
    assert len(message["text"]) == 1


# Bodies that take the fallback and are still refused, with what the error says.
STILL_BAD: list[tuple[bytes, str]] = [
    (b'{"a": "\\ud800", "b": NaN}', "not UTF-8 JSON"),
    (b'{"a": 1e400, "b": Infinity}', "not UTF-8 JSON"),
    (b'{"a": 1e400, "b": -Infinity}', "not UTF-8 JSON"),
    (b'{"a": 1e400', "not UTF-8 JSON"),
    (b'{"a": "\\ud800" "b"}', "not UTF-8 JSON"),
    (b'{"a": "\\ud800", "b": "\xff"}', "not UTF-8 JSON"),
    (b'{"a": "\xed\xa0\x80", "n": 1e400}', "not UTF-8 JSON"),
    ('{"a": "\\ud800"}'.encode("utf-16"), "not UTF-8 JSON"),
    ('{"a": "\\ud800"}'.encode("utf-32-le"), "not UTF-8 JSON"),
    (b'\xef\xbb\xbf{"a": "\\ud800"}', "not UTF-8 JSON"),
    (b"[" * 100_000 + b"1e400" + b"]" * 100_000, "not UTF-8 JSON"),
    (b'{"a": 1e400} {"b": 2}', "not UTF-8 JSON"),
    (b"[1e400]", "JSON array, not an object"),
    (b'"\\ud800"', "JSON string, not an object"),
    (b"1e400", "JSON number, not an object"),
]


@pytest.mark.parametrize(("body", "reason"), STILL_BAD, ids=range(len(STILL_BAD)))
@pytest.mark.parametrize("bytewise", [False, True], ids=["one-chunk", "bytewise"])
def test_bodies_that_are_not_json_still_fail_after_the_fallback(
    body: bytes, reason: str, bytewise: bool
) -> None:
    """NaN, Infinity, broken syntax, non-UTF-8 and non-objects fail as they always did."""
    decoder = ContentLengthDecoder()
    stream = frame(body)
    pieces = [stream[i : i + 1] for i in range(len(stream))] if bytewise else [stream]
    with pytest.raises(FramingError) as caught:
        _feed_each(decoder, pieces)
    assert reason in str(caught.value)
    assert repr(body[:80])[:-1] in str(caught.value)
    assert decoder.failed


def _feed_each(decoder: ContentLengthDecoder, pieces: list[bytes]) -> None:
    for piece in pieces:
        decoder.feed(piece)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": "\\ud800"}', {"a": "\ud800"}),
        (b'{"a": 1e400}', {"a": math.inf}),
        (bytearray(b'[1, "\\udfff"]'), [1, "\udfff"]),
        (memoryview(b'{"a": 1}'), {"a": 1}),
    ],
)
def test_parse_json_accepts_what_json_allows(text: Any, expected: object) -> None:
    """The shared parser (also the WebSocket transport's) reads legal JSON orjson refuses."""
    assert parse_json(text) == expected


@pytest.mark.parametrize(
    "text", ['{"a": NaN}', "[Infinity]", b"[-Infinity]", b'["\xff", 1e400]', "[1e400", ""]
)
def test_parse_json_refuses_what_json_does_not_allow(text: str | bytes) -> None:
    """NaN, the infinities, bad UTF-8 and broken syntax are a ValueError: orjson's error."""
    with pytest.raises(orjson.JSONDecodeError):
        parse_json(text)
