"""What lives for the MCP server's life, and the wrapper every tool call goes through.

:class:`State` is what the SDK's lifespan yields: the options and the one ``Workspace``, made
on the first call that needs it (so that its root can be the client's first root, asked with
``roots/list``) and shut down when the lifespan ends: stdin closed, or the HTTP server stopped.

:func:`call` runs one tool's work on that workspace: paths outside the root, bad targets, a
server that is not installed, a target that matches nothing or several, an edit conflict and
any other failure become a ``ToolError`` carrying the workspace's message (the SDK hides the
text of any other exception), a call as a whole is bounded, and the language servers'
``$/progress`` is forwarded as MCP progress notifications when the call carries a token.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

import anyio
import mcp_types as types
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.message import ServerMessageMetadata

from ..errors import AmbiguousTargetError, LspError
from ..paths import uri_to_path
from ..protocol.workspace.targets import PositionTarget, SymbolTarget, parse_target
from ..workspace.checks.checking import ANSWER_BY
from ..workspace.disk.listing import confined
from ..workspace.workspace import Workspace

if TYPE_CHECKING:
    from ..workspace.questions.places import Place

# Internal to the library: nothing here is public API.
__all__: list[str] = []

log = logging.getLogger("adecore_lsp.mcp")

T = TypeVar("T")

ROOTS_TIMEOUT = 5.0
"""How long the client may take to answer ``roots/list``, in seconds."""

SHUTDOWN_TIMEOUT = 10.0
"""How long the language servers may take to shut down at the end, in seconds."""


@dataclass(frozen=True)
class Options:
    """How the MCP server was started: the command line's options."""

    root: Path | None = None
    servers: list[str] | None = None
    """Server ids (the registry's or the project's own), in order; ``None``: as configured."""
    timeout: float = 30.0
    trace: str | IO[bytes] | None = None
    """Where every message with the language servers is written (``--trace``)."""
    http: tuple[str, int] | None = None
    log_level: str = "WARNING"
    trust: bool | None = None
    """``True`` with ``--trust``; ``None``: as the trust store says (``safety.md``)."""
    allow_remote: bool = False
    """``--allow-remote``: a bind that is not loopback, with a bearer token."""
    allowed_hosts: tuple[str, ...] = ()
    """``--allowed-host`` names a request's ``Host`` and ``Origin`` may carry too."""

    @property
    def bound(self) -> float:
        """The bound of one call as a whole: every wait inside it is bounded by ``timeout``,
        and a call makes a few (readiness, then the request), so twice that."""
        return 2 * self.timeout

    @property
    def answer_by(self) -> float:
        """Seconds into a call after which its waits for diagnostics, which go on while the
        servers work, answer with what is final: one and a half ``timeout``s, so that the
        answer comes within :attr:`bound`, and a partial answer beats none."""
        return 1.5 * self.timeout


class State:
    """The server's options and its one workspace, made on first use."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self._workspace: Workspace | None = None
        self._lock = asyncio.Lock()
        self.root_source = "--root" if options.root is not None else ""

    @property
    def timeout(self) -> float:
        return self.options.timeout

    async def workspace(self, ctx: Context[State, Any]) -> Workspace:
        """The workspace, made on the first call: rooted at ``--root``, else the client's
        first root, else the current folder."""
        if self._workspace is not None:
            return self._workspace
        async with self._lock:
            if self._workspace is None:
                root = self.options.root
                if root is None:
                    root = await client_root(ctx)
                    self.root_source = "the client's first root" if root else "the current folder"
                self._workspace = Workspace(
                    root if root is not None else Path.cwd(),
                    servers=self.options.servers,
                    timeout=self.options.timeout,
                    trace=self.options.trace,
                    trust=self.options.trust,
                    on_untrusted=lambda notice: log.warning("%s", notice),
                )
                log.info("workspace root %s (%s)", self._workspace.root, self.root_source)
            return self._workspace

    async def aclose(self) -> None:
        """Shut every language server down (shielded and bounded: also when cancelled)."""
        workspace, self._workspace = self._workspace, None
        if workspace is None:
            return
        with anyio.CancelScope(shield=True), anyio.move_on_after(SHUTDOWN_TIMEOUT):
            await workspace.aclose()


async def client_root(ctx: Context[State, Any]) -> Path | None:
    """The client's first ``file:`` root that is a folder, when it offers roots."""
    session = ctx.session
    capabilities = session.client_capabilities
    if capabilities is None or capabilities.roots is None:
        return None
    try:
        answer = await session.send_request(
            types.ListRootsRequest(),
            types.ListRootsResult,
            request_read_timeout_seconds=ROOTS_TIMEOUT,
            metadata=ServerMessageMetadata(related_request_id=ctx.request_context.request_id),
        )
    except Exception as error:  # a client that cannot say: the current folder, said in the log
        log.warning("roots/list failed (%r); the workspace root is the current folder", error)
        return None
    for root in answer.roots:
        uri = str(root.uri)
        if not uri.startswith("file:"):
            continue
        try:
            path = uri_to_path(uri)
        except ValueError:
            continue
        if path.is_dir():
            return path
    return None


# -- paths and targets -----------------------------------------------------------------------


def inside(ws: Workspace, path: str) -> Path:
    """The absolute path of ``path`` (relative to the root, or absolute inside it).

    Raises:
        ValueError: a path outside the root, naming both; a path inside it whose real path
            is not (a link out of the root, ``LinkOutOfRootError``): it is never read.
    """
    full = ws.paths.absolute(path)
    if not _within(ws.root, full):
        raise ValueError(
            f"{path} is outside the workspace root {ws.root}: give a path relative to the "
            "root, or an absolute path inside it"
        )
    return confined(ws.root, full, path)


