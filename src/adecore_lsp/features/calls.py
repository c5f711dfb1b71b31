"""What every feature call does before it sends: positions, capability checks, late ones.

A feature call takes positions as LSP ``Position``s or as ``str`` indices into the open
document, checks that the server answers the method for the document (waiting, within the
session's ``registration_grace`` after the handshake, for a registration that is about to
come), and only then sends the request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import ErrorCodes, LspError
from ..types import JSONObject

if TYPE_CHECKING:
    from ..session import LspSession

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

At = Mapping[str, Any] | int
"""A position: an LSP ``Position`` in the negotiated encoding, or a ``str`` index."""

Span = Mapping[str, Any] | tuple[int, int]
"""A range: an LSP ``Range``, or a ``(start, end)`` pair of ``str`` indices."""


def position(session: LspSession, uri: str, at: At) -> JSONObject:
    """The LSP ``Position`` of ``at`` in the document ``uri``.

    Raises:
        ValueError: an index for a document that is not open, an index outside its text, or
            a position that is not two non-negative integers.
    """
    if isinstance(at, bool) or not isinstance(at, (int, Mapping)):
        raise TypeError(f"a position is an LSP Position or an int index, not {at!r}")
    if isinstance(at, int):
        document = session.documents.get(uri)
        if document is None:
            raise ValueError(
                f"{uri} is not open: an int position is an index into an open document's text"
            )
        if not 0 <= at <= len(document.text):
            raise ValueError(
                f"the index {at} is outside the text of {uri} (0 to {len(document.text)})"
            )
        return dict(document.position_at(at))
    line, character = at.get("line"), at.get("character")
    if not _is_count(line) or not _is_count(character):
        raise ValueError(f"a Position needs non-negative integer line and character: {at!r}")
    return {"line": line, "character": character}


def span(session: LspSession, uri: str, range_: Span) -> JSONObject:
    """The LSP ``Range`` of ``range_`` in the document ``uri``; its end may not precede its start.

    Raises:
        ValueError: as :func:`position` for either end, or an end before the start.
    """
    if isinstance(range_, tuple):
        if len(range_) != 2:
            raise ValueError(f"a range of indices is a (start, end) pair, not {range_!r}")
        start, end = position(session, uri, range_[0]), position(session, uri, range_[1])
    elif isinstance(range_, Mapping):
        start = position(session, uri, range_.get("start"))  # type: ignore[arg-type]
        end = position(session, uri, range_.get("end"))  # type: ignore[arg-type]
    else:
        raise TypeError(f"a range is an LSP Range or a (start, end) tuple, not {range_!r}")
    if (end["line"], end["character"]) < (start["line"], start["character"]):
        raise ValueError(f"the range ends before it starts: {start} to {end}")
    return {"start": start, "end": end}


def _is_count(value: object) -> bool:
    return type(value) is int and value >= 0


def unsupported(session: LspSession, method: str, uri: str | None) -> LspError:
    """The error of a call the server does not answer: it names the method and the server."""
    info = session.server_info
    name = info.get("name") if isinstance(info, dict) else None
    server = f"the server {name!r}" if isinstance(name, str) and name else "the server"
    where = f" for {uri}" if uri is not None else ""
    return LspError(ErrorCodes.MethodNotFound, f"{server} does not answer {method}{where}")


async def wait_for_capability(
    session: LspSession, method: str, document: Any = None, *, timeout: float | None = 1.0
) -> bool:
    """Whether the server answers ``method`` (for ``document``), waiting up to ``timeout``.

    Wakes at each registration the server makes; ``None`` waits for ever, ``0`` only looks.
    """
    if session.supports(method, document):
        return True
    if timeout is not None and timeout <= 0:
        return False
    changed = asyncio.Event()
    with session.on_capabilities_changed(lambda _method: changed.set()):
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while True:
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                return False
            try:
                await asyncio.wait_for(changed.wait(), remaining)
            except asyncio.TimeoutError:
                return session.supports(method, document)
            changed.clear()
            if session.supports(method, document):
                return True


async def send(
    session: LspSession,
    method: str,
    uri: str | None,
    params: Any,
    timeout: Any,
) -> Any:
    """Check the capability (with the registration grace), then send the request.

    ``timeout`` is the call's deadline (the session's by default); the grace wait counts
    against it.
    """
    if not session.supports(method, uri):
        loop = asyncio.get_running_loop()
        ready_at = session.ready_at
        now = loop.time()
        grace = 0.0 if ready_at is None else ready_at + session.options.registration_grace - now
        if isinstance(timeout, (int, float)) or timeout is None:
            deadline = timeout
        else:
            deadline = session.options.timeout
        if deadline:
            grace = min(grace, deadline)
        if grace <= 0 or not await wait_for_capability(session, method, uri, timeout=grace):
            raise unsupported(session, method, uri)
        if deadline:
            # The wait counts against the call's deadline.
            timeout = max(deadline - (loop.time() - now), 0.001)
    return await session.request(method, params, timeout=timeout)


def document(uri: str) -> JSONObject:
    """A ``TextDocumentIdentifier``."""
    return {"uri": uri}


def at_position(session: LspSession, uri: str, at: At) -> JSONObject:
    """``TextDocumentPositionParams`` for ``at`` in ``uri``."""
    return {"textDocument": {"uri": uri}, "position": position(session, uri, at)}
