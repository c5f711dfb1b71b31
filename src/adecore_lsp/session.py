"""LspSession: one conversation with one language server over one transport.

The session is a pump: it moves messages between the transport and the sans-IO rules of
:mod:`adecore_lsp.protocol` (JSON-RPC bookkeeping, the state table, the handshake, document
sync, capabilities) and adds the event loop: futures, one deadline timer
(:mod:`adecore_lsp.deadlines`) and tasks. The server's own requests are answered by
:mod:`adecore_lsp.server_calls`. Everything that fails below the session reaches the
application as an :class:`LspError` from the call, or through ``on_error``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from types import TracebackType
from typing import Any

from ._emitter import retrieve_outcome
from ._version import __version__
from .deadlines import RequestDeadlines
from .errors import (
    ErrorCodes,
    LspError,
    MessageEncodingError,
    RequestTimeoutError,
    StaleResultError,
    TransportClosedError,
    closed_session_error,
    connection_lost_error,
    send_failure,
)
from .features import FeatureCalls
from .features.apply import answer_apply_edit
from .listeners import SessionListeners
from .options import (
    DEFAULT,
    ApplyEditHandler,
    ConfigurationHandler,
    DefaultValue,
    LspSessionOptions,
    ShowMessageHandler,
)
from .protocol.capabilities.capabilities import CapabilityRegistry
from .protocol.capabilities.client_capabilities import POSITION_ENCODINGS
from .protocol.documents.document_sync import DocumentSync
from .protocol.documents.documents import TextDocument
from .protocol.wire.lifecycle import (
    HandshakeResult,
    check_initialize_result,
    initialize_params,
    workspace_folder_list,
)
from .protocol.wire.rpc import (
    InvalidMessage,
    Notification,
    Request,
    Response,
    RpcState,
    StrayResponse,
    describe_message,
    notification,
)
from .protocol.wire.server_requests import BuiltinContext
from .protocol.wire.states import SessionEvent, SessionLifecycle, SessionState
from .pull import DiagnosticPulls
from .server_calls import ServerCalls
from .server_view import ServerView
from .transports.base import LspTransport
from .types import Disposable, JSONObject

__all__ = ["LspSession"]

_READY = SessionState.READY  # bound once: a global is read faster than an enum member


def _loop_clock(loop: asyncio.AbstractEventLoop) -> Callable[[], float]:
    """``loop.time``, or the clock it reads when that is asyncio's own (a Python call less)."""
    if getattr(loop.time, "__func__", None) is asyncio.BaseEventLoop.time:
        return time.monotonic
    return loop.time


