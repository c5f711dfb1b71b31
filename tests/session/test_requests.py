"""The request path: ids, params, answers, errors, deadlines, cancellation, closing."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from adecore_lsp import ErrorCodes, LspError, LspSession, SessionState, TransportClosedError
from adecore_lsp.session import _loop_clock
from tests.fake_server import NO_ANSWER, FakeServer
from tests.session.conftest import SessionFactory


@pytest.fixture
async def ready(server: FakeServer, make_session: SessionFactory) -> LspSession:
    session = make_session()
    await session.initialize()
    return session


def collect_errors(session: LspSession) -> list[BaseException]:
    errors: list[BaseException] = []
    session.on_error(errors.append)
    return errors


async def test_ids_are_integers_and_params_are_left_out(
    server: FakeServer, ready: LspSession
) -> None:
    """Requests get increasing integer ids; a call without params sends no params key."""
    server.on("a", lambda params: params)
    assert await ready.request("a") is None
    assert await ready.request("a", {"x": [1, "é"]}) == {"x": [1, "é"]}
    ready.notify("n")
    sent = server.messages("a")
    assert [type(message["id"]) for message in sent] == [int, int]
    assert sent[0]["id"] < sent[1]["id"]
    assert "params" not in sent[0]
    notified = await server.wait_for("n")
    assert "params" not in notified[0]


async def test_null_result_resolves_to_none(server: FakeServer, ready: LspSession) -> None:
    """{"result": null} is a success with None."""
    server.on("a", lambda params: None)
    assert await ready.request("a") is None


async def test_error_answer_keeps_code_message_and_data(
    server: FakeServer, ready: LspSession
) -> None:
    """ServerCancelled keeps its data; ContentModified keeps its code; unknown codes stay ints."""

    def cancelled(params: Any) -> Any:
        raise LspError(ErrorCodes.ServerCancelled, "later", {"retriggerRequest": False})

    def modified(params: Any) -> Any:
        raise LspError(ErrorCodes.ContentModified, "changed")

    def odd(params: Any) -> Any:
        raise LspError(-32001, "perl says no")

    server.on("a", cancelled)
    server.on("b", modified)
    server.on("c", odd)
    with pytest.raises(LspError) as first:
        await ready.request("a")
    assert first.value.code == ErrorCodes.ServerCancelled
    assert first.value.data == {"retriggerRequest": False}
    with pytest.raises(LspError) as second:
        await ready.request("b")
    assert second.value.code == ErrorCodes.ContentModified
    with pytest.raises(LspError) as third:
        await ready.request("c")
    assert third.value.code == ErrorCodes.UnknownErrorCode
    assert third.value.message == "perl says no"


async def test_response_without_result_or_error_rejects(
    server: FakeServer, ready: LspSession
) -> None:
    """A response with neither result nor error rejects its request instead of hanging."""
    server.on("a", lambda params: NO_ANSWER)
    call = asyncio.ensure_future(ready.request("a"))
    sent = await server.wait_for("a")
    server.send({"jsonrpc": "2.0", "id": sent[0]["id"]})
    with pytest.raises(LspError, match="neither result nor error"):
        await call


async def test_unknown_id_goes_to_on_error_and_nothing_closes(
    server: FakeServer, ready: LspSession
) -> None:
    """A response for an id that is not pending is reported; the session stays ready."""
    errors = collect_errors(ready)
    server.send({"jsonrpc": "2.0", "id": 999, "result": 1})
    server.send({"jsonrpc": "2.0", "id": "1", "result": 1})
    server.on("a", lambda params: 7)
    assert await ready.request("a") == 7
    assert len(errors) == 2
    assert "999" in str(errors[0])
    assert ready.state is SessionState.READY


async def test_string_id_does_not_answer_an_integer_request(
    server: FakeServer, ready: LspSession
) -> None:
    """A response with id "N" does not resolve request N."""
    errors = collect_errors(ready)
    server.on("a", lambda params: NO_ANSWER)
    call = asyncio.ensure_future(ready.request("a"))
    sent = await server.wait_for("a")
    request_id = sent[0]["id"]
    server.send({"jsonrpc": "2.0", "id": str(request_id), "result": "wrong"})
    server.send({"jsonrpc": "2.0", "id": True, "result": "wrong"})
    server.send({"jsonrpc": "2.0", "id": request_id, "result": "right"})
    assert await call == "right"
    assert len(errors) == 2


async def test_null_id_error_response_is_reported(server: FakeServer, ready: LspSession) -> None:
    """An error response with "id": null is reported and ends nothing."""
    errors = collect_errors(ready)
    server.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse"}})
    server.on("a", lambda params: 1)
    assert await ready.request("a") == 1
    assert len(errors) == 1
    assert ready.state is SessionState.READY


async def test_server_request_with_an_id_of_ours_is_a_request(
    server: FakeServer, ready: LspSession
) -> None:
    """A message with method and id is a server request even if the id is one of ours."""
    server.on("a", lambda params: NO_ANSWER)
    call = asyncio.ensure_future(ready.request("a"))
    sent = await server.wait_for("a")
    request_id = sent[0]["id"]
    reply = await server.request(
        "window/workDoneProgress/create", {"token": 1}, request_id=request_id
    )
    assert reply == {"jsonrpc": "2.0", "id": request_id, "result": None}
    assert not call.done()
    server.send({"jsonrpc": "2.0", "id": request_id, "result": "mine"})
    assert await call == "mine"


async def test_deadline_sends_one_cancel_and_raises_request_cancelled(
    server: FakeServer, ready: LspSession
) -> None:
    """The deadline sends exactly one $/cancelRequest and raises RequestCancelled at once."""
    errors = collect_errors(ready)
    server.on("slow", lambda params: NO_ANSWER)
    with pytest.raises(LspError) as caught:
        await ready.request("slow", timeout=0.02)
    assert caught.value.code == ErrorCodes.RequestCancelled
    request_id = server.messages("slow")[0]["id"]
    cancels = await server.wait_for("$/cancelRequest")
    assert [message["params"] for message in cancels] == [{"id": request_id}]
    # A late answer is dropped quietly.
    server.send({"jsonrpc": "2.0", "id": request_id, "result": "late"})
    server.send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32800, "message": "c"}})
    server.on("a", lambda params: 1)
    assert await ready.request("a") == 1
    assert len(errors) == 1  # the second late answer is a duplicate, so it is reported
    assert len(server.messages("$/cancelRequest")) == 1


async def test_pending_deadlines_share_one_loop_timer_on_the_earliest(
    server: FakeServer, ready: LspSession
) -> None:
    """However many requests are pending, the session keeps one timer, for the earliest."""
    server.on("slow", lambda params: NO_ANSWER)
    loop = asyncio.get_running_loop()
    before = loop.time()
    calls = [asyncio.ensure_future(ready.request("slow", timeout=t)) for t in (30.0, 5.0, 60.0)]
    await server.wait_for("slow", 3)
    live = [handle for handle in loop._scheduled if not handle.cancelled()]  # type: ignore[attr-defined]
    assert len(live) == 1
    assert before + 5.0 <= live[0].when() <= loop.time() + 5.0
    for call in calls:
        call.cancel()
    await asyncio.gather(*calls, return_exceptions=True)
    await ready.shutdown()
    assert [handle for handle in loop._scheduled if not handle.cancelled()] == []  # type: ignore[attr-defined]


async def test_deadlines_of_different_lengths_each_expire_on_time(
    server: FakeServer, ready: LspSession
) -> None:
    """A short deadline sent after a long one still ends first, and the long one later."""
    server.on("slow", lambda params: NO_ANSWER)
    start = asyncio.get_running_loop().time()
    ended: dict[float, float] = {}

    async def call(timeout: float) -> None:
        with pytest.raises(LspError) as caught:
            await ready.request("slow", timeout=timeout)
        assert caught.value.code == ErrorCodes.RequestCancelled
        ended[timeout] = asyncio.get_running_loop().time() - start

    await asyncio.wait_for(asyncio.gather(call(0.3), call(0.05), call(0.15)), 5)
    assert list(ended) == [0.05, 0.15, 0.3]
    for timeout, elapsed in ended.items():
        assert timeout <= elapsed < timeout + 1
    assert len(server.messages("$/cancelRequest")) == 3


async def test_a_send_that_closes_the_transport_fails_at_once_and_sets_no_timer(
    pair: Any, server: FakeServer, ready: LspSession
) -> None:
    """A write failure that closes the transport inside send ends that request at once.

    Nothing is pending afterwards, so no deadline timer is left behind either.
    """
    transport = pair[0]

    def failing_send(message: Any) -> None:
        # As spawn_server's transport does when stdin is gone: close, and return.
        transport._finish(TransportClosedError("the write failed"))

    transport.send = failing_send
    with pytest.raises(LspError) as caught:
        await asyncio.wait_for(ready.request("a", timeout=30), 1)
    assert isinstance(caught.value.__cause__, TransportClosedError)
    assert ready.state is SessionState.CLOSED
    assert ready._deadline.due == float("inf")  # closed with the session: set no more
    assert ready._rpc.pending == {}


async def test_session_timeout_applies_and_zero_turns_it_off(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """The session's timeout is every call's deadline; timeout=0 or None waits for ever."""
    session = make_session(timeout=0.02)
    await session.initialize()
    server.on("slow", lambda params: NO_ANSWER)
    with pytest.raises(LspError):
        await session.request("slow")
    for off in (0, None):
        call = asyncio.ensure_future(session.request("slow", timeout=off))
        await asyncio.sleep(0.05)
        assert not call.done()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call


async def test_cancelling_the_task_sends_one_cancel_and_reraises(
    server: FakeServer, ready: LspSession
) -> None:
    """Cancelling the awaiting task sends one $/cancelRequest and re-raises CancelledError."""
    errors = collect_errors(ready)
    server.on("slow", lambda params: NO_ANSWER)
    call = asyncio.ensure_future(ready.request("slow"))
    sent = await server.wait_for("slow")
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    cancels = await server.wait_for("$/cancelRequest")
    assert cancels[0]["params"] == {"id": sent[0]["id"]}
    server.send({"jsonrpc": "2.0", "id": sent[0]["id"], "result": "late"})
    server.on("a", lambda params: 1)
    assert await ready.request("a") == 1
    assert errors == []


async def test_wait_for_cancels_through_the_same_path(
    server: FakeServer, ready: LspSession
) -> None:
    """asyncio.wait_for around request() cancels it with one $/cancelRequest."""
    server.on("slow", lambda params: NO_ANSWER)
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(ready.request("slow"), 0.02)
    assert len(await server.wait_for("$/cancelRequest")) == 1


async def test_closing_the_transport_rejects_everything_pending(
    pair: Any, server: FakeServer, ready: LspSession
) -> None:
    """Peer close rejects every pending request at once with the reason as __cause__."""
    server.on("slow", lambda params: NO_ANSWER)
    calls = [asyncio.ensure_future(ready.request("slow", timeout=None)) for _ in range(3)]
    await server.wait_for("slow", 3)
    pair[1].close()
    results = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 1)
    for result in results:
        assert isinstance(result, LspError)
        assert result.code == ErrorCodes.InternalError
        assert isinstance(result.__cause__, TransportClosedError)
    assert ready.state is SessionState.CLOSED
    with pytest.raises(LspError):
        await ready.request("slow")
    with pytest.raises(LspError):
        ready.notify("x")


async def test_close_with_an_error_passes_it_on(server: FakeServer, ready: LspSession) -> None:
    """A transport that fails hands its error to pending requests and to on_error once."""
    errors = collect_errors(ready)
    server.on("slow", lambda params: NO_ANSWER)
    call = asyncio.ensure_future(ready.request("slow"))
    await server.wait_for("slow")
    failure = ConnectionResetError("gone")
    ready.transport._finish(failure)  # type: ignore[attr-defined]
    with pytest.raises(LspError) as caught:
        await call
    assert caught.value.__cause__ is failure
    assert errors == [failure]


async def test_many_requests_in_flight_resolve_to_their_own_answers(
    server: FakeServer, ready: LspSession
) -> None:
    """Answers in any order reach the request they answer."""
    futures: dict[int, asyncio.Future[Any]] = {}

    def later(params: Any) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        futures[params] = future
        return future

    server.on("a", later)
    calls = [asyncio.ensure_future(ready.request("a", n)) for n in range(50)]
    await server.wait_for("a", 50)
    await asyncio.sleep(0)
    for n in reversed(range(50)):
        futures[n].set_result(n * 2)
    assert await asyncio.gather(*calls) == [n * 2 for n in range(50)]
    assert ready._rpc.pending == {}


def test_deadlines_read_the_loops_own_clock() -> None:
    """asyncio's loops are read through time.monotonic, any other clock through loop.time."""

    class OwnClock(asyncio.SelectorEventLoop):
        def time(self) -> float:
            return 42.0

    for loop_class in (asyncio.SelectorEventLoop, OwnClock):
        loop = loop_class()
        try:
            clock = _loop_clock(loop)
            assert clock() == pytest.approx(loop.time(), abs=1.0)
            assert (clock is time.monotonic) == (loop_class is asyncio.SelectorEventLoop)
            loop.time = lambda: 7.0  # type: ignore[method-assign]
            assert _loop_clock(loop)() == 7.0
        finally:
            loop.close()
