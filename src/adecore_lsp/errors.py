"""Every exception adecore-lsp raises, in one place.

The tree::

    LspError(Exception)              a request failed; .code (ErrorCodes or int), .message, .data
    ├── StaleResultError             the document changed before the answer came; .uri
    ├── RequestTimeoutError          a request's deadline passed (RequestCancelled); .method
    ├── MessageEncodingError(ValueError)  params or a message that JSON cannot carry
    │   the workspace layer's own:
    ├── ServerNotFoundError          a server that is not installed; .server, .install
    ├── ServerCrashedError           a server that crashed too often; .server, .stderr
    ├── TargetNotFoundError          a target that matches nothing; .target
    ├── AmbiguousTargetError         a target that matches several; .target, .candidates
    ├── EditConflictError            files changed on disk since the plan; .paths
    ├── EditOutsideRootError         an edit naming a path outside the root; .path
    ├── EmptyEditError               an edit plan that changes nothing; .target
    └── WorkspaceClosedError(RuntimeError)  a call of a workspace after it was closed
    TransportError(Exception)        the wire failed
    ├── TransportClosedError         sending on a transport that is closed (by us or by the peer)
    ├── FramingError(ValueError)     bytes that are not a readable message; the stream is closed
    └── SendBufferFullError(BufferError)  a WebSocket peer reads too slowly: 8 MiB wait unsent

Requests always fail with :class:`LspError`. When the connection goes away, the pending
requests fail with an ``LspError`` whose ``__cause__`` is the :class:`TransportError` (or
other exception) that ended it. Errors raised by lower layers (``OSError``, JSON errors) are
translated at the boundary so that only these types reach an application.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

__all__ = [
    "AmbiguousTargetError",
    "EditConflictError",
    "EditOutsideRootError",
    "EmptyEditError",
    "ErrorCodes",
    "FramingError",
    "LspError",
    "MessageEncodingError",
    "SendBufferFullError",
    "ServerCrashedError",
    "RequestTimeoutError",
    "ServerNotFoundError",
    "StaleResultError",
    "TargetNotFoundError",
    "TransportClosedError",
    "TransportError",
    "WorkspaceClosedError",
]


class ErrorCodes(IntEnum):
    """The error codes of JSON-RPC 2.0 and of LSP 3.17."""

    ParseError = -32700
    InvalidRequest = -32600
    MethodNotFound = -32601
    InvalidParams = -32602
    InternalError = -32603
    ServerNotInitialized = -32002
    UnknownErrorCode = -32001
    RequestFailed = -32803
    ServerCancelled = -32802
    ContentModified = -32801
    RequestCancelled = -32800


class LspError(Exception):
    """A JSON-RPC error: what a request failed with, or what a handler answers with.

    ``code`` is an :class:`ErrorCodes` member when the code is a known one, else the plain
    ``int`` the server sent. ``data`` is the error's optional ``data`` member, kept as sent
    (for example ``{"retriggerRequest": false}`` with ``ServerCancelled``).
    """

    code: int
    message: str
    data: Any

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        try:
            self.code = ErrorCodes(code)
        except ValueError:
            self.code = code
        self.message = message
        self.data = data
        super().__init__(code, message, data)

    def __str__(self) -> str:
        """The message alone, in words: the code stays in :attr:`code`."""
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({int(self.code)}, {self.message!r}, {self.data!r})"

    def to_json(self) -> dict[str, Any]:
        """The ``error`` member of a JSON-RPC response carrying this error."""
        error: dict[str, Any] = {"code": int(self.code), "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class StaleResultError(LspError):
    """An answer about a document that has changed since the request was sent.

    Its code is ``ContentModified``, like the server's own error of that name; the type tells
    the two apart: this one was noticed by the client. Drop the answer and ask again.
    """

    uri: str

    def __init__(self, uri: str, message: str | None = None) -> None:
        super().__init__(
            ErrorCodes.ContentModified,
            message or f"the document {uri} changed before the answer arrived",
        )
        self.uri = uri

    def __repr__(self) -> str:
        return f"StaleResultError({self.uri!r}, {self.message!r})"


class RequestTimeoutError(LspError):
    """A request that got no answer before its deadline: ``$/cancelRequest`` was sent. Its
    code is ``RequestCancelled``; it says that the answer is missing, not that it is empty
    (the command line exits 3 for it: incomplete)."""

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(
            ErrorCodes.RequestCancelled, f"{method} got no answer within {timeout:g} s"
        )
        self.method = method
        self.timeout = timeout


class MessageEncodingError(LspError, ValueError):
    """A message that cannot be written as JSON: NaN, a lone surrogate, an object JSON lacks.

    Raised by :func:`~adecore_lsp.encode_message` and so by every transport's ``send`` and
    every session call, before anything is written: the connection is untouched. It is an
    :class:`LspError` (code ``InvalidParams``) so that a request fails with one type, and a
    ``ValueError`` because the caller's value is at fault.
    """

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCodes.InvalidParams, message)

    def __repr__(self) -> str:
        return f"MessageEncodingError({self.message!r})"


class ServerNotFoundError(LspError):
    """A server that is not installed: the message names it and says how to install it.

    Nothing is ever downloaded; ``install`` is the registry's one-line hint.
    """

    def __init__(self, server: str, install: str = "", detail: str = "") -> None:
        hint = f"; install it with: {install}" if install else ""
        found = f" ({detail})" if detail else ""
        super().__init__(
            ErrorCodes.InternalError, f"the language server {server} is not installed{found}{hint}"
        )
        self.server = server
        self.install = install


class ServerCrashedError(LspError):
    """A server that crashed more often than the restart budget allows.

    ``stderr`` holds its last lines of standard error, which the message quotes.
    """

    def __init__(self, server: str, message: str, stderr: str = "") -> None:
        quoted = f"\nits last stderr lines:\n{stderr}" if stderr else ""
        super().__init__(ErrorCodes.InternalError, f"{message}{quoted}")
        self.server = server
        self.stderr = stderr


class TargetNotFoundError(LspError):
    """A target (a position, a name path or a bare name) that matches nothing."""

    def __init__(self, target: str, message: str) -> None:
        super().__init__(ErrorCodes.InvalidParams, message)
        self.target = target


class AmbiguousTargetError(LspError):
    """A target that matches several symbols; nothing is picked silently.

    ``candidates`` holds one ``(kind, name_path, location)`` per match, and the message lists
    them as targets that pick each one.
    """

    def __init__(self, target: str, candidates: list[tuple[str, str, Any]]) -> None:
        listed = "".join(f"\n  {kind} {path} at {where}" for kind, path, where in candidates)
        super().__init__(
            ErrorCodes.InvalidParams,
            f"{target!r} matches {len(candidates)} symbols; name one of them:{listed}",
        )
        self.target = target
        self.candidates = candidates


class EditConflictError(LspError):
    """Files changed on disk since an edit plan was made: nothing was written."""

    def __init__(self, paths: list[str]) -> None:
        super().__init__(
            ErrorCodes.ContentModified,
            "nothing was written: these files changed on disk since the plan was made "
            f"(make the plan again): {', '.join(paths)}",
        )
        self.paths = paths


class EditOutsideRootError(LspError):
    """An edit that names a path outside the workspace's root (after its symbolic links are
    resolved): the whole edit is refused and nothing is written. ``path`` is the one named."""

    def __init__(self, path: str, message: str | None = None) -> None:
        super().__init__(
            ErrorCodes.InvalidParams,
            message or f"nothing was written: {path} is outside the root",
        )
        self.path = path


class EmptyEditError(LspError):
    """An edit that changes nothing (a rename the server answered with no changes)."""

    def __init__(self, target: str, message: str | None = None) -> None:
        super().__init__(
            ErrorCodes.RequestFailed, message or f"the edit of {target} changes nothing"
        )
        self.target = target


class WorkspaceClosedError(LspError, RuntimeError):
    """A call of a workspace after ``aclose()`` (or the sync facade's ``close()``): it is
    refused and starts nothing. Also a ``RuntimeError``, as using a closed object is."""

    def __init__(self) -> None:
        super().__init__(
            ErrorCodes.InvalidRequest, "the workspace is closed: make a new Workspace to go on"
        )


class TransportError(Exception):
    """The wire failed: the connection is closed or the bytes could not be read."""


class TransportClosedError(TransportError):
    """The transport is closed, by us or by the peer, so nothing more can be sent."""


class FramingError(TransportError, ValueError):
    """Bytes that are not a readable message (bad header, bad body, over the size cap)."""


class SendBufferFullError(TransportError, BufferError):
    """``send`` refused a message: more than 8 MiB already wait for a peer that reads slowly.

    The transport stays open and every message accepted before is still sent; try again
    once the peer has caught up, or close the transport.
    """


# -- translation at the session's boundary (not public names) ----------------------------


def closed_session_error(cause: BaseException | None) -> LspError:
    """What a call on a closed session raises: ``InternalError``, chained to what closed it."""
    error = LspError(ErrorCodes.InternalError, f"the session is closed: {cause or 'closed'}")
    error.__cause__ = cause
    return error


def connection_lost_error(cause: BaseException) -> LspError:
    """What a pending request fails with when the connection goes: chained to the reason."""
    error = LspError(ErrorCodes.InternalError, f"the connection closed: {cause}")
    error.__cause__ = cause
    return error


def send_failure(method: str, error: BaseException) -> BaseException:
    """What a call raises when the transport refused its message: always an :class:`LspError`.

    Params JSON cannot carry are a :class:`MessageEncodingError` (a ``ValueError``) whichever
    transport refused them; a closed transport fails like a closed session; anything else a
    transport raises (``SendBufferFullError``, ``OSError``) is an ``InternalError`` with the
    cause chained. ``KeyboardInterrupt``, ``SystemExit`` and cancellation pass unchanged.
    """
    if isinstance(error, MessageEncodingError):
        return error
    if isinstance(error, TransportClosedError):
        return closed_session_error(error)
    if isinstance(error, (TypeError, ValueError)):
        return MessageEncodingError(f"cannot send {method}: {error}")
    if isinstance(error, Exception):
        return LspError(
            ErrorCodes.InternalError, f"the transport could not send {method}: {error!r}"
        )
    return error
