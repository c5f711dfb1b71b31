"""The edits servers send while a plan is made: a ``workspace/applyEdit`` joins the plan.

A rename, format or fix may come back partly as the server's own ``workspace/applyEdit``
requests. While a plan is made with some servers, what they send is collected (answered
``applied: true``) and written if and when the plan is applied; any other is refused.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...types import JSONObject
from ..servers.handles import REFUSED_EDIT, ServerHandle

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


@dataclass
class _Collector:
    """A plan being made with these servers, and the edits they sent meanwhile."""

    handles: list[ServerHandle]
    edits: list[tuple[Any, str]]


class EditCollection:
    """The plans being made, each with its servers and the edits they sent."""

    def __init__(self) -> None:
        self._collectors: list[_Collector] = []

    @contextlib.contextmanager
    def collecting(self, handles: Sequence[ServerHandle]) -> Iterator[list[tuple[Any, str]]]:
        """``Workspace.collecting``: within the block, the edits ``handles`` send join the
        list as ``(edit, position encoding)``."""
        collector = _Collector(list(handles), [])
        self._collectors.append(collector)
        try:
            yield collector.edits
        finally:
            self._collectors.remove(collector)

    def answer(self, handle: ServerHandle, params: Any) -> JSONObject:
        """The answer to a server's ``workspace/applyEdit``: joined to the plan being made
        with that server, else refused."""
        for collector in reversed(self._collectors):
            if handle in collector.handles:
                edit = params.get("edit") if isinstance(params, Mapping) else None
                if not isinstance(edit, Mapping):
                    return {"applied": False, "failureReason": "the request has no edit"}
                session = handle.live
                encoding = (session.position_encoding if session else None) or "utf-16"
                collector.edits.append((edit, encoding))
                return {"applied": True}
        return {"applied": False, "failureReason": REFUSED_EDIT}
