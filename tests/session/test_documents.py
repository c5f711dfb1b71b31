"""Open documents through the session: sync kinds, versions, diagnostics, stale answers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from adecore_lsp import ErrorCodes, LspError, LspSession, StaleResultError, TextDocument
from tests.fake_server import NO_ANSWER, FakeServer
from tests.session.conftest import SessionFactory

URI = "file:///w/a.py"


async def ready_with(
    server: FakeServer, make_session: SessionFactory, **capabilities: Any
) -> LspSession:
    server.capabilities = capabilities
    session = make_session()
    await session.initialize()
    return session


async def sent(server: FakeServer, method: str, count: int = 1) -> list[Any]:
    return [message["params"] for message in await server.wait_for(method, count)]


async def test_full_sync_sends_the_whole_text(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """Under full sync: didOpen with version 1, then each change as the whole text."""
    session = await ready_with(server, make_session, textDocumentSync=1)
    document = session.open_document(URI, "python", "x = 1\n")
    assert isinstance(document, TextDocument)
    assert (document.uri, document.language_id, document.version) == (URI, "python", 1)
    session.change_document(URI, "x = 2\n")
    opened = (await sent(server, "textDocument/didOpen"))[0]
    assert opened == {
        "textDocument": {"uri": URI, "languageId": "python", "version": 1, "text": "x = 1\n"}
    }
    changed = (await sent(server, "textDocument/didChange"))[0]
    assert changed == {
        "textDocument": {"uri": URI, "version": 2},
        "contentChanges": [{"text": "x = 2\n"}],
    }
    assert session.documents[URI].text == "x = 2\n"


async def test_incremental_sync_sends_the_smallest_edit(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """Under incremental sync a new text goes as one edit, with positions in the encoding."""
    server.capabilities = {"textDocumentSync": {"openClose": True, "change": 2}}
    server.capabilities["positionEncoding"] = "utf-16"
    session = make_session()
    await session.initialize()
    session.open_document(URI, "python", "s = '😀'\nt = 1\n")
    session.change_document(URI, "s = '😀'\nt = 12\n")
    changed = (await sent(server, "textDocument/didChange"))[0]
    assert changed["textDocument"] == {"uri": URI, "version": 2}
    assert changed["contentChanges"] == [
        {
            "range": {"start": {"line": 1, "character": 5}, "end": {"line": 1, "character": 5}},
            "text": "2",
        }
    ]
    session.change_document(
        URI,
        edits=[
            {
                "range": {"start": {"line": 0, "character": 7}, "end": {"line": 0, "character": 7}},
                "text": "!",
            }
        ],
    )
    assert session.documents[URI].text == "s = '😀!'\nt = 12\n"
    assert session.documents[URI].encoding == "utf-16"


async def test_no_sync_sends_nothing_but_keeps_the_text(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """A server without textDocumentSync hears nothing; the session still tracks the text."""
    session = await ready_with(server, make_session)
    session.open_document(URI, "python", "a")
    session.change_document(URI, "b")
    session.save_document(URI)
    session.close_document(URI)
    server.on("ping", lambda params: None)
    await session.request("ping")
    assert [m["method"] for m in server.received if "method" in m][2:] == ["ping"]


async def test_a_dynamic_registration_picks_the_sync_per_document(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """didChange registered with a selector and syncKind applies to matching documents."""
    session = await ready_with(server, make_session)
    await server.request(
        "client/registerCapability",
        {
            "registrations": [
                {
                    "id": "open",
                    "method": "textDocument/didOpen",
                    "registerOptions": {"documentSelector": [{"language": "python"}]},
                },
                {
                    "id": "change",
                    "method": "textDocument/didChange",
                    "registerOptions": {
                        "documentSelector": [{"language": "python"}],
                        "syncKind": 1,
                    },
                },
            ]
        },
    )
    session.open_document("file:///w/notes.txt", "plaintext", "hi")
    session.open_document(URI, "python", "a")
    session.change_document(URI, "b")
    opened = await sent(server, "textDocument/didOpen")
    assert [p["textDocument"]["uri"] for p in opened] == [URI]
    assert (await sent(server, "textDocument/didChange"))[0]["contentChanges"] == [{"text": "b"}]


async def test_versions_increase_across_close_and_reopen(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """A reopened URI goes on from its last version; misuse raises clearly."""
    session = await ready_with(server, make_session, textDocumentSync=2)
    session.open_document(URI, "python", "a")
    session.change_document(URI, "ab")
    with pytest.raises(ValueError, match="open"):
        session.open_document(URI, "python", "a")
    session.close_document(URI)
    with pytest.raises(ValueError, match="not open"):
        session.change_document(URI, "x")
    with pytest.raises(ValueError, match="not open"):
        session.close_document(URI)
    reopened = session.open_document(URI, "python", "c")
    assert reopened.version == 3
    versions = [p["textDocument"]["version"] for p in await sent(server, "textDocument/didOpen", 2)]
    assert versions == [1, 3]
    with pytest.raises(TypeError):
        session.open_document("file:///w/b.py", "python", b"bytes")  # type: ignore[arg-type]


async def test_save_sends_the_text_when_asked(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """didSave carries the text when the server asked for includeText."""
    session = await ready_with(
        server, make_session, textDocumentSync={"openClose": True, "save": {"includeText": True}}
    )
    session.open_document(URI, "python", "x")
    session.save_document(URI)
    assert (await sent(server, "textDocument/didSave"))[0] == {
        "textDocument": {"uri": URI},
        "text": "x",
    }


async def test_document_calls_need_a_ready_session(make_session: SessionFactory) -> None:
    """Documents cannot be opened before the handshake."""
    session = make_session()
    with pytest.raises(LspError) as caught:
        session.open_document(URI, "python", "")
    assert caught.value.code == ErrorCodes.ServerNotInitialized


async def test_diagnostics_reach_listeners_only_for_the_current_text(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """Other versions and closed documents are dropped; unversioned reports apply; close empties."""
    session = await ready_with(server, make_session, textDocumentSync=2)
    heard: list[Any] = []
    everything: list[Any] = []
    session.on_diagnostics(heard.append)
    session.on_notification("textDocument/publishDiagnostics", everything.append)
    session.open_document(URI, "python", "a")
    session.change_document(URI, "ab")
    item = {"range": {}, "message": "m"}
    reports = [
        {"uri": URI, "version": 1, "diagnostics": [item]},  # an older text: dropped
        {"uri": URI, "version": 2, "diagnostics": [item]},  # current: kept
        {"uri": URI, "diagnostics": [item]},  # no version: current
        {"uri": URI, "version": 9, "diagnostics": [item]},  # never sent: dropped
        {"uri": "file:///w/other.py", "diagnostics": [item]},  # not open: dropped
    ]
    for report in reports:
        server.notify("textDocument/publishDiagnostics", report)
    server.on("sync", lambda params: None)
    await session.request("sync")
    assert heard == [reports[1], reports[2]]
    assert everything == reports
    session.close_document(URI)
    server.notify("textDocument/publishDiagnostics", {"uri": URI, "version": 3, "diagnostics": []})
    await session.request("sync")
    assert heard[2:] == [{"uri": URI, "diagnostics": []}]


async def test_an_answer_about_a_changed_document_is_stale(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """A result that arrives after the document changed raises StaleResultError."""
    session = await ready_with(server, make_session, textDocumentSync=2, hoverProvider=True)
    session.open_document(URI, "python", "a")
    release = asyncio.Event()

    async def hover(params: Any) -> Any:
        await release.wait()
        return {"contents": "old"}

    server.on("textDocument/hover", hover)
    where = {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 0}}
    call = asyncio.ensure_future(session.request("textDocument/hover", where))
    await server.wait_for("textDocument/hover")
    session.change_document(URI, "b")
    release.set()
    with pytest.raises(StaleResultError) as caught:
        await call
    assert caught.value.code == ErrorCodes.ContentModified
    assert caught.value.uri == URI
    # Unchanged, the answer stands; closed, it is stale too.
    release.clear()
    call = asyncio.ensure_future(session.request("textDocument/hover", where))
    await server.wait_for("textDocument/hover", 2)
    release.set()
    assert await call == {"contents": "old"}
    release.clear()
    call = asyncio.ensure_future(session.request("textDocument/hover", where))
    await server.wait_for("textDocument/hover", 3)
    session.close_document(URI)
    release.set()
    with pytest.raises(StaleResultError):
        await call


async def test_stale_answers_are_found_again_after_every_document_closed(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """The session looks for a request's document only while one is open: also afterwards."""
    session = await ready_with(server, make_session, textDocumentSync=2, hoverProvider=True)
    release = asyncio.Event()

    async def hover(params: Any) -> Any:
        await release.wait()
        return {"contents": "old"}

    server.on("textDocument/hover", hover)
    where = {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 0}}
    for round_number in range(1, 3):
        session.open_document(URI, "python", "a")
        release.clear()
        call = asyncio.ensure_future(session.request("textDocument/hover", where))
        await server.wait_for("textDocument/hover", round_number)
        session.close_document(URI)
        release.set()
        with pytest.raises(StaleResultError):
            await call
    # Nothing open: the same request is no document's, and its answer stands.
    assert await session.request("textDocument/hover", where) == {"contents": "old"}


