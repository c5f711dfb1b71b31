"""What crosses the session's boundary: errors translated, nothing left pending, no restarts."""

from __future__ import annotations

import asyncio
import inspect
import math
from typing import Any

import pytest

from adecore_lsp import ErrorCodes, LspError, LspSession, SessionState
from adecore_lsp.errors import MessageEncodingError, SendBufferFullError
from tests.fake_server import FakeServer

from .conftest import SessionFactory


async def ready_session(make_session: SessionFactory, **options: Any) -> LspSession:
    session = make_session(**options)
    await session.initialize()
    return session


# -- defect: transport and encoding errors crossed request() raw ---------------------------


@pytest.mark.parametrize(
    "params",
    [{"x": math.nan}, {"x": math.inf}, {"x": {1, 2}}, {"x": "\ud83d"}, {1: "non-str key"}],
    ids=["nan", "infinity", "a-set", "lone-surrogate", "int-key"],
)
async def test_params_json_cannot_carry_fail_the_call_with_a_value_error(
    server: FakeServer, make_session: SessionFactory, params: Any
) -> None:
    """request() and notify() raise MessageEncodingError (a ValueError and an LspError)."""
    session = await ready_session(make_session)
    with pytest.raises(MessageEncodingError) as caught:
        await session.request("custom/echo", params)
    assert isinstance(caught.value, ValueError)
    assert caught.value.code == ErrorCodes.InvalidParams
    with pytest.raises(ValueError, match=r"custom/note|encode"):
        session.notify("custom/note", params)
    # Nothing was written, nothing is pending, and the session goes on.
    assert server.messages("custom/echo") == []
    assert server.messages("custom/note") == []
    assert session._rpc.pending == {}
    server.on("custom/echo", lambda p: p)
    assert await session.request("custom/echo", {"x": 1}) == {"x": 1}


async def test_a_transport_that_refuses_a_message_fails_the_request_with_lsp_error(
    pair: Any, server: FakeServer, make_session: SessionFactory
) -> None:
    """A SendBufferFullError (a slow WebSocket peer) is an LspError with the cause chained."""
    session = await ready_session(make_session)
    transport = pair[0]
    send = transport.send

    def full(message: Any) -> None:
        if message.get("method") == "slow/peer":
            raise SendBufferFullError("8 MiB are waiting for the peer")
        send(message)

    transport.send = full
    with pytest.raises(LspError) as caught:
        await session.request("slow/peer")
    assert caught.value.code == ErrorCodes.InternalError
    assert "8 MiB" in str(caught.value)
    assert isinstance(caught.value.__cause__, SendBufferFullError)
    with pytest.raises(LspError) as caught_notify:
        session.notify("slow/peer")
    assert isinstance(caught_notify.value.__cause__, SendBufferFullError)
    assert session.state is SessionState.READY
    assert session._rpc.pending == {}


async def test_an_answer_the_transport_refuses_reaches_on_error(
    pair: Any, server: FakeServer, make_session: SessionFactory
) -> None:
    """Nobody awaits an answer to a server request: its failure goes to on_error."""
    session = await ready_session(make_session)
    errors: list[BaseException] = []
    session.on_error(errors.append)
    transport = pair[0]
    send = transport.send
    refused = asyncio.Event()

    def full(message: Any) -> None:
        if "method" not in message:
            refused.set()
            raise SendBufferFullError("8 MiB are waiting for the peer")
        send(message)

    transport.send = full
    session.on_request("custom/ask", lambda params, cancelled: {"ok": True})
    server.send({"jsonrpc": "2.0", "id": 7, "method": "custom/ask"})
    await asyncio.wait_for(refused.wait(), 5)
    assert len(errors) == 1
    assert isinstance(errors[0], LspError)
    assert isinstance(errors[0].__cause__, SendBufferFullError)
    assert "answer to request 7" in str(errors[0])
    assert session.state is SessionState.READY


# -- defect: server requests with an id that is no id went unanswered ---------------------


@pytest.mark.parametrize("bad_id", [1.5, True, {"a": 1}, [1], None])
async def test_a_request_with_an_unusable_id_is_answered_under_null(
    server: FakeServer, make_session: SessionFactory, bad_id: Any
) -> None:
    """JSON-RPC: an invalid request is answered InvalidRequest with id null, and reported."""
    session = await ready_session(make_session)
    errors: list[BaseException] = []
    session.on_error(errors.append)
    server.send({"jsonrpc": "2.0", "id": bad_id, "method": "workspace/configuration"})

    def answered() -> list[dict[str, Any]]:
        return [m for m in server.received if "error" in m and "method" not in m]

    async def until_answered() -> None:
        while not answered():
            await asyncio.sleep(0)

    await asyncio.wait_for(until_answered(), 5)
    [answer] = answered()
    assert answer["id"] is None
    assert answer["error"]["code"] == ErrorCodes.InvalidRequest
    assert "invalid id" in answer["error"]["message"]
    assert [type(error) for error in errors] == [LspError]
    assert session.state is SessionState.READY


