"""silence: when a check stops waiting for a server, with explicit times."""

from __future__ import annotations

import pytest

from adecore_lsp.protocol.workspace.silence import UNANSWERED_TIMES, SilenceBounds, Stop

NEVER = float("-inf")
TIMEOUT = 2.0
CAP = TIMEOUT * UNANSWERED_TIMES


def test_a_server_never_heard_is_given_up_a_timeout_after_the_round_began() -> None:
    bounds = SilenceBounds[str](TIMEOUT, 10.0)
    assert bounds.stop("pyright", NEVER, NEVER) == Stop(12.0, "silent", TIMEOUT)
    # Heard before the round began (a warm server's old progress) gives no more time.
    assert bounds.stop("pyright", 3.0, 3.0) == Stop(12.0, "silent", TIMEOUT)


def test_each_new_thing_heard_moves_the_stop_so_work_is_never_cut_short() -> None:
    """basedpyright on a large tree: an answer every second for ten minutes, each a first
    answer for its file; the stop stays a timeout after the last."""
    bounds = SilenceBounds[str](TIMEOUT, 0.0)
    for second in range(1, 600):
        stop = bounds.stop("basedpyright", float(second), float(second))
        assert stop == Stop(second + TIMEOUT, "silent", TIMEOUT)
    assert bounds.stopped() == {}


def test_moving_progress_without_a_first_answer_is_bounded_at_ten_timeouts() -> None:
    bounds = SilenceBounds[str](TIMEOUT, 0.0)
    # Progress moves every 0.1 s; no file ever got its first report.
    assert bounds.stop("indexer", 5.0, NEVER) == Stop(5.0 + TIMEOUT, "silent", TIMEOUT)
    assert bounds.stop("indexer", CAP - 1.0, NEVER) == Stop(CAP, "unanswered", CAP)
    assert bounds.stop("indexer", 1000.0, NEVER) == Stop(CAP, "unanswered", CAP)
    # A first answer (other files still to come) gives ten timeouts more from then.
    assert bounds.stop("indexer", 44.0, 25.0) == Stop(25.0 + CAP, "unanswered", CAP)
    assert bounds.stop("indexer", 30.0, 25.0) == Stop(32.0, "silent", TIMEOUT)


def test_a_server_given_up_is_not_waited_for_in_the_next_round_until_it_speaks() -> None:
    """A check in batches: a silent server costs one timeout per check, not per batch."""
    bounds = SilenceBounds[str](TIMEOUT, 0.0)
    stop = bounds.stop("silent", NEVER, NEVER)
    assert stop == Stop(TIMEOUT, "silent", TIMEOUT)
    bounds.gave_up("silent", stop, NEVER, NEVER)
    bounds.begin(5.0)
    assert bounds.stop("silent", NEVER, NEVER) == stop  # passed already
    # A server that was never given up gets the whole timeout in the new round.
    assert bounds.stop("busy", 4.0, 4.0) == Stop(5.0 + TIMEOUT, "silent", TIMEOUT)
    # Once it says something new it is waited for again, from then.
    assert bounds.stop("silent", 6.0, NEVER) == Stop(6.0 + TIMEOUT, "silent", TIMEOUT)
    assert bounds.stop("silent", NEVER, NEVER) == Stop(5.0 + TIMEOUT, "silent", TIMEOUT)
    assert bounds.stopped() == {"silent": stop}


def test_a_server_given_up_as_unanswered_needs_an_answer_to_be_waited_for_again() -> None:
    bounds = SilenceBounds[str](TIMEOUT, 0.0)
    stop = bounds.stop("indexer", CAP - 0.1, NEVER)
    assert stop.why == "unanswered"
    bounds.gave_up("indexer", stop, CAP - 0.1, NEVER)
    bounds.begin(CAP + 1.0)
    # More moving progress is what it did all along: still given up.
    assert bounds.stop("indexer", CAP + 2.0, NEVER) == stop
    # An answer: waited for again.
    again = bounds.stop("indexer", CAP + 3.0, CAP + 3.0)
    assert again == Stop(CAP + 3.0 + TIMEOUT, "silent", TIMEOUT)
    assert bounds.stopped() == {"indexer": stop}


def test_stopped_keeps_the_last_stop_of_each_server() -> None:
    bounds = SilenceBounds[str](TIMEOUT, 0.0)
    first = Stop(2.0, "silent", TIMEOUT)
    later = Stop(9.0, "silent", TIMEOUT)
    bounds.gave_up("a", first, NEVER, NEVER)
    bounds.gave_up("a", later, 7.0, NEVER)
    bounds.gave_up("b", first, NEVER, NEVER)
    stopped = bounds.stopped()
    assert stopped == {"a": later, "b": first}
    stopped.clear()  # a copy
    assert bounds.stopped() == {"a": later, "b": first}
    assert bounds.timeout == TIMEOUT


def test_a_zero_timeout_stops_at_once_and_a_negative_one_is_refused() -> None:
    assert SilenceBounds[str](0.0, 1.0).stop("x", NEVER, NEVER) == Stop(1.0, "silent", 0.0)
    with pytest.raises(ValueError, match=r"timeout \(-1\) must not be negative"):
        SilenceBounds[str](-1, 0.0)


def test_a_callers_own_deadline_stops_the_wait_work_or_not() -> None:
    """An MCP call must answer before the host's tool timeout: at ``until`` the wait stops
    whatever the server does, and stays stopped in later rounds."""
    bounds = SilenceBounds[str](TIMEOUT, 10.0, until=13.0)
    assert bounds.stop("idle", NEVER, NEVER) == Stop(12.0, "silent", TIMEOUT)
    deadline = Stop(13.0, "deadline", 3.0)
    assert bounds.stop("busy", 12.5, 12.5) == deadline
    bounds.gave_up("busy", deadline, 12.5, 12.5)
    bounds.begin(14.0)
    assert bounds.stop("busy", 12.5, 12.5) == deadline
    assert bounds.stop("busy", 14.5, 14.5) == deadline  # an answer changes nothing now
    assert bounds.stopped() == {"busy": deadline}
    with pytest.raises(ValueError, match=r"until \(9\.0\) must not come before began"):
        SilenceBounds[str](TIMEOUT, 10.0, until=9.0)
