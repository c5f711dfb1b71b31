"""The memory transport pair: JSON copies, later-turn delivery, order, and closing both ends."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from adecore_lsp.errors import MessageEncodingError, TransportClosedError
from adecore_lsp.transports.memory import create_memory_transport_pair

PING: dict[str, Any] = {
    "jsonrpc": "2.0",
    "method": "ping",
    "params": {"items": [1, 2.5, "\u00e9", None, True]},
}


async def test_a_message_crosses_as_a_json_copy() -> None:
    """What arrives equals what was sent, as a copy: changing the original later shows nowhere."""
    left, right = create_memory_transport_pair()
    got: list[dict[str, Any]] = []
    right.on_message(got.append)
    sent: dict[str, Any] = {
        "jsonrpc": "2.0",
        "method": "m",
        "params": {"list": [1, 2], "tuple": (3, 4)},
    }
    left.send(sent)
    sent["params"]["list"].append(99)
    await asyncio.sleep(0)
    assert got == [{"jsonrpc": "2.0", "method": "m", "params": {"list": [1, 2], "tuple": [3, 4]}}]
    assert got[0] is not sent


async def test_delivery_happens_on_a_later_loop_turn() -> None:
    """send returns before the message is delivered; one loop turn later it has arrived."""
    left, right = create_memory_transport_pair()
    got: list[dict[str, Any]] = []
    right.on_message(got.append)
    left.send(PING)
    assert got == []
    await asyncio.sleep(0)
    assert got == [PING]


async def test_both_directions_work() -> None:
    """Each end receives what the other sends."""
    left, right = create_memory_transport_pair()
    at_left: list[dict[str, Any]] = []
    at_right: list[dict[str, Any]] = []
    left.on_message(at_left.append)
    right.on_message(at_right.append)
    left.send({"jsonrpc": "2.0", "id": 1, "method": "a"})
    right.send({"jsonrpc": "2.0", "id": 1, "result": "b"})
    await asyncio.sleep(0)
    assert at_right == [{"jsonrpc": "2.0", "id": 1, "method": "a"}]
    assert at_left == [{"jsonrpc": "2.0", "id": 1, "result": "b"}]


async def test_messages_arrive_in_order() -> None:
    """Many messages sent in a row arrive in the order they were sent."""
    left, right = create_memory_transport_pair()
    got: list[dict[str, Any]] = []
    right.on_message(got.append)
    for number in range(100):
        left.send({"jsonrpc": "2.0", "method": "n", "params": number})
        if number % 7 == 0:
            await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert [message["params"] for message in got] == list(range(100))


async def test_messages_before_the_first_listener_are_kept() -> None:
    """Messages delivered before anyone listens reach the first listener."""
    left, right = create_memory_transport_pair()
    left.send(PING)
    await asyncio.sleep(0)
    got: list[dict[str, Any]] = []
    right.on_message(got.append)
    assert got == [PING]


@pytest.mark.parametrize(
    "params",
    [float("nan"), [1.0, float("-inf")], "\udc80", {1, 2}, object(), {1: "non-string key"}],
)
async def test_a_message_json_cannot_carry_fails_at_send(params: Any) -> None:
    """send raises MessageEncodingError for a message JSON cannot carry; nothing is delivered."""
    left, right = create_memory_transport_pair()
    got: list[dict[str, Any]] = []
    right.on_message(got.append)
    with pytest.raises(MessageEncodingError):
        left.send({"jsonrpc": "2.0", "method": "bad", "params": params})
    await asyncio.sleep(0)
    assert got == []
    left.send(PING)  # the transport is still open
    await asyncio.sleep(0)
    assert got == [PING]


async def test_closing_one_end_closes_both() -> None:
    """Closing one end: it hears None at once, the other end on a later turn; neither sends."""
    left, right = create_memory_transport_pair()
    left_closes: list[BaseException | None] = []
    right_closes: list[BaseException | None] = []
    left.on_close(left_closes.append)
    right.on_close(right_closes.append)
    left.close()
    assert left_closes == [None]
    with pytest.raises(TransportClosedError):
        right.send(PING)  # the other end refuses at once, before its close is announced
    with pytest.raises(TransportClosedError):
        left.send(PING)
    await asyncio.sleep(0)
    assert right_closes == [None]
    left.close()
    right.close()
    assert left_closes == [None]
    assert right_closes == [None]


async def test_messages_already_sent_arrive_before_the_close() -> None:
    """The other end receives every message sent before the close, and only then hears it."""
    left, right = create_memory_transport_pair()
    events: list[Any] = []
    right.on_message(lambda message: events.append(message["params"]))
    right.on_close(lambda reason: events.append(("closed", reason)))
    left.send({"jsonrpc": "2.0", "method": "n", "params": 1})
    left.send({"jsonrpc": "2.0", "method": "n", "params": 2})
    left.close()
    assert events == []
    await asyncio.sleep(0)
    assert events == [1, 2, ("closed", None)]


async def test_the_closed_end_drops_what_was_on_its_way() -> None:
    """Messages queued to an end that then closes are not delivered to it."""
    left, right = create_memory_transport_pair()
    got: list[dict[str, Any]] = []
    left.on_message(got.append)
    right.send(PING)
    left.close()
    await asyncio.sleep(0)
    assert got == []


async def test_closing_both_ends_in_one_turn_tells_each_once() -> None:
    """Both ends closed before the loop runs each hear exactly one None."""
    left, right = create_memory_transport_pair()
    closes: list[tuple[str, BaseException | None]] = []
    left.on_close(lambda reason: closes.append(("left", reason)))
    right.on_close(lambda reason: closes.append(("right", reason)))
    left.close()
    right.close()
    await asyncio.sleep(0)
    assert closes == [("left", None), ("right", None)]


def test_send_needs_a_running_loop() -> None:
    """Without a running event loop, send raises RuntimeError and queues nothing."""
    left, _ = create_memory_transport_pair()
    with pytest.raises(RuntimeError):
        left.send(PING)


def test_close_without_a_loop_closes_the_other_end_at_once() -> None:
    """With no loop to run deliveries, closing one end closes the other end immediately."""
    left, right = create_memory_transport_pair()
    closes: list[BaseException | None] = []
    right.on_close(closes.append)
    left.close()
    assert closes == [None]
