"""BaseTransport: the backlog, the once-only close, sending after close."""

from __future__ import annotations

from typing import Any

import pytest

from adecore_lsp import TransportClosedError
from adecore_lsp.transports.base import BaseTransport


class Recording(BaseTransport):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[Any] = []
        self.underlying_closed = 0

    def _send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def _close_underlying(self) -> None:
        self.underlying_closed += 1


def test_messages_before_the_first_listener_are_kept_for_it() -> None:
    """The first listener gets the backlog in order, then new messages; later ones only new."""
    transport = Recording()
    transport._receive({"n": 1})
    transport._receive({"n": 2})
    first: list[Any] = []
    second: list[Any] = []
    transport.on_message(first.append)
    transport.on_message(second.append)
    transport._receive({"n": 3})
    assert first == [{"n": 1}, {"n": 2}, {"n": 3}]
    assert second == [{"n": 3}]


def test_backlog_and_close_both_reach_late_listeners() -> None:
    """A transport that closed before anyone listened still hands over messages and reason."""
    transport = Recording()
    transport._receive({"n": 1})
    failure = OSError("gone")
    transport._finish(failure)
    heard: list[Any] = []
    reasons: list[Any] = []
    transport.on_message(heard.append)
    transport.on_close(reasons.append)
    assert heard == [{"n": 1}]
    assert reasons == [failure]


def test_close_listeners_hear_once() -> None:
    """close() calls each close listener once with None, however often it is called."""
    transport = Recording()
    reasons: list[Any] = []
    transport.on_close(reasons.append)
    transport.close()
    transport.close()
    transport._finish(OSError("late"))
    assert reasons == [None]
    assert transport.underlying_closed == 1
    assert transport.closed


def test_send_after_close_raises() -> None:
    """send on a closed transport raises TransportClosedError naming the reason."""
    transport = Recording()
    transport.send({"a": 1})
    transport._finish(ConnectionResetError("reset by peer"))
    with pytest.raises(TransportClosedError, match="reset by peer"):
        transport.send({"a": 2})
    assert transport.sent == [{"a": 1}]
