"""The handshake: what initialize carries, what is written before its answer, encodings."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest

from adecore_lsp import ErrorCodes, LspError, SessionState, __version__
from tests.fake_server import NO_ANSWER, FakeServer
from tests.session.conftest import SessionFactory


async def test_initialize_carries_the_session_options(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """initialize sends processId, clientInfo, root, folders named after the root, options."""
    session = make_session(
        root_uri="file:///home/me/my%20project", initialization_options={"fast": True}
    )
    await session.initialize()
    params = server.messages("initialize")[0]["params"]
    assert params["processId"] == os.getpid()
    assert params["clientInfo"] == {"name": "adecore-lsp", "version": __version__}
    assert params["rootUri"] == "file:///home/me/my%20project"
    assert params["rootPath"] == "/home/me/my project"
    assert params["workspaceFolders"] == [
        {"uri": "file:///home/me/my%20project", "name": "my project"}
    ]
    assert params["initializationOptions"] == {"fast": True}


async def test_initialize_leaves_out_what_was_not_given(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """Without a root there are no folders, and no initializationOptions key at all."""
    session = make_session(client_info={"name": "my-editor", "version": "2"})
    await session.initialize()
    params = server.messages("initialize")[0]["params"]
    assert params["rootUri"] is None
    assert params["workspaceFolders"] is None
    assert "initializationOptions" not in params
    assert params["clientInfo"] == {"name": "my-editor", "version": "2"}


async def test_client_capabilities_promise_only_what_the_session_does(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """No pull diagnostics, applyEdit only with a handler, no showDocument, refreshes on."""
    session = make_session()
    await session.initialize()
    capabilities = server.messages("initialize")[0]["params"]["capabilities"]
    assert capabilities["general"]["positionEncodings"] == ["utf-32", "utf-8", "utf-16"]
    assert "diagnostic" not in capabilities["textDocument"]
    assert capabilities["workspace"]["applyEdit"] is False
    assert capabilities["workspace"]["configuration"] is True
    assert capabilities["workspace"]["workspaceFolders"] is True
    assert "showDocument" not in capabilities["window"]
    assert capabilities["window"]["workDoneProgress"] is True
    assert capabilities["textDocument"]["publishDiagnostics"]["versionSupport"] is True
    assert capabilities["textDocument"]["completion"]["completionItem"]["snippetSupport"] is False
    for feature in ("semanticTokens", "inlayHint", "diagnostics", "codeLens", "inlineValue"):
        assert capabilities["workspace"][feature] == {"refreshSupport": True}
    assert capabilities["workspace"]["foldingRange"] == {"refreshSupport": True}


async def test_capability_options_change_what_is_advertised(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """snippet_support, on_apply_edit, pull_diagnostics, encodings and overrides show up."""
    session = make_session(
        snippet_support=True,
        on_apply_edit=lambda params: {"applied": True},
        pull_diagnostics=True,
        position_encodings=["utf-8"],
        capabilities={"experimental": {"x": 1}, "window": {"showDocument": {"support": True}}},
    )
    await session.initialize()
    capabilities = server.messages("initialize")[0]["params"]["capabilities"]
    assert capabilities["textDocument"]["completion"]["completionItem"]["snippetSupport"] is True
    assert capabilities["workspace"]["applyEdit"] is True
    assert "diagnostic" in capabilities["textDocument"]
    assert capabilities["general"]["positionEncodings"] == ["utf-8", "utf-16"]
    assert capabilities["experimental"] == {"x": 1}
    assert capabilities["window"]["showDocument"] == {"support": True}
    assert capabilities["window"]["workDoneProgress"] is True


async def test_nothing_but_answers_is_written_before_the_initialize_answer(
    pair: Any, make_session: SessionFactory
) -> None:
    """Server requests sent during the handshake are answered; nothing else is written."""
    server = FakeServer(pair[1])
    answers: dict[str, Any] = {}

    async def initialize(params: Any) -> Any:
        server.notify("window/logMessage", {"type": 3, "message": "starting"})
        server.notify("window/showMessage", {"type": 3, "message": "hello"})
        for method, request_params in [
            ("window/showMessageRequest", {"type": 3, "message": "ok?", "actions": []}),
            ("window/workDoneProgress/create", {"token": "t"}),
            ("workspace/configuration", {"items": [{"section": "a"}]}),
            (
                "client/registerCapability",
                {
                    "registrations": [
                        {"id": "1", "method": "textDocument/hover", "registerOptions": {}}
                    ]
                },
            ),
        ]:
            answers[method] = await server.request(method, request_params)
        return {"capabilities": {}}

    server.on("initialize", initialize)
    session = make_session(configuration={"a": 5})
    await session.initialize()
    assert answers["window/showMessageRequest"]["result"] is None
    assert answers["window/workDoneProgress/create"]["result"] is None
    assert answers["workspace/configuration"]["result"] == [5]
    assert answers["client/registerCapability"]["result"] is None
    # Everything the client wrote before initialized was the request or an answer.
    before = server.received[: server.received.index(server.messages("initialized")[0])]
    assert before[0]["method"] == "initialize"
    assert all("method" not in message for message in before[1:])
    assert len(before) == 5
    assert session.supports("textDocument/hover")


async def test_initialized_then_configuration(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """initialized comes right after the answer, then didChangeConfiguration with settings."""
    session = make_session(configuration={"python": {"x": 1}})
    await session.initialize()
    await server.wait_for("workspace/didChangeConfiguration")
    methods = [message.get("method") for message in server.received]
    assert methods == ["initialize", "initialized", "workspace/didChangeConfiguration"]
    assert server.received[1]["params"] == {}
    assert server.received[2]["params"] == {"settings": {"python": {"x": 1}}}


async def test_no_configuration_no_did_change_configuration(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """Without configuration the session sends no didChangeConfiguration."""
    session = make_session()
    await session.initialize()
    await server.wait_for("initialized")
    await server.round_trip()
    assert server.messages("workspace/didChangeConfiguration") == []


async def test_set_configuration_tells_the_server(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """set_configuration replaces the settings and sends them."""
    session = make_session()
    await session.initialize()
    session.set_configuration({"b": 2})
    sent = await server.wait_for("workspace/didChangeConfiguration")
    assert sent[0]["params"] == {"settings": {"b": 2}}
    reply = await server.request("workspace/configuration", {"items": [{"section": "b"}]})
    assert reply["result"] == [2]


async def test_absent_position_encoding_means_utf16(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """A server that names no encoding speaks utf-16."""
    session = make_session()
    assert session.position_encoding is None
    await session.initialize()
    assert session.position_encoding == "utf-16"


async def test_negotiated_position_encoding_is_kept(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """The encoding the server chose among those offered is the session's."""
    server.capabilities = {"positionEncoding": "utf-8"}
    session = make_session()
    await session.initialize()
    assert session.position_encoding == "utf-8"


