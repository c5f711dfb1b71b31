"""Calls about a whole document or a range of it that answer with plain lists:
inlay hints, folding ranges, selection ranges, document links, code lenses, semantic tokens."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ErrorCodes, LspError
from ..protocol.shapes import normalize
from ..protocol.shapes.semantic_tokens import SemanticToken
from ..protocol.shapes.semantic_tokens import semantic_tokens as decode
from ..types import JSONObject
from .calls import At, Span, position, send, span

if TYPE_CHECKING:
    from ..session import LspSession

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


async def document_list(
    session: LspSession, method: str, uri: str, timeout: Any, **extra: Any
) -> list[JSONObject]:
    """A request about a whole document whose answer is a list (``null``: ``[]``)."""
    params = {"textDocument": {"uri": uri}, **extra}
    return normalize.list_result(await send(session, method, uri, params, timeout), method)


async def inlay_hints(
    session: LspSession, uri: str, range_: Span, timeout: Any
) -> list[JSONObject]:
    """``textDocument/inlayHint``: ``InlayHint[]``."""
    lsp_range = span(session, uri, range_)
    return await document_list(session, "textDocument/inlayHint", uri, timeout, range=lsp_range)


async def selection_ranges(
    session: LspSession, uri: str, positions: Sequence[At], timeout: Any
) -> list[JSONObject]:
    """``textDocument/selectionRange``: one ``SelectionRange`` per position."""
    points = [position(session, uri, at) for at in positions]
    method = "textDocument/selectionRange"
    return await document_list(session, method, uri, timeout, positions=points)


async def semantic_tokens(
    session: LspSession, uri: str, range_: Span | None, timeout: Any
) -> list[SemanticToken]:
    """Semantic tokens of the document (or of a range), decoded with the server's legend."""
    params: JSONObject = {"textDocument": {"uri": uri}}
    if range_ is None:
        method = "textDocument/semanticTokens/full"
    else:
        method = "textDocument/semanticTokens/range"
        params["range"] = span(session, uri, range_)
    options = session.provider_options(method, uri) or {}
    legend = options.get("legend")
    if not isinstance(legend, dict):
        raise LspError(ErrorCodes.InternalError, f"{method}: the server announced no token legend")
    return decode(await send(session, method, uri, params, timeout), legend)
