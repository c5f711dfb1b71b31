"""The session's answers to the server's own requests."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from adecore_lsp import ErrorCodes, LspError, LspSession
from tests.fake_server import FakeServer
from tests.session.conftest import SessionFactory

SETTINGS = {
    "python": {"analysis": {"strict": True}, "path": "/usr/bin/python3"},
    "python.analysis": {"literal": "wins"},
    "editor": {"tabSize": 4},
}


@pytest.fixture
async def ready(server: FakeServer, make_session: SessionFactory) -> LspSession:
    session = make_session(configuration=SETTINGS, root_uri="file:///w/proj")
    await session.initialize()
    return session


async def test_configuration_answers_one_value_per_item(
    server: FakeServer, ready: LspSession
) -> None:
    """No section: all; literal key wins over the dotted path; the path; unknown: null."""
    items = [
        {},
        {"section": "python.analysis"},
        {"section": "python.path", "scopeUri": "file:///w/proj/a.py"},
        {"section": "editor.tabSize"},
        {"section": "missing.key"},
        {"section": None},
    ]
    reply = await server.request("workspace/configuration", {"items": items})
    assert reply["result"] == [
        SETTINGS,
        {"literal": "wins"},
        "/usr/bin/python3",
        4,
        None,
        SETTINGS,
    ]


async def test_configuration_with_no_settings(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """Without settings a section is null and the whole is {}."""
    session = make_session()
    await session.initialize()
    reply = await server.request("workspace/configuration", {"items": [{"section": "css"}, {}]})
    assert reply["result"] == [None, {}]


async def test_on_configuration_answers_each_item(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """on_configuration replaces the settings lookup, item by item, sync or async."""
    seen: list[Any] = []

    async def answer(item: dict[str, Any]) -> Any:
        seen.append(item)
        await asyncio.sleep(0)
        return {"for": item.get("section")}

    session = make_session(on_configuration=answer)
    await session.initialize()
    reply = await server.request(
        "workspace/configuration", {"items": [{"section": "a"}, {"section": "b"}]}
    )
    assert reply["result"] == [{"for": "a"}, {"for": "b"}]
    assert [item["section"] for item in seen] == ["a", "b"]

    sync_session_server_reply = await server.request("workspace/configuration", {"items": []})
    assert sync_session_server_reply["result"] == []


async def test_bad_configuration_params_are_invalid_params(
    server: FakeServer, ready: LspSession
) -> None:
    """Items that are not a list are answered with InvalidParams."""
    reply = await server.request("workspace/configuration", {"items": "no"})
    assert reply["error"]["code"] == ErrorCodes.InvalidParams


async def test_workspace_folders(server: FakeServer, ready: LspSession) -> None:
    """workspace/workspaceFolders answers the session's folders."""
    reply = await server.request("workspace/workspaceFolders")
    assert reply["result"] == [{"uri": "file:///w/proj", "name": "proj"}]


async def test_apply_edit_is_refused_by_default(server: FakeServer, ready: LspSession) -> None:
    """Without on_apply_edit, applyEdit is answered applied: false with a reason."""
    reply = await server.request("workspace/applyEdit", {"edit": {"changes": {}}})
    assert reply["result"]["applied"] is False
    assert "on_apply_edit" in reply["result"]["failureReason"]


