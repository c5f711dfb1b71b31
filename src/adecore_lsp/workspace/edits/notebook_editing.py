"""``format`` and ``fix`` of a notebook (``notebooks.md``, "Writing a notebook"): the server
is asked about each code cell's URI (ruff refuses the notebook's own), or about the joined
document, and its edits become an edit of the notebook's cells in the plan.

``fix`` asks ``notebook.source.fixAll`` of the first code cell (one action for the whole
notebook, as ruff offers it), then ``source.fixAll`` of each cell for servers without the
notebook kind.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import LspError
from ..files.notebooks import tracked

if TYPE_CHECKING:
    from ...session import LspSession
    from ..servers.handles import ServerHandle
    from .needs import EditNeeds

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

NOTEBOOK_KIND_PREFIX = "notebook."
"""A notebook-wide code action kind is the kind with this before it (LSP 3.17)."""


def encoding_of(session: LspSession) -> str:
    """The position encoding a server's edits are in (UTF-16 unless it chose another)."""
    return session.position_encoding or "utf-16"


def document_edit(uri: str, text_edits: Any) -> dict[str, Any]:
    """A ``WorkspaceEdit`` of one document's text edits, made against any version."""
    return {
        "documentChanges": [
            {"textDocument": {"uri": uri, "version": None}, "edits": list(text_edits)}
        ]
    }


async def _handles(ws: EditNeeds, path: Path) -> list[tuple[ServerHandle, LspSession, list[str]]]:
    """The servers of a notebook, each with its session and the URIs it has the notebook
    under (its cells, or the joined document)."""
    await ws.sync_disk()
    handles = await ws.open(path)
    uri = ws.paths.uri(path)
    found = []
    for handle in handles:
        session = await handle.session()
        found.append((handle, session, tracked(handle, uri)))
    return found


async def format_notebook(ws: EditNeeds, path: Path) -> list[tuple[Any, str]]:
    """The formatting edits of a notebook's code cells, from the first server that formats
    them."""
    for handle, session, uris in await _handles(ws, path):
        if not uris or not await _answers(ws, handle, "textDocument/formatting", uris[0]):
            continue
        edits: list[tuple[Any, str]] = []
        for uri in uris:
            _handle, _session, text_edits = await ws.ask(
                [handle], "textDocument/formatting", lambda s, u=uri: s.formatting(u), uri
            )
            if text_edits:
                edits.append((document_edit(uri, text_edits), encoding_of(session)))
        return edits
    return []


async def _answers(ws: EditNeeds, handle: ServerHandle, method: str, uri: str) -> bool:
    """Whether the server answers ``method`` for ``uri`` (waiting, as every feature call
    does, for a capability it registers just after its start)."""
    try:
        await ws.ask([handle], method, lambda _session: _nothing(), uri)
    except LspError:
        return False
    return True


async def _nothing() -> None:
    return None


def kind_matches(kind: object, only: str) -> bool:
    """Whether a code action kind is ``only`` or one of its children (``source.fixAll.ruff``)."""
    return isinstance(kind, str) and (kind == only or kind.startswith(only + "."))


async def take_action(
    handle: ServerHandle, session: LspSession, uri: str, actions: list[Any], only: str
) -> list[tuple[Any, str]] | None:
    """The edit of the first ``only`` action of ``actions`` (resolved if it comes without);
    ``[]`` when its command made the server send the edit itself (which
    :meth:`Workspace.collecting` takes); ``None`` when there is no such action."""
    try:
        for action in actions:
            if not kind_matches(action.get("kind"), only):
                continue
            if "edit" not in action and session.supports("codeAction/resolve", uri):
                action = await session.resolve_code_action(action)
            if "edit" in action:
                return [(action["edit"], encoding_of(session))]
            command = action.get("command")
            if isinstance(command, dict) and isinstance(command.get("command"), str):
                await session.execute_command(command["command"], command.get("arguments"))
                return []
    except LspError as error:
        raise await handle.translate(error) from error
    return None


async def _action_edit(
    handle: ServerHandle, session: LspSession, uri: str, only: str
) -> list[tuple[Any, str]] | None:
    """:func:`take_action` of the ``only`` actions offered for the whole of ``uri``."""
    try:
        actions = await session.code_actions(
            uri, (0, len(session.documents[uri].text)), only=[only], diagnostics=[]
        )
    except LspError as error:
        raise await handle.translate(error) from error
    return await take_action(handle, session, uri, actions, only)


async def fix_notebook(ws: EditNeeds, path: Path, only: str) -> list[tuple[Any, str]]:
    """The fix-all edits of a notebook: the notebook-wide action of the first code cell,
    else the action of each cell, from the first server that offers one."""
    for handle, session, uris in await _handles(ws, path):
        if not uris or not await _answers(ws, handle, "textDocument/codeAction", uris[0]):
            continue
        whole = await _action_edit(handle, session, uris[0], NOTEBOOK_KIND_PREFIX + only)
        if whole is not None:
            return whole
        edits: list[tuple[Any, str]] = []
        offered = False
        for uri in uris:
            found = await _action_edit(handle, session, uri, only)
            if found is not None:
                offered = True
                edits.extend(found)
        if offered:
            return edits
    return []