# -- defect: initialize() on a closed session returned the old result ----------------------


async def test_initialize_on_a_closed_session_raises(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """A closed session does not start again: initialize() says so, and sends nothing."""
    session = await ready_session(make_session)
    await session.shutdown()
    with pytest.raises(LspError) as caught:
        await session.initialize()
    assert caught.value.code == ErrorCodes.InvalidRequest
    assert "closed" in str(caught.value)
    assert "new LspSession" in str(caught.value)
    assert len(server.messages("initialize")) == 1


async def test_initialize_after_a_failed_handshake_raises_closed(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """After a refused handshake the session is closed, and a second call says so."""

    def refuse(params: Any) -> Any:
        raise LspError(ErrorCodes.InternalError, "no toolchain")

    server.on("initialize", refuse)
    session = make_session()
    with pytest.raises(LspError, match="no toolchain"):
        await session.initialize()
    with pytest.raises(LspError) as caught:
        await session.initialize()
    assert caught.value.code == ErrorCodes.InvalidRequest
    assert isinstance(caught.value.__cause__, LspError)


# -- defect: async listener and handler tasks outlived the session -------------------------


def other_tasks() -> set[asyncio.Task[Any]]:
    current = asyncio.current_task()
    return {task for task in asyncio.all_tasks() if task is not current and not task.done()}


async def test_shutdown_ends_async_listener_and_handler_tasks(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """Nothing of the session stays pending after shutdown(): its tasks are cancelled."""
    session = await ready_session(make_session)
    before = other_tasks()
    started = asyncio.Event()
    ended: list[str] = []

    def forever(name: str) -> Any:
        async def run(*args: Any) -> None:
            started.set()
            try:
                await asyncio.Event().wait()
            finally:
                ended.append(name)

        return run

    session.on_progress(forever("progress"))
    session.on_notification("custom/note", forever("notification"))
    session.on_request("custom/ask", lambda params, cancelled: forever("handler")())
    server.notify("$/progress", {"token": 1, "value": {"kind": "begin", "title": "x"}})
    server.notify("custom/note", {})
    server.send({"jsonrpc": "2.0", "id": "r1", "method": "custom/ask"})
    await asyncio.wait_for(started.wait(), 5)
    while len(ended) + len(other_tasks() - before) < 3:
        await asyncio.sleep(0)
    assert session._listeners.running == 2
    assert session._calls.running == 1
    await session.shutdown()
    assert sorted(ended) == ["handler", "notification", "progress"]
    assert session._listeners.running == 0
    assert session._calls.running == 0


# -- defect: one failing item of workspace/configuration left coroutines never awaited -----


async def test_a_configuration_item_that_raises_at_once_closes_the_others(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """The items answered before the failing one are closed, never left unawaited."""
    made: list[Any] = []

    async def answer(item: Any) -> Any:
        return {"section": item.get("section")}

    def on_configuration(item: Any) -> Any:
        if item.get("section") == "broken":
            raise RuntimeError("cannot read the settings file")
        coroutine = answer(item)
        made.append(coroutine)
        return coroutine

    session = await ready_session(make_session, on_configuration=on_configuration)
    errors: list[BaseException] = []
    session.on_error(errors.append)
    reply = await server.request(
        "workspace/configuration", {"items": [{"section": "a"}, {"section": "broken"}]}
    )
    assert reply["error"]["code"] == ErrorCodes.InternalError
    assert "cannot read the settings file" in reply["error"]["message"]
    assert [inspect.getcoroutinestate(c) for c in made] == [inspect.CORO_CLOSED]
    assert [type(error) for error in errors] == [RuntimeError]


async def test_async_configuration_items_are_answered_together_and_all_awaited(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """Items run concurrently; when one fails, every other still runs to its end."""
    gate = asyncio.Event()
    finished: list[str] = []

    async def on_configuration(item: Any) -> Any:
        section = item.get("section")
        if section == "slow":
            await gate.wait()  # released only by the "fast" item: they run together
        if section == "fast":
            gate.set()
        if section == "broken":
            await asyncio.sleep(0)
            raise ValueError("bad settings")
        finished.append(section)
        return {"section": section}

    session = await ready_session(make_session, on_configuration=on_configuration)
    errors: list[BaseException] = []
    session.on_error(errors.append)
    items = [{"section": "slow"}, {"section": "fast"}]
    reply = await server.request("workspace/configuration", {"items": items})
    assert reply["result"] == [{"section": "slow"}, {"section": "fast"}]
    gate.clear()
    items = [{"section": "slow"}, {"section": "broken"}, {"section": "fast"}]
    finished.clear()
    reply = await server.request("workspace/configuration", {"items": items})
    assert "bad settings" in reply["error"]["message"]
    assert sorted(finished) == ["fast", "slow"]
    assert [type(error) for error in errors] == [ValueError]
