"""The security promises of docs/security.md: what a hostile server cannot make the client do."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import (
    ErrorCodes,
    FramingError,
    LspSession,
    create_memory_transport_pair,
    create_stream_transport,
    spawn_server,
)
from adecore_lsp.transports.websocket import connect_websocket
from adecore_lsp.types import JSONObject
from tests.fake_server import FakeServer
from tests.fake_stream import FakeStream

ROOT = Path(__file__).resolve().parent.parent
SOURCE_DIR = ROOT / "src" / "adecore_lsp"

METACHARACTERS = "$(touch pwned-subst); touch pwned-semi && `touch pwned-tick` | cat > pwned-pipe *"


# -- no shell ---------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["ruff server", b"ruff server"])
async def test_spawn_server_refuses_a_single_string_command(command: Any) -> None:
    """A command given as one string (or bytes) is refused, since only a shell would split it."""
    with pytest.raises(TypeError, match="no shell"):
        await spawn_server(command)


async def test_shell_metacharacters_reach_the_program_as_one_argument(tmp_path: Path) -> None:
    """An argument full of shell syntax arrives verbatim as one argv element and runs nothing."""
    record = tmp_path / "argv.json"
    script = "import json, sys; open(sys.argv[1], 'w').write(json.dumps(sys.argv[2:]))"
    command = [sys.executable, "-c", script, str(record), METACHARACTERS]
    async with await spawn_server(command, cwd=tmp_path) as server:
        assert await asyncio.wait_for(server.wait(), 30) == 0
    assert json.loads(record.read_text()) == [METACHARACTERS]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["argv.json"]


FORBIDDEN_CALLS = ("shell=True", "create_subprocess_shell", "os.system", "os.popen")


@pytest.mark.parametrize("needle", FORBIDDEN_CALLS)
def test_no_source_file_uses_a_shell(needle: str) -> None:
    """No module of the library spells a call that runs a command line through a shell."""
    sources = sorted(SOURCE_DIR.rglob("*.py"))
    assert sources, f"no sources under {SOURCE_DIR}"
    offenders = [
        str(path.relative_to(ROOT)) for path in sources if needle in path.read_text("utf-8")
    ]
    assert offenders == []


# -- a server cannot make the client write or run anything --------------------------------------


async def _session(**options: Any) -> tuple[LspSession, FakeServer]:
    client, server_end = create_memory_transport_pair()
    server = FakeServer(server_end)
    session = LspSession(client, **options)
    await session.initialize()
    return session, server


async def test_apply_edit_is_refused_by_default_and_no_file_changes(tmp_path: Path) -> None:
    """Without on_apply_edit, applyEdit answers applied: false and the disk is untouched."""
    target = tmp_path / "victim.py"
    target.write_text("original\n")
    uri, new_uri = target.as_uri(), (tmp_path / "created.py").as_uri()
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}
    edit = {
        "changes": {uri: [{"range": whole, "newText": "import os; os.system('id')\n"}]},
        "documentChanges": [
            {"kind": "create", "uri": new_uri},
            {"kind": "rename", "oldUri": uri, "newUri": new_uri},
            {"kind": "delete", "uri": uri},
        ],
    }
    session, server = await _session()
    try:
        reply = await server.request("workspace/applyEdit", {"label": "x", "edit": edit})
    finally:
        await session.shutdown()
    assert reply["result"]["applied"] is False
    assert reply["result"]["failureReason"]
    assert [path.name for path in tmp_path.iterdir()] == ["victim.py"]
    assert target.read_text() == "original\n"


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("workspace/executeCommand", {"command": "rm", "arguments": ["-rf", "/"]}),
        ("window/showDocument", {"uri": "https://example.invalid/", "external": True}),
        ("shell/run", {"command": "id"}),
        ("workspace/willCreateFiles", {"files": [{"uri": "file:///tmp/x"}]}),
    ],
)
async def test_other_server_requests_get_method_not_found(method: str, params: JSONObject) -> None:
    """Requests the client does not serve (executeCommand runs client to server only) fail."""
    session, server = await _session()
    try:
        reply = await server.request(method, params)
    finally:
        await session.shutdown()
    assert reply["error"]["code"] == ErrorCodes.MethodNotFound
    assert "result" not in reply


HOSTILE_SECTIONS = ["env", "PATH", "HOME", "os.environ", "../", "..", "/etc/passwd", "__class__"]


@pytest.mark.parametrize("configuration", [None, {"python": {"lint": True}}])
async def test_configuration_answers_only_carry_what_the_app_gave(
    configuration: dict[str, Any] | None,
) -> None:
    """Sections naming the environment or paths get null; only the app's settings go out."""
    session, server = await _session(configuration=configuration)
    items = [{"section": section} for section in HOSTILE_SECTIONS]
    items.append({"section": "python.lint"})
    items.append({})
    try:
        reply = await server.request("workspace/configuration", {"items": items})
    finally:
        await session.shutdown()
    expected_lint = None if configuration is None else True
    expected_all = {} if configuration is None else configuration
    assert reply["result"] == [None] * len(HOSTILE_SECTIONS) + [expected_lint, expected_all]


