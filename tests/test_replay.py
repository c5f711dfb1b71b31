"""Replaying a recorded trace in place of a server (adecore_lsp.testing).

A real ruff session is recorded, then replayed with no server on PATH: from the same folder
and from a copy elsewhere (recorded URIs rewritten). Hand-written traces pin the matching
down: ids remapped, release order, server requests answered by the client, requests the
trace has no answer for, bad trace lines, servers the trace lacks, restarts.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import LspError, LspSession, MessageEncodingError, TransportClosedError
from adecore_lsp.protocol.workspace.replay import ReplayScript, sessions
from adecore_lsp.testing import ReplayTransport, load_trace, replay
from adecore_lsp.workspace.servers.registry import Registry
from adecore_lsp.workspace.workspace import Workspace

ROOT = "file:///recorded/proj"
LIVE = "file:///live/other"


def request(id_: Any, method: str, uri: str | None = None, **params: Any) -> dict[str, Any]:
    if uri is not None:
        params["textDocument"] = {"uri": uri}
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


def notify(method: str, uri: str | None = None, **params: Any) -> dict[str, Any]:
    if uri is not None:
        params["textDocument"] = {"uri": uri}
    return {"jsonrpc": "2.0", "method": method, "params": params}


def answer(id_: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "result": result}


def initialize(id_: Any, root: str | None = ROOT) -> dict[str, Any]:
    return request(id_, "initialize", rootUri=root, capabilities={})


def send(message: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return ("send", message)


def receive(message: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return ("receive", message)


HANDSHAKE = [
    send(initialize(1)),
    receive(answer(1, {"capabilities": {"hoverProvider": True}})),
    send(notify("initialized")),
]


def write_trace(path: Path, server: str, recorded: list[tuple[str, dict[str, Any]]]) -> Path:
    lines = [
        json.dumps({"time": 0.0, "direction": d, "server": server, "message": m})
        for d, m in recorded
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# -- the real thing: record ruff, replay without it -----------------------------------------


def summary(report: Any) -> list[tuple[Any, ...]]:
    return [(d.path, d.line, d.column, d.code, d.message) for d in report.items]


@pytest.mark.real_server
async def test_a_recorded_session_replays_without_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("import os\n", encoding="utf-8")
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))
    async with Workspace(project, servers=["ruff"], trace=trace) as ws:
        recorded = await ws.diagnostics(["app.py"])
    assert recorded.complete
    assert [d.code for d in recorded.items] == ["F401"]

    empty = tmp_path / "no-servers"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    elsewhere = tmp_path / "somewhere" / "else"
    shutil.copytree(project, elsewhere)
    for root in (project, elsewhere):
        async with Workspace(root, servers=["ruff"], connect=replay(trace)) as ws:
            replayed = await asyncio.wait_for(ws.diagnostics(["app.py"]), 10)
            assert summary(replayed) == summary(recorded)
            assert replayed.complete
            with pytest.raises(LspError, match=r"no answer for textDocument/hover file:///"):
                await asyncio.wait_for(ws.hover("app.py:1:8"), 10)
            assert ws.running[0].pid is None


@pytest.mark.real_server
async def test_a_replay_needs_no_server_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand-written trace drives a workspace whose server is nowhere on PATH."""
    monkeypatch.setenv("PATH", str(tmp_path))
    (tmp_path / "app.py").write_text("x = 1\n", encoding="utf-8")
    uri = (tmp_path / "app.py").as_uri()
    recorded = [
        send(initialize(1, tmp_path.as_uri())),
        receive(answer(1, {"capabilities": {"hoverProvider": True, "textDocumentSync": 1}})),
        send(notify("initialized")),
        send(notify("textDocument/didOpen", uri)),
        send(request(2, "textDocument/hover", uri)),
        receive(answer(2, {"contents": {"kind": "markdown", "value": "an **int**"}})),
    ]
    trace = write_trace(tmp_path / "t.jsonl", "ruff", recorded)
    async with Workspace(tmp_path, servers=["ruff"], connect=replay(trace)) as ws:
        assert await asyncio.wait_for(ws.hover("app.py:1:1"), 10) == "an **int**"


