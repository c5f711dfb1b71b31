"""The session's sans-IO rules: the state table, the handshake, URIs, built-in answers."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adecore_lsp import ErrorCodes, LspError, LspSessionOptions
from adecore_lsp.protocol.capabilities.capabilities import CapabilityRegistry
from adecore_lsp.protocol.documents.uris import folder_name, uri_to_path
from adecore_lsp.protocol.wire.lifecycle import (
    check_initialize_result,
    initialize_params,
    workspace_folder_list,
)
from adecore_lsp.protocol.wire.rpc import describe_message
from adecore_lsp.protocol.wire.server_requests import (
    BUILTIN_HANDLERS,
    BuiltinContext,
    ItemAnswers,
    close_awaitables,
)
from adecore_lsp.protocol.wire.states import (
    TRANSITIONS,
    SessionEvent,
    SessionLifecycle,
    SessionState,
)

S, E = SessionState, SessionEvent

# -- the state table ---------------------------------------------------------------------

LEGAL = [
    ([E.INITIALIZE], S.INITIALIZING),
    ([E.INITIALIZE, E.INITIALIZED], S.READY),
    ([E.INITIALIZE, E.INITIALIZED, E.SHUTDOWN], S.CLOSING),
    ([E.INITIALIZE, E.INITIALIZED, E.SHUTDOWN, E.CLOSE], S.CLOSED),
    ([E.INITIALIZE, E.INITIALIZED, E.CLOSE], S.CLOSED),
    ([E.INITIALIZE, E.CLOSE], S.CLOSED),
    ([E.CLOSE], S.CLOSED),
]


@pytest.mark.parametrize(("events", "state"), LEGAL)
def test_legal_moves_reach_their_state(events: list[SessionEvent], state: SessionState) -> None:
    lifecycle = SessionLifecycle()
    for event in events:
        lifecycle.process(event)
    assert lifecycle.state is state


ILLEGAL = [
    (S.NEW, E.INITIALIZED, ErrorCodes.ServerNotInitialized, "await initialize"),
    (S.NEW, E.SHUTDOWN, ErrorCodes.ServerNotInitialized, "await initialize"),
    (S.INITIALIZING, E.INITIALIZE, ErrorCodes.ServerNotInitialized, "initializing"),
    (S.READY, E.INITIALIZE, ErrorCodes.InvalidRequest, "ready"),
    (S.CLOSING, E.INITIALIZE, ErrorCodes.InvalidRequest, "does not start again"),
    (S.CLOSED, E.INITIALIZE, ErrorCodes.InvalidRequest, "new LspSession"),
    (S.CLOSED, E.CLOSE, ErrorCodes.InvalidRequest, "closed"),
]


@pytest.mark.parametrize(("state", "event", "code", "words"), ILLEGAL)
def test_illegal_moves_are_refused_with_a_reason(
    state: SessionState, event: SessionEvent, code: ErrorCodes, words: str
) -> None:
    lifecycle = SessionLifecycle()
    lifecycle.state = state
    with pytest.raises(LspError) as caught:
        lifecycle.process(event)
    assert caught.value.code == code
    assert words in caught.value.message
    assert f"cannot {event}" in caught.value.message
    assert lifecycle.state is state  # a refused move changes nothing


def test_the_table_covers_every_state_and_only_moves_forward() -> None:
    order = list(SessionState)
    assert set(TRANSITIONS) == set(order)
    for state, moves in TRANSITIONS.items():
        for target in moves.values():
            assert order.index(target) > order.index(state)
    assert str(S.READY) == "ready"
    assert str(E.CLOSE) == "close"


# -- the handshake -----------------------------------------------------------------------


def test_workspace_folders_come_from_the_options_or_the_root() -> None:
    assert workspace_folder_list(None, None) is None
    assert workspace_folder_list("file:///w/my%20proj", None) == [
        {"uri": "file:///w/my%20proj", "name": "my proj"}
    ]
    given = [{"uri": "file:///a", "name": "a"}]
    folders = workspace_folder_list("file:///ignored", given)
    assert folders == given
    assert folders is not None
    assert folders[0] is not given[0]  # a copy


def test_initialize_params_follow_the_options() -> None:
    options = LspSessionOptions(
        root_uri="file:///w/proj", process_id=None, initialization_options={"x": 1}
    )
    client = {"name": "adecore-lsp", "version": "0"}
    params = initialize_params(options, workspace_folder_list(options.root_uri, None), client)
    assert params["processId"] is None
    assert params["clientInfo"] == client
    assert params["rootPath"] == "/w/proj"
    assert params["initializationOptions"] == {"x": 1}
    assert params["capabilities"]["workspace"]["applyEdit"] is False
    bare = initialize_params(
        LspSessionOptions(client_info={"name": "mine"}, on_apply_edit=lambda edit: None),
        None,
        client,
    )
    assert bare["rootUri"] is None
    assert bare["rootPath"] is None
    assert bare["clientInfo"] == {"name": "mine"}
    assert "initializationOptions" not in bare
    assert bare["capabilities"]["workspace"]["applyEdit"] is True


@pytest.mark.parametrize(
    ("result", "code", "words"),
    [
        (None, ErrorCodes.InvalidRequest, "no capabilities object"),
        ({"capabilities": []}, ErrorCodes.InvalidRequest, "no capabilities object"),
        ({"capabilities": {"positionEncoding": "utf-7"}}, ErrorCodes.InvalidParams, "utf-7"),
    ],
)
def test_a_bad_initialize_result_is_refused(result: Any, code: ErrorCodes, words: str) -> None:
    with pytest.raises(LspError) as caught:
        check_initialize_result(result, ["utf-8", "utf-16"])
    assert caught.value.code == code
    assert words in caught.value.message


def test_an_initialize_result_is_accepted() -> None:
    accepted = check_initialize_result(
        {"capabilities": {"positionEncoding": "utf-8"}, "serverInfo": {"name": "s"}},
        ["utf-8", "utf-16"],
    )
    assert accepted.position_encoding == "utf-8"
    assert accepted.server_info == {"name": "s"}
    plain = check_initialize_result({"capabilities": {}, "serverInfo": "odd"}, ["utf-16"])
    assert plain.position_encoding == "utf-16"  # absent means utf-16
    assert plain.server_info is None


# -- URIs --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "windows", "path"),
    [
        ("file:///home/me/my%20proj/%2B%5Bx%5D.py", False, "/home/me/my proj/+[x].py"),
        ("file:///home/me/caf%C3%A9.py", False, "/home/me/café.py"),
        ("FILE:///x", False, "/x"),
        ("untitled:Untitled-1", False, None),
        ("https://example.com/x", True, None),
        ("file:///c%3A/x/y.py", True, "C:\\x\\y.py"),
        ("file:///C:/x", True, "C:\\x"),
        ("file://localhost/C:/x", True, "C:\\x"),
        ("file://server/share/x", True, "\\\\server\\share\\x"),
        ("file:///x/y", True, "\\x\\y"),
    ],
)
def test_uri_to_path(uri: str, windows: bool, path: str | None) -> None:
    assert uri_to_path(uri, windows=windows) == path


@given(st.text(alphabet=st.sampled_from("/ab.+[]% 2F0?#\t\n\r:é~"), max_size=24))
def test_a_plain_uri_gives_what_splitting_and_decoding_give(tail: str) -> None:
    """The shortcut for a plain ``file:///`` URI agrees with urlsplit and unquote."""
    uri = "file:///" + tail
    assert uri_to_path(uri, windows=False) == unquote(urlsplit(uri).path)


