"""Call and type hierarchies: prepare at a position, then walk from an item."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..protocol.shapes import normalize
from ..types import JSONObject
from .calls import At, at_position, send

if TYPE_CHECKING:
    from ..session import LspSession

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


async def prepare(
    session: LspSession, method: str, uri: str, at: At, timeout: Any
) -> list[JSONObject]:
    """``textDocument/prepareCallHierarchy`` or ``prepareTypeHierarchy``: the items at ``at``."""
    params = at_position(session, uri, at)
    return normalize.list_result(await send(session, method, uri, params, timeout), method)


async def walk(
    session: LspSession, method: str, item: Mapping[str, Any], timeout: Any
) -> list[JSONObject]:
    """``callHierarchy/incomingCalls`` and kin: the items one step from ``item``."""
    uri = item.get("uri") if isinstance(item, dict) else None
    params = {"item": item}
    result = await send(session, method, uri if isinstance(uri, str) else None, params, timeout)
    return normalize.list_result(result, method)
