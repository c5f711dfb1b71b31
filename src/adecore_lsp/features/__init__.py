"""Feature calls: one coroutine method of :class:`~adecore_lsp.LspSession` per LSP request.

Each method here is a line that hands over to a small function in a module of its own
(:mod:`.navigation`, :mod:`.symbols`, :mod:`.completion`, :mod:`.editing`, :mod:`.ranges`,
:mod:`.hierarchy`); the shapes are normalised by :mod:`adecore_lsp.protocol.normalize`.
Every call checks that the server answers the method first (``LspError`` ``MethodNotFound``
otherwise, nothing sent), takes positions as LSP ``Position``s or ``str`` indices into the
open document, and a ``timeout`` keyword like ``request()``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from ..options import DEFAULT
from ..protocol.semantic_tokens import SemanticToken
from ..types import JSONObject
from . import apply, calls, completion, editing, hierarchy, navigation, ranges, symbols
from .calls import At, Span

if TYPE_CHECKING:
    from ..session import LspSession

# Internal to the library: LspSession is the public face of these calls.
__all__: list[str] = []


class FeatureCalls:
    """The feature calls of a session (see the module's docstring)."""

    __slots__ = ()

    @property
    def _session(self) -> LspSession:
        return cast("LspSession", self)

    async def wait_for_capability(
        self, method: str, document: Any = None, *, timeout: float | None = 1.0
    ) -> bool:
        """Whether the server answers ``method`` (for ``document``), waiting up to ``timeout``
        seconds for it to be registered."""
        return await calls.wait_for_capability(self._session, method, document, timeout=timeout)

    async def execute_command(
        self, command: str, arguments: Sequence[Any] | None = None, *, timeout: Any = DEFAULT
    ) -> Any:
        """Ask the server to run ``command`` (``workspace/executeCommand``)."""
        params: JSONObject = {"command": command}
        if arguments is not None:
            params["arguments"] = list(arguments)
        return await self._session.request("workspace/executeCommand", params, timeout=timeout)

    async def apply_edit(
        self,
        edit: JSONObject,
        *,
        save: bool = True,
        allow_outside_workspace: bool = False,
        confirm: apply.Confirm | None = None,
    ) -> JSONObject:
        """Apply a ``WorkspaceEdit``, all or nothing: an ``ApplyWorkspaceEditResult``."""
        return await apply.apply_edit(
            self._session,
            edit,
            save=save,
            allow_outside_workspace=allow_outside_workspace,
            confirm=confirm,
        )

    async def apply_text_edits(
        self, uri: str, edits: Sequence[JSONObject], *, save: bool = True
    ) -> JSONObject:
        """Apply a ``TextEdit[]`` to ``uri``, each edit against the text before any of them."""
        return await apply.apply_text_edits(self._session, uri, edits, save=save)

    # -- at a position ---------------------------------------------------------------------

    async def hover(self, uri: str, at: At, *, timeout: Any = DEFAULT) -> JSONObject | None:
        """The hover at ``at``: ``contents`` always ``MarkupContent``; ``None`` for nothing."""
        return await navigation.hover(self._session, uri, at, timeout)

    async def definition(self, uri: str, at: At, *, timeout: Any = DEFAULT) -> list[JSONObject]:
        """Where the symbol at ``at`` is defined: ``Location[]``."""
        method = "textDocument/definition"
        return await navigation.locations(self._session, method, uri, at, timeout)

    async def declaration(self, uri: str, at: At, *, timeout: Any = DEFAULT) -> list[JSONObject]:
        """Where the symbol at ``at`` is declared: ``Location[]``."""
        method = "textDocument/declaration"
        return await navigation.locations(self._session, method, uri, at, timeout)

    async def type_definition(
        self, uri: str, at: At, *, timeout: Any = DEFAULT
    ) -> list[JSONObject]:
        """Where the type of the symbol at ``at`` is defined: ``Location[]``."""
        method = "textDocument/typeDefinition"
        return await navigation.locations(self._session, method, uri, at, timeout)

    async def implementation(self, uri: str, at: At, *, timeout: Any = DEFAULT) -> list[JSONObject]:
        """The implementations of the symbol at ``at``: ``Location[]``."""
        method = "textDocument/implementation"
        return await navigation.locations(self._session, method, uri, at, timeout)

    async def references(
        self, uri: str, at: At, *, include_declaration: bool = True, timeout: Any = DEFAULT
    ) -> list[JSONObject]:
        """Every use of the symbol at ``at``: ``Location[]``."""
        context = {"includeDeclaration": include_declaration}
        return await navigation.locations(
            self._session, "textDocument/references", uri, at, timeout, context=context
        )

    async def document_highlights(
        self, uri: str, at: At, *, timeout: Any = DEFAULT
    ) -> list[JSONObject]:
        """The places in the document that the symbol at ``at`` is read or written."""
        return await navigation.document_highlights(self._session, uri, at, timeout)

    async def signature_help(
        self, uri: str, at: At, *, context: JSONObject | None = None, timeout: Any = DEFAULT
    ) -> JSONObject | None:
        """The signatures of the call at ``at``, or ``None``."""
        return await navigation.signature_help(self._session, uri, at, context, timeout)

    async def completion(
        self,
        uri: str,
        at: At,
        *,
        trigger_character: str | None = None,
        timeout: Any = DEFAULT,
    ) -> JSONObject:
        """The completions at ``at``: always a ``CompletionList``, its defaults in the items."""
        return await completion.completion(self._session, uri, at, trigger_character, timeout)

    async def resolve_completion(self, item: JSONObject, *, timeout: Any = DEFAULT) -> JSONObject:
        """Fill in a completion item's details (``completionItem/resolve``)."""
        return await completion.resolve_completion(self._session, item, timeout)

    async def rename(
        self, uri: str, at: At, new_name: str, *, timeout: Any = DEFAULT
    ) -> JSONObject:
        """Rename the symbol at ``at``: a ``WorkspaceEdit`` always with ``documentChanges``."""
        session = self._session
        version_of = _open_version(session)
        return await editing.rename(session, uri, at, new_name, version_of, timeout)

    async def prepare_rename(
        self, uri: str, at: At, *, timeout: Any = DEFAULT
    ) -> JSONObject | None:
        """What a rename at ``at`` would change: ``{"range", "placeholder"}``, or ``None``."""
        return await editing.prepare_rename(self._session, uri, at, timeout)

    async def prepare_call_hierarchy(
        self, uri: str, at: At, *, timeout: Any = DEFAULT
    ) -> list[JSONObject]:
        """The call-hierarchy items at ``at``."""
        method = "textDocument/prepareCallHierarchy"
        return await hierarchy.prepare(self._session, method, uri, at, timeout)

    async def incoming_calls(self, item: JSONObject, *, timeout: Any = DEFAULT) -> list[JSONObject]:
        """The calls of ``item`` (``callHierarchy/incomingCalls``)."""
        method = "callHierarchy/incomingCalls"
        return await hierarchy.walk(self._session, method, item, timeout)

    async def outgoing_calls(self, item: JSONObject, *, timeout: Any = DEFAULT) -> list[JSONObject]:
        """What ``item`` calls (``callHierarchy/outgoingCalls``)."""
        method = "callHierarchy/outgoingCalls"
        return await hierarchy.walk(self._session, method, item, timeout)

    async def prepare_type_hierarchy(
        self, uri: str, at: At, *, timeout: Any = DEFAULT
    ) -> list[JSONObject]:
        """The type-hierarchy items at ``at``."""
        method = "textDocument/prepareTypeHierarchy"
        return await hierarchy.prepare(self._session, method, uri, at, timeout)

    async def supertypes(self, item: JSONObject, *, timeout: Any = DEFAULT) -> list[JSONObject]:
        """The supertypes of ``item`` (``typeHierarchy/supertypes``)."""
        return await hierarchy.walk(self._session, "typeHierarchy/supertypes", item, timeout)

    async def subtypes(self, item: JSONObject, *, timeout: Any = DEFAULT) -> list[JSONObject]:
        """The subtypes of ``item`` (``typeHierarchy/subtypes``)."""
        return await hierarchy.walk(self._session, "typeHierarchy/subtypes", item, timeout)

    # -- whole documents and ranges --------------------------------------------------------

    async def document_symbols(self, uri: str, *, timeout: Any = DEFAULT) -> list[JSONObject]:
        """The symbols of the document: always the ``DocumentSymbol`` tree."""
        return await symbols.document_symbols(self._session, uri, timeout)

    async def workspace_symbols(self, query: str, *, timeout: Any = DEFAULT) -> list[JSONObject]:
        """The symbols of the workspace that match ``query``: ``WorkspaceSymbol[]``."""
        return await symbols.workspace_symbols(self._session, query, timeout)

    async def resolve_workspace_symbol(
        self, symbol: JSONObject, *, timeout: Any = DEFAULT
    ) -> JSONObject:
        """Fill in a workspace symbol's location (``workspaceSymbol/resolve``)."""
        return await symbols.resolve_workspace_symbol(self._session, symbol, timeout)

    async def formatting(
        self,
        uri: str,
        *,
        tab_size: int = 4,
        insert_spaces: bool = True,
        timeout: Any = DEFAULT,
        **options: Any,
    ) -> list[JSONObject]:
        """The edits that format the document: ``TextEdit[]``, each against the text before.

        Extra ``FormattingOptions`` go in LSP's camelCase (``trimTrailingWhitespace=True``).
        """
        lsp_options = editing.formatting_options(tab_size, insert_spaces, options)
        return await editing.formatting(self._session, uri, lsp_options, timeout)

    async def range_formatting(
        self,
        uri: str,
        range: Span,
        *,
        tab_size: int = 4,
        insert_spaces: bool = True,
        timeout: Any = DEFAULT,
        **options: Any,
    ) -> list[JSONObject]:
        """The edits that format ``range``: ``TextEdit[]``."""
        lsp_options = editing.formatting_options(tab_size, insert_spaces, options)
        return await editing.range_formatting(self._session, uri, range, lsp_options, timeout)

    async def code_actions(
        self,
        uri: str,
        range: Span,
        *,
        only: Sequence[str] | None = None,
        diagnostics: list[JSONObject] | None = None,
        timeout: Any = DEFAULT,
    ) -> list[JSONObject]:
        """The code actions for ``range``: ``CodeAction[]`` (a bare ``Command`` wrapped)."""
        kinds = None if only is None else list(only)
        session = self._session
        last = partial(session._pulls.last, uri)
        return await editing.code_actions(session, uri, range, kinds, diagnostics, last, timeout)

    async def resolve_code_action(
        self, action: JSONObject, *, timeout: Any = DEFAULT
    ) -> JSONObject:
        """Fill in a code action's edit (``codeAction/resolve``)."""
        return await editing.resolve_code_action(self._session, action, timeout)

    async def semantic_tokens(
        self, uri: str, range: Span | None = None, *, timeout: Any = DEFAULT
    ) -> list[SemanticToken]:
        """The semantic tokens of the document (or ``range``), decoded with the legend."""
        return await ranges.semantic_tokens(self._session, uri, range, timeout)

    async def inlay_hints(
        self, uri: str, range: Span, *, timeout: Any = DEFAULT
    ) -> list[JSONObject]:
        """The inlay hints of ``range``: ``InlayHint[]``."""
        return await ranges.inlay_hints(self._session, uri, range, timeout)

    async def folding_ranges(self, uri: str, *, timeout: Any = DEFAULT) -> list[JSONObject]:
        """The folding ranges of the document: ``FoldingRange[]``."""
        method = "textDocument/foldingRange"
        return await ranges.document_list(self._session, method, uri, timeout)

    async def selection_ranges(
        self, uri: str, positions: Sequence[At], *, timeout: Any = DEFAULT
    ) -> list[JSONObject]:
        """One ``SelectionRange`` chain per position."""
        return await ranges.selection_ranges(self._session, uri, positions, timeout)

    async def document_links(self, uri: str, *, timeout: Any = DEFAULT) -> list[JSONObject]:
        """The links in the document: ``DocumentLink[]``."""
        method = "textDocument/documentLink"
        return await ranges.document_list(self._session, method, uri, timeout)

    async def code_lenses(self, uri: str, *, timeout: Any = DEFAULT) -> list[JSONObject]:
        """The code lenses of the document: ``CodeLens[]``."""
        method = "textDocument/codeLens"
        return await ranges.document_list(self._session, method, uri, timeout)

    # -- diagnostics -----------------------------------------------------------------------

    async def document_diagnostics(self, uri: str, *, timeout: Any = DEFAULT) -> list[JSONObject]:
        """Pull the document's diagnostics (``textDocument/diagnostic``): ``Diagnostic[]``.

        Shares the session's result ids (an ``unchanged`` report answers with the items of the
        last full one) and reports what is news through ``on_diagnostics`` too.
        """
        return await self._session._pulls.document_diagnostics(uri, timeout)

    def diagnostics(self, uri: str) -> list[JSONObject] | None:
        """The last report for the current version of the open document ``uri`` (pushed or
        pulled), ``None`` when none has come yet."""
        return self._session._pulls.current(uri)


def _open_version(session: LspSession) -> Callable[[str], int | None]:
    """The version of the open document a server's URI names, matched by path (or ``None``)."""

    def version_of(uri: str) -> int | None:
        document = session._sync.find(uri)
        return None if document is None else document.version

    return version_of
