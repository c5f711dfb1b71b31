"""Pull diagnostics for the open documents of a session, delivered like pushed ones.

With ``pull_diagnostics=True``, :class:`DiagnosticPulls` sends ``textDocument/diagnostic`` for
each open document whose server answers it (statically or by a registration whose selector
matches): after the open and after each change, again when the server asks for a refresh or
registers the capability, and, when the provider has ``interFileDependencies``, for its other
open documents after a change. Each pull waits a short window (the session's
``refresh_window``) so that a burst of triggers makes one pull per document; capability
changes wait one window more, as a refresh is announced a window after it came, so that a
registration and a refresh close together make one pull too. A pull answered after its
document changed is dropped (a newer one follows the change); a failure goes to ``on_error``,
except ``ServerCancelled``, which is retried once unless the server says not to.

The reports reach the session's diagnostics listeners, the same ones that hear pushes, in the
same shape, and pushes are tracked too, so that a push and a pull that agree are heard once.
The bookkeeping is :class:`~adecore_lsp.protocol.shapes.pull_diagnostics.PullState`'s.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from ._emitter import CLOSE_GRACE
from .errors import LspError, StaleResultError
from .features import calls
from .protocol.documents.documents import TextDocument
from .protocol.shapes.pull_diagnostics import METHOD, REPORT, RETRY, PullState, failure_action
from .protocol.wire.states import SessionState
from .types import JSONObject

if TYPE_CHECKING:
    from .listeners import SessionListeners
    from .protocol.documents.document_sync import DocumentSync
    from .session import LspSession

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


Send = Callable[[JSONObject], Awaitable[Any]]


class DiagnosticPulls:
    """The diagnostics of one session's open documents: pulled, pushed, and what was heard."""

    def __init__(
        self, session: LspSession, sync: DocumentSync, listeners: SessionListeners
    ) -> None:
        """``sync`` and ``listeners`` are the session's own open documents and listeners."""
        self._session = session
        self._sync = sync
        self._listeners = listeners
        self._emitter = listeners.diagnostics
        options = session.options
        self._enabled = options.pull_diagnostics
        self._window = max(options.refresh_window, 0.0)
        self.state = PullState(self._sync.find, dedupe=self._enabled)
        self._versions: dict[str, int] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._running: dict[str, set[asyncio.Task[None]]] = {}
        self._ended: list[asyncio.Task[None]] = []
        self._closed = False
        if self._enabled:
            session.on_capabilities_changed(self._capability_changed)

    # -- what the session tells us ---------------------------------------------------------

    def opened(self, document: TextDocument) -> TextDocument:
        """A document was opened: pull it soon."""
        self._versions[document.uri] = document.version
        self._schedule(document.uri, self._window)
        return document

    def changed(self, document: TextDocument) -> TextDocument:
        """A document may have changed: pull it soon, and its provider's others if they depend."""
        uri = document.uri
        if self._versions.get(uri) == document.version:
            return document  # nothing was sent: the text is as it was
        self._versions[uri] = document.version
        self._schedule(uri, self._window)
        if self._enabled:
            options = self._session.provider_options(METHOD, uri)
            if options is not None and options.get("interFileDependencies") is True:
                for other in self._sync.store:
                    if other != uri and self._session.provider_options(METHOD, other) == options:
                        self._schedule(other, self._window)
        return document

    def closed(self, uri: str) -> None:
        """A document was closed: its pulls end, and its listeners hear an empty report."""
        self._versions.pop(uri, None)
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self._cancel(self._running.pop(uri, ()))
        self.state.forget(uri)
        self._emitter.fire({"uri": uri, "diagnostics": []})

    def pushed(self, params: Any) -> None:
        """A ``publishDiagnostics`` came: its listeners hear it when it is news."""
        report = self._sync.current_diagnostics(params)
        if report is not None and self.state.pushed(report):
            self._emitter.fire(report)

    def _capability_changed(self, method: str) -> None:
        if method == METHOD:
            # A refresh is announced a window after it came: wait one more for a registration.
            for uri in self._sync.store:
                self._schedule(uri, 2 * self._window)

    # -- pulling ---------------------------------------------------------------------------

    def _schedule(self, uri: str, delay: float) -> None:
        if not self._enabled or self._closed:
            return
        loop = asyncio.get_running_loop()
        due = loop.time() + delay
        timer = self._timers.get(uri)
        if timer is not None:
            if timer.when() >= due:
                return
            timer.cancel()
        self._timers[uri] = loop.call_at(due, self._start, uri)

    def _start(self, uri: str) -> None:
        self._timers.pop(uri, None)
        session = self._session
        if session.state is not SessionState.READY or uri not in self._sync.store:
            return
        if not session.supports(METHOD, uri):
            return
        task = asyncio.ensure_future(self._pull(uri))
        self._running.setdefault(uri, set()).add(task)
        task.add_done_callback(lambda done: self._done(uri, done))

    def _done(self, uri: str, task: asyncio.Task[None]) -> None:
        tasks = self._running.get(uri)
        if tasks is not None:
            tasks.discard(task)
            if not tasks:
                del self._running[uri]
        if not task.cancelled() and task.exception() is not None:
            self._listeners.report(task.exception())  # type: ignore[arg-type]

    async def _pull(self, uri: str) -> None:
        session = self._session
        retried = False
        while True:
            options = session.provider_options(METHOD, uri)
            try:
                await self.pull(uri, options, lambda params: session.request(METHOD, params))
                return
            except StaleResultError:
                return  # the change that made it stale asked for a newer pull
            except LspError as error:
                if session.state is not SessionState.READY or uri not in self._sync.store:
                    return  # the session or the document closed meanwhile
                action = failure_action(error, retried)
                if action == RETRY:
                    retried = True
                    continue
                if action == REPORT:
                    self._listeners.report(error)
                return

    async def pull(self, uri: str, options: JSONObject | None, send: Send) -> list[Any]:
        """Pull ``uri`` with ``send``, deliver what is news, and return its items.

        Raises what ``send`` raises, and ``LspError`` ``InternalError`` for an answer of the
        wrong shape.
        """
        document = self._sync.find(uri)
        key = uri if document is None else document.uri
        version = None if document is None else document.version
        result = await send(self.state.params(key, version, options))
        items, reports = self.state.receive(key, version, result)
        for report in reports:
            if self.state.hear(report["uri"], report["version"], report["diagnostics"]):
                self._emitter.fire(report)
        return items

    async def document_diagnostics(self, uri: str, timeout: Any) -> list[Any]:
        """``textDocument/diagnostic`` as a feature call: the items, news to the listeners."""
        session = self._session

        def send(params: JSONObject) -> Awaitable[Any]:
            return calls.send(session, METHOD, uri, params, timeout)

        return await self.pull(uri, session.provider_options(METHOD, uri), send)

    def current(self, uri: str) -> list[Any] | None:
        """The last report heard for the current version of the open document ``uri``."""
        return self.state.current(uri)

    def last(self, uri: str) -> list[Any]:
        """The last diagnostics heard for the open document ``uri``, whatever their version."""
        return self.state.last(uri)

    # -- closing ---------------------------------------------------------------------------

    def _cancel(self, tasks: Iterable[asyncio.Task[None]]) -> None:
        self._ended = [task for task in self._ended if not task.done()]
        for task in tasks:
            task.cancel()
            self._ended.append(task)

    def close(self) -> None:
        """Stop every pull: the timers and the requests on their way."""
        self._closed = True
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        for tasks in list(self._running.values()):
            self._cancel(tasks)
        self._running.clear()

    async def wait_closed(self, timeout: float = CLOSE_GRACE) -> None:
        """Wait, up to ``timeout`` seconds, for the pulls cancelled since to end."""
        tasks = [task for task in self._ended if not task.done()]
        self._ended.clear()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)
