"""Answering a client from a recorded trace, without I/O: what ``adecore_lsp.testing`` replays.

A :class:`ReplayScript` holds one server's recorded messages, in order, each ``("send",
message)`` (client to server) or ``("receive", message)`` (server to client). Each message the
client sends now is matched to the first unmatched recorded send of the same kind:

- a request or a notification by ``method`` and ``params.textDocument.uri`` (when present);
- a response to a server request by its ``id`` (server requests are released with their
  recorded ids, so the client answers with those).

A recorded receive is released once every recorded send before it has been matched, in the
order of the trace. The answer to the recorded request ``R`` goes out with the id of the live
request matched to ``R``. A recorded ``$/cancelRequest`` holds nothing back: when a client
cancels depends on timing, not on what it asked.

When the recording was made in another folder, recorded URIs (and paths) under the recorded
root, that of the recorded ``initialize``, are rewritten under the live one: the live client's
URIs are matched exactly first, then by their place under the root.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...types import JSONObject
from ..documents.uris import uri_to_path

# Internal to the library: nothing here is public API (adecore_lsp.testing is).
__all__: list[str] = []

Recorded = Sequence[tuple[str, Mapping[str, Any]]]
"""One server's recorded messages, in order: ``(direction, message)``."""

_NOT_GATING = frozenset({"$/cancelRequest"})
"""Recorded client notifications that hold no later server message back."""

_INTERNAL_ERROR = -32603

# A root is replaced only where it ends a name: not "/tmp/proj" inside "/tmp/project".
_NAME_GOES_ON = r"(?![\w.~%+@-])"


def sessions(recorded: Recorded) -> list[tuple[list[tuple[str, Mapping[str, Any]]], bool]]:
    """``recorded`` split into sessions, each starting at a recorded ``initialize`` request.

    Each comes with whether the server went away by itself at its end: a session followed by
    another one with no ``exit`` sent in it (the server crashed and was started again).
    """
    found: list[list[tuple[str, Mapping[str, Any]]]] = [[]]
    initialized = False  # whether the last session has its initialize yet
    for direction, message in recorded:
        if direction == "send" and _method(message) == "initialize" and "id" in message:
            if initialized:
                found.append([])
            initialized = True
        found[-1].append((direction, message))
    last = len(found) - 1
    return [
        (session, index < last and not any(_method(m) == "exit" for _, m in session))
        for index, session in enumerate(found)
    ]


