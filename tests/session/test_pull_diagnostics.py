"""Pull diagnostics through the session: when it pulls, what listeners hear, how pulls end."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from adecore_lsp import ErrorCodes, LspError, LspSession, create_memory_transport_pair
from tests.fake_server import NO_ANSWER, FakeServer

A = "file:///w/a.py"
B = "file:///w/b.py"
WINDOW = 0.01
QUIET = 0.15
"""Seconds after which a pull that was going to come would have come (many windows)."""

PULL = "textDocument/diagnostic"
SYNC = {"textDocumentSync": 2}
PROVIDER = {**SYNC, "diagnosticProvider": {"interFileDependencies": False}}


def item(message: str, line: int = 0) -> dict[str, Any]:
    span = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 1}}
    return {"range": span, "message": message}


X, Y = item("x"), item("y", 1)

Start = Callable[..., Any]


@pytest.fixture
async def start() -> AsyncIterator[Start]:
    """``await start(capabilities, **options)``: a ready pulling session and its server."""
    made: list[LspSession] = []

    async def make(
        capabilities: dict[str, Any], **options: Any
    ) -> tuple[LspSession, FakeServer, asyncio.Queue[dict[str, Any]]]:
        client, server_end = create_memory_transport_pair()
        server = FakeServer(server_end, capabilities=capabilities, server_info={"name": "fake"})
        options.setdefault("pull_diagnostics", True)
        options.setdefault("refresh_window", WINDOW)
        session = LspSession(client, root_uri="file:///w", **options)
        made.append(session)
        heard: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        session.on_diagnostics(heard.put_nowait)
        await session.initialize()
        return session, server, heard

    yield make
    for session in made:
        await session.shutdown()


async def next_report(heard: asyncio.Queue[dict[str, Any]]) -> dict[str, Any]:
    return await asyncio.wait_for(heard.get(), 5)


def pulls(server: FakeServer, uri: str | None = None) -> list[dict[str, Any]]:
    """The params of every pull the server got (of ``uri``)."""
    found = [message["params"] for message in server.messages(PULL)]
    return [p for p in found if uri is None or p["textDocument"]["uri"] == uri]


def answer_with(*results: Any) -> Callable[[Any], Any]:
    """A pull handler that answers each pull with the next of ``results`` (the last repeats)."""
    queue = list(results)

    def handler(params: Any) -> Any:
        result = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(result, LspError):
            raise result
        return result

    return handler


def full(items: list[Any], result_id: str | None = None, **extra: Any) -> dict[str, Any]:
    report: dict[str, Any] = {"kind": "full", "items": items, **extra}
    if result_id is not None:
        report["resultId"] = result_id
    return report


async def test_pulls_after_open_and_change_with_the_previous_result_id(start: Start) -> None:
    """Open pulls version 1, a change pulls version 2 with the result id of the first."""
    session, server, heard = await start({**PROVIDER, "diagnosticProvider": {"identifier": "i"}})
    server.on(PULL, answer_with(full([X], "r1"), full([Y], "r2")))
    session.open_document(A, "python", "a")
    assert await next_report(heard) == {"uri": A, "version": 1, "diagnostics": [X]}
    assert session.diagnostics(A) == [X]
    session.change_document(A, "ab")
    assert session.diagnostics(A) is None  # nothing for version 2 yet
    assert await next_report(heard) == {"uri": A, "version": 2, "diagnostics": [Y]}
    assert pulls(server) == [
        {"textDocument": {"uri": A}, "identifier": "i"},
        {"textDocument": {"uri": A}, "identifier": "i", "previousResultId": "r1"},
    ]
    session.change_document(A, "ab")  # the same text: nothing sent, nothing pulled
    await asyncio.sleep(QUIET)
    assert len(pulls(server)) == 2


async def test_changes_in_a_burst_make_one_pull(start: Start) -> None:
    """Changes within the window are pulled once, for the last version."""
    session, server, heard = await start(PROVIDER)
    server.on(PULL, answer_with(full([X], "r")))
    session.open_document(A, "python", "a")
    for text in ("ab", "abc", "abcd"):
        session.change_document(A, text)
    assert await next_report(heard) == {"uri": A, "version": 4, "diagnostics": [X]}
    await asyncio.sleep(QUIET)
    assert len(pulls(server)) == 1


async def test_an_unchanged_report_gives_the_last_items(start: Start) -> None:
    """unchanged: the items of the last full report, for the new version."""
    session, server, heard = await start(PROVIDER)
    server.on(PULL, answer_with(full([X], "r1"), {"kind": "unchanged", "resultId": "r2"}))
    session.open_document(A, "python", "a")
    await next_report(heard)
    session.change_document(A, "b")
    assert await next_report(heard) == {"uri": A, "version": 2, "diagnostics": [X]}
    assert session.diagnostics(A) == [X]


async def test_a_refresh_pulls_again(start: Start) -> None:
    """workspace/diagnostic/refresh pulls every open document again."""
    session, server, heard = await start(PROVIDER)
    server.on(PULL, answer_with(full([X], "r1"), full([Y], "r2")))
    session.open_document(A, "python", "a")
    await next_report(heard)
    answer = await server.request("workspace/diagnostic/refresh")
    assert answer["result"] is None
    assert await next_report(heard) == {"uri": A, "version": 1, "diagnostics": [Y]}
    assert pulls(server)[1]["previousResultId"] == "r1"


async def test_a_late_registration_pulls(start: Start) -> None:
    """No provider at first: nothing pulled; a registration (selector null) starts the pulls."""
    session, server, heard = await start(SYNC)
    server.on(PULL, answer_with(full([X])))
    session.open_document(A, "python", "a")
    await asyncio.sleep(QUIET)
    assert pulls(server) == []
    registration = {"id": "d", "method": PULL, "registerOptions": {"documentSelector": None}}
    await server.request("client/registerCapability", {"registrations": [registration]})
    assert await next_report(heard) == {"uri": A, "version": 1, "diagnostics": [X]}


async def test_a_registration_and_a_refresh_together_make_one_pull(start: Start) -> None:
    """A registration and a refresh close together: one pull per open document."""
    # A window wide enough that the refresh surely comes within it, even on a busy machine.
    session, server, heard = await start(SYNC, refresh_window=0.25)
    server.on(PULL, answer_with(full([X])))
    session.open_document(A, "python", "a")
    session.open_document(B, "python", "b")
    registration = {"id": "d", "method": PULL, "registerOptions": {"documentSelector": None}}
    await server.request("client/registerCapability", {"registrations": [registration]})
    session.change_document(A, "aa")  # a change within the wait makes no pull of its own
    await server.request("workspace/diagnostic/refresh")
    reports = [await next_report(heard), await next_report(heard)]
    assert sorted((report["uri"], report["version"]) for report in reports) == [(A, 2), (B, 1)]
    await asyncio.sleep(0.5)
    assert sorted(p["textDocument"]["uri"] for p in pulls(server)) == [A, B]


async def test_a_selector_that_does_not_match_is_not_pulled(start: Start) -> None:
    """A registration for another language pulls nothing for this document."""
    session, server, _heard = await start(SYNC)
    server.on(PULL, answer_with(full([X])))
    session.open_document(A, "python", "a")
    options = {"documentSelector": [{"language": "rust"}]}
    registration = {"id": "d", "method": PULL, "registerOptions": options}
    await server.request("client/registerCapability", {"registrations": [registration]})
    await asyncio.sleep(QUIET)
    assert pulls(server) == []


async def test_a_push_and_a_pull_that_agree_are_heard_once(start: Start) -> None:
    """The same report pushed and pulled for one version is heard once; the later wins."""
    session, server, heard = await start(PROVIDER)
    release = asyncio.Event()
    answers = [full([X]), full([Y])]

    async def pull(params: Any) -> Any:
        await release.wait()
        return answers.pop(0)

    server.on(PULL, pull)
    session.open_document(A, "python", "a")
    await server.wait_for(PULL)
    server.notify("textDocument/publishDiagnostics", {"uri": A, "version": 1, "diagnostics": [X]})
    assert await next_report(heard) == {"uri": A, "version": 1, "diagnostics": [X]}
    release.set()  # the pull agrees with the push: not heard again
    await server.request("workspace/diagnostic/refresh")  # this pull differs: heard
    assert await next_report(heard) == {"uri": A, "version": 1, "diagnostics": [Y]}
    assert len(pulls(server)) == 2
    # Unversioned and the same as the last: not heard.
    server.notify("textDocument/publishDiagnostics", {"uri": A, "diagnostics": [Y]})
    push: dict[str, Any] = {"uri": A, "version": 1, "diagnostics": [X]}  # differs: heard
    server.notify("textDocument/publishDiagnostics", push)
    assert await next_report(heard) == push
    assert heard.empty()


async def test_a_stale_pull_is_dropped(start: Start) -> None:
    """A pull answered after the document changed again is not heard; the newer one is."""
    session, server, heard = await start(PROVIDER)
    release = asyncio.Event()
    answers = [full([X], "old"), full([Y], "new")]

    async def pull(params: Any) -> Any:
        if len(answers) == 2:
            await release.wait()
        return answers.pop(0)

    server.on(PULL, pull)
    errors: list[BaseException] = []
    session.on_error(errors.append)
    session.open_document(A, "python", "a")
    await server.wait_for(PULL)
    session.change_document(A, "b")
    release.set()
    assert await next_report(heard) == {"uri": A, "version": 2, "diagnostics": [Y]}
    # The stale answer's result id was not kept.
    assert "previousResultId" not in pulls(server)[1]
    assert errors == []


async def test_related_documents_are_delivered(start: Start) -> None:
    """An open related document is heard with its current version."""
    session, server, heard = await start(PROVIDER)

    def pull(params: Any) -> Any:
        if params["textDocument"]["uri"] == A:
            related: dict[str, Any] = {
                "file:///w/%62.py": full([Y], "b1"),
                "file:///w/c.py": full([X]),
            }
            return full([X], "a1", relatedDocuments=related)
        return NO_ANSWER

    server.on(PULL, pull)
    session.open_document(B, "python", "b")
    session.change_document(B, "bb")
    session.open_document(A, "python", "a")
    found: dict[str, dict[str, Any]] = {}
    while len(found) < 2:
        report = await next_report(heard)
        found[report["uri"]] = report
    assert found[A] == {"uri": A, "version": 1, "diagnostics": [X]}
    assert found[B] == {"uri": B, "version": 2, "diagnostics": [Y]}


async def test_inter_file_dependencies_pull_the_other_documents(start: Start) -> None:
    """With interFileDependencies, a change pulls the provider's other open documents too."""
    session, server, heard = await start(
        {**SYNC, "diagnosticProvider": {"interFileDependencies": True}}
    )
    server.on(PULL, answer_with(full([X])))
    session.open_document(A, "python", "a")
    session.open_document(B, "python", "b")
    await next_report(heard)
    await next_report(heard)
    session.change_document(A, "aa")
    await server.wait_for(PULL, 4)
    assert sorted(p["textDocument"]["uri"] for p in pulls(server)[2:]) == [A, B]


