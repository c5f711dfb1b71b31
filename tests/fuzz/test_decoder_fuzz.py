"""Fuzzing the Content-Length decoder with LSP-shaped traffic, mutated and cut anywhere.

tests/protocol/test_framing.py checks the decoder's rules one by one; this file throws
streams at it that a broken or hostile server could write (real message shapes with bytes
flipped, huge declared lengths, header-only streams, valid and invalid frames interleaved)
and checks the only outcomes are messages or FramingError, that the split into chunks
changes nothing, and that the stream transport closes exactly once with the same verdict.
Bounded by max_examples so it runs in CI in about ten seconds.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adecore_lsp import FramingError, create_stream_transport
from adecore_lsp.protocol.wire.framing import ContentLengthDecoder, encode_message
from adecore_lsp.types import JSONObject
from tests.fake_stream import FakeStream

LIMIT = 4096  # a small cap, so that "huge" lengths are cheap to generate
PER_EXAMPLE_SECONDS = 5.0  # far above the milliseconds an example takes: a hang, not noise
FUZZ = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# -- LSP-shaped messages -------------------------------------------------------------------------

texts = st.text(max_size=40)
ids = st.one_of(st.integers(-(2**31), 2**31), texts)
positions = st.fixed_dictionaries(
    {"line": st.integers(0, 10**6), "character": st.integers(0, 10**6)}
)
ranges = st.fixed_dictionaries({"start": positions, "end": positions})
diagnostics = st.fixed_dictionaries(
    {"range": ranges, "message": texts, "severity": st.integers(1, 4), "source": texts}
)
uris = st.builds(lambda name: f"file:///work/{name}.py", st.text("abcé😀 /%", max_size=12))

notifications = st.one_of(
    st.builds(
        lambda uri, items: {
            "jsonrpc": "2.0",
            "method": "textDocument/publishDiagnostics",
            "params": {"uri": uri, "diagnostics": items},
        },
        uris,
        st.lists(diagnostics, max_size=3),
    ),
    st.builds(
        lambda message: {
            "jsonrpc": "2.0",
            "method": "window/logMessage",
            "params": {"type": 3, "message": message},
        },
        texts,
    ),
    st.builds(
        lambda token, pct: {
            "jsonrpc": "2.0",
            "method": "$/progress",
            "params": {"token": token, "value": {"kind": "report", "percentage": pct}},
        },
        ids,
        st.integers(0, 100),
    ),
)
responses = st.one_of(
    st.builds(
        lambda i, value: {
            "jsonrpc": "2.0",
            "id": i,
            "result": {"contents": {"kind": "markdown", "value": value}},
        },
        ids,
        texts,
    ),
    st.builds(
        lambda i, message: {
            "jsonrpc": "2.0",
            "id": i,
            "error": {"code": -32601, "message": message},
        },
        ids,
        texts,
    ),
    st.builds(lambda i: {"jsonrpc": "2.0", "id": i, "result": None}, ids),
)
requests = st.builds(
    lambda i, method: {"jsonrpc": "2.0", "id": i, "method": method, "params": {"items": []}},
    ids,
    st.sampled_from(["workspace/configuration", "client/registerCapability", "x/y"]),
)
lsp_messages = st.one_of(notifications, responses, requests)

# -- frames, good and bad --------------------------------------------------------------------------


@st.composite
def mutated(draw: st.DrawFn, frame: bytes) -> bytes:
    """``frame`` with a few bytes flipped, inserted, deleted, or the whole cut short."""
    data = bytearray(frame)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["flip", "insert", "delete", "truncate"]))
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        if kind == "flip":
            data[at] = draw(st.integers(0, 255))
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=4))
        elif kind == "delete":
            del data[at]
        else:
            del data[at:]
    return bytes(data)


def valid_frames() -> st.SearchStrategy[tuple[str, bytes, JSONObject | None]]:
    return lsp_messages.map(lambda message: ("valid", encode_message(message), message))


def bad_frames() -> st.SearchStrategy[tuple[str, bytes, JSONObject | None]]:
    huge = st.integers(LIMIT + 1, 10**30).map(lambda n: b"Content-Length: %d\r\n\r\n" % n)
    header_only = st.integers(0, LIMIT).map(lambda n: b"Content-Length: %d\r\n\r\n" % n)
    garbage = st.binary(max_size=64)
    long_header = st.integers(8 * 1024, 9 * 1024).map(lambda n: b"X-Pad: " + b"a" * n + b"\r\n")
    not_an_object = st.sampled_from([b"[]", b"null", b"1", b'"s"', b"{", b"\xff\xfe"]).map(
        lambda body: b"Content-Length: %d\r\n\r\n" % len(body) + body
    )
    shapes = st.one_of(
        lsp_messages.flatmap(lambda message: mutated(encode_message(message))),
        huge,
        header_only,
        garbage,
        long_header,
        not_an_object,
    )
    return shapes.map(lambda data: ("raw", data, None))


@st.composite
def streams(draw: st.DrawFn) -> tuple[bytes, list[int], list[tuple[str, bytes, Any]]]:
    """Frames, valid and not, interleaved; and where the stream is cut into chunks."""
    parts = draw(st.lists(st.one_of(valid_frames(), bad_frames()), min_size=1, max_size=8))
    data = b"".join(part for _, part, _ in parts)
    cuts = draw(st.lists(st.integers(0, len(data)), max_size=12)) if data else []
    return data, sorted(set(cuts)), parts


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    """``data`` split at ``cuts`` (empty chunks included, since a stream may deliver them)."""
    bounds = [0, *cuts, len(data)]
    return [data[start:stop] for start, stop in itertools.pairwise(bounds)]


def run_decoder(chunks: list[bytes]) -> tuple[list[JSONObject], bool, bool]:
    """Feed ``chunks``; return the messages heard, whether it failed, and whether mid-frame."""
    heard: list[JSONObject] = []
    decoder = ContentLengthDecoder(LIMIT, on_message=heard.append)
    failed = False
    started = time.perf_counter()
    for chunk in chunks:
        try:
            assert decoder.feed(chunk) == []
        except FramingError:
            failed = True
            break
    assert time.perf_counter() - started < PER_EXAMPLE_SECONDS
    if failed:
        assert decoder.failed
        assert isinstance(decoder.error, FramingError)
        assert not decoder.in_frame
        assert decoder.buffered == 0
        for later in (b"", b"Content-Length: 2\r\n\r\n{}", chunks[-1]):
            try:
                decoder.feed(later)
            except FramingError:
                continue
            raise AssertionError("a failed decoder accepted more bytes")
    else:
        assert not decoder.failed
    assert all(type(message) is dict for message in heard)
    return heard, failed, decoder.in_frame


@FUZZ
@given(streams())
def test_the_only_outcomes_are_messages_or_framing_error(
    stream: tuple[bytes, list[int], list[tuple[str, bytes, Any]]],
) -> None:
    """Any stream yields dict messages and perhaps one FramingError, the same however it is cut."""
    data, cuts, parts = stream
    whole = run_decoder([data])
    pieces = run_decoder(chunked(data, cuts))
    assert pieces[:2] == whole[:2]
    if all(kind == "valid" for kind, _, _ in parts):
        assert whole == ([message for _, _, message in parts], False, False)


@FUZZ
@given(st.data())
def test_valid_frames_before_a_bad_one_all_arrive(data: st.DataObject) -> None:
    """Every valid frame ahead of the first bad one is delivered, then the decoder fails."""
    good = data.draw(st.lists(lsp_messages, max_size=5))
    bad = data.draw(
        st.sampled_from(
            [
                b"Content-Length: 99999999999\r\n\r\n",
                b"Listening on port 2087\r\n",
                b"Content-Length: 2\r\n\r\n[]",
                b"Content-Length: x\r\n\r\n",
                b"Content-Type: text/plain; charset=latin-1\r\nContent-Length: 2\r\n\r\n{}",
            ]
        )
    )
    stream = b"".join(map(encode_message, good)) + bad + encode_message({"after": True})
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=10))
    heard, failed, _ = run_decoder(chunked(stream, sorted(set(cuts))))
    assert failed
    assert heard == [orjson.loads(orjson.dumps(message)) for message in good]


@FUZZ
@given(streams())
def test_the_stream_transport_closes_once_with_the_decoders_verdict(
    stream: tuple[bytes, list[int], list[tuple[str, bytes, Any]]],
) -> None:
    """Through create_stream_transport the same bytes give the same messages and one close."""
    data, cuts, _ = stream
    expected, failed, in_frame = run_decoder([data])
    byte_stream = FakeStream()
    transport = create_stream_transport(byte_stream, max_message_bytes=LIMIT)
    heard: list[JSONObject] = []
    reasons: list[BaseException | None] = []
    transport.on_message(heard.append)
    transport.on_close(reasons.append)
    for chunk in chunked(data, cuts):
        byte_stream.feed(chunk)
    assert heard == expected
    if failed:
        assert len(reasons) == 1
        assert isinstance(reasons[0], FramingError)
    else:
        assert reasons == []
        byte_stream.end()
        assert len(reasons) == 1
        assert isinstance(reasons[0], FramingError) if in_frame else reasons[0] is None
    transport.close()
    transport.close()
    assert len(reasons) == 1
    assert byte_stream.close_calls == 1