class ReplayScript:
    """The recorded side of a connection (see the module's docstring)."""

    def __init__(self, recorded: Recorded, *, crashed: bool = False) -> None:
        self._crashed = crashed
        self._sends: list[bool] = []  # whether each recorded send has been matched
        self._waiting: dict[tuple[Any, ...], deque[tuple[int, Any]]] = {}
        self._receives: list[tuple[int, Mapping[str, Any]]] = []  # (sends before it, message)
        self._recorded_root: str | None = None
        for direction, message in recorded:
            if direction == "receive":
                self._receives.append((len(self._sends), message))
                continue
            method = _method(message)
            if method == "initialize" and self._recorded_root is None:
                self._recorded_root = _root_of(message)
            key = _key(message, None)
            if key is None or method in _NOT_GATING:
                self._sends.append(True)  # holds nothing back
                continue
            self._waiting.setdefault(key, deque()).append((len(self._sends), message.get("id")))
            self._sends.append(False)
        self._matched = 0  # how many recorded sends, from the first, are all matched
        self._released = 0  # how many recorded receives went out
        self._ids: dict[tuple[str, Any], Any] = {}  # recorded request id -> live id
        self._rewrite: tuple[re.Pattern[str], dict[str, str]] | None = None
        self._live_root: str | None = None
        self.returncode: int | None = None
        """Set when the connection ends: 0 after ``exit``, 1 where the recorded server died."""

    def receive(self, message: Mapping[str, Any]) -> list[JSONObject]:
        """Take one message from the client; return what the server says now, in order."""
        if self.returncode is not None:
            return []
        method = _method(message)
        if method == "initialize":
            self._set_live_root(_root_of(message))
        answer: JSONObject | None = None
        found = self._match(message)
        if found is not None:
            index, recorded_id = found
            self._sends[index] = True
            if method is not None and "id" in message:
                self._ids[_id_key(recorded_id)] = message["id"]
        elif method is not None and "id" in message:
            answer = self._no_answer(method, message)
        released = self._advance()
        if answer is not None:
            released.append(answer)
        if method == "exit":
            self.returncode = 0
        elif self._crashed and self.finished:
            self.returncode = 1
        return released

    @property
    def finished(self) -> bool:
        """Whether every recorded send has been matched and every receive released."""
        return self._matched == len(self._sends) and self._released == len(self._receives)

    def _match(self, message: Mapping[str, Any]) -> tuple[int, Any] | None:
        for key in (_key(message, None), _key(message, self._to_recorded)):
            queue = self._waiting.get(key) if key is not None else None
            if queue:
                return queue.popleft()
        return None

    def _advance(self) -> list[JSONObject]:
        sends = self._sends
        while self._matched < len(sends) and sends[self._matched]:
            self._matched += 1
        released: list[JSONObject] = []
        receives = self._receives
        while self._released < len(receives) and receives[self._released][0] <= self._matched:
            message = self._release(receives[self._released][1])
            self._released += 1
            if message is not None:
                released.append(message)
        return released

    def _release(self, recorded: Mapping[str, Any]) -> JSONObject | None:
        message: JSONObject = self._copy(recorded)
        if "method" not in message and "id" in message:
            live = self._ids.get(_id_key(message["id"]), _UNKNOWN)
            if live is _UNKNOWN:
                return None  # an answer to nothing the client asked
            message["id"] = live
        return message

    def _no_answer(self, method: str, message: Mapping[str, Any]) -> JSONObject:
        if method == "shutdown":
            return {"jsonrpc": "2.0", "id": message["id"], "result": None}
        uri = _uri(message)
        what = f"{method} {uri}" if uri is not None else method
        return {
            "jsonrpc": "2.0",
            "id": message["id"],
            "error": {"code": _INTERNAL_ERROR, "message": f"the trace has no answer for {what}"},
        }

    # -- roots ---------------------------------------------------------------------------

    def _set_live_root(self, live: str | None) -> None:
        recorded = self._recorded_root
        if live is None or recorded is None or live == recorded:
            return
        self._live_root = live
        replacements = {recorded: live}
        recorded_path, live_path = _path(recorded), _path(live)
        if recorded_path and live_path:
            replacements.setdefault(recorded_path, live_path)
        # Longest first: the URI before the path it holds.
        spelled = "|".join(re.escape(old) for old in sorted(replacements, key=len, reverse=True))
        self._rewrite = (re.compile(f"(?:{spelled}){_NAME_GOES_ON}"), replacements)

    def _to_recorded(self, uri: str) -> str:
        """A live URI under the live root, spelled under the recorded one."""
        live, recorded = self._live_root, self._recorded_root
        if live is None or recorded is None:
            return uri
        if uri == live or uri.startswith(live + "/"):
            return recorded + uri[len(live) :]
        return uri

    def _copy(self, value: Any) -> Any:
        """A copy of a recorded value, with recorded roots rewritten to the live one."""
        if isinstance(value, str):
            if self._rewrite is None:
                return value
            pattern, replacements = self._rewrite
            return pattern.sub(lambda match: replacements[match.group(0)], value)
        if isinstance(value, Mapping):
            return {key: self._copy(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._copy(item) for item in value]
        return value


_UNKNOWN = object()


def _method(message: Mapping[str, Any]) -> str | None:
    method = message.get("method")
    return method if isinstance(method, str) else None


def _id_key(value: Any) -> tuple[str, Any]:
    """An id as a key: ``1`` and ``"1"`` are different ids (and ``True`` is no ``1``)."""
    return (type(value).__name__, value)


def _uri(message: Mapping[str, Any]) -> str | None:
    params = message.get("params")
    document = params.get("textDocument") if isinstance(params, Mapping) else None
    uri = document.get("uri") if isinstance(document, Mapping) else None
    return uri if isinstance(uri, str) else None


def _key(
    message: Mapping[str, Any], to_recorded: Callable[[str], str] | None
) -> tuple[Any, ...] | None:
    """What a client message is matched by; ``None`` for one that is nothing to match.

    With ``to_recorded``, the URI is first spelled under the recorded root.
    """
    method = _method(message)
    if method is not None:
        uri = _uri(message)
        if to_recorded is not None and uri is not None:
            uri = to_recorded(uri)
        return ("call", method, uri)
    if "id" in message and ("result" in message or "error" in message):
        return ("answer", _id_key(message["id"]))
    return None


def _root_of(message: Mapping[str, Any]) -> str | None:
    """The ``rootUri`` of an ``initialize`` request, without a trailing slash.

    ``None`` without one, and for the file system's own root (``file:///``): every URI is
    under it, and none is rewritten.
    """
    params = message.get("params")
    root = params.get("rootUri") if isinstance(params, Mapping) else None
    if not isinstance(root, str):
        return None
    stripped = root.rstrip("/")
    return stripped if not stripped.endswith(":") else None


def _path(uri: str) -> str | None:
    """The path a root URI names, if it is a ``file:`` URI."""
    return uri_to_path(uri, windows=os.name == "nt") or None
