"""Feature calls: one coroutine method of :class:`~adecore_lsp.LspSession` per LSP request.

Each method here is a line that hands over to a small function in a module of its own
(:mod:`.navigation`, :mod:`.symbols`, :mod:`.completion`, :mod:`.editing`, :mod:`.ranges`,
:mod:`.hierarchy`), imported the first time it is called, so that a program starts without
the calls it never makes; the shapes are normalised by :mod:`adecore_lsp.protocol.shapes.normalize`.
Every call checks that the server answers the method first (``LspError`` ``MethodNotFound``
otherwise, nothing sent), takes positions as LSP ``Position``s or ``str`` indices into the
open document, and a ``timeout`` keyword like ``request()``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from ..options import DEFAULT, Confirm
from ..protocol.shapes.semantic_tokens import SemanticToken
from ..types import JSONObject
from .calls import At, Span

if TYPE_CHECKING:
    from .. import lsp_types as t
    from ..results import DocumentChangesEdit, MarkupHover, PreparedRename
    from ..session import LspSession
    from .calls import At, Span

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
        from . import calls

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
        edit: t.WorkspaceEdit | DocumentChangesEdit,
        *,
        save: bool = True,
        allow_outside_workspace: bool = False,
        confirm: Confirm | None = None,
    ) -> t.ApplyWorkspaceEditResult:
        """Apply a ``WorkspaceEdit``, all or nothing: an ``ApplyWorkspaceEditResult``."""
        from . import apply

        return cast(
            "t.ApplyWorkspaceEditResult",
            await apply.apply_edit(
                self._session,
                edit,
                save=save,
                allow_outside_workspace=allow_outside_workspace,
                confirm=confirm,
            ),
        )

    async def apply_text_edits(
        self, uri: str, edits: Sequence[t.TextEdit], *, save: bool = True
    ) -> t.ApplyWorkspaceEditResult:
        """Apply a ``TextEdit[]`` to ``uri``, each edit against the text before any of them."""
        from . import apply

        return cast(
            "t.ApplyWorkspaceEditResult",
            await apply.apply_text_edits(self._session, uri, edits, save=save),
        )

    # -- at a position ---------------------------------------------------------------------

    async def hover(self, uri: str, at: At, *, timeout: Any = DEFAULT) -> MarkupHover | None:
        """The hover at ``at``: ``contents`` always ``MarkupContent``; ``None`` for nothing."""
        from . import navigation

        return cast("MarkupHover | None", await navigation.hover(self._session, uri, at, timeout))

    async def definition(self, uri: str, at: At, *, timeout: Any = DEFAULT) -> list[t.Location]:
        """Where the symbol at ``at`` is defined: ``Location[]``."""
        from . import navigation

        method = "textDocument/definition"
        return cast(
            "list[t.Location]", await navigation.locations(self._session, method, uri, at, timeout)
        )

    async def declaration(self, uri: str, at: At, *, timeout: Any = DEFAULT) -> list[t.Location]:
        """Where the symbol at ``at`` is declared: ``Location[]``."""
        from . import navigation

        method = "textDocument/declaration"
        return cast(
            "list[t.Location]", await navigation.locations(self._session, method, uri, at, timeout)
        )

    async def type_definition(
        self, uri: str, at: At, *, timeout: Any = DEFAULT
    ) -> list[t.Location]:
        """Where the type of the symbol at ``at`` is defined: ``Location[]``."""
        from . import navigation

        method = "textDocument/typeDefinition"
        return cast(
            "list[t.Location]", await navigation.locations(self._session, method, uri, at, timeout)
        )

    async def implementation(self, uri: str, at: At, *, timeout: Any = DEFAULT) -> list[t.Location]:
        """The implementations of the symbol at ``at``: ``Location[]``."""
        from . import navigation

        method = "textDocument/implementation"
        return cast(
            "list[t.Location]", await navigation.locations(self._session, method, uri, at, timeout)
        )

    async def references(
        self, uri: str, at: At, *, include_declaration: bool = True, timeout: Any = DEFAULT
    ) -> list[t.Location]:
        """Every use of the symbol at ``at``: ``Location[]``."""
        from . import navigation

        context = {"includeDeclaration": include_declaration}
        return cast(
            "list[t.Location]",
            await navigation.locations(
                self._session, "textDocument/references", uri, at, timeout, context=context
            ),
        )

    async def document_highlights(
        self, uri: str, at: At, *, timeout: Any = DEFAULT
    ) -> list[t.DocumentHighlight]:
        """The places in the document that the symbol at ``at`` is read or written."""
        from . import navigation

        return cast(
            "list[t.DocumentHighlight]",
            await navigation.document_highlights(self._session, uri, at, timeout),
        )

    async def signature_help(
        self,
        uri: str,
        at: At,
        *,
        context: t.SignatureHelpContext | None = None,
        timeout: Any = DEFAULT,
    ) -> t.SignatureHelp | None:
        """The signatures of the call at ``at``, or ``None``."""
        from . import navigation

        return cast(
            "t.SignatureHelp | None",
            await navigation.signature_help(self._session, uri, at, context, timeout),
        )

    async def completion(
        self,
        uri: str,
        at: At,
        *,
        trigger_character: str | None = None,
        timeout: Any = DEFAULT,
    ) -> t.CompletionList:
        """The completions at ``at``: always a ``CompletionList``, its defaults in the items."""
        from . import completion

        return cast(
            "t.CompletionList",
            await completion.completion(self._session, uri, at, trigger_character, timeout),
        )

    async def resolve_completion(
        self, item: t.CompletionItem, *, timeout: Any = DEFAULT
    ) -> t.CompletionItem:
        """Fill in a completion item's details (``completionItem/resolve``)."""
        from . import completion

        return cast(
            "t.CompletionItem", await completion.resolve_completion(self._session, item, timeout)
        )

    async def rename(
        self, uri: str, at: At, new_name: str, *, timeout: Any = DEFAULT
    ) -> DocumentChangesEdit:
        """Rename the symbol at ``at``: a ``WorkspaceEdit`` always with ``documentChanges``."""
        from . import editing

        session = self._session
        version_of = _open_version(session)
        return cast(
            "DocumentChangesEdit",
            await editing.rename(session, uri, at, new_name, version_of, timeout),
        )

    async def prepare_rename(
        self, uri: str, at: At, *, timeout: Any = DEFAULT
    ) -> PreparedRename | None:
        """What a rename at ``at`` would change: ``{"range", "placeholder"}``, or ``None``."""
        from . import editing

        return cast(
            "PreparedRename | None", await editing.prepare_rename(self._session, uri, at, timeout)
        )

    async def prepare_call_hierarchy(
        self, uri: str, at: At, *, timeout: Any = DEFAULT
    ) -> list[t.CallHierarchyItem]:
        """The call-hierarchy items at ``at``."""
        from . import hierarchy

        method = "textDocument/prepareCallHierarchy"
        return cast(
            "list[t.CallHierarchyItem]",
            await hierarchy.prepare(self._session, method, uri, at, timeout),
        )

    async def incoming_calls(
        self, item: t.CallHierarchyItem, *, timeout: Any = DEFAULT
    ) -> list[t.CallHierarchyIncomingCall]:
        """The calls of ``item`` (``callHierarchy/incomingCalls``)."""
        from . import hierarchy

        method = "callHierarchy/incomingCalls"
        return cast(
            "list[t.CallHierarchyIncomingCall]",
            await hierarchy.walk(self._session, method, item, timeout),
        )

    async def outgoing_calls(
        self, item: t.CallHierarchyItem, *, timeout: Any = DEFAULT
    ) -> list[t.CallHierarchyOutgoingCall]:
        """What ``item`` calls (``callHierarchy/outgoingCalls``)."""
        from . import hierarchy

        method = "callHierarchy/outgoingCalls"
        return cast(
            "list[t.CallHierarchyOutgoingCall]",
            await hierarchy.walk(self._session, method, item, timeout),
        )

    async def prepare_type_hierarchy(
        self, uri: str, at: At, *, timeout: Any = DEFAULT
    ) -> list[t.TypeHierarchyItem]:
        """The type-hierarchy items at ``at``."""
        from . import hierarchy

        method = "textDocument/prepareTypeHierarchy"
        return cast(
            "list[t.TypeHierarchyItem]",
            await hierarchy.prepare(self._session, method, uri, at, timeout),
        )

    async def supertypes(
        self, item: t.TypeHierarchyItem, *, timeout: Any = DEFAULT
    ) -> list[t.TypeHierarchyItem]:
        """The supertypes of ``item`` (``typeHierarchy/supertypes``)."""
        from . import hierarchy

        return cast(
            "list[t.TypeHierarchyItem]",
            await hierarchy.walk(self._session, "typeHierarchy/supertypes", item, timeout),
        )

    async def subtypes(
        self, item: t.TypeHierarchyItem, *, timeout: Any = DEFAULT
    ) -> list[t.TypeHierarchyItem]:
        """The subtypes of ``item`` (``typeHierarchy/subtypes``)."""
        from . import hierarchy

        return cast(
            "list[t.TypeHierarchyItem]",
            await hierarchy.walk(self._session, "typeHierarchy/subtypes", item, timeout),
        )

    # -- whole documents and ranges --------------------------------------------------------

    async def document_symbols(self, uri: str, *, timeout: Any = DEFAULT) -> list[t.DocumentSymbol]:
        """The symbols of the document: always the ``DocumentSymbol`` tree."""
        from . import symbols

        return cast(
            "list[t.DocumentSymbol]", await symbols.document_symbols(self._session, uri, timeout)
        )

    async def workspace_symbols(
        self, query: str, *, timeout: Any = DEFAULT
    ) -> list[t.WorkspaceSymbol]:
        """The symbols of the workspace that match ``query``: ``WorkspaceSymbol[]``."""
        from . import symbols

        return cast(
            "list[t.WorkspaceSymbol]",
            await symbols.workspace_symbols(self._session, query, timeout),
        )

    async def resolve_workspace_symbol(
        self, symbol: t.WorkspaceSymbol, *, timeout: Any = DEFAULT
    ) -> t.WorkspaceSymbol:
        """Fill in a workspace symbol's location (``workspaceSymbol/resolve``)."""
        from . import symbols

        return cast(
            "t.WorkspaceSymbol",
            await symbols.resolve_workspace_symbol(self._session, symbol, timeout),
        )

    async def formatting(
        self,
        uri: str,
        *,
        tab_size: int = 4,
        insert_spaces: bool = True,
        timeout: Any = DEFAULT,
        **options: Any,
    ) -> list[t.TextEdit]:
        """The edits that format the document: ``TextEdit[]``, each against the text before.

        Extra ``FormattingOptions`` go in LSP's camelCase (``trimTrailingWhitespace=True``).
        """
        from . import editing

        lsp_options = editing.formatting_options(tab_size, insert_spaces, options)
        return cast(
            "list[t.TextEdit]", await editing.formatting(self._session, uri, lsp_options, timeout)
        )

    async def range_formatting(
        self,
        uri: str,
        range: Span,
        *,
        tab_size: int = 4,
        insert_spaces: bool = True,
        timeout: Any = DEFAULT,
        **options: Any,
    ) -> list[t.TextEdit]:
        """The edits that format ``range``: ``TextEdit[]``."""
        from . import editing

        lsp_options = editing.formatting_options(tab_size, insert_spaces, options)
        return cast(
            "list[t.TextEdit]",
            await editing.range_formatting(self._session, uri, range, lsp_options, timeout),
        )

    async def code_actions(
        self,
        uri: str,
        range: Span,
        *,
        only: Sequence[str] | None = None,
        diagnostics: Sequence[t.Diagnostic] | None = None,
        timeout: Any = DEFAULT,
    ) -> list[t.CodeAction]:
        """The code actions for ``range``: ``CodeAction[]`` (a bare ``Command`` wrapped)."""
        from . import editing

        kinds = None if only is None else list(only)
        session = self._session
        last = partial(session._pulls.last, uri)
        return cast(
            "list[t.CodeAction]",
            await editing.code_actions(session, uri, range, kinds, diagnostics, last, timeout),
        )

    async def resolve_code_action(
        self, action: t.CodeAction, *, timeout: Any = DEFAULT
    ) -> t.CodeAction:
        """Fill in a code action's edit (``codeAction/resolve``)."""
        from . import editing

        return cast(
            "t.CodeAction", await editing.resolve_code_action(self._session, action, timeout)
        )

    async def semantic_tokens(
        self, uri: str, range: Span | None = None, *, timeout: Any = DEFAULT
    ) -> list[SemanticToken]:
        """The semantic tokens of the document (or ``range``), decoded with the legend."""
        from . import ranges

        return await ranges.semantic_tokens(self._session, uri, range, timeout)

    async def inlay_hints(
        self, uri: str, range: Span, *, timeout: Any = DEFAULT
    ) -> list[t.InlayHint]:
        """The inlay hints of ``range``: ``InlayHint[]``."""
        from . import ranges

        return cast(
            "list[t.InlayHint]", await ranges.inlay_hints(self._session, uri, range, timeout)
        )

    async def folding_ranges(self, uri: str, *, timeout: Any = DEFAULT) -> list[t.FoldingRange]:
        """The folding ranges of the document: ``FoldingRange[]``."""
        from . import ranges

        method = "textDocument/foldingRange"
        return cast(
            "list[t.FoldingRange]", await ranges.document_list(self._session, method, uri, timeout)
        )

    async def selection_ranges(
        self, uri: str, positions: Sequence[At], *, timeout: Any = DEFAULT
    ) -> list[t.SelectionRange]:
        """One ``SelectionRange`` chain per position."""
        from . import ranges

        return cast(
            "list[t.SelectionRange]",
            await ranges.selection_ranges(self._session, uri, positions, timeout),
        )

    async def document_links(self, uri: str, *, timeout: Any = DEFAULT) -> list[t.DocumentLink]:
        """The links in the document: ``DocumentLink[]``."""
        from . import ranges

        method = "textDocument/documentLink"
        return cast(
            "list[t.DocumentLink]", await ranges.document_list(self._session, method, uri, timeout)
        )

    async def code_lenses(self, uri: str, *, timeout: Any = DEFAULT) -> list[t.CodeLens]:
        """The code lenses of the document: ``CodeLens[]``."""
        from . import ranges

        method = "textDocument/codeLens"
        return cast(
            "list[t.CodeLens]", await ranges.document_list(self._session, method, uri, timeout)
        )

    # -- diagnostics -----------------------------------------------------------------------

    async def document_diagnostics(self, uri: str, *, timeout: Any = DEFAULT) -> list[t.Diagnostic]:
        """Pull the document's diagnostics (``textDocument/diagnostic``): ``Diagnostic[]``.

        Shares the session's result ids (an ``unchanged`` report answers with the items of the
        last full one) and reports what is news through ``on_diagnostics`` too.
        """
        return cast(
            "list[t.Diagnostic]", await self._session._pulls.document_diagnostics(uri, timeout)
        )

    def diagnostics(self, uri: str) -> list[t.Diagnostic] | None:
        """The last report for the current version of the open document ``uri`` (pushed or
        pulled), ``None`` when none has come yet."""
        return cast("list[t.Diagnostic] | None", self._session._pulls.current(uri))


def _open_version(session: LspSession) -> Callable[[str], int | None]:
    """The version of the open document a server's URI names, matched by path (or ``None``)."""

    def version_of(uri: str) -> int | None:
        document = session._sync.find(uri)
        return None if document is None else document.version

    return version_of
