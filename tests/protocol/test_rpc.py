"""RpcState: ids, the pending table, and the sorting of incoming messages."""

from __future__ import annotations

from adecore_lsp import ErrorCodes, LspError
from adecore_lsp.protocol.wire.rpc import (
    CANCELLED_IDS_KEPT,
    DEADLINE_SLACK,
    InvalidMessage,
    LateResponse,
    Notification,
    Request,
    Response,
    RpcState,
    StrayResponse,
    error_response,
    notification,
    response,
)


def test_requests_get_increasing_integer_ids_and_no_null_params() -> None:
    """Ids count from 1; params None leaves the key out."""
    rpc: RpcState[str] = RpcState()
    first_id, first = rpc.request("a", None, "w1")
    second_id, second = rpc.request("b", {"x": 1}, "w2")
    assert (first_id, second_id) == (1, 2)
    assert first == {"jsonrpc": "2.0", "id": 1, "method": "a"}
    assert second == {"jsonrpc": "2.0", "id": 2, "method": "b", "params": {"x": 1}}
    assert rpc.pending == {1: "w1", 2: "w2"}


def test_builders_leave_out_null_params_and_keep_null_results() -> None:
    """Notifications without params have no params key; a null result is still sent."""
    assert notification("exit") == {"jsonrpc": "2.0", "method": "exit"}
    assert notification("n", []) == {"jsonrpc": "2.0", "method": "n", "params": []}
    assert response("s1", None) == {"jsonrpc": "2.0", "id": "s1", "result": None}
    assert error_response(0, LspError(-32601, "no", {"d": 1})) == {
        "jsonrpc": "2.0",
        "id": 0,
        "error": {"code": -32601, "message": "no", "data": {"d": 1}},
    }


def test_a_result_resolves_its_waiter_once() -> None:
    """A response pops its pending entry; a second one for the same id is stray."""
    rpc: RpcState[str] = RpcState()
    rpc.request("a", None, "w")
    assert rpc.receive({"jsonrpc": "2.0", "id": 1, "result": None}) == Response(1, "w", None)
    again = rpc.receive({"jsonrpc": "2.0", "id": 1, "result": None})
    assert isinstance(again, StrayResponse)
    assert rpc.pending == {}


def test_an_error_becomes_an_lsp_error() -> None:
    """An error object keeps its code, message and data; a malformed one is InternalError."""
    rpc: RpcState[str] = RpcState()
    rpc.request("a", None, "w")
    rpc.request("b", None, "w")
    event = rpc.receive(
        {"id": 1, "error": {"code": -32802, "message": "m", "data": {"retriggerRequest": True}}}
    )
    assert isinstance(event, Response)
    assert event.error is not None
    assert event.error.code == ErrorCodes.ServerCancelled
    assert event.error.data == {"retriggerRequest": True}
    bad = rpc.receive({"id": 2, "error": "oops"})
    assert isinstance(bad, Response)
    assert bad.error is not None
    assert bad.error.code == ErrorCodes.InternalError
    rpc.request("c", None, "w")
    odd = rpc.receive({"id": 3, "error": {"code": "-1", "message": "m", "data": [1]}})
    assert isinstance(odd, Response)
    assert odd.error is not None
    assert odd.error.code == ErrorCodes.InternalError
    assert "malformed" in odd.error.message
    assert odd.error.data == [1]


def test_neither_result_nor_error_rejects() -> None:
    """A response with neither member is an error for its request."""
    rpc: RpcState[str] = RpcState()
    rpc.request("a", None, "w")
    event = rpc.receive({"jsonrpc": "2.0", "id": 1})
    assert isinstance(event, Response)
    assert event.error is not None
    assert "neither" in event.error.message