# -- the script, without I/O ----------------------------------------------------------------


def test_answers_carry_the_live_ids() -> None:
    script = ReplayScript(
        [
            *HANDSHAKE,
            send(request(7, "textDocument/hover", f"{ROOT}/a.py")),
            send(request(8, "textDocument/hover", f"{ROOT}/b.py")),
            receive(answer(8, "b")),
            receive(answer(7, "a")),
        ]
    )
    assert script.receive(initialize(100)) == [
        answer(100, {"capabilities": {"hoverProvider": True}})
    ]
    assert script.receive(notify("initialized")) == []
    # Asked in the other order: each waits for what the trace had sent before its answer.
    assert script.receive(request(101, "textDocument/hover", f"{ROOT}/b.py")) == []
    assert script.receive(request(102, "textDocument/hover", f"{ROOT}/a.py")) == [
        answer(101, "b"),
        answer(102, "a"),
    ]
    assert script.finished


def test_same_requests_are_matched_in_order() -> None:
    uri = f"{ROOT}/a.py"
    script = ReplayScript(
        [
            send(request(1, "textDocument/hover", uri)),
            receive(answer(1, "first")),
            send(request(2, "textDocument/hover", uri)),
            receive(answer(2, "second")),
            send(request(3, "textDocument/hover", f"{ROOT}/b.py")),
            receive(answer(3, "other file")),
        ]
    )
    assert script.receive(request("x", "textDocument/hover", uri)) == [answer("x", "first")]
    assert script.receive(request("y", "textDocument/hover", uri)) == [answer("y", "second")]
    assert script.receive(request("z", "textDocument/hover", uri)) == [
        {
            "jsonrpc": "2.0",
            "id": "z",
            "error": {
                "code": -32603,
                "message": f"the trace has no answer for textDocument/hover {uri}",
            },
        }
    ]


def test_server_messages_wait_for_what_preceded_them() -> None:
    uri = f"{ROOT}/a.py"
    diagnostics = notify("textDocument/publishDiagnostics", uri=None, diagnostics=[])
    script = ReplayScript(
        [
            receive(notify("window/logMessage", message="starting")),
            *HANDSHAKE,
            send(notify("textDocument/didOpen", uri)),
            receive(diagnostics),
            send(request(2, "shutdown")),
            receive(answer(2, None)),
            send(notify("exit")),
        ]
    )
    assert script.receive(initialize(1)) == [
        notify("window/logMessage", message="starting"),
        answer(1, {"capabilities": {"hoverProvider": True}}),
    ]
    # A notification the trace does not have is dropped; it holds nothing back either.
    assert script.receive(notify("workspace/didChangeConfiguration")) == []
    assert script.receive(notify("textDocument/didOpen", uri)) == []  # initialized is missing
    assert script.receive(notify("initialized")) == [diagnostics]
    assert script.receive(request(9, "shutdown")) == [answer(9, None)]
    assert script.returncode is None
    assert script.receive(notify("exit")) == []
    assert script.returncode == 0
    assert script.receive(request(10, "textDocument/hover", uri)) == []  # ended: nothing


def test_server_requests_are_answered_by_the_client() -> None:
    register = request(0, "client/registerCapability", registrations=[])
    script = ReplayScript(
        [
            *HANDSHAKE,
            send(request(2, "textDocument/diagnostic", f"{ROOT}/a.py")),
            receive(register),
            send(answer(0, None)),
            receive(answer(2, {"kind": "full", "items": []})),
        ]
    )
    script.receive(initialize(1))
    script.receive(notify("initialized"))
    assert script.receive(request(5, "textDocument/diagnostic", f"{ROOT}/a.py")) == [register]
    # An answer to something the server never asked matches nothing.
    assert script.receive(answer(99, None)) == []
    assert script.receive({"jsonrpc": "2.0", "id": "0", "result": None}) == []  # "0" is not 0
    assert script.receive(answer(0, None)) == [answer(5, {"kind": "full", "items": []})]