async def test_closing_a_document_ends_its_pulls(start: Start) -> None:
    """A pending pull is cancelled on close; its listeners hear only the empty report."""
    session, server, heard = await start(PROVIDER)
    server.on(PULL, lambda params: NO_ANSWER)
    session.open_document(A, "python", "a")
    [request] = await server.wait_for(PULL)
    session.change_document(A, "b")  # a pull is due, and one is on its way
    session.close_document(A)
    [cancel] = await server.wait_for("$/cancelRequest")
    assert cancel["params"] == {"id": request["id"]}
    assert await next_report(heard) == {"uri": A, "diagnostics": []}
    await asyncio.sleep(QUIET)
    assert len(pulls(server)) == 1
    assert session.diagnostics(A) is None


async def test_shutdown_leaves_no_pull_pending(start: Start) -> None:
    """Shutdown ends the pulls on their way and the ones still due."""
    session, server, _heard = await start(PROVIDER)
    server.on(PULL, lambda params: NO_ANSWER)
    session.open_document(A, "python", "a")
    await server.wait_for(PULL)
    session.open_document(B, "python", "b")  # due, not yet sent
    running = [task for tasks in session._pulls._running.values() for task in tasks]
    assert running
    await session.shutdown()
    assert all(task.done() for task in running)
    assert session._pulls._running == {}
    assert session._pulls._timers == {}