# -- the size cap and the header bound, per transport --------------------------------------------


def _stream_transport(limit: int) -> tuple[FakeStream, list[BaseException | None]]:
    stream = FakeStream()
    transport = create_stream_transport(stream, max_message_bytes=limit)
    reasons: list[BaseException | None] = []
    transport.on_close(reasons.append)
    return stream, reasons


def test_stream_refuses_an_oversized_frame_on_its_header_alone() -> None:
    """A declared length over the cap closes the transport before one body byte arrives."""
    stream, reasons = _stream_transport(1024)
    stream.feed(b"Content-Length: 1099511627776\r\n\r\n")
    assert len(reasons) == 1
    assert isinstance(reasons[0], FramingError)
    assert "1099511627776" in str(reasons[0])
    assert stream.close_calls == 1
    assert stream.listeners == 0  # nothing more is read, so nothing is buffered


def test_stream_bounds_a_header_that_never_ends() -> None:
    """Header bytes without the closing blank line fail once past the 8 KiB header bound."""
    stream, reasons = _stream_transport(1024)
    line = b"X-Padding: " + b"a" * 1000 + b"\r\n"
    for _ in range(9):
        if reasons:
            break
        stream.feed(line)
    assert len(reasons) == 1
    assert isinstance(reasons[0], FramingError)


async def test_memory_pair_copies_each_message_through_json() -> None:
    """The memory pair hands over a JSON copy: the sender's objects never reach the peer."""
    client, server = create_memory_transport_pair()
    got: asyncio.Queue[JSONObject] = asyncio.Queue()
    server.on_message(got.put_nowait)
    params: dict[str, Any] = {"items": [1]}
    client.send({"jsonrpc": "2.0", "method": "m", "params": params})
    params["items"].append(2)
    with pytest.raises((TypeError, ValueError)):
        client.send({"jsonrpc": "2.0", "method": "m", "params": {"x": object()}})
    received = await asyncio.wait_for(got.get(), 5)
    client.close()
    assert received["params"] == {"items": [1]}
    assert received["params"] is not params


