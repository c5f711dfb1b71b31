"""Completion: always a ``CompletionList`` whose items carry the list's defaults."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..protocol.shapes.completion import completion as completion_list
from ..types import JSONObject
from .calls import At, at_position, send

if TYPE_CHECKING:
    from ..session import LspSession

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


async def completion(
    session: LspSession, uri: str, at: At, trigger_character: str | None, timeout: Any
) -> JSONObject:
    """``textDocument/completion``, with ``itemDefaults`` merged into the items."""
    params = at_position(session, uri, at)
    if trigger_character is not None:
        params["context"] = {"triggerKind": 2, "triggerCharacter": trigger_character}
    else:
        params["context"] = {"triggerKind": 1}
    result = await send(session, "textDocument/completion", uri, params, timeout)
    return completion_list(result)


async def resolve_completion(
    session: LspSession, item: Mapping[str, Any], timeout: Any
) -> JSONObject:
    """``completionItem/resolve``: the item with its details filled in."""
    return await send(session, "completionItem/resolve", None, item, timeout)  # type: ignore[no-any-return]