async def test_the_server_hanging_up_ends_the_pulls(start: Start) -> None:
    """When the connection is lost, pulls end quietly."""
    session, server, _heard = await start(PROVIDER)
    errors: list[BaseException] = []
    server.on(PULL, lambda params: NO_ANSWER)
    session.open_document(A, "python", "a")
    await server.wait_for(PULL)
    session.on_error(errors.append)
    running = [task for tasks in session._pulls._running.values() for task in tasks]
    server.transport.close()
    await asyncio.wait(running, timeout=5)
    assert all(task.done() for task in running)
    assert all(not isinstance(error, LspError) for error in errors)


async def test_server_cancelled_is_retried_once(start: Start) -> None:
    """ServerCancelled with retriggerRequest: retried; a second one goes to on_error."""
    session, server, heard = await start(PROVIDER)
    busy = LspError(ErrorCodes.ServerCancelled, "busy", {"retriggerRequest": True})
    server.on(PULL, answer_with(busy, full([X]), busy, busy))
    errors: list[BaseException] = []
    session.on_error(errors.append)
    session.open_document(A, "python", "a")
    assert await next_report(heard) == {"uri": A, "version": 1, "diagnostics": [X]}
    assert len(pulls(server)) == 2
    session.change_document(A, "b")
    await server.wait_for(PULL, 4)
    await server.round_trip()
    assert len(errors) == 1
    assert isinstance(errors[0], LspError)
    assert errors[0].code == ErrorCodes.ServerCancelled