def _within(root: Path, full: Path) -> bool:
    if full == root or root in full.parents:
        return True
    try:
        real = full.resolve()
    except OSError:
        return False
    return real == root or root in real.parents


async def target_place(ws: Workspace, given: str, *, whole: bool = False) -> Place:
    """``given`` resolved once into the place the tool's call takes (``whole`` for a
    question about every file: ``places.WHOLE_ROOT``); a file it names must be inside the
    root.

    Raises:
        ValueError: a target that does not parse (the message lists the forms), or a path
            outside the root.
    """
    return await ws.place(given, check=lambda path: inside(ws, path), whole=whole)


def check_target(ws: Workspace, given: str) -> str:
    """``given`` checked: a target that parses, whose file (if it names one) is inside the root.

    Raises:
        ValueError: a target that does not parse (the message lists the forms), or a path
            outside the root.
    """
    parsed = parse_target(given)
    if isinstance(parsed, (PositionTarget, SymbolTarget)):
        inside(ws, parsed.path)
    return given


# -- one call ------------------------------------------------------------------------------


async def call(ctx: Context[State, Any], work: Callable[[Workspace], Awaitable[T]]) -> T:
    """Run ``work`` on the server's workspace; every failure becomes a ``ToolError`` with a
    message the model can act on, and the MCP server goes on serving."""
    state = ctx.request_context.lifespan_context
    try:
        ws = await state.workspace(ctx)
        forwarder = Forwarder.start(ctx, ws)
        answer_by = ANSWER_BY.set(time.monotonic() + state.options.answer_by)
        try:
            return await asyncio.wait_for(work(ws), state.options.bound)
        finally:
            ANSWER_BY.reset(answer_by)
            if forwarder is not None:
                await forwarder.close()
    except ToolError:
        raise
    except AmbiguousTargetError as error:
        raise ToolError(ambiguous(error)) from error
    except LspError as error:
        raise ToolError(error.message) from error
    except asyncio.TimeoutError as error:
        raise ToolError(
            f"the call did not finish within {state.options.bound:g} s (twice --timeout); "
            "ask again: the language servers may still be starting or indexing"
        ) from error
    except (ValueError, OSError) as error:
        raise ToolError(_os_message(error)) from error
    except Exception as error:  # the last boundary: the model gets the message, never a crash
        log.exception("a tool call failed")
        raise ToolError(f"internal error: {error!r}") from error


def ambiguous(error: AmbiguousTargetError) -> str:
    """The message of a target that matches several: each candidate as a target to retry."""
    lines = [
        f"{error.target!r} matches {len(error.candidates)} symbols; nothing was picked. "
        "Call again with one of these targets:"
    ]
    for kind, candidate, where in error.candidates:
        lines.append(f"  {candidate}  ({kind} at {where})")
    return "\n".join(lines)


def _os_message(error: ValueError | OSError) -> str:
    if isinstance(error, FileNotFoundError) and error.filename:
        return f"{error.filename}: no such file"
    return str(error)


# -- progress --------------------------------------------------------------------------------


class Forwarder:
    """The language servers' ``$/progress``, as MCP progress notifications of one call.

    Each report is one notification, in order (the ``progress`` value counts them, as MCP
    wants it to grow), its message ``server: title message (n%)``.
    """

    def __init__(self, ctx: Context[State, Any]) -> None:
        self._ctx = ctx
        self._count = 0
        self._titles: dict[tuple[str, object], str] = {}
        self._queue: asyncio.Queue[tuple[int, str] | None] = asyncio.Queue()
        self._task = asyncio.get_running_loop().create_task(self._pump())
        self._listening: Any = None

    @classmethod
    def start(cls, ctx: Context[State, Any], ws: Workspace) -> Forwarder | None:
        """A forwarder listening to ``ws``, when the call carries a progress token."""
        meta = ctx.request_context.meta
        if not meta or meta.get("progress_token") is None:
            return None
        forwarder = cls(ctx)
        forwarder._listening = ws.on_progress(forwarder.progress)
        return forwarder

    def progress(self, server: str, params: Any) -> None:
        text = progress_text(server, params, self._titles)
        if text:
            self._count += 1
            self._queue.put_nowait((self._count, text))

    async def _pump(self) -> None:
        while True:
            item = await self._queue.get()
            if item is None:
                return
            try:
                await self._ctx.report_progress(item[0], None, item[1])
            except Exception as error:  # the client went away: the answer says the rest
                log.debug("a progress notification failed: %r", error)

    async def close(self) -> None:
        """Stop listening and send what is queued before the answer goes out."""
        if self._listening is not None:
            self._listening.dispose()
        self._queue.put_nowait(None)
        try:
            await asyncio.wait_for(asyncio.shield(self._task), 1.0)
        except BaseException:
            self._task.cancel()
            raise


def progress_text(server: str, params: Any, titles: dict[tuple[str, object], str]) -> str:
    """``server: title message (n%)`` of one ``$/progress``, ``""`` for anything else."""
    value = params.get("value") if isinstance(params, Mapping) else None
    if not isinstance(value, Mapping):
        return ""
    key = (server, params.get("token"))
    kind = value.get("kind")
    if kind == "begin":
        titles[key] = str(value.get("title") or "")
    title = titles.pop(key, "") if kind == "end" else titles.get(key, "")
    parts = [title, str(value.get("message") or "")]
    percentage = value.get("percentage")
    if isinstance(percentage, (int, float)) and not isinstance(percentage, bool):
        parts.append(f"({percentage:g}%)")
    if kind == "end":
        parts.append("done")
    text = " ".join(" ".join(part.split()) for part in parts if part)
    return f"{server}: {text}" if text else ""