async def test_websocket_message_over_the_cap_closes_with_1009() -> None:
    """A text frame over max_message_bytes ends the transport with FramingError and code 1009."""
    from websockets.asyncio.server import ServerConnection, serve

    codes: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
    big = json.dumps({"jsonrpc": "2.0", "method": "m", "params": {"pad": "x" * 4000}})

    async def handler(connection: ServerConnection) -> None:
        await connection.send(big)
        await connection.wait_closed()
        if not codes.done():
            codes.set_result(connection.close_code)

    async with serve(handler, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        transport = await connect_websocket(f"ws://127.0.0.1:{port}", max_message_bytes=1000)
        closed: asyncio.Future[BaseException | None] = asyncio.get_running_loop().create_future()

        def on_close(reason: BaseException | None) -> None:
            if not closed.done():
                closed.set_result(reason)

        transport.on_close(on_close)
        transport.on_message(lambda message: pytest.fail("an oversized message was delivered"))
        reason = await asyncio.wait_for(closed, 10)
        code = await asyncio.wait_for(codes, 10)
        await transport.wait_closed()
    assert isinstance(reason, FramingError)
    assert code == 1009


# -- globs from the server ---------------------------------------------------------------------

# Measured on a 2-core machine: with the backtracking regexes the glob matcher had, supports() took
# 0.45 s for 5 stars and 2.8 s for 6 stars against a 60-character name; 10 stars did not finish
# in 2 minutes. "**/" repeated 10 times against a 30-segment path took 60 s.
PATHOLOGICAL_GLOB = "**/" + "*a" * 6 + "*b"
LONG_URI = "file:///" + "a" * 60
GLOB_BUDGET = 0.5  # seconds: a linear-time matcher needs well under a millisecond here


async def _register_pattern(
    pattern: str, errors: list[BaseException] | None = None
) -> tuple[LspSession, FakeServer, JSONObject]:
    session, server = await _session()
    if errors is not None:
        session.on_error(errors.append)
    registration = {
        "id": "hostile",
        "method": "textDocument/hover",
        "registerOptions": {"documentSelector": [{"pattern": pattern}]},
    }
    reply = await server.request("client/registerCapability", {"registrations": [registration]})
    return session, server, reply


async def test_a_pathological_glob_does_not_stall_supports() -> None:
    """supports() with a hostile glob registration answers within a fraction of a second."""
    session, _, reply = await _register_pattern(PATHOLOGICAL_GLOB)
    try:
        assert reply.get("result", "missing") is None
        started = time.perf_counter()
        assert session.supports("textDocument/hover", LONG_URI) is False
        elapsed = time.perf_counter() - started
    finally:
        await session.shutdown()
    assert elapsed < GLOB_BUDGET, f"supports() took {elapsed:.2f} s"


async def test_a_moderate_glob_registration_is_answered_quickly() -> None:
    """Ordinary globs from servers cost next to nothing, so the budget above is fair."""
    session, _, reply = await _register_pattern("**/*.{py,pyi}")
    try:
        started = time.perf_counter()
        assert session.supports("textDocument/hover", "file:///w/src/pkg/mod.py") is True
        assert session.supports("textDocument/hover", LONG_URI) is False
        elapsed = time.perf_counter() - started
    finally:
        await session.shutdown()
    assert reply.get("result", "missing") is None
    assert elapsed < GLOB_BUDGET


NESTED_BRACES = "{" * 500 + "a" + "}" * 500


async def test_deeply_nested_braces_are_an_unreadable_glob() -> None:
    """A glob nested too deeply: the registration succeeds, its filter matches nothing,
    and on_error hears one GlobError."""
    errors: list[BaseException] = []
    session, _, reply = await _register_pattern(NESTED_BRACES, errors)
    try:
        matched = session.supports("textDocument/hover", "file:///a")
        session.supports("textDocument/hover", "file:///b")
    finally:
        await session.shutdown()
    assert reply.get("result", "missing") is None
    assert matched is False
    assert [type(error).__name__ for error in errors] == ["GlobError"]
    assert "nested" in str(errors[0])


def test_the_forbidden_calls_are_spelled_as_the_docs_say() -> None:
    """The grep list above matches the list docs/security.md promises."""
    text = (ROOT / "docs" / "security.md").read_text("utf-8")
    for needle in FORBIDDEN_CALLS:
        assert re.search(re.escape(f"`{needle}`"), text), needle