def test_a_recorded_cancel_holds_nothing_back() -> None:
    script = ReplayScript(
        [
            send(request(1, "textDocument/hover", f"{ROOT}/a.py")),
            send(notify("$/cancelRequest", id=1)),
            receive({"jsonrpc": "2.0", "id": 1, "error": {"code": -32800, "message": "gone"}}),
        ]
    )
    assert script.receive(request(4, "textDocument/hover", f"{ROOT}/a.py")) == [
        {"jsonrpc": "2.0", "id": 4, "error": {"code": -32800, "message": "gone"}}
    ]
    assert script.finished


def test_odd_recorded_messages() -> None:
    """Sends that are no message hold nothing back; answers to nothing asked are dropped."""
    script = ReplayScript(
        [
            send({"jsonrpc": "2.0"}),
            send({"jsonrpc": "2.0", "id": 3}),  # neither a result nor an error
            receive({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "?"}}),
            receive(answer(12, "asked by nobody")),
            receive(notify("window/logMessage", message="kept")),
        ]
    )
    assert script.receive({"jsonrpc": "2.0"}) == [notify("window/logMessage", message="kept")]
    assert script.receive({"jsonrpc": "2.0", "method": 5, "id": 1}) == []  # not a method name


def test_no_answer_without_a_uri_and_shutdown_without_one() -> None:
    script = ReplayScript([])
    assert script.receive(request(1, "workspace/symbol", query="x")) == [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {"code": -32603, "message": "the trace has no answer for workspace/symbol"},
        }
    ]
    assert script.receive(request(2, "shutdown")) == [answer(2, None)]
    assert script.receive(notify("exit")) == []
    assert script.returncode == 0


def test_a_recording_made_elsewhere_is_rewritten_to_the_live_root() -> None:
    uri = f"{ROOT}/pkg/a.py"
    published: dict[str, Any] = {
        "jsonrpc": "2.0",
        "method": "textDocument/publishDiagnostics",
        "params": {
            "uri": uri,
            "diagnostics": [
                {
                    "message": "see /recorded/proj/pkg/b.py and file:///recorded/project/x.py",
                    "relatedInformation": [{"location": {"uri": f"{ROOT}/pkg/b.py"}}],
                    "range": [0, 1.5, True, None],
                }
            ],
        },
    }
    script = ReplayScript(
        [
            send(initialize(1)),
            receive(answer(1, {"capabilities": {}, "rootUri": ROOT, "root": "/recorded/proj"})),
            send(notify("textDocument/didOpen", uri)),
            receive(published),
            send(request(2, "textDocument/hover", uri)),
            receive(answer(2, {"contents": f"in {ROOT}"})),
            send(request(3, "textDocument/hover", "file:///outside/c.py")),
            receive(answer(3, "outside")),
            send(request(4, "textDocument/hover", ROOT)),
            receive(answer(4, "the root itself")),
        ]
    )
    assert script.receive(initialize(1, LIVE + "/")) == [
        answer(1, {"capabilities": {}, "rootUri": LIVE, "root": "/live/other"})
    ]
    released: list[Any] = script.receive(notify("textDocument/didOpen", f"{LIVE}/pkg/a.py"))
    assert released[0]["params"]["uri"] == f"{LIVE}/pkg/a.py"
    diagnostic = released[0]["params"]["diagnostics"][0]
    # Under the root only: /recorded/project is another folder.
    assert diagnostic["message"] == "see /live/other/pkg/b.py and file:///recorded/project/x.py"
    assert diagnostic["relatedInformation"][0]["location"]["uri"] == f"{LIVE}/pkg/b.py"
    assert diagnostic["range"] == [0, 1.5, True, None]
    assert published["params"]["uri"] == uri  # the recording itself is untouched
    assert script.receive(request(5, "textDocument/hover", f"{LIVE}/pkg/a.py")) == [
        answer(5, {"contents": f"in {LIVE}"})
    ]
    # A URI outside the root is matched as it is; the root itself by its place.
    assert script.receive(request(6, "textDocument/hover", "file:///outside/c.py")) == [
        answer(6, "outside")
    ]
    assert script.receive(request(7, "textDocument/hover", LIVE)) == [answer(7, "the root itself")]