def test_folder_names() -> None:
    assert folder_name("file:///w/my%20proj/") == "my proj"
    assert folder_name("file:///") == "file:///"


def test_messages_are_described_by_method_or_by_what_they_answer() -> None:
    assert describe_message({"method": "textDocument/hover", "id": 1}) == "textDocument/hover"
    assert describe_message({"id": 7, "result": None}) == "the answer to request 7"


# -- built-in answers --------------------------------------------------------------------


def context(**options: Any) -> BuiltinContext:
    return BuiltinContext(
        options=LspSessionOptions(**options),
        registry=CapabilityRegistry(),
        workspace_folders=None,
        capabilities_changed=lambda methods: None,
        refresh_requested=lambda methods: None,
    )


def test_configuration_needs_an_object_with_items() -> None:
    handler = BUILTIN_HANDLERS["workspace/configuration"]
    params: Any
    for params in (None, [], {"items": "x"}):
        with pytest.raises(LspError) as caught:
            handler(context(), params)
        assert caught.value.code == ErrorCodes.InvalidParams


def test_configuration_answers_each_item_and_gathers_awaitables() -> None:
    handler = BUILTIN_HANDLERS["workspace/configuration"]
    settings = {"python": {"analysis": {"strict": True}}}
    items = {"items": [{"section": "python.analysis"}, "odd", {"section": "none"}]}
    # An item that is no object asks for the whole settings, as a section of None does.
    assert handler(context(configuration=settings), items) == [{"strict": True}, settings, None]
    assert handler(context(on_configuration=lambda item: 1), items) == [1, 1, 1]

    async def later(item: Any) -> Any:
        return 2

    answers = handler(context(on_configuration=later), items)
    assert isinstance(answers, ItemAnswers)
    assert len(answers.answers) == 3
    close_awaitables([*answers.answers, 3, None])  # plain values are left alone


def test_apply_edit_and_show_message_without_callbacks() -> None:
    refused = BUILTIN_HANDLERS["workspace/applyEdit"](context(), {"edit": {}})
    assert refused["applied"] is False
    assert "on_apply_edit" in refused["failureReason"]
    assert BUILTIN_HANDLERS["window/showMessageRequest"](context(), {"message": "?"}) is None
    with pytest.raises(LspError):
        BUILTIN_HANDLERS["workspace/applyEdit"](context(on_apply_edit=lambda e: e), "not a dict")