async def test_an_encoding_not_offered_fails_and_closes(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """A server that picks an encoding we did not offer fails initialize; the session closes."""
    server.capabilities = {"positionEncoding": "utf-7"}
    session = make_session(position_encodings=["utf-16"])
    with pytest.raises(LspError, match="utf-7"):
        await session.initialize()
    assert session.state is SessionState.CLOSED
    assert server.messages("initialized") == []


async def test_calls_before_ready_fail_with_server_not_initialized(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """request and notify before the handshake fail with ServerNotInitialized."""
    session = make_session()
    with pytest.raises(LspError) as caught:
        await session.request("textDocument/hover", {})
    assert caught.value.code == ErrorCodes.ServerNotInitialized
    with pytest.raises(LspError) as caught_notify:
        session.notify("x")
    assert caught_notify.value.code == ErrorCodes.ServerNotInitialized
    assert session.state is SessionState.NEW


async def test_calls_during_the_handshake_fail_and_write_nothing(
    pair: Any, make_session: SessionFactory
) -> None:
    """While initialize is pending, request() fails at once and nothing is written."""
    server = FakeServer(pair[1])
    release = asyncio.Event()

    async def initialize(params: Any) -> Any:
        await release.wait()
        return {"capabilities": {}}

    server.on("initialize", initialize)
    session = make_session()
    handshake = asyncio.ensure_future(session.initialize())
    await server.wait_for("initialize")
    assert session.state is SessionState.INITIALIZING
    with pytest.raises(LspError) as caught:
        await session.request("x")
    assert caught.value.code == ErrorCodes.ServerNotInitialized
    release.set()
    await handshake
    assert server.messages("x") == []


async def test_initialize_twice_returns_the_same_result(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """A second initialize() sends nothing and returns the first result."""
    server.server_info = {"name": "fake", "version": "1"}
    session = make_session()
    first, second = await asyncio.gather(session.initialize(), session.initialize())
    third = await session.initialize()
    assert first is second is third
    assert len(server.messages("initialize")) == 1
    assert session.server_info == {"name": "fake", "version": "1"}
    assert session.state is SessionState.READY


async def test_initialize_error_from_the_server_closes(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """An error answer to initialize is raised with its code, and the session closes."""

    def refuse(params: Any) -> Any:
        raise LspError(-32603, "Could not find a valid TypeScript installation")

    server.on("initialize", refuse)
    session = make_session()
    with pytest.raises(LspError, match="TypeScript") as caught:
        await session.initialize()
    assert caught.value.code == ErrorCodes.InternalError
    assert session.state is SessionState.CLOSED


async def test_initialize_without_capabilities_is_an_error(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """An InitializeResult with no capabilities object fails the handshake."""
    server.on("initialize", lambda params: {"serverInfo": {"name": "x"}})
    session = make_session()
    with pytest.raises(LspError, match="capabilities"):
        await session.initialize()
    assert session.state is SessionState.CLOSED


async def test_initialize_deadline(server: FakeServer, make_session: SessionFactory) -> None:
    """A server that never answers initialize fails it at the deadline and closes."""
    server.on("initialize", lambda params: NO_ANSWER)
    session = make_session(timeout=0.05)
    with pytest.raises(LspError) as caught:
        await session.initialize()
    assert caught.value.code == ErrorCodes.RequestCancelled
    assert session.state is SessionState.CLOSED


async def test_a_closed_session_does_not_start_again(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """initialize after shutdown raises."""
    session = make_session()
    await session.initialize()
    await session.shutdown()
    with pytest.raises(LspError, match="closed"):
        await session.request("x")
    fresh = make_session()
    await fresh.shutdown()
    with pytest.raises(LspError):
        await fresh.initialize()
