"""Large messages on a framed transport, and the opt-in GC postponement for their parse."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from adecore_lsp.errors import FramingError
from adecore_lsp.protocol.wire import framing
from adecore_lsp.protocol.wire.framing import encode_message
from adecore_lsp.transports import stream as stream_module
from adecore_lsp.transports.stream import LARGE_MESSAGE_BYTES, create_stream_transport
from tests.fake_stream import FakeStream

SMALL = encode_message({"jsonrpc": "2.0", "method": "small"})
LARGE_TEXT = "x" * (LARGE_MESSAGE_BYTES + 1)
LARGE = encode_message({"jsonrpc": "2.0", "method": "large", "params": LARGE_TEXT})


def gc_uses_third_threshold() -> bool:
    """Whether this interpreter's GC keeps the third threshold (3.14's incremental one does not)."""
    before = gc.get_threshold()
    gc.set_threshold(before[0], before[1], before[2] + 1)
    try:
        return gc.get_threshold()[2] == before[2] + 1
    finally:
        gc.set_threshold(*before)


needs_third_threshold = pytest.mark.skipif(
    not gc_uses_third_threshold(), reason="this GC has no threshold for full collections"
)


@pytest.fixture
def thresholds_at_parse(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The GC's oldest threshold at each body parse, in order; the GC restored afterwards."""
    seen: list[int] = []
    real_loads = framing._loads

    def spy(body: bytes) -> Any:
        seen.append(gc.get_threshold()[2])
        return real_loads(body)

    monkeypatch.setattr(framing, "_loads", spy)
    before = gc.get_threshold()
    yield seen
    gc.enable()
    assert gc.get_threshold() == before


def feed(pieces: list[bytes], chunk: int | None, *, postpone: bool) -> list[dict[str, Any]]:
    """Feed each piece to a new stream transport in chunks of ``chunk`` bytes (None: whole)."""
    stream = FakeStream()
    transport = create_stream_transport(stream, postpone_full_collections=postpone)
    messages: list[dict[str, Any]] = []
    transport.on_message(messages.append)
    for data in pieces:
        size = chunk or len(data)
        for start in range(0, len(data), size):
            stream.feed(data[start : start + size])
    return messages


@needs_third_threshold
@pytest.mark.parametrize("chunk", [None, 65536, 4096], ids=["whole", "64-kib", "4-kib"])
def test_opted_in_full_collections_are_postponed_for_a_large_parse_only(
    thresholds_at_parse: list[int], chunk: int | None
) -> None:
    """With the option, the chunk that completes a large body is parsed with it postponed."""
    before = gc.get_threshold()[2]
    messages = feed([SMALL + LARGE, SMALL], chunk, postpone=True)
    assert [message["method"] for message in messages] == ["small", "large", "small"]
    assert messages[1]["params"] == LARGE_TEXT
    raised = [threshold > before for threshold in thresholds_at_parse]
    # Whole, the small body shares the large one's chunk, and so its postponement.
    assert raised == ([True, True, False] if chunk is None else [False, True, False])
    assert gc.get_threshold()[2] == before


@pytest.mark.parametrize("chunk", [None, 65536])
def test_by_default_the_gc_settings_are_left_alone(
    thresholds_at_parse: list[int], chunk: int | None
) -> None:
    """Without the option, even a large body is parsed with the GC as the application set it."""
    before = gc.get_threshold()[2]
    assert len(feed([SMALL + LARGE + SMALL], chunk, postpone=False)) == 3
    assert thresholds_at_parse == [before] * 3


@needs_third_threshold
def test_with_the_gc_disabled_nothing_is_changed(thresholds_at_parse: list[int]) -> None:
    """An application that disabled the GC keeps it disabled, thresholds untouched."""
    before = gc.get_threshold()[2]
    gc.disable()
    try:
        assert len(feed([LARGE], 65536, postpone=True)) == 1
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert thresholds_at_parse == [before]


@pytest.mark.parametrize("chunk", [None, 65536])
def test_a_bad_large_body_closes_the_transport_and_restores_the_gc(chunk: int | None) -> None:
    """A broken body over the threshold fails like any other; the GC is as it was."""
    before = gc.get_threshold()
    body = b'{"a": "' + b"x" * (2 * LARGE_MESSAGE_BYTES) + b"\xff" + b'"}'
    stream = FakeStream()
    transport = create_stream_transport(stream, postpone_full_collections=True)
    closes: list[BaseException | None] = []
    transport.on_close(closes.append)
    data = b"Content-Length: %d\r\n\r\n%b" % (len(body), body)
    size = chunk or len(data)
    for start in range(0, len(data), size):
        stream.feed(data[start : start + size])
    assert len(closes) == 1
    assert isinstance(closes[0], FramingError)
    assert "not UTF-8 JSON" in str(closes[0])
    assert gc.get_threshold() == before
    assert gc.isenabled()


@needs_third_threshold
def test_overlapping_postponements_restore_the_threshold_once_all_end() -> None:
    """A parse that starts while another runs (another thread) cannot undo its pause early."""
    before = gc.get_threshold()
    postponed = stream_module._FULL_COLLECTIONS_POSTPONED
    inside = threading.Event()
    leave = threading.Event()
    during: list[int] = []

    def other_parse() -> None:
        with postponed:
            inside.set()
            leave.wait(10)

    thread = threading.Thread(target=other_parse)
    with postponed:
        thread.start()
        assert inside.wait(10)
    # The first parse has ended; the other one still runs.
    during.append(gc.get_threshold()[2])
    leave.set()
    thread.join(10)
    assert during == [stream_module._NO_FULL_COLLECTION]
    assert gc.get_threshold() == before
