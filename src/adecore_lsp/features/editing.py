"""Rename, formatting and code actions: the calls that answer with edits."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..paths import uri_to_path
from ..protocol.documents.documents import TextDocument
from ..protocol.shapes import normalize
from ..protocol.shapes.pull_diagnostics import overlapping
from ..types import JSONObject
from .calls import At, Span, at_position, send, span

if TYPE_CHECKING:
    from ..session import LspSession

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


async def rename(
    session: LspSession,
    uri: str,
    at: At,
    new_name: str,
    version_of: Callable[[str], int | None],
    timeout: Any,
) -> JSONObject:
    """``textDocument/rename``: a ``WorkspaceEdit`` always with ``documentChanges``.

    The version of each changed document is the open document's, found by path (servers
    spell URIs their own way), else ``null``.
    """
    params = at_position(session, uri, at)
    params["newName"] = new_name
    result = await send(session, "textDocument/rename", uri, params, timeout)
    return normalize.workspace_edit(result, version_of)


def formatting_options(tab_size: int, insert_spaces: bool, options: dict[str, Any]) -> JSONObject:
    """``FormattingOptions``: the two LSP requires, then the caller's (in LSP's camelCase)."""
    return {"tabSize": tab_size, "insertSpaces": insert_spaces, **options}


async def formatting(
    session: LspSession, uri: str, options: JSONObject, timeout: Any
) -> list[JSONObject]:
    """``textDocument/formatting``: ``TextEdit[]``."""
    method = "textDocument/formatting"
    params = {"textDocument": {"uri": uri}, "options": options}
    return normalize.list_result(await send(session, method, uri, params, timeout), method)


async def range_formatting(
    session: LspSession, uri: str, range_: Span, options: JSONObject, timeout: Any
) -> list[JSONObject]:
    """``textDocument/rangeFormatting``: ``TextEdit[]``."""
    method = "textDocument/rangeFormatting"
    params = {"textDocument": {"uri": uri}, "range": span(session, uri, range_), "options": options}
    return normalize.list_result(await send(session, method, uri, params, timeout), method)


async def code_actions(
    session: LspSession,
    uri: str,
    range_: Span,
    only: list[str] | None,
    diagnostics: Sequence[Mapping[str, Any]] | None,
    last_reported: Callable[[], Any],
    timeout: Any,
) -> list[JSONObject]:
    """``textDocument/codeAction``: ``CodeAction[]``, a bare ``Command`` wrapped in one.

    ``diagnostics`` defaults to the document's last reported diagnostics (whatever their
    version, from ``last_reported()``) that overlap the range.
    """
    method = "textDocument/codeAction"
    lsp_range = span(session, uri, range_)
    if diagnostics is None:
        diagnostics = overlapping(last_reported(), lsp_range)
    context: JSONObject = {"diagnostics": diagnostics}
    if only is not None:
        context["only"] = list(only)
    params = {"textDocument": {"uri": uri}, "range": lsp_range, "context": context}
    return normalize.code_actions(await send(session, method, uri, params, timeout))


async def resolve_code_action(
    session: LspSession, action: Mapping[str, Any], timeout: Any
) -> JSONObject:
    """``codeAction/resolve``: the action with its edit filled in."""
    return await send(session, "codeAction/resolve", None, action, timeout)  # type: ignore[no-any-return]


async def prepare_rename(session: LspSession, uri: str, at: At, timeout: Any) -> JSONObject | None:
    """``textDocument/prepareRename``: ``{"range", "placeholder"}`` or ``None``.

    A placeholder the server leaves out comes from the open document's text, else the
    file's (read as UTF-8).
    """
    params = at_position(session, uri, at)
    result = await send(session, "textDocument/prepareRename", uri, params, timeout)
    if result is None:
        return None
    document = session.documents.get(uri)
    if document is None:
        encoding = session.position_encoding or "utf-16"
        document = TextDocument(uri, "plaintext", 0, _read_text(uri), encoding)
    offset = document.offset_at(params["position"])
    return normalize.prepare_rename(
        result,
        document.text,
        offset,
        offset_of=document.offset_at,
        position_of=document.position_at,
    )


def _read_text(uri: str) -> str:
    """The text of the file ``uri`` names, for a placeholder the server left out."""
    try:
        return uri_to_path(uri).read_text(encoding="utf-8")
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read {uri} for the rename's placeholder: {error}") from error
