"""Questions about uses asked of every root of a server (``docs/guide.md``, "Roots").

A server that runs per package (basedpyright per folder holding its configuration, gopls
per ``go.work``) sees its own package in each process: rooted at the declaring package it
finds that package's uses, rooted at a consumer with the declaring file open it finds the
consumer's (measured on a uv workspace: 5 and 10 of 10). A question about uses
(``references``, ``rename``, ``implementation``, ``callers``, ``callees``) is asked of the
place's own server first, then of every other root of that server that holds files it
takes, each with the declaring file open there (started when first asked), and the caller
puts the answers together. A root that could not answer (its server failed, timed out, or
is not installed) is named in :attr:`RootAnswers.missed`: the answer is not whole.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import ErrorCodes, LspError
from ...session import LspSession
from ..checks.checking import wait_ready
from ..files.notebooks import located
from ..servers.handles import ServerHandle
from .asking import ask_at

if TYPE_CHECKING:
    from .needs import QuestionNeeds
    from .outlines import Whole
    from .places import Place

_logger = logging.getLogger("adecore_lsp")

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


@dataclass
class RootAnswers:
    """The answers of every root asked: the place's own server's first."""

    answers: list[tuple[ServerHandle, LspSession, Any]]
    missed: list[str] = field(default_factory=list)
    """The roots that could not answer, each as ``folder: why`` (the folder relative to
    the workspace's root)."""

    @property
    def complete(self) -> bool:
        """Whether every root of the server was asked and answered."""
        return not self.missed

    @property
    def sessions(self) -> list[tuple[LspSession, Any]]:
        """Each answer with the session that gave it (its position encoding)."""
        return [(session, answer) for _handle, session, answer in self.answers]


FRESH_LISTING = 0.25
"""Seconds within which a listing of the root's files made for the same question (the
opening of every file, :func:`..outlines.prepare_whole`) is taken again, not made again."""


def tree_files(ws: QuestionNeeds, whole: Whole | None = None) -> Callable[[], list[Path]]:
    """The tree's files that some installed server takes, listed once when first asked
    (``whole``'s listing, when it is fresh)."""
    listed: list[list[Path]] = []
    if (
        whole is not None
        and whole.listed is not None
        and time.monotonic() - whole.listed_at < FRESH_LISTING
    ):
        listed.append(list(whole.listed))

    def files() -> list[Path]:
        if not listed:
            try:
                listed.append(ws.root_files())
            except LspError:
                listed.append([])
        return listed[0]

    return files


def roots_of(
    ws: QuestionNeeds,
    handles: Sequence[ServerHandle],
    files: Callable[[], list[Path]] | None = None,
) -> list[ServerHandle]:
    """``handles`` (a place's servers) and every other root of each of their servers in the
    tree (made, not started)."""
    found: dict[int, ServerHandle] = {}
    listed = files or tree_files(ws)
    for handle in handles:
        if handle.spec.roots == "repository":
            found.setdefault(id(handle), handle)
            continue
        for root in ws.server_choice.roots_of(handle, listed()):
            found.setdefault(id(root), root)
    return list(found.values())


async def every_root(
    ws: QuestionNeeds,
    place: Place,
    method: str,
    call: Any,
    *,
    non_empty: bool = False,
    files: Callable[[], list[Path]] | None = None,
) -> RootAnswers:
    """``call(session, uri, offset)`` asked at ``place`` of its first server that answers
    ``method`` (as :func:`.asking.ask_at`), then of every other root of that server, each
    at the declaration of what ``place`` names (the place itself when the declaration is
    not a file of the workspace), that file opened there first.

    Raises:
        LspError: as :func:`.asking.ask_at`, for the place's own server; the other roots'
            failures are :attr:`RootAnswers.missed`.

    ``files`` lists the tree's files (:func:`tree_files`), when the caller has listed them.
    """
    first = await ask_at(ws, place, method, call, non_empty)
    handle = first[0]
    if handle.spec.roots == "repository":
        return RootAnswers([first])
    others = [root for root in roots_of(ws, [handle], files) if root is not handle]
    if not others:
        return RootAnswers([first])
    there = await _declaration(ws, place)
    outcomes = await asyncio.gather(
        *(_ask_in(ws, other, there, method, call) for other in others), return_exceptions=True
    )
    result = RootAnswers([first])
    for other, outcome in zip(others, outcomes, strict=True):
        if isinstance(outcome, tuple):
            result.answers.append(outcome)
        elif isinstance(outcome, (LspError, ValueError, OSError)):
            folder = ws.paths.relative(other.root) or "."
            result.missed.append(f"{folder}: {outcome}")
            _logger.warning(
                "%s at %s could not be asked %s: %s", handle.spec.id, folder, method, outcome
            )
        else:
            raise outcome
    return result


async def _ask_in(
    ws: QuestionNeeds, handle: ServerHandle, there: Place, method: str, call: Any
) -> tuple[ServerHandle, LspSession, Any]:
    """``call`` asked of one root's server at ``there``, opened there first once the
    server is ready (its own files are what it answers about)."""
    await handle.session()
    readiness = await wait_ready(handle, time.monotonic(), ws.timeout)
    if readiness.state == "timed_out":
        raise LspError(
            ErrorCodes.RequestFailed, f"{handle.spec.id} was not ready within {ws.timeout:g} s"
        )
    return await ask_at(ws, replace(there, handles=(handle,)), method, call)


async def _declaration(ws: QuestionNeeds, place: Place) -> Place:
    """The place where what ``place`` names is declared, as a Place (``place`` itself when
    it names a symbol by name, or the declaration cannot be found in a file of the
    workspace)."""
    if place.symbol is not None:
        return place
    try:
        _handle, session, found = await ask_at(
            ws,
            place,
            "textDocument/definition",
            lambda s, uri, at: s.definition(uri, at),
            non_empty=True,
        )
    except LspError:
        return place
    if not found:
        return place
    encoding: Any = session.position_encoding or "utf-16"
    declared = located(ws, found[0]["uri"], found[0]["range"], encoding, found[0])
    if Path(declared.path).is_absolute():
        return place  # a library's file, outside the workspace: asked where it was
    try:
        return await ws.place(declared)
    except (LspError, ValueError):
        return place