def test_exact_uris_are_matched_first() -> None:
    """A live URI spelled as recorded matches as it is, even when the roots differ."""
    script = ReplayScript(
        [
            send(initialize(1)),
            send(request(2, "textDocument/hover", f"{ROOT}/a.py")),
            receive(answer(2, "exact")),
        ]
    )
    script.receive(initialize(1, LIVE))
    assert script.receive(request(3, "textDocument/hover", f"{ROOT}/a.py")) == [answer(3, "exact")]


@pytest.mark.parametrize(
    ("recorded_root", "live_root"),
    [
        (None, LIVE),  # no recorded root: nothing to rewrite
        (ROOT, None),  # the live client names none
        (ROOT, ROOT),  # the same folder
        ("untitled:proj", LIVE),  # not a file: URI, so no path to rewrite either
        ("file:///", LIVE),  # the file system's root: every URI is under it, none rewritten
    ],
)
def test_roots_that_give_no_path_rewriting(
    recorded_root: str | None, live_root: str | None
) -> None:
    text = f"{recorded_root}/a.py at /recorded/proj/a.py"
    script = ReplayScript([send(initialize(1, recorded_root)), receive(answer(1, text))])
    [released] = script.receive(initialize(1, live_root))
    if recorded_root == "untitled:proj":
        assert released["result"] == f"{LIVE}/a.py at /recorded/proj/a.py"
    else:
        assert released["result"] == text


def test_initialize_without_params_or_root() -> None:
    script = ReplayScript(
        [
            send({"jsonrpc": "2.0", "id": 1, "method": "initialize"}),
            send({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"rootUri": 3}}),
            receive(answer(1, "ok")),
        ]
    )
    assert script.receive({"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": []}) == []
    assert script.receive(request(10, "initialize", rootUri=LIVE)) == [answer(9, "ok")]


def test_uris_that_are_not_there() -> None:
    """textDocument that is no object, or a uri that is no string: matched by method."""
    script = ReplayScript(
        [
            send(request(1, "textDocument/hover", textDocument="a.py")),
            receive(answer(1, "one")),
            send(request(2, "textDocument/hover", textDocument={"uri": 5})),
            receive(answer(2, "two")),
        ]
    )
    assert script.receive(request(3, "textDocument/hover")) == [answer(3, "one")]
    assert script.receive(request(4, "textDocument/hover")) == [answer(4, "two")]


def test_sessions_split_at_each_initialize() -> None:
    first = [*HANDSHAKE, send(request(2, "shutdown")), send(notify("exit"))]
    crashed = [*HANDSHAKE, send(request(2, "textDocument/hover", f"{ROOT}/a.py"))]
    last = [*HANDSHAKE]
    assert sessions([*first, *crashed, *last]) == [(first, False), (crashed, True), (last, False)]
    assert sessions(crashed) == [(crashed, False)]  # the last one never counts as crashed
    leading = [receive(notify("window/logMessage")), *HANDSHAKE]
    assert sessions(leading) == [(leading, False)]
    assert sessions([]) == [([], False)]