class LspSession(ServerView, FeatureCalls):
    """One conversation with one language server.

    Call :meth:`initialize` and wait for it before anything else, or use
    ``async with LspSession(transport, ...) as session``. The keywords are the fields of
    :class:`LspSessionOptions`, kept as :attr:`options`. What it asks and hears of the
    server is :class:`~adecore_lsp.server_view.ServerView`'s; the feature calls are
    :class:`~adecore_lsp.features.FeatureCalls`'.
    """

    def __init__(
        self,
        transport: LspTransport,
        *,
        root_uri: str | None = None,
        workspace_folders: Sequence[JSONObject] | None = None,
        client_info: JSONObject | None = None,
        initialization_options: Any = None,
        configuration: Mapping[str, Any] | None = None,
        timeout: float | None = 30.0,
        snippet_support: bool = False,
        on_configuration: ConfigurationHandler | None = None,
        on_apply_edit: ApplyEditHandler | None = None,
        on_show_message: ShowMessageHandler | None = None,
        position_encodings: Sequence[str] = POSITION_ENCODINGS,
        capabilities: Mapping[str, Any] | None = None,
        pull_diagnostics: bool = False,
        process_id: int | DefaultValue | None = DEFAULT,
        shutdown_timeout: float = 5.0,
        refresh_window: float = 0.05,
        apply_edits: bool = False,
        registration_grace: float = 1.0,
    ) -> None:
        options = LspSessionOptions(
            root_uri=root_uri,
            workspace_folders=workspace_folders,
            client_info=client_info,
            initialization_options=initialization_options,
            configuration=configuration,
            timeout=timeout,
            snippet_support=snippet_support,
            on_configuration=on_configuration,
            on_apply_edit=on_apply_edit,
            on_show_message=on_show_message,
            position_encodings=tuple(position_encodings),
            capabilities=capabilities,
            pull_diagnostics=pull_diagnostics,
            shutdown_timeout=shutdown_timeout,
            refresh_window=refresh_window,
            apply_edits=apply_edits,
            registration_grace=registration_grace,
        )
        if not isinstance(process_id, DefaultValue):
            options.process_id = process_id
        self.options = options
        self._transport = transport
        self._lifecycle = SessionLifecycle()
        # Mirrors the lifecycle's state, set only by _move: read on every request.
        self._state = SessionState.NEW
        self._rpc: RpcState[asyncio.Future[Any]] = RpcState()
        self._close_reason: BaseException | None = None
        self._closed_by_us = False
        self._lifecycle_method: str | None = None
        # The loop of the handshake, where every request of the session runs: set by the
        # first request (initialize), as no request can come before it.
        self._loop: asyncio.AbstractEventLoop
        self._clock: Callable[[], float]
        self._initialize_task: asyncio.Task[JSONObject] | None = None
        self._shutdown_task: asyncio.Task[None] | None = None
        self._accepted: HandshakeResult | None = None
        self._ready_at: float | None = None

        self._listeners = listeners = SessionListeners(options.refresh_window)
        self._report = listeners.report
        self._deadline = RequestDeadlines(self._rpc, self._expire, self._report)

        self._registry = CapabilityRegistry(on_error=self._report)
        self._sync = DocumentSync(self._registry, self._write_notification)
        # Whether any document is open: read on every request, set by open and close only.
        self._documents_open = False
        self._builtin_context = BuiltinContext(
            options=options,
            registry=self._registry,
            workspace_folders=workspace_folder_list(options.root_uri, options.workspace_folders),
            capabilities_changed=listeners.capabilities_changed,
            refresh_requested=listeners.refresh_requested,
            apply_workspace_edit=partial(answer_apply_edit, self),
        )
        self._calls = ServerCalls(self._builtin_context, self._send, self._report)
        self._pulls = DiagnosticPulls(self, self._sync, listeners)
        # A transport that is closed already, or keeps messages for its first listener,
        # calls back while it is subscribed to: everything the callbacks touch exists first.
        self._made = False
        self._subscriptions: list[Disposable] = []
        self._subscriptions.append(transport.on_message(self._on_message))
        self._subscriptions.append(transport.on_close(self._on_transport_close))
        self._made = True

    # -- state -------------------------------------------------------------------------

    @property
    def state(self) -> SessionState:
        """``new``, ``initializing``, ``ready``, ``closing`` or ``closed``."""
        return self._state

    @property
    def server_capabilities(self) -> JSONObject:
        """The ``capabilities`` of the server's ``InitializeResult`` (``{}`` before it)."""
        return {} if self._accepted is None else self._accepted.capabilities

    @property
    def server_info(self) -> JSONObject | None:
        """The server's ``serverInfo`` (name and version), if it gave one."""
        return None if self._accepted is None else self._accepted.server_info

    @property
    def position_encoding(self) -> str | None:
        """The negotiated position encoding; ``None`` until the handshake is done."""
        return None if self._accepted is None else self._accepted.position_encoding

    @property
    def ready_at(self) -> float | None:
        """When the handshake ended, on the loop's clock (``loop.time()``); ``None`` before."""
        return self._ready_at

    @property
    def transport(self) -> LspTransport:
        """The transport this session talks over."""
        return self._transport

    # -- handshake ---------------------------------------------------------------------

    async def initialize(self) -> JSONObject:
        """Do the handshake and return the server's ``InitializeResult``.

        Sends ``initialize``, checks the position encoding the server chose, sends
        ``initialized``, then the configuration, if any. Again, the same result while open;
        on a closed session, ``LspError`` (``InvalidRequest``): it does not start again. A
        failed handshake closes the session.
        """
        if self._state is SessionState.CLOSING or self._state is SessionState.CLOSED:
            error = self._lifecycle.refusal("initialize")
            raise error from self._close_reason
        if self._initialize_task is None:
            self._move(SessionEvent.INITIALIZE)
            task = asyncio.ensure_future(self._handshake())
            # Retrieved here so that a handshake nobody awaits any more cannot warn.
            task.add_done_callback(retrieve_outcome)
            self._initialize_task = task
        return await asyncio.shield(self._initialize_task)

    async def _handshake(self) -> JSONObject:
        client = {"name": "adecore-lsp", "version": __version__}
        params = initialize_params(self.options, self._builtin_context.workspace_folders, client)
        try:
            result = await self._lifecycle_call("initialize", params, self.options.timeout)
            offered = params["capabilities"]["general"]["positionEncodings"]
            accepted = check_initialize_result(result, offered)
        except BaseException as error:
            self._abort(error)
            raise
        if self._state is not SessionState.INITIALIZING:
            # Closed while the answer was on its way.
            raise self._unusable_error()
        self._accepted = accepted
        self._registry.set_server_capabilities(accepted.capabilities)
        self._move(SessionEvent.INITIALIZED)
        self._ready_at = self._loop.time()
        self._send(notification("initialized", {}))
        if self.options.configuration is not None:
            self._send_configuration()
        return result  # type: ignore[no-any-return]

    def _move(self, event: SessionEvent) -> None:
        """Apply ``event`` to the state table; the one place the state changes."""
        self._state = self._lifecycle.process(event)

    def _send_configuration(self) -> None:
        settings = self.options.configuration
        self._send(notification("workspace/didChangeConfiguration", {"settings": settings or {}}))

    def set_configuration(self, settings: Mapping[str, Any]) -> None:
        """Replace the settings and, once ready, tell the server with ``didChangeConfiguration``."""
        self.options.configuration = settings
        if self._state is _READY:
            self._send_configuration()

    # -- requests ----------------------------------------------------------------------

    async def request(
        self, method: str, params: Any = None, *, timeout: float | DefaultValue | None = DEFAULT
    ) -> Any:
        """Send a request and return its result.

        Raises :class:`LspError` with the server's error, ``RequestCancelled`` when the
        deadline (``timeout``, else the session's) passes, ``ServerNotInitialized`` before
        the session is ready, and :class:`StaleResultError` when ``params`` name an open
        document (``textDocument.uri``) that changed or closed before the result came.
        Cancelling the awaiting task sends ``$/cancelRequest`` and re-raises
        ``asyncio.CancelledError``.
        """
        if self._state is not _READY:
            # Only the handshake and the shutdown send their own request outside `ready`.
            if method != self._lifecycle_method:
                raise self._unusable_error()
            self._lifecycle_method = None
            # The handshake's loop is the session's: kept, as asking costs a syscall each time.
            self._loop = asyncio.get_running_loop()
            self._clock = _loop_clock(self._loop)
        if isinstance(timeout, DefaultValue):
            timeout = self.options.timeout
        # An answer about an open document must be about the text it still has: looked up
        # only while a document is open (a miss costs a URI-to-path parse).
        snapshot = self._sync.snapshot(params) if self._documents_open else None
        future: asyncio.Future[Any] = self._loop.create_future()
        rpc = self._rpc
        if timeout:
            due = self._clock() + timeout
            request_id, message = rpc.request(method, params, future, timeout, due)
        else:
            request_id, message = rpc.request(method, params, future)
        try:
            self._transport.send(message)
        except BaseException as error:
            rpc.forget(request_id)
            raise send_failure(method, error) from error
        # One timer serves every deadline: only a request due before it moves it.
        if timeout and due < self._deadline.due:
            self._deadline.set(due, self._loop)
        try:
            result = await future
        except asyncio.CancelledError:
            self._abandon(request_id)
            raise
        if snapshot is not None and not self._sync.is_current(snapshot):
            raise StaleResultError(snapshot[0])
        return result

    async def _lifecycle_call(self, method: str, params: Any, timeout: float | None) -> Any:
        """Send ``initialize`` or ``shutdown``, which go out while the session is not ready."""
        self._lifecycle_method = method
        return await self.request(method, params, timeout=timeout)

    def _abandon(self, request_id: int) -> None:
        """The awaiting task was cancelled: tell the server, unless it already answered."""
        if self._rpc.cancel(request_id) is not None:
            self._send_cancel(request_id)

    def _expire(self, request_id: int, method: str, timeout: float) -> None:
        future = self._rpc.cancel(request_id)
        if future is None or future.done():
            return
        self._send_cancel(request_id)
        future.set_exception(RequestTimeoutError(method, timeout))

    def _send_cancel(self, request_id: int) -> None:
        # After shutdown was asked, only exit may be written.
        if self._state is _READY:
            self._send(notification("$/cancelRequest", {"id": request_id}))

    def notify(self, method: str, params: Any = None) -> None:
        """Send a notification; raises ``ServerNotInitialized`` before the session is ready."""
        if self._state is not _READY:
            raise self._unusable_error()
        self._write_notification(method, params)

    def add_workspace_folders(self, folders: Sequence[JSONObject]) -> bool:
        """Tell the server of new workspace folders (``WorkspaceFolder`` objects: ``uri``
        and ``name``) with ``workspace/didChangeWorkspaceFolders``, when it announced
        ``workspace.workspaceFolders.changeNotifications`` or registered the method; they
        answer its ``workspace/workspaceFolders`` from then on. Returns whether it was
        told (a server that takes no such notification is not: start another process for
        the folder, or restart this one with it)."""
        if not self.supports("workspace/didChangeWorkspaceFolders"):
            return False
        self.notify(
            "workspace/didChangeWorkspaceFolders",
            {"event": {"added": list(folders), "removed": []}},
        )
        known = self._builtin_context.workspace_folders
        if known is not None:
            known.extend(folders)
        return True

    def held_writes(self) -> contextlib.AbstractContextManager[None]:
        """A block whose messages go out in one write where the transport can do that (a
        server's pipes): many notifications in a row, one system call. Messages keep their
        order, and should the block wait for anything they go out meanwhile."""
        hold = getattr(self._transport, "held_writes", None)
        return contextlib.nullcontext() if hold is None else hold()

    def _write_notification(self, method: str, params: Any) -> None:
        try:
            self._transport.send(notification(method, params))
        except BaseException as error:
            raise send_failure(method, error) from error

    # -- documents -----------------------------------------------------------------------

    @property
    def documents(self) -> Mapping[str, TextDocument]:
        """The open documents by URI."""
        return self._sync.store

    def open_document(self, uri: str, language_id: str, text: str) -> TextDocument:
        """Open a document: ``didOpen`` goes to the server when it asked for it.

        Its positions use the negotiated encoding. Opening a URI that is open raises
        ``ValueError``; a version continues from the last one the URI had in this session.
        """
        self._check_ready()
        encoding = self.position_encoding or "utf-16"
        document = self._sync.open(uri, language_id, text, encoding)
        self._documents_open = True
        return self._pulls.opened(document)

    def change_document(
        self,
        uri: str,
        text: str | None = None,
        *,
        edits: Sequence[Mapping[str, Any]] | None = None,
    ) -> TextDocument:
        """Change an open document to ``text``, or by LSP content-change ``edits``.

        Sends ``didChange`` in the kind the server asked for: the whole text, or for
        incremental sync the smallest single edit (or the edits, each valid against the text
        the one before left). The version goes up by one; a change that leaves the text as
        it was sends nothing. Raises ``ValueError`` for a document that is not open.
        """
        self._check_ready()
        return self._pulls.changed(self._sync.change(uri, text, edits))

    def save_document(self, uri: str) -> None:
        """Send ``didSave`` (with the text if the server asked for it), when it is wanted."""
        self._check_ready()
        self._sync.save(uri)

    def close_document(self, uri: str) -> None:
        """Close a document: ``didClose`` when wanted, and an empty report to ``on_diagnostics``."""
        self._check_ready()
        self._sync.close(uri)
        self._documents_open = bool(self._sync.store)
        self._pulls.closed(uri)

    def _check_ready(self) -> None:
        if self._state is not _READY:
            raise self._unusable_error()

    # -- incoming ----------------------------------------------------------------------

    def _on_message(self, message: JSONObject) -> None:
        future = self._rpc.take_result(message)
        if future is not None:
            # The usual message, a result we wait for, needs no event object.
            if not future.done():
                future.set_result(message["result"])
            return
        event = self._rpc.receive(message)
        if isinstance(event, Response):
            future = event.waiter
            if not future.done():
                if event.error is None:
                    future.set_result(event.result)
                else:
                    future.set_exception(event.error)
        elif isinstance(event, Notification):
            self._on_notification(event)
        elif isinstance(event, Request):
            if self._state is not SessionState.CLOSED:
                self._calls.receive(event)
        elif isinstance(event, (StrayResponse, InvalidMessage)):
            self._report(LspError(ErrorCodes.InvalidRequest, event.reason, event.message))
            if isinstance(event, InvalidMessage) and event.needs_answer:
                # A request, even one whose id is unusable (then answered with id null).
                self._calls.answer_error(
                    event.id, LspError(ErrorCodes.InvalidRequest, event.reason)
                )
        # A LateResponse answers a request we cancelled: dropped quietly.

    def _on_notification(self, event: Notification) -> None:
        if self._state is SessionState.CLOSED:
            return
        method, params = event.method, event.params
        if method == "$/cancelRequest":
            self._calls.cancel(params)
        elif method == "$/progress":
            self._listeners.progress.fire(params)
        elif method == "textDocument/publishDiagnostics":
            self._pulls.pushed(params)
        self._listeners.notification(method, params)

    def _send(self, message: JSONObject) -> None:
        """Write a message nobody awaits (an answer, a notification of the session's own).

        Nothing once closed; a closed transport is ignored (the session is closing with it).
        A message JSON cannot carry raises :class:`MessageEncodingError`, so that an answer
        can be replaced by an error answer; any other failure of the transport goes to
        ``on_error``, as no caller can hear it.
        """
        if self._state is SessionState.CLOSED:
            return
        try:
            self._transport.send(message)
        except TransportClosedError:
            pass
        except Exception as error:
            failure = send_failure(describe_message(message), error)
            if isinstance(failure, MessageEncodingError):
                raise failure from error
            failure.__cause__ = error
            self._report(failure)

    # -- closing -----------------------------------------------------------------------

    async def shutdown(self) -> None:
        """End the conversation: ``shutdown`` (5 s deadline), ``exit``, then close the transport.

        Waits for a pending handshake first. The session ends ``closed`` even when the
        server never answers or is already gone. Calling it again returns the same result.
        """
        if self._shutdown_task is None:
            task = asyncio.ensure_future(self._shut_down())
            task.add_done_callback(retrieve_outcome)
            self._shutdown_task = task
        await asyncio.shield(self._shutdown_task)

    async def _shut_down(self) -> None:
        if self._initialize_task is not None and not self._initialize_task.done():
            await asyncio.wait([self._initialize_task])
        if self._state is _READY:
            with self.held_writes():
                for uri in list(self._sync.store):
                    try:
                        self.close_document(uri)
                    except LspError:
                        break  # the connection is gone: nothing more can be sent
            self._move(SessionEvent.SHUTDOWN)
            try:
                await self._lifecycle_call("shutdown", None, self.options.shutdown_timeout)
            except LspError:
                pass  # a server that does not answer, or answers wrongly, still gets exit
            self._send(notification("exit"))
        self._abort(None)
        # Nothing of the session stays pending: its handler, listener and pull tasks end.
        closing = self._calls, self._listeners, self._pulls
        await asyncio.gather(*(part.wait_closed() for part in closing))

    def _abort(self, reason: BaseException | None) -> None:
        """Close the transport (the write side first ends); rejects what is pending."""
        if self._state is SessionState.CLOSED:
            return
        self._close_reason = reason
        self._closed_by_us = True
        self._transport.close()
        # The transport tells us through _on_transport_close; make sure even if it did not.
        self._on_transport_close(None)

    def _on_transport_close(self, reason: BaseException | None) -> None:
        if self._state is SessionState.CLOSED:
            return
        ours = self._closed_by_us or self._state is SessionState.CLOSING
        self._move(SessionEvent.CLOSE)
        if reason is None and not ours:
            # The server hung up (it exited, or closed its end) without being asked to.
            reason = TransportClosedError("the server closed the connection")
        if reason is not None:
            self._close_reason = reason
        cause = self._close_reason or TransportClosedError("the connection was closed")
        for future in self._rpc.drain():
            if not future.done():
                future.set_exception(connection_lost_error(cause))
        self._calls.close()
        self._listeners.close()
        self._pulls.close()
        self._deadline.close()  # a send that closed the session sets it no more
        for subscription in self._subscriptions:
            subscription.dispose()
        if reason is not None and not ours and self._made:
            # (A close heard while the session was being made is its state from the start:
            # nobody could listen yet, and initialize says it.)
            self._report(reason)

    def _unusable_error(self) -> LspError:
        if self._state is SessionState.CLOSED or self._state is SessionState.CLOSING:
            return closed_session_error(self._close_reason)
        return self._lifecycle.refusal("send requests or notifications")

    async def __aenter__(self) -> LspSession:
        await self.initialize()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.shutdown()