def test_ids_match_by_type() -> None:
    """ "1" and true do not answer request 1."""
    rpc: RpcState[str] = RpcState()
    rpc.request("a", None, "w")
    assert isinstance(rpc.receive({"id": "1", "result": 0}), StrayResponse)
    assert isinstance(rpc.receive({"id": True, "result": 0}), StrayResponse)
    assert isinstance(rpc.receive({"id": 1.0, "result": 0}), StrayResponse)
    assert rpc.pending == {1: "w"}


def test_null_id_is_stray() -> None:
    """An error response with a null id is reported as stray."""
    rpc: RpcState[str] = RpcState()
    event = rpc.receive({"id": None, "error": {"code": -32700, "message": "parse"}})
    assert isinstance(event, StrayResponse)
    assert "null" in event.reason


def test_cancelled_requests_answer_late_quietly_once() -> None:
    """After cancel, the first late answer is LateResponse, a second one is stray."""
    rpc: RpcState[str] = RpcState()
    rpc.request("a", None, "w")
    assert rpc.cancel(1) == "w"
    assert rpc.cancel(1) is None
    assert rpc.receive({"id": 1, "result": 5}) == LateResponse(1)
    assert isinstance(rpc.receive({"id": 1, "result": 5}), StrayResponse)


def test_the_cancelled_table_is_bounded() -> None:
    """Only the newest cancelled ids are remembered."""
    rpc: RpcState[int] = RpcState()
    for n in range(CANCELLED_IDS_KEPT + 10):
        request_id, _ = rpc.request("a", None, n)
        rpc.cancel(request_id)
    assert isinstance(rpc.receive({"id": 1, "result": 0}), StrayResponse)
    assert rpc.receive({"id": CANCELLED_IDS_KEPT + 10, "result": 0}) == LateResponse(
        CANCELLED_IDS_KEPT + 10
    )


def test_forget_and_drain() -> None:
    """forget drops one entry unanswered; drain takes them all."""
    rpc: RpcState[str] = RpcState()
    rpc.request("a", None, "w1")
    rpc.request("b", None, "w2")
    rpc.request("c", None, "w3")
    assert rpc.forget(2) == "w2"
    assert rpc.drain() == ["w1", "w3"]
    assert rpc.pending == {}


def test_requests_and_notifications_of_the_server() -> None:
    """method + id is a request, whatever the id; method alone a notification."""
    rpc: RpcState[str] = RpcState()
    rpc.request("a", None, "w")
    assert rpc.receive({"id": 1, "method": "x", "params": [1]}) == Request(1, "x", [1])
    assert rpc.receive({"id": "s", "method": "x"}) == Request("s", "x", None)
    assert rpc.receive({"id": 0, "method": "x"}) == Request(0, "x", None)
    assert rpc.receive({"method": "n", "params": {}}) == Notification("n", {})
    assert rpc.pending == {1: "w"}


def test_invalid_messages_are_sorted_with_their_id_when_usable() -> None:
    """Bad methods, bad ids and empty messages are InvalidMessage."""
    rpc: RpcState[str] = RpcState()
    no_method = rpc.receive({"id": 3, "method": 5})
    assert isinstance(no_method, InvalidMessage)
    assert no_method.id == 3
    bad_id = rpc.receive({"id": [1], "method": "x"})
    assert isinstance(bad_id, InvalidMessage)
    assert bad_id.id is None
    assert isinstance(rpc.receive({}), InvalidMessage)
    assert isinstance(rpc.receive({"id": True, "method": "x"}), InvalidMessage)


def test_pop_due_returns_what_is_due_in_due_order_across_timeouts() -> None:
    """pop_due() takes every request due by now (plus the slack), earliest first, and only those."""
    rpc: RpcState[str] = RpcState()
    rpc.request("a", None, "w1", 30.0, 130.0)
    rpc.request("b", None, "w2", 5.0, 106.0)
    rpc.request("a", None, "w3", 30.0, 131.0)
    rpc.request("b", None, "w4", 5.0, 107.0)
    rpc.request("c", None, "w5")  # no timeout: never due
    assert rpc.next_due() == 106.0
    assert rpc.pop_due(130.0 - DEADLINE_SLACK / 2) == [(2, "b", 5.0), (4, "b", 5.0), (1, "a", 30.0)]
    assert rpc.pop_due(130.5) == []  # taken once only
    assert rpc.next_due() == 131.0
    # Due requests stay pending until the caller ends them.
    assert set(rpc.pending) == {1, 2, 3, 4, 5}