def test_a_crashed_session_ends_once_replayed() -> None:
    script = ReplayScript(
        [*HANDSHAKE, send(request(2, "textDocument/hover", f"{ROOT}/a.py"))], crashed=True
    )
    script.receive(initialize(1))
    assert script.returncode is None
    script.receive(notify("initialized"))
    assert script.returncode is None
    script.receive(request(3, "textDocument/hover", f"{ROOT}/a.py"))
    assert script.returncode == 1


# -- the transport ---------------------------------------------------------------------------


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_the_transport_delivers_on_a_later_turn_in_order() -> None:
    transport = ReplayTransport(
        [
            *HANDSHAKE,
            send(request(5, "textDocument/hover", f"{ROOT}/a.py")),
            receive(notify("window/logMessage", message="hovering")),
            receive(answer(5, "a")),
        ]
    )
    heard: list[dict[str, Any]] = []
    closes: list[BaseException | None] = []
    transport.on_message(heard.append)
    transport.on_close(closes.append)
    transport.send(initialize(1))
    assert heard == []  # never inside send
    await settle()
    assert heard == [answer(1, {"capabilities": {"hoverProvider": True}})]
    transport.send(notify("initialized"))
    transport.send(request(40, "textDocument/hover", f"{ROOT}/a.py"))
    await settle()
    assert heard[1:] == [notify("window/logMessage", message="hovering"), answer(40, "a")]
    heard[-1]["result"] = "changed by the listener"  # a copy: the next replay is untouched
    assert transport.returncode is None
    transport.send(notify("exit"))
    transport.send(notify("exit"))  # after exit, before the end: dropped
    assert transport.returncode is None
    await settle()
    assert transport.returncode == 0
    assert closes == [None]
    with pytest.raises(TransportClosedError):
        transport.send(notify("exit"))


async def test_the_transport_refuses_what_json_cannot_carry() -> None:
    transport = ReplayTransport([])
    with pytest.raises(MessageEncodingError):
        transport.send({"jsonrpc": "2.0", "method": "x", "params": {"n": float("nan")}})


async def test_closing_drops_what_is_on_its_way() -> None:
    transport = ReplayTransport([*HANDSHAKE])
    heard: list[dict[str, Any]] = []
    transport.on_message(heard.append)
    transport.send(initialize(1))
    transport.close()
    transport.close()
    await settle()
    assert heard == []
    assert transport.returncode == 0


async def test_a_crashed_recording_ends_with_returncode_1() -> None:
    transport = ReplayTransport([*HANDSHAKE, receive(notify("window/logMessage"))], crashed=True)
    heard: list[dict[str, Any]] = []
    transport.on_message(heard.append)
    transport.send(initialize(1))
    transport.send(notify("initialized"))
    await settle()
    assert [m.get("method") for m in heard] == [None, "window/logMessage"]
    assert transport.closed
    assert transport.returncode == 1


async def test_a_session_over_the_transport() -> None:
    """LspSession's own ids are whatever it picks; the recorded answers follow them."""
    uri = f"{ROOT}/a.py"
    transport = ReplayTransport(
        [
            send(initialize(71)),
            receive(answer(71, {"capabilities": {"hoverProvider": True}})),
            send(notify("initialized")),
            send(request(72, "textDocument/hover", uri)),
            receive(answer(72, {"contents": "replayed"})),
        ]
    )
    session = LspSession(transport, root_uri=ROOT)
    await asyncio.wait_for(session.initialize(), 10)
    hover = await asyncio.wait_for(
        session.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {}}), 10
    )
    assert hover == {"contents": "replayed"}
    with pytest.raises(LspError, match="no answer for textDocument/definition"):
        await asyncio.wait_for(
            session.request("textDocument/definition", {"textDocument": {"uri": uri}}), 10
        )
    await asyncio.wait_for(session.shutdown(), 10)
    assert transport.returncode == 0


# -- the trace file and connect ----------------------------------------------------------------


