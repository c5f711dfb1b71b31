"""Document and workspace symbols, always in their LSP 3.17 shapes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..protocol.shapes import symbols as shapes
from ..types import JSONObject
from .calls import send

if TYPE_CHECKING:
    from ..session import LspSession

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


async def document_symbols(session: LspSession, uri: str, timeout: Any) -> list[JSONObject]:
    """``textDocument/documentSymbol``: always the ``DocumentSymbol`` tree."""
    method = "textDocument/documentSymbol"
    params = {"textDocument": {"uri": uri}}
    return shapes.document_symbols(await send(session, method, uri, params, timeout))


async def workspace_symbols(session: LspSession, query: str, timeout: Any) -> list[JSONObject]:
    """``workspace/symbol``: ``WorkspaceSymbol[]`` (a ``SymbolInformation`` is one too)."""
    method = "workspace/symbol"
    result = await send(session, method, None, {"query": query}, timeout)
    return shapes.workspace_symbols(result)


async def resolve_workspace_symbol(
    session: LspSession, symbol: Mapping[str, Any], timeout: Any
) -> JSONObject:
    """``workspaceSymbol/resolve``: the symbol with its location filled in."""
    return await send(session, "workspaceSymbol/resolve", None, symbol, timeout)  # type: ignore[no-any-return]