async def test_the_servers_own_content_modified_is_not_stale(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """A ContentModified error from the server stays a plain LspError."""
    session = await ready_with(server, make_session, textDocumentSync=2)
    session.open_document(URI, "python", "a")

    def modified(params: Any) -> Any:
        raise LspError(ErrorCodes.ContentModified, "busy")

    server.on("textDocument/semanticTokens/full", modified)
    with pytest.raises(LspError) as caught:
        await session.request("textDocument/semanticTokens/full", {"textDocument": {"uri": URI}})
    assert caught.value.code == ErrorCodes.ContentModified
    assert not isinstance(caught.value, StaleResultError)


async def test_shutdown_closes_every_document_first(
    server: FakeServer, make_session: SessionFactory
) -> None:
    """didClose for each open document goes before shutdown; listeners hear empty reports."""
    session = await ready_with(server, make_session, textDocumentSync=1)
    heard: list[Any] = []
    session.on_diagnostics(heard.append)
    session.open_document(URI, "python", "a")
    session.open_document("file:///w/b.py", "python", "b")
    server.on("slow", lambda params: NO_ANSWER)
    await session.shutdown()
    methods = [m.get("method") for m in server.received if "method" in m]
    assert methods[-4:] == [
        "textDocument/didClose",
        "textDocument/didClose",
        "shutdown",
        "exit",
    ]
    assert heard == [
        {"uri": URI, "diagnostics": []},
        {"uri": "file:///w/b.py", "diagnostics": []},
    ]
    assert dict(session.documents) == {}
