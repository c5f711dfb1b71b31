"""The server's requests to the client: each answered exactly once, whatever its handler does.

A request goes to the application's handler (``session.on_request``) or to the session's
built-in answer (:mod:`adecore_lsp.protocol.wire.server_requests`). A plain result is answered at
once; an awaitable runs as a task, which the server may cancel (``$/cancelRequest``) and
closing the session cancels. A handler's failure is an error answer and, unless it is an
:class:`LspError` the handler meant as its answer, a report to ``on_error``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from ._emitter import CLOSE_GRACE
from .errors import ErrorCodes, LspError, MessageEncodingError
from .protocol.wire.rpc import Request, error_response, response
from .protocol.wire.server_requests import BUILTIN_HANDLERS, BuiltinContext, ItemAnswers
from .types import Disposable, JSONObject

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

RequestHandler = Callable[[Any, asyncio.Event], Any]
"""Answers a server request: gets ``params`` and an event set when the server cancels."""

# Requests the session must see itself even when the application handles them too.
_TRACKED_REQUESTS = frozenset({"client/registerCapability", "client/unregisterCapability"})


class ServerCalls:
    """The handlers of server requests, and the requests they are still answering."""

    def __init__(
        self,
        context: BuiltinContext,
        send: Callable[[JSONObject], None],
        report: Callable[[BaseException], None],
    ) -> None:
        self._context = context
        self._send = send
        self._report = report
        self._handlers: dict[str, RequestHandler] = {}
        # Requests still being answered: id -> (cancel event, task).
        self._running: dict[int | str, tuple[asyncio.Event, asyncio.Task[Any]]] = {}
        self._closed = False
        self._ended: list[asyncio.Task[Any]] = []

    def on_request(self, method: str, handler: RequestHandler) -> Disposable:
        """Answer ``method`` with ``handler``; the newest handler of a method wins."""
        if not callable(handler):
            raise TypeError(f"a handler must be callable, not {type(handler).__name__}")
        self._handlers[method] = handler

        def remove() -> None:
            if self._handlers.get(method) is handler:
                del self._handlers[method]

        return Disposable(remove)

    @property
    def running(self) -> int:
        """How many server requests are still being answered."""
        return len(self._running)

    def receive(self, request: Request) -> None:
        """Answer one server request, now or when its handler's task ends."""
        if self._closed:
            return
        request_id, method, params = request.id, request.method, request.params
        if request_id in self._running:
            self.answer_error(
                request_id,
                LspError(ErrorCodes.InvalidRequest, f"request id {request_id!r} is already in use"),
            )
            return
        handler = self._handlers.get(method)
        builtin = BUILTIN_HANDLERS.get(method)
        cancelled = asyncio.Event()
        try:
            if handler is not None and method not in _TRACKED_REQUESTS:
                result = handler(params, cancelled)
            elif builtin is not None:
                result = builtin(self._context, params)
            else:
                self.answer_error(
                    request_id,
                    LspError(ErrorCodes.MethodNotFound, f"the client does not handle {method}"),
                )
                return
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:
            self._answer_failure(request_id, method, error)
            return
        if isinstance(result, ItemAnswers):
            result = _await_all(result.answers)
        elif not inspect.isawaitable(result):
            self._answer(request_id, result)
            return
        task = asyncio.ensure_future(_await(result))
        self._running[request_id] = (cancelled, task)
        task.add_done_callback(lambda done: self._handler_done(request_id, method, done))

    def cancel(self, params: Any) -> None:
        """The server cancelled one of its requests (``$/cancelRequest`` params)."""
        request_id = params.get("id") if isinstance(params, dict) else None
        if not isinstance(request_id, (int, str)):
            return
        entry = self._running.pop(request_id, None)
        if entry is None:
            return  # already answered, or never ours: nothing to do
        cancelled, task = entry
        cancelled.set()
        task.cancel()
        self.answer_error(
            request_id, LspError(ErrorCodes.RequestCancelled, "the server cancelled the request")
        )

    def close(self) -> None:
        """Cancel every handler still running; nothing is answered any more."""
        self._closed = True
        entries = list(self._running.values())
        self._running.clear()
        for cancelled, task in entries:
            cancelled.set()
            task.cancel()
            self._ended.append(task)

    async def wait_closed(self, timeout: float = CLOSE_GRACE) -> None:
        """Wait, up to ``timeout`` seconds, for the handler tasks cancelled by :meth:`close`."""
        tasks = [task for task in self._ended if not task.done()]
        self._ended.clear()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    def answer_error(self, request_id: int | str | None, error: LspError) -> None:
        """Answer a request with ``error``."""
        self._send(error_response(request_id, error))

    def _handler_done(self, request_id: int | str, method: str, task: asyncio.Task[Any]) -> None:
        error = None if task.cancelled() else task.exception()
        entry = self._running.get(request_id)
        if entry is None or entry[1] is not task:
            # Already answered (the server cancelled, or the session closed).
            if error is not None and not isinstance(error, LspError):
                self._report(error)
            return
        del self._running[request_id]
        if task.cancelled():
            self.answer_error(
                request_id, LspError(ErrorCodes.RequestCancelled, f"{method} was cancelled")
            )
        elif error is not None:
            self._answer_failure(request_id, method, error)
        else:
            self._answer(request_id, task.result())

    def _answer(self, request_id: int | str, result: Any) -> None:
        try:
            message = response(request_id, result)
            self._send(message)
        except MessageEncodingError as error:
            self._report(error)
            self.answer_error(
                request_id,
                LspError(ErrorCodes.InternalError, f"the client's answer is not JSON: {error}"),
            )

    def _answer_failure(self, request_id: int | str, method: str, error: BaseException) -> None:
        if isinstance(error, LspError):
            self.answer_error(request_id, error)
            return
        self._report(error)
        self.answer_error(
            request_id,
            LspError(ErrorCodes.InternalError, f"{method} failed in the client: {error!r}"),
        )


async def _await(awaitable: Any) -> Any:
    return await awaitable


async def _await_all(answers: list[Any]) -> list[Any]:
    """Await every awaitable among ``answers`` concurrently; the results, or the first failure.

    Every one is awaited to its end (or cancelled with the request), so none is left
    pending or never awaited, and every failure but the first is retrieved.
    """
    tasks = {
        index: asyncio.ensure_future(answer)
        for index, answer in enumerate(answers)
        if inspect.isawaitable(answer)
    }
    try:
        await asyncio.wait(tasks.values())
    except asyncio.CancelledError:
        for task in tasks.values():
            task.cancel()
        await asyncio.wait(tasks.values())
        raise
    results = list(answers)
    failure: BaseException | None = None
    for index, task in tasks.items():
        error = asyncio.CancelledError() if task.cancelled() else task.exception()
        if error is not None:
            failure = failure or error
        else:
            results[index] = task.result()
    if failure is not None:
        raise failure
    return results
