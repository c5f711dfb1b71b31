"""Hover, signature help, and the calls that answer with locations (definition and kin)."""

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


async def hover(session: LspSession, uri: str, at: At, timeout: Any) -> JSONObject | None:
    """``textDocument/hover``: contents always ``MarkupContent``, ``None`` for nothing."""
    params = at_position(session, uri, at)
    return normalize.hover(await send(session, "textDocument/hover", uri, params, timeout))


async def locations(
    session: LspSession, method: str, uri: str, at: At, timeout: Any, **extra: Any
) -> list[JSONObject]:
    """Definition, declaration, type definition, implementation, references: ``Location[]``."""
    params = at_position(session, uri, at)
    params.update(extra)
    return normalize.locations(await send(session, method, uri, params, timeout), method)


async def document_highlights(
    session: LspSession, uri: str, at: At, timeout: Any
) -> list[JSONObject]:
    """``textDocument/documentHighlight``: ``DocumentHighlight[]``."""
    method = "textDocument/documentHighlight"
    params = at_position(session, uri, at)
    return normalize.list_result(await send(session, method, uri, params, timeout), method)


async def signature_help(
    session: LspSession, uri: str, at: At, context: Mapping[str, Any] | None, timeout: Any
) -> JSONObject | None:
    """``textDocument/signatureHelp``: ``SignatureHelp`` or ``None``."""
    method = "textDocument/signatureHelp"
    params = at_position(session, uri, at)
    if context is not None:
        params["context"] = context
    result = await send(session, method, uri, params, timeout)
    if result is None or type(result) is dict:
        return result
    raise normalize.wrong(method, result, "SignatureHelp or null")