@pytest.mark.parametrize(
    "answer",
    [
        LspError(ErrorCodes.ServerCancelled, "busy", {"retriggerRequest": False}),
        LspError(ErrorCodes.ContentModified, "changed"),
    ],
)
async def test_failures_dropped_quietly(start: Start, answer: LspError) -> None:
    """ServerCancelled without retrigger and ContentModified are neither retried nor reported."""
    session, server, _heard = await start(PROVIDER)
    server.on(PULL, answer_with(answer))
    errors: list[BaseException] = []
    session.on_error(errors.append)
    session.open_document(A, "python", "a")
    await server.wait_for(PULL)
    await asyncio.sleep(QUIET)
    assert errors == []
    assert len(pulls(server)) == 1


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        (LspError(ErrorCodes.InternalError, "boom"), ErrorCodes.InternalError),
        ({"kind": "partial"}, ErrorCodes.InternalError),
        (None, ErrorCodes.InternalError),
    ],
)
async def test_failed_pulls_go_to_on_error(start: Start, answer: Any, code: int) -> None:
    """An error answer, or one of the wrong shape, reaches on_error."""
    session, server, _heard = await start(PROVIDER)
    server.on(PULL, answer_with(answer))
    failed: asyncio.Queue[BaseException] = asyncio.Queue()
    session.on_error(failed.put_nowait)
    session.open_document(A, "python", "a")
    error = await asyncio.wait_for(failed.get(), 5)
    assert isinstance(error, LspError)
    assert error.code == code


async def test_without_the_option_nothing_is_pulled(start: Start) -> None:
    """pull_diagnostics=False: no pulls, and every push is heard, even a repeated one."""
    session, server, heard = await start(PROVIDER, pull_diagnostics=False)
    session.open_document(A, "python", "a")
    push = {"uri": A, "version": 1, "diagnostics": [X]}
    server.notify("textDocument/publishDiagnostics", push)
    server.notify("textDocument/publishDiagnostics", push)
    assert await next_report(heard) == push
    assert await next_report(heard) == push
    assert session.diagnostics(A) == [X]
    assert pulls(server) == []


async def test_document_diagnostics_shares_the_result_ids(start: Start) -> None:
    """document_diagnostics sends the session's result id and is heard through on_diagnostics."""
    session, server, heard = await start(PROVIDER, pull_diagnostics=False)
    unchanged = {"kind": "unchanged", "resultId": "r2"}
    server.on(PULL, answer_with(full([X], "r1"), unchanged, full([Y])))
    session.open_document(A, "python", "a")
    assert await session.document_diagnostics(A) == [X]
    assert await next_report(heard) == {"uri": A, "version": 1, "diagnostics": [X]}
    session.change_document(A, "b")
    assert await session.document_diagnostics(A) == [X]
    assert await next_report(heard) == {"uri": A, "version": 2, "diagnostics": [X]}
    assert pulls(server)[1]["previousResultId"] == "r1"
    # A document that is not open: items, and nothing heard.
    assert await session.document_diagnostics(B) == [Y]
    assert heard.empty()


async def test_document_diagnostics_of_a_server_without_pulls(start: Start) -> None:
    """MethodNotFound, naming the server; nothing sent."""
    session, server, _heard = await start(SYNC, registration_grace=0)
    with pytest.raises(LspError) as caught:
        await session.document_diagnostics(A)
    assert caught.value.code == ErrorCodes.MethodNotFound
    assert "fake" in caught.value.message
    assert pulls(server) == []


async def test_code_actions_default_to_the_overlapping_diagnostics(start: Start) -> None:
    """The last reported diagnostics, whatever their version, that overlap the range."""
    session, server, _heard = await start({**SYNC, "codeActionProvider": True})
    server.on("textDocument/codeAction", lambda params: [])
    session.open_document(A, "python", "a\nb\n")
    push = {"uri": A, "version": 1, "diagnostics": [X, Y]}
    server.notify("textDocument/publishDiagnostics", push)
    await server.round_trip()
    session.change_document(A, "a\nbb\n")  # the report is for version 1: still used
    line_one = {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}}
    await session.code_actions(A, line_one)
    await session.code_actions(A, line_one, diagnostics=[])
    await session.code_actions(B, line_one)  # not open: none
    contexts = [m["params"]["context"] for m in server.messages("textDocument/codeAction")]
    assert contexts == [{"diagnostics": [Y]}, {"diagnostics": []}, {"diagnostics": []}]