def test_whatever_ends_a_request_ends_its_deadline() -> None:
    """An answer, an error, cancel, forget and drain each forget the request's due time."""
    rpc: RpcState[str] = RpcState()
    for n in range(1, 7):
        rpc.request("m", None, f"w{n}", 1.0, 100.0 + n)
    assert rpc.take_result({"jsonrpc": "2.0", "id": 1, "result": None}) == "w1"
    assert isinstance(rpc.receive({"id": 2, "error": {"code": 1, "message": "m"}}), Response)
    assert isinstance(rpc.receive({"id": 3}), Response)  # neither result nor error
    assert rpc.cancel(4) == "w4"
    assert rpc.forget(5) == "w5"
    assert rpc.next_due() == 106.0
    assert rpc.deadline_count == 1
    assert rpc.pop_due(1e9) == [(6, "m", 1.0)]
    assert rpc.next_due() is None
    rpc.request("m", None, "w7", 1.0, 200.0)
    assert rpc.drain() == ["w6", "w7"]
    assert rpc.next_due() is None
    assert rpc.pop_due(1e9) == []


def test_stray_and_late_answers_leave_deadlines_alone() -> None:
    """An answer for an id that is not pending changes no deadline."""
    rpc: RpcState[str] = RpcState()
    rpc.request("m", None, "w1", 2.0, 50.0)
    assert isinstance(rpc.receive({"id": 9, "result": 1}), StrayResponse)
    assert rpc.take_result({"id": 9, "result": 1}) is None
    assert rpc.next_due() == 50.0


def test_a_zero_or_missing_timeout_sets_no_deadline() -> None:
    """timeout None or 0 means no due time at all."""
    rpc: RpcState[str] = RpcState()
    rpc.request("m", None, "w1", 0, 10.0)
    rpc.request("m", None, "w2")
    assert rpc.next_due() is None
    assert rpc.pop_due(1e9) == []


def test_many_distinct_timeouts_leave_nothing_behind() -> None:
    """Requests each with their own timeout, all answered, leave no deadline behind."""
    rpc: RpcState[str] = RpcState()
    for n in range(1000):
        rpc.request("a", None, "w", 1.0 + n / 1000, 100.0 + n)
    for n in range(1, 1001):
        rpc.take_result({"id": n, "result": None})
    assert rpc.next_due() is None
    assert rpc.pending == {}


def test_take_result_takes_only_plain_results_for_pending_ids() -> None:
    """take_result() pops a pending integer id with a result; all else is left to receive()."""
    rpc: RpcState[str] = RpcState()
    rpc.request("a", None, "w1")
    rpc.request("b", None, "w2")
    assert rpc.take_result({"jsonrpc": "2.0", "id": True, "result": 1}) is None
    assert rpc.take_result({"jsonrpc": "2.0", "id": 1.0, "result": 1}) is None
    assert rpc.take_result({"jsonrpc": "2.0", "id": "1", "result": 1}) is None
    assert rpc.take_result({"id": 1, "result": 1, "error": {"code": 1, "message": "m"}}) is None
    assert rpc.take_result({"id": 1, "result": 1, "method": "x"}) is None
    assert rpc.take_result({"id": 1}) is None
    assert rpc.pending == {1: "w1", 2: "w2"}
    assert rpc.take_result({"jsonrpc": "2.0", "id": 1, "result": None}) == "w1"
    assert rpc.take_result({"jsonrpc": "2.0", "id": 1, "result": None}) is None
    assert rpc.receive({"id": 2, "result": 5}) == Response(2, "w2", 5)