def test_load_trace_groups_by_server(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(
        '{"time": 0.1, "direction": "send", "server": "a", "message": {"id": 1}}\n'
        "\n"
        '{"direction": "receive", "server": "b", "message": {"id": 2}}\n'
        '{"time": 0.3, "direction": "receive", "server": "a", "message": {"id": 1}}\n',
        encoding="utf-8",
    )
    assert load_trace(path) == {
        "a": [("send", {"id": 1}), ("receive", {"id": 1})],
        "b": [("receive", {"id": 2})],
    }


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "not JSON"),
        (b"\xff\xfe", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"direction": "send", "message": {}}', "lacks 'server'"),
        ('{"time": 1}', "lacks 'direction', 'server', 'message'"),
        ('{"direction": "sent", "server": "a", "message": {}}', "the direction is 'sent'"),
        ('{"direction": "send", "server": 1, "message": {}}', "the server is not a string"),
        ('{"direction": "send", "server": "a", "message": []}', "the message is not a JSON"),
    ],
)
def test_a_bad_line_names_the_file_and_line(
    tmp_path: Path, line: str | bytes, problem: str
) -> None:
    path = tmp_path / "bad.jsonl"
    good = b'{"direction": "send", "server": "a", "message": {}}\n'
    path.write_bytes(good + good + (line if isinstance(line, bytes) else line.encode()) + b"\n")
    with pytest.raises(ValueError, match=r"bad\.jsonl, line 3: ") as caught:
        load_trace(path)
    assert problem in str(caught.value)
    with pytest.raises(ValueError, match="line 3"):
        replay(path)  # read at once, not at the first connect


def test_an_empty_trace_has_nothing_to_replay(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    with pytest.raises(ValueError, match="nothing to replay"):
        load_trace(path)
    with pytest.raises(FileNotFoundError):
        load_trace(tmp_path / "missing.jsonl")


async def test_connect_to_a_server_the_trace_lacks(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "t.jsonl", "ruff", HANDSHAKE)
    connect = replay(trace)
    spec = Registry.default().get("basedpyright")
    with pytest.raises(LspError, match=r"no message with the server basedpyright; it has ruff"):
        await connect(spec, tmp_path)


async def test_each_connect_replays_its_session(tmp_path: Path) -> None:
    """A restart replays from the start; a recorded restart replays the next session."""
    registry = Registry.default()
    once = write_trace(tmp_path / "once.jsonl", "ruff", HANDSHAKE)
    connect = replay(once)
    for _ in range(2):
        connection = await connect(registry.get("ruff"), tmp_path)
        heard: list[Mapping[str, Any]] = []
        connection.transport.on_message(heard.append)
        connection.transport.send(initialize(1))
        await settle()
        assert heard == [answer(1, {"capabilities": {"hoverProvider": True}})]
        assert (connection.pid, connection.returncode, connection.stderr_lines) == (None, None, ())
        await connection.aclose(grace_period=0.1)
        assert await connection.wait() == 0

    crashed = [*HANDSHAKE, send(request(2, "textDocument/hover", f"{ROOT}/a.py"))]
    second = [send(initialize(1)), receive(answer(1, "second"))]
    connect = replay(write_trace(tmp_path / "twice.jsonl", "ruff", [*crashed, *second]))
    first_connection = await connect(registry.get("ruff"), tmp_path)
    transport = first_connection.transport
    waiting = asyncio.ensure_future(first_connection.wait())
    await settle()
    assert not waiting.done()
    for message in (initialize(1), notify("initialized")):
        transport.send(message)
    transport.send(request(5, "textDocument/hover", f"{ROOT}/a.py"))
    assert await asyncio.wait_for(waiting, 10) == 1
    for _ in range(2):  # the second session, and past the end the last one again
        connection = await connect(registry.get("ruff"), tmp_path)
        heard = []
        connection.transport.on_message(heard.append)
        connection.transport.send(initialize(1))
        await settle()
        assert heard == [answer(1, "second")]
        connection.transport.close()
