"""Asking a file's servers in order: the first that answers a method speaks for the file.

A server that registers the method late is waited for within the registration grace; an
answer of ``ContentModified`` or ``RequestCancelled`` (another call moved the text on) is
asked again a few times; any other failure is translated into the server's own words.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import ErrorCodes, LspError, RequestTimeoutError
from ...session import LspSession
from ..checks.checking import wait_ready
from ..files.notebooks import place_for
from ..servers.handles import ServerHandle

if TYPE_CHECKING:
    from .needs import QuestionNeeds
    from .places import Place

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

RETRIES = 3
"""How often a request answered ``ContentModified`` or ``RequestCancelled`` by the server is
asked again: the text moved on under it (another call opened or changed a file), and the
same question about the new text has an answer."""

RETRY_DELAY = 0.05
"""Seconds before the first retry; each later one waits as long again more."""


async def first_answer(
    ws: QuestionNeeds,
    path: Path,
    method: str,
    call: Any,
    non_empty: bool,
    offset: int | None,
) -> tuple[ServerHandle, LspSession, Any]:
    """``Workspace.first_answer``: the disk synced, ``path`` opened, its servers asked.

    ``call(session, uri)`` asks; with ``offset``, ``call(session, uri, offset)`` (for a
    notebook, each server's own cell or joined document and offset).

    Raises:
        LspError: ``MethodNotFound`` naming the method and the servers asked.
    """
    await ws.sync_disk()
    handles = await ws.open(path)
    return await _first(ws, handles, ws.paths.uri(path), method, call, non_empty, offset)


async def ask_at(
    ws: QuestionNeeds, place: Place, method: str, call: Any, non_empty: bool = False
) -> tuple[ServerHandle, LspSession, Any]:
    """:func:`first_answer` at a resolved place: ``call(session, uri, offset)`` with each
    server's own URI and offset there (nothing about the place is derived again)."""
    await ws.sync_disk()
    handles = await ws.open_files.open_at(place.path, place.uri, handles=place.handles)
    return await _first(ws, handles, place.uri, method, call, non_empty, place.offset)


async def _first(
    ws: QuestionNeeds,
    handles: list[ServerHandle],
    uri: str,
    method: str,
    call: Any,
    non_empty: bool,
    offset: int | None,
) -> tuple[ServerHandle, LspSession, Any]:
    """The first of ``handles`` (the open file's servers) that answers ``call``."""
    view = ws.open_files.view(uri)
    if offset is None:
        return await ask(ws, handles, method, lambda session: call(session, uri), uri, non_empty)
    if view is None:
        return await ask(
            ws, handles, method, lambda session: call(session, uri, offset), uri, non_empty
        )
    places = {id(handle.live): place_for(view, handle, offset) for handle in handles}
    first = places[id(handles[0].live)][0] if handles else uri
    return await ask(
        ws,
        handles,
        method,
        lambda session: call(session, *places[id(session)]),
        first,
        non_empty,
    )


async def ask(
    ws: QuestionNeeds,
    handles: Sequence[ServerHandle],
    method: str,
    call: Any,
    uri: str | None,
    non_empty: bool,
) -> tuple[ServerHandle, LspSession, Any]:
    """``Workspace.ask``: the first of ``handles`` that supports ``method`` answers.

    Raises:
        LspError: ``MethodNotFound`` naming the method and the servers asked, or the
            crash of a server that exited before answering.
    """
    asked: list[str] = []
    found: tuple[ServerHandle, LspSession, Any] | None = None
    for handle in handles:
        session = await handle.session()
        asked.append(handle.spec.id)
        if not session.supports(method, uri) and not await session.wait_for_capability(
            method, uri, timeout=_grace_left(session)
        ):
            continue
        if handle.spec.navigation_waits:
            result = await _once_loaded(ws, handle, session, call)
        else:
            result = await _answer(handle, session, call)
        if not non_empty or result:
            return handle, session, result
        if found is None:
            found = handle, session, result
    if found is not None:
        return found
    for handle in handles:
        if handle.state == "crashed":
            crash = LspError(ErrorCodes.InternalError, f"it exited before answering {method}")
            raise await handle.translate(crash)
    where = f" of {ws.paths.display(uri)}" if uri is not None else ""
    raise LspError(
        ErrorCodes.MethodNotFound,
        f"no server{where} answers {method} (asked: {', '.join(asked) or 'none'})",
    )


async def _once_loaded(
    ws: QuestionNeeds, handle: ServerHandle, session: LspSession, call: Any
) -> Any:
    """``call`` asked of a server that answers from the lone file until its project has
    loaded (``ServerSpec.navigation_waits``): once it is ready, and once more when it began
    loading again meanwhile (typescript-language-server loads a referenced project after
    the first, and a definition asked before is the import line)."""
    await wait_ready(handle, time.monotonic(), ws.timeout)
    answer = await _answer(handle, session, call)
    if handle.readiness.check(time.monotonic()).state == "waiting":
        await wait_ready(handle, time.monotonic(), ws.timeout)
        answer = await _answer(handle, session, call)
    return answer


async def _answer(handle: ServerHandle, session: LspSession, call: Any) -> Any:
    """``call(session)``, asked again (a few times) when the server answers that the content
    was modified or that it cancelled the request; any other failure translated."""
    for attempt in range(RETRIES + 1):
        try:
            return await call(session)
        except RequestTimeoutError as error:
            raise await handle.translate(error) from error
        except LspError as error:
            retry = error.code in (ErrorCodes.ContentModified, ErrorCodes.RequestCancelled)
            if not retry or attempt == RETRIES or handle.state != "running":
                raise await handle.translate(error) from error
        await asyncio.sleep(RETRY_DELAY * (attempt + 1))
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


def _grace_left(session: LspSession) -> float:
    """What is left of the registration grace after the session's handshake."""
    ready_at = session.ready_at
    if ready_at is None:
        return 0.0
    return max(0.0, ready_at + 1.0 - asyncio.get_running_loop().time())
