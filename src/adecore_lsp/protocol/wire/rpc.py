"""JSON-RPC 2.0 bookkeeping, without I/O: ids, the pending table, and what each message is.

:class:`RpcState` builds outgoing requests and notifications, remembers which requests wait
for an answer (each with an opaque waiter the I/O layer chooses, such as a future) and when
each falls due, and sorts every incoming message into one of the event types below. The
I/O layer reads the clock and keeps one timer for all deadlines. Nothing here reads a clock
or a socket, so the rules can be tested with plain calls.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ...errors import ErrorCodes, LspError
from ...types import JSONObject

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

W = TypeVar("W")

# Answers that come after we gave up on a request are dropped quietly, so we remember the
# ids we cancelled; the oldest are forgotten past this many, so the table cannot grow forever.
CANCELLED_IDS_KEPT = 4096

DEADLINE_SLACK = 0.001
"""Seconds: deadlines this close to the one being handled expire with it, saving a timer."""


@dataclass(frozen=True, slots=True)
class Response(Generic[W]):
    """The answer to one of our pending requests: ``error`` is set, or ``result`` is."""

    id: int
    waiter: W
    result: Any = None
    error: LspError | None = None


@dataclass(frozen=True, slots=True)
class LateResponse:
    """An answer to a request we had cancelled; drop it."""

    id: int


@dataclass(frozen=True, slots=True)
class StrayResponse:
    """An answer nobody waits for: an unknown id, a second answer, or ``"id": null``."""

    message: JSONObject
    reason: str


@dataclass(frozen=True, slots=True)
class Request:
    """A request of the server: it must get exactly one answer."""

    id: int | str
    method: str
    params: Any


@dataclass(frozen=True, slots=True)
class Notification:
    """A notification of the server."""

    method: str
    params: Any


@dataclass(frozen=True, slots=True)
class InvalidMessage:
    """A message that is no JSON-RPC request, notification or response.

    ``needs_answer`` is set when the message was meant as a request (it has a ``method`` and
    an ``id``): it must be answered with ``InvalidRequest``, under its ``id`` when that is
    usable, else under ``null`` (``id`` is then None), as JSON-RPC 2.0 says.
    """

    message: JSONObject
    reason: str
    id: int | str | None = None
    needs_answer: bool = False


IncomingEvent = (
    Response[Any] | LateResponse | StrayResponse | Request | Notification | InvalidMessage
)


def notification(method: str, params: Any = None) -> JSONObject:
    """A notification message; ``params`` is left out, never sent as ``null``, when None."""
    if params is None:
        return {"jsonrpc": "2.0", "method": method}
    return {"jsonrpc": "2.0", "method": method, "params": params}


def response(request_id: int | str, result: Any) -> JSONObject:
    """A success response; ``result`` is always present (``null`` included)."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_response(request_id: int | str | None, error: LspError) -> JSONObject:
    """An error response carrying ``error``."""
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_json()}


def describe_message(message: JSONObject) -> str:
    """A message in a few words, for an error report: its method, or what it answers."""
    method = message.get("method")
    if isinstance(method, str):
        return method
    return f"the answer to request {message.get('id')!r}"


def _is_id(value: object) -> bool:
    # bool is an int subclass, and JSON's true is no valid id.
    return (type(value) is int) or isinstance(value, str)


def _error_from(error: object) -> LspError:
    if isinstance(error, dict):
        code = error.get("code")
        message = error.get("message")
        if type(code) is int and isinstance(message, str):
            return LspError(code, message, error.get("data"))
        return LspError(
            ErrorCodes.InternalError,
            f"the server answered with a malformed error: {error!r}"[:500],
            error.get("data"),
        )
    return LspError(
        ErrorCodes.InternalError, f"the server answered with a malformed error: {error!r}"[:500]
    )