async def test_apply_edit_goes_to_the_application(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """on_apply_edit (async) gets the params and its answer is the result."""
    edits: list[Any] = []

    async def apply(params: dict[str, Any]) -> dict[str, Any]:
        edits.append(params)
        return {"applied": True}

    session = make_session(on_apply_edit=apply)
    await session.initialize()
    reply = await server.request("workspace/applyEdit", {"label": "fix", "edit": {}})
    assert reply["result"] == {"applied": True}
    assert edits == [{"label": "fix", "edit": {}}]


async def test_show_message_request(server: FakeServer, make_session: SessionFactory) -> None:
    """showMessageRequest is null by default, else the application's choice."""
    session = make_session()
    await session.initialize()
    params = {"type": 1, "message": "Reload?", "actions": [{"title": "Yes"}]}
    reply = await server.request("window/showMessageRequest", params)
    assert reply["result"] is None
    session.options.on_show_message = lambda request: request["actions"][0]
    reply = await server.request("window/showMessageRequest", params)
    assert reply["result"] == {"title": "Yes"}


async def test_progress_create_and_progress(server: FakeServer, ready: LspSession) -> None:
    """workDoneProgress/create is answered null; $/progress reaches on_progress."""
    progress: list[Any] = []
    ready.on_progress(progress.append)
    reply = await server.request("window/workDoneProgress/create", {"token": "t1"})
    assert reply["result"] is None
    server.notify("$/progress", {"token": "t1", "value": {"kind": "begin", "title": "Index"}})
    await server.request("window/workDoneProgress/create", {"token": "sync"})
    assert progress == [{"token": "t1", "value": {"kind": "begin", "title": "Index"}}]


async def test_registrations_change_support_and_are_announced(
    server: FakeServer, ready: LspSession
) -> None:
    """register/unregister are answered with success (unknown methods too) and announced."""
    changed: list[str] = []
    ready.on_capabilities_changed(changed.append)
    assert not ready.supports("textDocument/formatting")
    reply = await server.request(
        "client/registerCapability",
        {
            "registrations": [
                {
                    "id": "f",
                    "method": "textDocument/formatting",
                    "registerOptions": {"documentSelector": [{"language": "python"}]},
                },
                {"id": "x", "method": "custom/thing"},
            ]
        },
    )
    assert reply == {"jsonrpc": "2.0", "id": reply["id"], "result": None}
    assert ready.supports("textDocument/formatting")
    assert ready.supports(
        "textDocument/formatting", {"uri": "file:///a.py", "languageId": "python"}
    )
    assert not ready.supports(
        "textDocument/formatting", {"uri": "file:///a.rs", "languageId": "rust"}
    )
    assert "textDocument/formatting" in changed
    reply = await server.request(
        "client/unregisterCapability",
        {
            "unregisterations": [
                {"id": "f", "method": "textDocument/formatting"},
                {"id": "nope", "method": "x"},
            ]
        },
    )
    assert reply["result"] is None
    assert not ready.supports("textDocument/formatting")
    assert changed.count("textDocument/formatting") == 2


async def test_refresh_is_answered_at_once_and_a_burst_announced_once(
    server: FakeServer, ready: LspSession
) -> None:
    """50 refreshes are each answered, and announced once per method after the window."""
    changed: list[str] = []
    ready.on_capabilities_changed(changed.append)
    replies = await asyncio.gather(
        *[server.request("workspace/diagnostic/refresh") for _ in range(50)],
        server.request("workspace/inlayHint/refresh"),
    )
    assert all(reply["result"] is None for reply in replies)
    assert changed == []
    await asyncio.sleep(ready.options.refresh_window * 3)
    assert sorted(changed) == [
        "textDocument/diagnostic",
        "textDocument/inlayHint",
        "workspace/diagnostic",
    ]


async def test_unknown_request_is_method_not_found(server: FakeServer, ready: LspSession) -> None:
    """A request nobody handles gets MethodNotFound; so does window/showDocument."""
    for method in ("custom/thing", "$/custom", "window/showDocument"):
        reply = await server.request(method, {})
        assert reply["error"]["code"] == ErrorCodes.MethodNotFound


async def test_on_request_answers_and_overrides(server: FakeServer, ready: LspSession) -> None:
    """on_request handles a method, sync or async, and its disposal restores the default."""
    seen: list[Any] = []

    async def markdown_parse(params: Any, cancelled: asyncio.Event) -> Any:
        seen.append(params)
        return {"tokens": []}

    with ready.on_request("markdown/parse", markdown_parse):
        reply = await server.request("markdown/parse", {"text": "# hi"})
        assert reply["result"] == {"tokens": []}
    reply = await server.request("markdown/parse", {"text": "# hi"})
    assert reply["error"]["code"] == ErrorCodes.MethodNotFound
    ready.on_request("workspace/workspaceFolders", lambda params, cancelled: [])
    assert (await server.request("workspace/workspaceFolders"))["result"] == []
    assert seen == [{"text": "# hi"}]


async def test_handler_errors_become_answers(server: FakeServer, ready: LspSession) -> None:
    """An exception is an InternalError answer with its message; an LspError keeps its code."""
    errors: list[BaseException] = []
    ready.on_error(errors.append)

    def broken(params: Any, cancelled: asyncio.Event) -> Any:
        raise RuntimeError("disk on fire")

    async def refusing(params: Any, cancelled: asyncio.Event) -> Any:
        raise LspError(ErrorCodes.InvalidParams, "bad input")

    async def broken_later(params: Any, cancelled: asyncio.Event) -> Any:
        await asyncio.sleep(0)
        raise ValueError("later")

    ready.on_request("a", broken)
    ready.on_request("b", refusing)
    ready.on_request("c", broken_later)
    ready.on_request("d", lambda params, cancelled: {1, 2})  # not JSON
    first = await server.request("a")
    assert first["error"]["code"] == ErrorCodes.InternalError
    assert "disk on fire" in first["error"]["message"]
    second = await server.request("b")
    assert second["error"] == {"code": ErrorCodes.InvalidParams, "message": "bad input"}
    third = await server.request("c")
    assert "later" in third["error"]["message"]
    fourth = await server.request("d")
    assert fourth["error"]["code"] == ErrorCodes.InternalError
    assert [type(error) for error in errors[:2]] == [RuntimeError, ValueError]
    assert len(errors) == 3


async def test_server_cancel_sets_the_event_and_cancels_the_task(
    server: FakeServer, ready: LspSession
) -> None:
    """$/cancelRequest of the server sets the event, cancels the task, answers RequestCancelled."""
    started = asyncio.Event()
    events: list[asyncio.Event] = []
    finished: list[str] = []

    async def slow(params: Any, cancelled: asyncio.Event) -> Any:
        events.append(cancelled)
        started.set()
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            finished.append("cancelled")
            raise
        return "done"

    ready.on_request("slow", slow)
    reply = asyncio.ensure_future(server.request("slow", request_id=42))
    await started.wait()
    server.notify("$/cancelRequest", {"id": 42})
    answer = await reply
    assert answer["error"]["code"] == ErrorCodes.RequestCancelled
    assert events[0].is_set()
    await asyncio.sleep(0)
    assert finished == ["cancelled"]
    await server.round_trip()
    assert [m for m in server.received if m.get("id") == 42] == [answer]
    server.notify("$/cancelRequest", {"id": 42})  # again: nothing happens
    server.notify("$/cancelRequest", {"id": [1]})  # nonsense: nothing happens


async def test_duplicate_server_request_id_in_flight(server: FakeServer, ready: LspSession) -> None:
    """A request reusing an id in flight gets InvalidRequest; the first gets its answer."""
    release = asyncio.Event()
    started = asyncio.Event()

    async def slow(params: Any, cancelled: asyncio.Event) -> Any:
        started.set()
        await release.wait()
        return "first"

    def answers_to_7() -> list[dict[str, Any]]:
        return [m for m in server.received if m.get("id") == 7]

    ready.on_request("slow", slow)
    server.send({"jsonrpc": "2.0", "id": 7, "method": "slow"})
    await asyncio.wait_for(started.wait(), 5)
    server.send({"jsonrpc": "2.0", "id": 7, "method": "slow"})
    await server.wait_until(lambda: len(answers_to_7()) == 1)
    answers = answers_to_7()
    assert answers[0]["error"]["code"] == ErrorCodes.InvalidRequest
    release.set()
    await server.wait_until(lambda: len(answers_to_7()) == 2)
    answers = answers_to_7()
    assert answers[1] == {"jsonrpc": "2.0", "id": 7, "result": "first"}


async def test_invalid_request_is_answered_and_reported(
    server: FakeServer, ready: LspSession
) -> None:
    """A request whose method is not a string is answered InvalidRequest and reported."""
    errors: list[BaseException] = []
    ready.on_error(errors.append)
    server.send({"jsonrpc": "2.0", "id": 5, "method": 12})
    server.send({"jsonrpc": "2.0", "params": {}})
    await server.round_trip()
    answers = [m for m in server.received if m.get("id") == 5]
    assert answers[0]["error"]["code"] == ErrorCodes.InvalidRequest
    assert len(errors) == 2


async def test_nothing_is_written_after_close(
    server: FakeServer, ready: LspSession, pair: Any
) -> None:
    """A handler still running when the connection closes writes nothing."""
    release = asyncio.Event()
    started = asyncio.Event()
    cancelled_seen: list[bool] = []

    async def slow(params: Any, cancelled: asyncio.Event) -> Any:
        started.set()
        try:
            await release.wait()
        finally:
            cancelled_seen.append(cancelled.is_set())
        return "late"

    ready.on_request("slow", slow)
    server.send({"jsonrpc": "2.0", "id": 1, "method": "slow"})
    await asyncio.wait_for(started.wait(), 5)
    count = len(server.received)
    await ready.shutdown()  # which waits for the cancelled handler to end
    release.set()
    assert [m.get("method") for m in server.received[count:]] == ["shutdown", "exit"]
    assert cancelled_seen == [True]


async def test_string_and_zero_ids_of_the_server_are_echoed(
    server: FakeServer, ready: LspSession
) -> None:
    """Server request ids 0 (pyright) and "ts1" (TypeScript 7) come back exactly as sent."""
    for request_id in (0, "ts1", "0"):
        reply = await server.request(
            "window/workDoneProgress/create", {"token": "t"}, request_id=request_id
        )
        assert reply == {"jsonrpc": "2.0", "id": request_id, "result": None}
        assert type(reply["id"]) is type(request_id)
