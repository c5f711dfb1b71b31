"""Replaying a recorded trace in place of a live language server: a bug report becomes a test.

``Workspace(root, trace="t.jsonl")`` (or ``adecore-lsp ... --trace t.jsonl``) writes every
message with each server; :func:`replay` answers the same calls again from that file, with no
server installed::

    async with Workspace(root, servers=["ruff"], connect=replay("t.jsonl")) as ws:
        report = await ws.diagnostics(["app.py"])

Requests are matched to recorded ones by method and ``textDocument.uri``, in order, with ids
remapped; a recorded answer or server message is released once what preceded it in the trace
has been sent. A request the trace has no answer for fails at once with an ``LspError``
saying so, never by a timeout. A trace recorded in another folder replays too: recorded URIs
under the recorded root are rewritten under the live one.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from .errors import ErrorCodes, LspError
from .protocol.wire.encoder import encode_body
from .protocol.workspace.replay import ReplayScript, sessions
from .transports.base import BaseTransport, LspTransport
from .types import JSONObject

if TYPE_CHECKING:
    from .workspace.servers.processes import Connect, ServerConnection
    from .workspace.servers.registry import ServerSpec

__all__ = ["ReplayTransport", "replay", "load_trace"]

_DIRECTIONS = ("send", "receive")


def load_trace(path: str | os.PathLike[str]) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """The messages of a trace file, per server id: ``(direction, message)`` in order.

    Each line is ``{"time": ..., "direction": "send" | "receive", "server": id, "message":
    {...}}`` (``time`` is not needed); blank lines are skipped.

    Raises:
        OSError: the file cannot be read.
        ValueError: a line is not JSON or lacks a key (the message names the file and the
            line), or the file has no message at all.
    """
    servers: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    with open(path, "rb") as file:
        for number, line in enumerate(file, start=1):
            if not line.strip():
                continue
            try:
                entry = orjson.loads(line)
            except orjson.JSONDecodeError as error:
                raise ValueError(
                    f"{os.fsdecode(path)}, line {number}: not JSON ({error})"
                ) from None
            problem = _problem(entry)
            if problem is not None:
                raise ValueError(f"{os.fsdecode(path)}, line {number}: {problem}")
            servers.setdefault(entry["server"], []).append((entry["direction"], entry["message"]))
    if not servers:
        raise ValueError(f"{os.fsdecode(path)} holds no message: there is nothing to replay")
    return servers


def _problem(entry: Any) -> str | None:
    """What keeps a trace line from being one, or ``None``."""
    if not isinstance(entry, dict):
        return "not a JSON object"
    missing = [key for key in ("direction", "server", "message") if key not in entry]
    if missing:
        return f"lacks {', '.join(repr(key) for key in missing)}"
    if entry["direction"] not in _DIRECTIONS:
        return f"the direction is {entry['direction']!r}, not 'send' or 'receive'"
    if not isinstance(entry["server"], str):
        return "the server is not a string"
    if not isinstance(entry["message"], dict):
        return "the message is not a JSON object"
    return None


class ReplayTransport(BaseTransport):
    """An :class:`~adecore_lsp.LspTransport` whose peer is a recording of one server.

    ``recorded`` is one server's ``(direction, message)`` list, as :func:`load_trace` gives
    it. Each message sent is matched to the first unmatched recorded send of its kind (a
    request or notification by method and ``textDocument.uri``, an answer to a server
    request by id); then every recorded server message whose preceding sends have all been
    matched is delivered, in order, on a later turn of the running loop (never inside
    ``send``). A request with no recorded counterpart gets an error answer saying so
    (``shutdown`` gets ``null``); a notification with none is dropped.

    ``exit`` or :meth:`close` ends the connection (:attr:`returncode` 0). With ``crashed``,
    the recorded server died after its last message: the connection ends with
    :attr:`returncode` 1 once everything recorded has been matched and delivered.
    ``send`` needs a running event loop; a message JSON cannot carry raises
    :class:`~adecore_lsp.errors.MessageEncodingError` as on a real wire.
    """

    def __init__(
        self, recorded: Sequence[tuple[str, Mapping[str, Any]]], *, crashed: bool = False
    ) -> None:
        super().__init__()
        self._script = ReplayScript(recorded, crashed=crashed)
        self._returncode: int | None = None
        self._ending = False

    @property
    def returncode(self) -> int | None:
        """``None`` while the connection lasts, then 0 (``exit``, ``close``) or 1 (crashed)."""
        return self._returncode

    def _send(self, message: JSONObject) -> None:
        loop = asyncio.get_running_loop()
        copy: JSONObject = orjson.loads(encode_body(message))
        if self._ending:
            return  # after exit, nobody is listening
        for released in self._script.receive(copy):
            loop.call_soon(self._deliver, released)
        code = self._script.returncode
        if code is not None:
            self._ending = True
            loop.call_soon(self._end, code)  # after every delivery queued above

    def _deliver(self, message: JSONObject) -> None:
        if not self._closed:
            self._receive(message)

    def _end(self, code: int) -> None:
        if not self._closed:
            self._returncode = code
            self._finish(None)

    def _close_underlying(self) -> None:
        self._ending = True
        self._returncode = 0


class _ReplayConnection:
    """A replayed server, as a workspace sees a running one (``ServerConnection``)."""

    def __init__(self, transport: ReplayTransport) -> None:
        self._transport = transport

    @property
    def transport(self) -> LspTransport:
        return self._transport

    @property
    def pid(self) -> int | None:
        return None

    @property
    def returncode(self) -> int | None:
        return self._transport.returncode

    @property
    def stderr_lines(self) -> tuple[str, ...]:
        return ()

    async def wait(self) -> int:
        """Return the return code once the connection has ended."""
        ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def closed(_reason: BaseException | None) -> None:
            ended.set_result(None)  # told once; a cancelled wait stopped listening first

        listening = self._transport.on_close(closed)
        try:
            await ended
        finally:
            listening.dispose()
        code = self._transport.returncode
        return code if code is not None else 0

    async def aclose(self, *, grace_period: float | None = None) -> None:
        self._transport.close()


def replay(trace: str | os.PathLike[str]) -> Connect:
    """A ``connect`` function for ``Workspace(connect=)`` that answers from ``trace``.

    The file is read once, now (:func:`load_trace`'s errors are raised here). Each connect
    for a server replays its recorded messages from the start; when the trace holds several
    sessions of the server (it was restarted while recording), the n-th connect replays the
    n-th session (the last one again past the end), and a session that ended without
    ``exit`` (the server crashed) ends the same way once replayed.

    Connecting to a server the trace has no message with raises :class:`LspError` naming
    the servers it has.
    """
    name = os.fsdecode(trace)
    recorded = {server: sessions(messages) for server, messages in load_trace(trace).items()}
    connects: dict[str, int] = {}

    async def connect(spec: ServerSpec, root: Path) -> ServerConnection:
        found = recorded.get(spec.id)
        if found is None:
            has = ", ".join(sorted(recorded))
            raise LspError(
                ErrorCodes.InternalError,
                f"the trace {name} has no message with the server {spec.id}; it has {has}",
            )
        count = connects.get(spec.id, 0)
        connects[spec.id] = count + 1
        messages, crashed = found[min(count, len(found) - 1)]
        return _ReplayConnection(ReplayTransport(messages, crashed=crashed))

    return connect