class RpcState(Generic[W]):
    """Ids, pending requests and their deadlines, and the classification of incoming messages.

    ``W`` is whatever the caller keeps per pending request (a future, say). Ids are integers
    counted from 1, so a server's string or zero ids never clash with ours.

    A request sent with a timeout has a due time (the caller's clock); whatever ends the
    request (an answer, :meth:`cancel`, :meth:`forget`, :meth:`drain` or :meth:`pop_due`)
    forgets it, so the caller needs one timer, set for :meth:`next_due`, and no
    bookkeeping of its own. Finding what is due looks at every request that has a
    deadline; that happens when the caller's timer rings, rarely, while the request path
    stays a dict store and a dict pop.
    """

    __slots__ = ("_cancelled", "_deadlines", "_next_id", "pending")

    def __init__(self) -> None:
        self._next_id = 1
        self.pending: dict[int, W] = {}
        self._cancelled: OrderedDict[int, None] = OrderedDict()
        # request id -> (due time, method, timeout), for the pending requests with a timeout.
        self._deadlines: dict[int, tuple[float, str, float]] = {}

    def request(
        self, method: str, params: Any, waiter: W, timeout: float | None = None, due: float = 0.0
    ) -> tuple[int, JSONObject]:
        """Allocate an id, record ``waiter`` as pending, and return the id and the message.

        With a ``timeout``, the request falls due at ``due`` (its send time plus ``timeout``,
        on the caller's clock) unless it ends before.
        """
        request_id = self._next_id
        self._next_id = request_id + 1
        self.pending[request_id] = waiter
        if timeout:
            self._deadlines[request_id] = (due, method, timeout)
        if params is None:
            return request_id, {"jsonrpc": "2.0", "id": request_id, "method": method}
        return request_id, {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}

    def forget(self, request_id: int) -> W | None:
        """Drop a pending request without an answer (it was never sent); return its waiter."""
        self._deadlines.pop(request_id, None)
        return self.pending.pop(request_id, None)

    def cancel(self, request_id: int) -> W | None:
        """Give up on a pending request: a late answer for it will be a :class:`LateResponse`.

        Returns its waiter, or None when it was not pending (then nothing is remembered).
        """
        waiter = self.pending.pop(request_id, None)
        if waiter is None:
            return None
        self._deadlines.pop(request_id, None)
        cancelled = self._cancelled
        cancelled[request_id] = None
        if len(cancelled) > CANCELLED_IDS_KEPT:
            cancelled.popitem(last=False)
        return waiter

    def drain(self) -> list[W]:
        """Take every pending waiter (the connection is gone) and clear the tables."""
        waiters = list(self.pending.values())
        self.pending.clear()
        self._cancelled.clear()
        self._deadlines.clear()
        return waiters

    def pop_due(self, now: float) -> list[tuple[int, str, float]]:
        """Take ``(request id, method, timeout)`` of each request due by ``now``, in due order.

        Those due within :data:`DEADLINE_SLACK` after ``now`` are included, saving a ring
        of the timer. They stay pending: the caller ends each (with :meth:`cancel`, so that
        a late answer is recognised).
        """
        limit = now + DEADLINE_SLACK
        deadlines = self._deadlines
        due_now = sorted(
            (due, request_id, method, timeout)
            for request_id, (due, method, timeout) in deadlines.items()
            if due <= limit
        )
        for _, request_id, _, _ in due_now:
            del deadlines[request_id]
        return [(request_id, method, timeout) for _, request_id, method, timeout in due_now]

    @property
    def deadline_count(self) -> int:
        """How many pending requests have a deadline."""
        return len(self._deadlines)

    def next_due(self) -> float | None:
        """The earliest due time of a pending request, or None when none has a deadline."""
        return min((entry[0] for entry in self._deadlines.values()), default=None)

    def take_result(self, message: JSONObject) -> W | None:
        """The fast path of :meth:`receive`, for the usual message: a result we wait for.

        When ``message`` is a success response to a pending request (an integer id that is
        pending, a ``result``, no ``error`` and no ``method``), removes that request and returns
        its waiter, as :meth:`receive` would in a :class:`Response` whose result is
        ``message["result"]``. Otherwise returns None and changes nothing: then call
        :meth:`receive`. It builds no event object, which is most of ``receive``'s cost.
        """
        request_id = message.get("id")
        if (
            type(request_id) is int
            and "result" in message
            and "error" not in message
            and "method" not in message
        ):
            self._deadlines.pop(request_id, None)
            return self.pending.pop(request_id, None)
        return None

    def receive(self, message: JSONObject) -> IncomingEvent:
        """Sort one incoming message; never raises for any dict."""
        method = message.get("method")
        if method is not None:
            return self._receive_call(message, method)
        if "id" not in message:
            return InvalidMessage(message, "a message with neither method nor id")
        request_id = message["id"]
        if request_id is None:
            return StrayResponse(message, "an error response with a null id")
        waiter = self.pending.pop(request_id, None) if type(request_id) is int else None
        if waiter is None:
            if type(request_id) is int and request_id in self._cancelled:
                del self._cancelled[request_id]
                return LateResponse(request_id)
            return StrayResponse(message, f"a response for id {request_id!r}, which is not pending")
        self._deadlines.pop(request_id, None)
        if "error" in message:
            return Response(request_id, waiter, error=_error_from(message["error"]))
        if "result" in message:
            return Response(request_id, waiter, result=message["result"])
        return Response(
            request_id,
            waiter,
            error=LspError(
                ErrorCodes.InvalidRequest, "the server's response has neither result nor error"
            ),
        )

    def _receive_call(self, message: JSONObject, method: object) -> IncomingEvent:
        if not isinstance(method, str):
            bad_id = message.get("id")
            return InvalidMessage(
                message,
                "the method is not a string",
                bad_id if _is_id(bad_id) else None,
                needs_answer="id" in message,
            )
        if "id" in message:
            request_id = message["id"]
            if not _is_id(request_id):
                return InvalidMessage(
                    message,
                    f"a request with the invalid id {request_id!r} (an id is an integer or a "
                    "string)",
                    needs_answer=True,
                )
            return Request(request_id, method, message.get("params"))
        return Notification(method, message.get("params"))
