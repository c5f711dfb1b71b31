"""A scripted language server on a memory transport, for the session's unit tests.

It answers ``initialize`` and ``shutdown`` by default, records every message it gets, and lets
a test answer any request its own way, send requests and notifications of its own, or write
raw messages a real server would only send by mistake.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from adecore_lsp import LspError
from adecore_lsp.transports.base import LspTransport

Handler = Callable[[Any], Any]

NO_ANSWER = object()
"""Returned by a handler: the fake server does not answer that request."""


class FakeServer:
    """The server end of a memory transport pair, scripted by the test."""

    def __init__(
        self,
        transport: LspTransport,
        *,
        capabilities: dict[str, Any] | None = None,
        server_info: dict[str, Any] | None = None,
    ) -> None:
        self.transport = transport
        self.capabilities: dict[str, Any] = capabilities if capabilities is not None else {}
        self.server_info = server_info
        self.received: list[dict[str, Any]] = []
        self.handlers: dict[str, Handler] = {
            "initialize": self._initialize,
            "shutdown": lambda params: None,
        }
        self.closed: asyncio.Future[BaseException | None] | None = None
        self._next_id = 0
        self._pending: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self._arrived = asyncio.Condition()
        self._tasks: set[asyncio.Task[Any]] = set()
        transport.on_message(self._on_message)
        transport.on_close(self._on_close)

    def _initialize(self, params: Any) -> dict[str, Any]:
        result: dict[str, Any] = {"capabilities": self.capabilities}
        if self.server_info is not None:
            result["serverInfo"] = self.server_info
        return result

    def on(self, method: str, handler: Handler) -> None:
        """Answer ``method`` with ``handler(params)`` (its result, awaited, or LspError)."""
        self.handlers[method] = handler

    def _on_close(self, reason: BaseException | None) -> None:
        if self.closed is None:
            self.closed = asyncio.get_running_loop().create_future()
        if not self.closed.done():
            self.closed.set_result(reason)

    def _on_message(self, message: dict[str, Any]) -> None:
        self.received.append(message)
        task = asyncio.ensure_future(self._notify_arrival())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        if "method" in message and "id" in message:
            handler = self.handlers.get(message["method"])
            if handler is None:
                self.send(
                    {
                        "jsonrpc": "2.0",
                        "id": message["id"],
                        "error": {"code": -32601, "message": "unknown method"},
                    }
                )
            else:
                self._run(message["id"], handler, message.get("params"))
        elif "method" not in message:
            future = self._pending.pop(message.get("id"), None)
            if future is not None and not future.done():
                future.set_result(message)

    def _run(self, request_id: Any, handler: Handler, params: Any) -> None:
        try:
            result = handler(params)
        except LspError as error:
            self.send({"jsonrpc": "2.0", "id": request_id, "error": error.to_json()})
            return
        if inspect.isawaitable(result):

            async def later() -> None:
                try:
                    value = await result
                except LspError as error:
                    self.send({"jsonrpc": "2.0", "id": request_id, "error": error.to_json()})
                    return
                if value is not NO_ANSWER:
                    self.send({"jsonrpc": "2.0", "id": request_id, "result": value})

            task = asyncio.ensure_future(later())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif result is not NO_ANSWER:
            self.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    async def _notify_arrival(self) -> None:
        async with self._arrived:
            self._arrived.notify_all()

    def send(self, message: dict[str, Any]) -> None:
        """Write ``message`` to the client as it is."""
        if not self.transport.closed:  # type: ignore[attr-defined]
            self.transport.send(message)

    def notify(self, method: str, params: Any = None) -> None:
        """Send the client a notification."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    async def request(
        self, method: str, params: Any = None, *, request_id: Any = None
    ) -> dict[str, Any]:
        """Send the client a request and return its whole response message."""
        if request_id is None:
            request_id = f"s{self._next_id}"
            self._next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return await asyncio.wait_for(future, 5)

    async def round_trip(self) -> None:
        """Ask the client something it answers itself, and wait for the answer.

        The client handles messages in order, and its writes arrive in order: once the answer
        is here, everything the client did about the messages sent before it has arrived too.
        """
        await self.request("workspace/workspaceFolders")

    async def wait_until(self, predicate: Callable[[], bool], *, timeout: float = 5) -> None:
        """Wait until ``predicate()`` holds, checked whenever a message arrives."""

        async def holds() -> None:
            async with self._arrived:
                await self._arrived.wait_for(predicate)

        await asyncio.wait_for(holds(), timeout)

    def messages(self, method: str) -> list[dict[str, Any]]:
        """Every message received with ``method``, in order."""
        return [message for message in self.received if message.get("method") == method]

    async def wait_for(
        self, method: str, count: int = 1, *, timeout: float = 5
    ) -> list[dict[str, Any]]:
        """Wait until ``count`` messages with ``method`` have arrived; return them all."""

        async def arrived() -> list[dict[str, Any]]:
            async with self._arrived:
                await self._arrived.wait_for(lambda: len(self.messages(method)) >= count)
            return self.messages(method)

        return await asyncio.wait_for(arrived(), timeout)
