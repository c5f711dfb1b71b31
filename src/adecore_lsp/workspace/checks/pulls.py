"""A server's documents pulled (``textDocument/diagnostic``), a few at a time and again on
its refresh, a silent one probed, and when each server last said something new: the
moves of the wait for final diagnostics (:mod:`.checking`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import LspError, StaleResultError
from ...protocol.workspace.silence import SilenceBounds, Stop
from ..files import notebooks

if TYPE_CHECKING:
    from ..servers.handles import ServerHandle

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

Bounds = SilenceBounds["ServerHandle"]
"""The silence bounds of one check, per server (:mod:`..protocol.workspace.silence`)."""

PULLS_AT_ONCE = 8
"""How many pull requests one server gets at a time."""


def heard(handle: ServerHandle) -> float:
    """When ``handle``'s server last said something new: a report on a document, a pull
    answered, progress that moved."""
    return max(handle.readiness.moved_at, handle.finality.heard_at)


def stop_of(bounds: Bounds, handle: ServerHandle) -> Stop:
    """When the wait stops waiting for ``handle``'s server unless it says something new."""
    return bounds.stop(handle, heard(handle), handle.finality.answered_at)


class FirstRound:
    """Counts, per server, the documents whose first pull has not ended: until they all
    have, a wait for final diagnostics has nothing to look at (a pulled document is final
    when its answer comes), so it sleeps until they have or their servers' bounds passed,
    instead of looking again at every answer."""

    def __init__(self, handles: Iterable[ServerHandle]) -> None:
        self.left: dict[ServerHandle, int] = {}
        for handle in handles:
            self.left[handle] = self.left.get(handle, 0) + 1
        self.ended = asyncio.Event()
        if not self.left:
            self.ended.set()

    def one_ended(self, handle: ServerHandle) -> None:
        self.left[handle] -= 1
        if self.left[handle] <= 0:
            del self.left[handle]
            if not self.left:
                self.ended.set()

    async def wait(self, bounds: Bounds) -> None:
        """Until every first pull ended, or the bounds of the servers still owing one passed
        (a bound moves on while its server answers: it is looked at again when it passes)."""
        while not self.ended.is_set():
            now = time.monotonic()
            until = max(
                (stop_of(bounds, h).at for h in self.left if h.state != "crashed"), default=now
            )
            if now >= until:
                return
            try:
                await asyncio.wait_for(self.ended.wait(), until - now)
            except asyncio.TimeoutError:
                pass


async def pull_all(
    handle: ServerHandle,
    uris: list[str],
    first: FirstRound,
    counted: set[str],
    unknown: list[str],
    answered: Callable[[str], object] | None = None,
) -> None:
    """Pull the documents of a server that answers pulls, a few at a time (at first those
    whose final diagnostics are ``unknown``); every one pulled again when the server asks
    for it (``workspace/diagnostic/refresh``), until the wait ends (which cancels this).
    ``answered`` is called with each document pulled, soon after its pull ended (once the
    next pull has gone out: work on an answer never holds up the server)."""
    refreshes = handle.refreshes
    await pull_round(handle, unknown, first, counted, answered)
    while True:
        while handle.refreshes == refreshes:
            await handle.refreshed.wait(None)
        refreshes = handle.refreshes
        await pull_round(handle, uris, None, set(), answered)


async def pull_round(
    handle: ServerHandle,
    uris: list[str],
    first: FirstRound | None,
    counted: set[str],
    answered: Callable[[str], object] | None = None,
) -> None:
    """Pull each document once, ``PULLS_AT_ONCE`` at a time: that many workers take the
    documents in turn (a task each, not one per document)."""
    waiting = iter(uris)
    loop = asyncio.get_running_loop()

    async def worker() -> None:
        for uri in waiting:
            try:
                await pull_one(handle, uri)
            finally:
                if first is not None and uri in counted:
                    first.one_ended(handle)
            if answered is not None:
                # Called back once this worker has sent its next pull (or ended).
                loop.call_soon(answered, uri)

    await asyncio.gather(*(worker() for _ in range(min(PULLS_AT_ONCE, len(uris)))))


async def pull_one(handle: ServerHandle, uri: str) -> None:
    """Pull one document until an answer for its current version came, or none will (no
    pulls, a crash, a refusal: the wait for final diagnostics reports it). No request of its
    own has a deadline: the wait, which bounds the server's silence, cancels it."""
    session = handle.live
    while session is not None and uri in session.documents:
        if not session.supports("textDocument/diagnostic", uri):
            # A server may register pulls later (basedpyright on a busy machine): wait
            # for that while the wait lasts, while its pushes count meanwhile.
            if not await session.wait_for_capability("textDocument/diagnostic", uri, timeout=None):
                return
            continue
        version = notebooks.report_version(handle, session, uri)
        asked = handle.finality.generation
        try:
            result = await session.document_diagnostics(uri, timeout=None)
        except StaleResultError:
            continue  # the text changed meanwhile: pull the new one
        except LspError:
            return  # a crash or a refusal
        handle.finality.pulled(uri, version, list(result), time.monotonic(), asked)
        handle.changed.fire()
        if asked == handle.finality.generation:
            return
        # Made outdated on its way (a refresh, other files changed): ask again.


async def probe(handle: ServerHandle, uri: str, path: Path, version: int) -> None:
    """Ask a silent server directly (its spec's ``diagnostics_probe``); every answer empty is
    a final empty report for ``version``. Anything else leaves the wait to its pushes."""
    probe = handle.spec.diagnostics_probe
    session = handle.live
    if probe is None or session is None:
        return
    for arguments in probe["arguments"]:
        filled = _fill(arguments, str(path))
        try:
            answer = await session.execute_command(probe["command"], filled)
        except LspError:
            return
        body = answer.get(probe["empty"]) if isinstance(answer, dict) else None
        if body != []:
            return
    handle.finality.pulled(uri, version, [], time.monotonic())
    handle.changed.fire()


def _fill(value: Any, path: str) -> Any:
    """``value`` with ``{path}`` in its strings replaced by ``path``."""
    if isinstance(value, str):
        return value.replace("{path}", path)
    if isinstance(value, list):
        return [_fill(item, path) for item in value]
    if isinstance(value, dict):
        return {key: _fill(item, path) for key, item in value.items()}
    return value
