"""One language server of a workspace, for one root: started on first use, restarted when it
crashes (within a budget), its readiness and the finality of its diagnostics tracked.

Concurrent callers share one start. The start, the handshake and each wait have deadlines
of their own. A server that dies fails what was pending with an ``LspError`` quoting its last
stderr lines; the next call starts it again, documents re-opened, while fewer than
``max_restarts`` crashes happened in the last minute, and raises ``ServerCrashedError`` after.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ...environment import environ
from ...errors import (
    ErrorCodes,
    FramingError,
    LspError,
    ServerCrashedError,
    ServerNotFoundError,
    TransportClosedError,
)
from ...options import SessionState
from ...paths import canonical_uri
from ...plain_text import escape_controls
from ...protocol.workspace.finality import DiagnosticsFinality, Mode
from ...protocol.workspace.readiness import ReadinessTracker
from ...session import LspSession
from ...transports.process import spawn_server
from ...types import JSONObject
from ..model import ServerStatus
from .files_listed import FilesListed
from .interpreters import interpreter_for
from .processes import LIVE, STARTED, Connect, ServerConnection, exit_status
from .registry import ServerSpec
from .server_facts import tree_rss, version_of
from .session_options import session_options, workspace_folder
from .signal import Signal
from .tracing import Trace, TracingTransport
from .untrusted_folders import ServerRefusedError, UntrustedFolders

_logger = logging.getLogger("adecore_lsp")

if TYPE_CHECKING:
    from ...protocol.documents.notebook_sync import NotebookSync
    from .notebook_view import NotebookMode, NotebookView

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

CRASH_WINDOW = 60.0
"""Crashes older than this many seconds no longer count against ``max_restarts``."""

STDERR_QUOTED = 12
"""How many of a crashed server's last stderr lines its errors quote."""

CRASH_EXIT_WAIT = 1.0
"""How long a failed call waits for a dying server's exit, to quote its last stderr lines."""

REFUSED_EDIT = (
    "adecore-lsp takes a server's edit only while it makes the rename, format or fix "
    "it was asked for; nothing was written"
)
"""The answer to a ``workspace/applyEdit`` that comes at any other time."""

PULL_REGISTRATION_WAIT = 1.0
"""How long a start waits for a pulling server to register ``textDocument/diagnostic``."""


STOP_GRACE = 0.5
"""Seconds a stopping server (and then its process group) gets at each step before the
next signal: after ``exit``, after SIGTERM, after SIGKILL. The whole group ends within the
shutdown timeout and two seconds."""


class HandshakeTimeout(LspError):
    """A server that did not finish its handshake in time: a wait that timed out, which a
    report of many files shows per file (``reason: "timeout"``) rather than failing."""


class NotebookHooks(Protocol):
    """What a handle asks of the notebooks it keeps across its server's restarts."""

    def reopen(self, handle: ServerHandle, session: LspSession) -> None:
        """After a restart: open again the notebooks the server had."""

    def say_closed(self, handle: ServerHandle, session: LspSession) -> None:
        """Before a stop: close the server's notebooks as notebooks."""


