"""A Hypothesis state machine over the session's message handling.

A session and a scripted peer share a memory transport pair on an event loop the machine
owns; each rule does one thing (a server message, a client call, a cancellation, a close)
and then lets the loop run a few turns. The invariants are the session's promises to a
hostile server: every call ends, nothing is written after ``exit``, every server request is
answered exactly once until the close, no listener runs after the close, and nothing stays
pending.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from adecore_lsp import LspError, LspSession, SessionState, create_memory_transport_pair
from adecore_lsp.types import JSONObject

TURNS = 6  # loop turns per step: enough for a message to go there and back twice
SLOW_METHOD = "test/slow"  # answered by an async handler that waits until cancelled

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=6,
)
# Dicts a broken server might send; none carries an "id" the test counts answers for.
garbage = st.one_of(
    st.dictionaries(
        st.sampled_from(["jsonrpc", "method", "params", "result", "error", "x"]),
        json_values,
        max_size=4,
    ),
    st.sampled_from(
        [
            {"jsonrpc": "2.0", "id": None, "error": {"code": 1, "message": "m"}},
            {"jsonrpc": "2.0", "id": "g-bad", "method": 5},
            {"jsonrpc": "2.0", "id": True, "method": "x"},
            {"jsonrpc": "2.0", "id": 10**6, "result": 1},
            {"jsonrpc": "2.0", "id": 1.5, "error": "nope"},
        ]
    ),
)
SERVER_METHODS = [
    "workspace/configuration",
    "workspace/workspaceFolders",
    "workspace/applyEdit",
    "window/showDocument",
    "window/workDoneProgress/create",
    "client/registerCapability",
    "workspace/semanticTokens/refresh",
    "no/such/method",
    SLOW_METHOD,
]
SERVER_PARAMS: dict[str, Any] = {
    "workspace/configuration": {"items": [{"section": "a.b"}, {}]},
    "workspace/applyEdit": {"edit": {"changes": {}}},
    "window/showDocument": {"uri": "file:///x"},
    "window/workDoneProgress/create": {"token": "t"},
    "client/registerCapability": {
        "registrations": [{"id": "r", "method": "textDocument/hover", "registerOptions": {}}]
    },
}


class SessionMachine(RuleBasedStateMachine):
    """Random interleavings of server messages, client calls and closes."""

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        client, self.peer = create_memory_transport_pair()
        self.received: list[JSONObject] = []
        self.after_exit: list[JSONObject] = []
        self.exited = False
        self.peer.on_message(self._peer_heard)
        self.session = LspSession(
            client, configuration={"a": {"b": 1}}, shutdown_timeout=0.05, refresh_window=0.001
        )
        self.listener_calls_after_close = 0
        for method in ("x/note", "$/progress"):
            self.session.on_notification(method, self._listener)
        self.session.on_capabilities_changed(self._listener)
        self.session.on_error(lambda error: None)  # a hostile server's errors are expected
        self.session.on_request(SLOW_METHOD, self._slow_handler)
        self.tasks: list[asyncio.Task[Any]] = []
        self.server_ids = (f"s{n}" for n in itertools.count())
        self.server_requests: list[str] = []
        self.server_cancelled: set[str] = set()
        self.server_methods: dict[str, str] = {}
        self.answered_ids: set[int] = set()
        self.loop.run_until_complete(asyncio.wait_for(self.session.initialize(), 5))

    # -- the peer -------------------------------------------------------------------------

    def _peer_heard(self, message: JSONObject) -> None:
        if self.exited:
            self.after_exit.append(message)
        self.received.append(message)
        method = message.get("method")
        if method == "exit":
            self.exited = True
        elif method == "initialize":
            result = {"capabilities": {"hoverProvider": True}}
            self.peer.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif method == "shutdown":
            self.peer.send({"jsonrpc": "2.0", "id": message["id"], "result": None})

    def _send(self, message: JSONObject) -> None:
        if not self.peer.closed:  # type: ignore[attr-defined]
            self._in_loop(lambda: self.peer.send(message))

    def _listener(self, value: object) -> None:
        if self.session.state is SessionState.CLOSED:
            self.listener_calls_after_close += 1

    async def _slow_handler(self, params: Any, cancelled: asyncio.Event) -> Any:
        await cancelled.wait()
        return "too late"

    def _in_loop(self, action: Callable[[], object]) -> None:
        """Run a synchronous call inside the loop, as an app's code would be."""

        async def run() -> None:
            action()

        self.loop.run_until_complete(run())

    def _turns(self, count: int = TURNS) -> None:
        for _ in range(count):
            self.loop.run_until_complete(asyncio.sleep(0))

    def _client_request_ids(self) -> list[int]:
        return [
            message["id"]
            for message in self.received
            if message.get("method") == "x/test" and message["id"] not in self.answered_ids
        ]

    def _answers_to(self, request_id: str) -> int:
        return sum(
            1
            for message in self.received
            if "method" not in message and message.get("id") == request_id
        )

    @property
    def closed(self) -> bool:
        return self.session.state is SessionState.CLOSED

    # -- client calls ----------------------------------------------------------------------

    @rule(deadline=st.sampled_from([None, 0, 0.001, 10.0]))
    def client_request(self, deadline: float | None) -> None:
        """The app sends a request, with or without a deadline of its own."""

        async def call() -> Any:
            return await self.session.request("x/test", {"n": len(self.tasks)}, timeout=deadline)

        task = self.loop.create_task(call())
        # Every outcome (result, LspError, cancellation) is allowed; retrieved so none warns.
        task.add_done_callback(lambda done: done.cancelled() or done.exception())
        self.tasks.append(task)
        self._turns()

    @rule()
    def client_notify(self) -> None:
        """The app sends a notification; a session that is not ready refuses it."""
        try:
            self._in_loop(lambda: self.session.notify("x/tell", {"n": 1}))
        except LspError:
            assert self.session.state is not SessionState.READY
        self._turns()

    @precondition(lambda self: self.tasks)
    @rule(index=st.integers(0, 50))
    def cancel_task(self, index: int) -> None:
        """The app cancels one of its request tasks."""
        self._in_loop(self.tasks[index % len(self.tasks)].cancel)
        self._turns()

    @rule()
    def wait_a_little(self) -> None:
        """Real time passes, so that short deadlines fall due."""
        self.loop.run_until_complete(asyncio.sleep(0.003))
        self._turns()

    # -- server messages ---------------------------------------------------------------------

    @rule(index=st.integers(0, 50), error=st.booleans(), twice=st.booleans())
    def answer_client_request(self, index: int, error: bool, twice: bool) -> None:
        """The server answers a request of the client, with a result or an error, maybe twice."""
        ids = self._client_request_ids()
        if not ids:
            return
        request_id = ids[index % len(ids)]
        self.answered_ids.add(request_id)
        answer: JSONObject = {"jsonrpc": "2.0", "id": request_id}
        answer.update({"error": {"code": -32000, "message": "no"}} if error else {"result": 1})
        for _ in range(2 if twice else 1):
            self._send(dict(answer))
        self._turns()

    @rule(request_id=st.one_of(st.integers(1000, 2000), st.text(max_size=3)))
    def answer_unknown_id(self, request_id: int | str) -> None:
        """The server answers an id nobody waits for."""
        self._send({"jsonrpc": "2.0", "id": request_id, "result": None})
        self._turns()

    @rule(method=st.sampled_from(["x/note", "$/progress", "x/other"]), params=json_values)
    def server_notification(self, method: str, params: Any) -> None:
        """The server sends a notification."""
        self._send({"jsonrpc": "2.0", "method": method, "params": params})
        self._turns()

    @rule(method=st.sampled_from(SERVER_METHODS))
    def server_request(self, method: str) -> None:
        """The server sends a request the client must answer once."""
        request_id = next(self.server_ids)
        message: JSONObject = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if method in SERVER_PARAMS:
            message["params"] = SERVER_PARAMS[method]
        if not self.peer.closed:  # type: ignore[attr-defined]
            self.server_requests.append(request_id)
            self.server_methods[request_id] = method
        self._send(message)
        self._turns()

    @precondition(lambda self: self.server_requests)
    @rule(index=st.integers(0, 50))
    def server_cancel(self, index: int) -> None:
        """The server cancels one of its requests (answered or not)."""
        request_id = self.server_requests[index % len(self.server_requests)]
        self.server_cancelled.add(request_id)
        self._send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": request_id}})
        self._turns()

    @rule(message=garbage)
    def server_garbage(self, message: JSONObject) -> None:
        """The server sends a dict that is no valid JSON-RPC message."""
        self._send(message)
        self._turns()

    # -- closes ----------------------------------------------------------------------------

    @rule()
    def peer_closes(self) -> None:
        """The server end closes the connection."""
        self._in_loop(self.peer.close)
        self._turns()

    @rule()
    def session_shuts_down(self) -> None:
        """The app shuts the session down (and waits for it)."""
        self.loop.run_until_complete(asyncio.wait_for(self.session.shutdown(), 5))
        self._turns()

    # -- invariants ------------------------------------------------------------------------

    @invariant()
    def nothing_is_written_after_exit(self) -> None:
        """After exit the peer receives nothing more."""
        assert self.after_exit == []

    @invariant()
    def each_server_request_is_answered_once(self) -> None:
        """At most one answer per server request; exactly one unless it is slow or we closed."""
        for request_id in self.server_requests:
            count = self._answers_to(request_id)
            assert count <= 1, (request_id, count)
            if self.closed:
                continue
            slow = self.server_methods[request_id] == SLOW_METHOD
            if not slow or request_id in self.server_cancelled:
                assert count == 1, (request_id, count)

    @invariant()
    def no_listener_runs_after_close(self) -> None:
        """Listeners hear nothing once the session is closed."""
        assert self.listener_calls_after_close == 0

    @invariant()
    def a_closed_session_ends_every_call(self) -> None:
        """After a close every request task is done, and nothing is pending."""
        if not self.closed:
            return
        self._turns()
        assert all(task.done() for task in self.tasks)
        assert self.session._rpc.pending == {}
        assert self.session._calls.running == 0

    async def _finish_tasks(self) -> None:
        """Cancel and reap every task left, so none can warn."""
        current = asyncio.current_task()
        leftovers = [task for task in asyncio.all_tasks() if task is not current]
        for task in leftovers:
            task.cancel()
        await asyncio.gather(*leftovers, return_exceptions=True)

    def teardown(self) -> None:
        try:
            if not self.closed:
                self.loop.run_until_complete(asyncio.wait_for(self.session.shutdown(), 5))
            self._turns()
            self.loop.run_until_complete(self._finish_tasks())
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        finally:
            self.loop.close()


SessionMachine.TestCase.settings = settings(
    # CI runs 60 sequences; ADECORE_LSP_FUZZ_EXAMPLES=1000 is the long form (benchmarks/README).
    max_examples=int(os.environ.get("ADECORE_LSP_FUZZ_EXAMPLES", "60")),
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestSessionMachine = SessionMachine.TestCase