class ServerHandle:
    """A server of a workspace for one root (see the module's docstring)."""

    def __init__(
        self,
        spec: ServerSpec,
        root: Path,
        executable: str,
        *,
        timeout: float,
        max_restarts: int,
        trace: Trace | None,
        changed: Signal,
        progress: list[Callable[[str, Any], object]] | None = None,
        connect: Connect | None = None,
        on_apply_edit: Callable[[ServerHandle, Any], JSONObject] | None = None,
        on_registered: Callable[[str], None] | None = None,
        notebooks_in_root: Callable[[], bool] | None = None,
        folders: Sequence[Path] | None = None,
        untrusted: UntrustedFolders | None = None,
    ) -> None:
        self.spec = spec
        self.untrusted = untrusted
        """The workspace's folders that are not trusted: a Python interpreter the server
        would start in one it reaches is replaced by one of ours (:mod:`.interpreters`),
        and a server whose configuration there names a program is not started."""
        self.folders: list[Path] = list(folders) if folders else [root]
        """The workspace folders the server was told of (its root alone by default): the
        workspace's folders for a server of the whole repository, and each folder told
        since (:meth:`tell_folder`)."""
        self._untold: set[Path] = set()
        self.notebooks_in_root = notebooks_in_root
        """Whether the root holds notebooks: a server whose cell pulls are empty
        (basedpyright) is then asked for pushes only, so that its cells' reports come."""
        self.root = root
        self.executable = executable
        self.timeout = timeout
        self.max_restarts = max_restarts
        self.trace = trace
        self.changed = changed
        self.progress_listeners = progress if progress is not None else []
        self.connect = connect
        self.on_apply_edit = on_apply_edit
        self.on_registered = on_registered
        """Told each method the server registers (or refreshes) a capability of."""
        self.state: str = "stopped"
        self.restarts = 0
        self.process: ServerConnection | None = None
        self.live: LspSession | None = None
        self.readiness = self._new_readiness(time.monotonic())
        self.finality = DiagnosticsFinality(
            spec.settle, quiet_when_unchanged=spec.quiet_when_unchanged
        )
        self.documents: dict[str, tuple[str, str]] = {}  # uri -> (language id, text)
        self.notebooks: dict[str, tuple[NotebookView, NotebookMode]] = {}
        """The notebooks the server has, by the notebook's URI, and how it takes each."""
        self.notebook_sync: tuple[LspSession, NotebookSync] | None = None
        self.notebook_hooks: NotebookHooks | None = None
        """How the notebooks above are opened again after a restart and closed before a stop
        (set by the files floor, :mod:`..files.notebooks`, when it opens one here)."""
        self._crashes: deque[float] = deque()
        self._starting: asyncio.Future[LspSession] | None = None
        self._started_at = 0.0
        self._stopping = False
        self._last_stderr = ""
        self._watcher: asyncio.Task[None] | None = None
        self.crash_reason: str | None = None
        """Why the server was taken for crashed, beyond its exit: a framing error when it
        wrote something other than LSP on its stdout."""
        self._version: asyncio.Future[str | None] | None = None
        self.refreshes = 0
        """How many times the server asked for its diagnostics again, or registered pulls."""
        self.refreshed = Signal()

    def _new_readiness(self, now: float) -> ReadinessTracker:
        spec = self.spec
        return ReadinessTracker(
            source=spec.readiness,
            ready_registration=spec.ready_registration,
            progress_grace=spec.progress_grace,
            settle=spec.settle,
            initialized_at=now,
            status_titles=spec.status_progress,
        )

    # -- life --------------------------------------------------------------------------

    def ready_session(self) -> LspSession | None:
        """The running session when it is ready for requests, else ``None`` (no wait)."""
        live = self.live
        if live is not None and self.state == "running" and live.state is SessionState.READY:
            return live
        return None

    async def session(self) -> LspSession:
        """The running session, starting the server first if it is not running."""
        live = self.ready_session()
        if live is not None:
            return live
        if self._starting is None and self.state == "running":
            await self._settle_crash()
        if self._starting is None:
            if self.state == "crashed":
                self._check_budget()
                self.restarts += 1
            self._starting = asyncio.ensure_future(self._start())
            self._starting.add_done_callback(self._started)
        return await asyncio.shield(self._starting)

    def refusal(self) -> str | None:
        """Why the server may not start here, in words (:mod:`.untrusted_folders`);
        ``None`` when it may, or is running already."""
        if self.untrusted is None or self.live is not None:
            return None
        return self.untrusted.refusal(self.spec, self.root)

    def _started(self, future: asyncio.Future[LspSession]) -> None:
        self._starting = None
        if not future.cancelled():
            future.exception()  # retrieved here; each caller gets it from the shield

    def _check_budget(self) -> None:
        now = time.monotonic()
        while self._crashes and now - self._crashes[0] > CRASH_WINDOW:
            self._crashes.popleft()
        if len(self._crashes) >= self.max_restarts:
            raise ServerCrashedError(
                self.spec.id,
                f"the language server {self.spec.id} crashed {len(self._crashes)} times in the "
                f"last minute (the limit is {self.max_restarts}); not starting it again",
                self._last_stderr,
            )

    async def _start(self) -> LspSession:
        spec = self.spec
        refused = None
        if self.untrusted is not None:  # judged afresh: the last walk may be seconds old
            refused = self.untrusted.refusal(spec, self.root, fresh=True)
        if refused is not None:
            self.state = "stopped"
            raise ServerRefusedError(spec.id, refused)
        self.state = "starting"
        self._stopping = False
        # The environment of the call that starts it (a daemon's caller's), the spec's on top.
        env = {**environ(), **spec.env}
        process: ServerConnection
        try:
            if self.connect is not None:
                process = await self.connect(spec, self.root)
            else:
                spawned = await spawn_server(
                    [self.executable, *spec.command[1:]], cwd=self.root, env=env
                )
                LIVE.add(spawned)
                for told in STARTED:
                    told(spawned)
                process = spawned
        except (FileNotFoundError, PermissionError) as error:
            self.state = "stopped"
            raise ServerNotFoundError(spec.id, spec.install, str(error)) from error
        except BaseException:
            self.state = "stopped"
            raise
        self.process = process
        transport = process.transport
        if self.trace is not None:
            transport = TracingTransport(transport, self.trace, spec.id)
        session = LspSession(transport, **self._session_options())
        # A new process numbers the documents' versions afresh: nothing the last one said
        # about a version may count for this one's.
        self.finality = DiagnosticsFinality(
            spec.settle, quiet_when_unchanged=spec.quiet_when_unchanged
        )
        self._listen(session)  # a new readiness tracker too
        listed = FilesListed(spec.id, spec.files_listed_logs, session)
        try:
            await asyncio.wait_for(session.initialize(), self.timeout)
            # Readiness counts from `initialized`: a handshake slowed by a busy machine eats
            # no grace (progress begun while answering `initialize` counts still).
            self.readiness.initialized(time.monotonic())
            if self.declares_pulls():
                await session.wait_for_capability(
                    "textDocument/diagnostic", timeout=PULL_REGISTRATION_WAIT
                )
            await listed.wait()  # before any file, those re-opened after a crash included
        except BaseException as error:
            why = await self._why_it_failed(process) if isinstance(error, LspError) else None
            await self._discard(session, process)
            if why is not None:
                raise self._failure(why) from error
            if isinstance(error, asyncio.TimeoutError):
                failure = self._failure(
                    f"the language server {spec.id} did not finish its handshake within "
                    f"{self.timeout:g} s"
                )
                raise HandshakeTimeout(failure.code, failure.message) from None
            if isinstance(error, LspError):
                raise self._failure(
                    f"the language server {spec.id} failed to start: {error.message}"
                ) from error
            raise
        self.live = session
        self._started_at = time.monotonic()
        self.state = "running"
        self._watcher = asyncio.ensure_future(self._watch(process))
        for uri, (language_id, text) in self.documents.items():
            session.open_document(uri, language_id, text)
            self._expect(session, uri)
        if self.notebooks and self.notebook_hooks is not None:
            self.notebook_hooks.reopen(self, session)
        self.changed.fire()
        return session

    async def _why_it_failed(self, process: ServerConnection) -> str | None:
        """Why a handshake failed, when the server is to blame: it wrote something other
        than LSP on stdout (quoted), or it exited (with its status, or the signal)."""
        reason = getattr(process.transport, "close_reason", None)
        start = getattr(process, "stdout_start", b"")
        if isinstance(reason, FramingError) or (start and not start.startswith(b"Content-")):
            quoted = escape_controls(start.decode("utf-8", "backslashreplace"))
            return (
                f"the language server {self.spec.id} wrote something other than LSP on its "
                f'stdout: "{quoted}"'
            )
        try:
            code = await asyncio.wait_for(asyncio.shield(process.wait()), CRASH_EXIT_WAIT)
        except asyncio.TimeoutError:
            return None
        self._last_stderr = "\n".join(process.stderr_lines[-STDERR_QUOTED:])
        return (
            f"the language server {self.spec.id} exited before its handshake ({exit_status(code)})"
        )

    def _session_options(self) -> dict[str, Any]:
        spec = self.spec
        interpreter = None
        reached = () if self.untrusted is None else self.untrusted.reached(spec, self.root)
        if reached and spec.interpreter is not None:
            interpreter = interpreter_for(
                spec.interpreter_sources,
                self.root,
                reached,
                {**environ(), **spec.env},
                carries_paths=spec.interpreter_paths is None,
                always=spec.interpreter_per_project,
            )
        return session_options(
            spec,
            self.root,
            self.folders,
            timeout=self.timeout,
            declares_pulls=self.declares_pulls(),
            apply_edit=self._apply_edit,
            interpreter=interpreter,
        )

    def _apply_edit(self, params: Any) -> JSONObject:
        if self.on_apply_edit is None:
            return {"applied": False, "failureReason": REFUSED_EDIT}
        return self.on_apply_edit(self, params)

    def _listen(self, session: LspSession) -> None:
        now = time.monotonic

        def failed(error: BaseException) -> None:
            # The connection's end is the server's exit, which this handle says itself (a
            # crash, or "exited before its handshake"): not a second time in the log.
            if not isinstance(error, TransportClosedError):
                _logger.warning("adecore-lsp session error: %s", error, exc_info=error)

        session.on_error(failed)

        def progress(params: Any) -> None:
            if isinstance(params, Mapping):
                self.readiness.progress(params.get("token"), params.get("value"), now())
                self.finality.progress_active(self.readiness.active_progress(), now())
                self.changed.fire()
                for listener in list(self.progress_listeners):
                    try:
                        listener(self.spec.id, params)
                    except Exception as error:  # a listener's failure is its own
                        session._listeners.report(error)

        def created(params: Any, _cancelled: Any) -> None:
            if isinstance(params, Mapping):
                self.readiness.progress_created(params.get("token"), now())
                self.finality.progress_active(self.readiness.active_progress(), now())
                self.changed.fire()

        def status(params: Any) -> None:
            self.readiness.server_status(params, now())
            self.changed.fire()

        def registered(method: str) -> None:
            if method == "textDocument/diagnostic":
                # A refresh (or a new registration): pull answers are outdated, ask again.
                self.finality.refreshed(now())
                self.refreshes += 1
                self.refreshed.fire()
            if session.supports(method):
                self.readiness.registered(method, now())
            if self.on_registered is not None:
                self.on_registered(method)
            self.changed.fire()

        def pushed(params: Any) -> None:
            if not isinstance(params, Mapping) or not isinstance(params.get("uri"), str):
                return
            version = params.get("version")
            items = params.get("diagnostics")
            uri = params["uri"]
            self.finality.pushed(
                uri if uri in self.documents else canonical_uri(uri),
                version if type(version) is int else None,
                items if isinstance(items, list) else [],
                now(),
            )
            self.changed.fire()

        session.on_progress(progress)
        session.on_request("window/workDoneProgress/create", created)
        session.on_notification("experimental/serverStatus", status)
        session.on_capabilities_changed(registered)
        session.on_notification("textDocument/publishDiagnostics", pushed)
        self.readiness = self._new_readiness(now())

    async def _watch(self, process: ServerConnection) -> None:
        await process.wait()
        self._crashed(process)
        if not self._stopping:
            # What the dead server started ends with it (its process group), and it is reaped.
            await process.aclose(grace_period=STOP_GRACE)

    def _crashed(self, process: ServerConnection) -> None:
        """Count the crash of ``process`` once (the watcher and a failed call both tell)."""
        if self._stopping or self.process is not process or self.state == "crashed":
            return
        self._last_stderr = "\n".join(process.stderr_lines[-STDERR_QUOTED:])
        reason = getattr(process.transport, "close_reason", None)
        self.crash_reason = (
            f"it wrote something other than LSP on its stdout: {reason}"
            if isinstance(reason, FramingError)
            else None
        )
        self._crashes.append(time.monotonic())
        self.state = "crashed"
        self.live = None
        self.changed.fire()

    async def _settle_crash(self) -> bool:
        """Whether the server died: its session closed without our asking. The process's
        exit (and its last stderr lines) may lag its stdout's end, so wait for it briefly."""
        session, process = self.live, self.process
        if self.state == "crashed":
            return True
        if session is None or process is None or session.state is SessionState.READY:
            return False
        if self._stopping:
            return False
        try:
            await asyncio.wait_for(asyncio.shield(process.wait()), CRASH_EXIT_WAIT)
        except asyncio.TimeoutError:
            pass
        self._crashed(process)
        return True

    async def _discard(self, session: LspSession, process: ServerConnection) -> None:
        self._stopping = True
        self._last_stderr = "\n".join(process.stderr_lines[-STDERR_QUOTED:])
        process.transport.close()
        await process.aclose(grace_period=STOP_GRACE)
        self.state = "stopped"
        self.process = None
        self.live = None

    async def stop(self) -> None:
        """Shut the server down (``shutdown``, ``exit``, then signals); idempotent."""
        self._stopping = True
        starting = self._starting
        if starting is not None:
            await asyncio.wait((starting,))
        session, process = self.live, self.process
        hooks = self.notebook_hooks
        if session is not None and self.notebook_sync is not None and hooks is not None:
            hooks.say_closed(self, session)  # notebookDocument/didClose, not one a cell
        self.live = None
        self.process = None
        if session is not None:
            try:
                await session.shutdown()
            except LspError:
                pass
        if process is not None:
            await process.aclose(grace_period=STOP_GRACE)
        if self._watcher is not None:
            self._watcher.cancel()
        if self.state != "crashed":
            self.state = "stopped"

    async def restart(self) -> LspSession:
        """Stop the server and start it again at once, documents re-opened."""
        await self.stop()
        self.state = "stopped"
        self.restarts += 1
        return await self.session()

    def _failure(self, message: str) -> LspError:
        quoted = f"\nits last stderr lines:\n{self._last_stderr}" if self._last_stderr else ""
        return LspError(ErrorCodes.InternalError, f"{message}{quoted}")

    async def translate(self, error: LspError) -> LspError:
        """What a failed call raises: quoting the server's stderr when it has crashed."""
        if not await self._settle_crash():
            return error
        lines = self._last_stderr
        quoted = f"\nits last stderr lines:\n{lines}" if lines else ""
        why = self.crash_reason or error.message
        translated = LspError(
            ErrorCodes.InternalError, f"the language server {self.spec.id} crashed: {why}{quoted}"
        )
        translated.__cause__ = error
        return translated

    async def version(self) -> str | None:
        """What the spec's ``version_command`` prints (run once, for servers whose
        ``serverInfo`` carries no version); of a server never started (a check of a file it
        could not be given names it all the same), its ``--version`` without one."""
        if self.connect is not None or (not self.spec.version_command and self._started_at):
            return None
        if self._version is None:
            self._version = asyncio.ensure_future(version_of(self.spec, self.executable))
        return await asyncio.shield(self._version)

    def status(self) -> ServerStatus:
        process = self.process
        pid = process.pid if process is not None else None
        uptime = time.monotonic() - self._started_at if self.state == "running" else 0.0
        return ServerStatus(
            id=self.spec.id,
            pid=pid,
            state=self.state,  # type: ignore[arg-type]
            restarts=self.restarts,
            rss_bytes=tree_rss(pid) if pid is not None and self.state == "running" else None,
            uptime=uptime,
            root=str(self.root),
        )

    # -- documents ---------------------------------------------------------------------

    def open(self, session: LspSession, uri: str, language_id: str, text: str) -> None:
        """Open (or bring up to date) ``uri`` in the server, expecting final diagnostics."""
        known = self.documents.get(uri)
        self.documents[uri] = (language_id, text)
        document = session.documents.get(uri)
        if document is None:
            session.open_document(uri, language_id, text)
        elif known is not None and document.text == text:
            return
        else:
            session.change_document(uri, text)
        self._expect(session, uri)

    def tell_folder(self, session: LspSession, folder: Path) -> bool:
        """Tell the running server of a workspace folder it was not told of
        (``workspace/didChangeWorkspaceFolders``, where it announced or registered it)
        before a file of it is opened there; whether the server now has the folder (a
        server that takes no such notification still takes the file from its root)."""
        if folder in self.folders:
            return True
        if folder in self._untold or not session.add_workspace_folders([workspace_folder(folder)]):
            self._untold.add(folder)
            return False
        self.folders.append(folder)
        return True

    def declares_pulls(self) -> bool:
        """Whether the session declares pull diagnostics: when the server answers them, and
        the root has no notebooks whose cells the server would answer with empty pulls."""
        if not self.spec.pull_diagnostics:
            return False
        if self.spec.notebook_cell_pulls or self.notebooks_in_root is None:
            return True
        return not self.notebooks_in_root()

    def has(self, uri: str) -> bool:
        """Whether the server has the file (or notebook) at ``uri`` open."""
        return uri in self.documents or uri in self.notebooks

    def close(self, uri: str) -> None:
        self.documents.pop(uri, None)
        self.finality.closed(uri)
        session = self.live
        if session is not None and uri in session.documents:
            session.close_document(uri)

    def _expect(self, session: LspSession, uri: str) -> None:
        mode: Mode = "pull" if session.supports("textDocument/diagnostic", uri) else "push"
        self.finality.expect(uri, session.documents[uri].version, time.monotonic(), mode)

    def stderr_tail(self) -> str:
        process = self.process
        if process is not None:
            return "\n".join(process.stderr_lines[-STDERR_QUOTED:])
        return self._last_stderr
