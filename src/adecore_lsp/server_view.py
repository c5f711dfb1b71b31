"""What an application asks of a session about its server, and what it hears from it.

Two sides of one view of the server, apart from moving messages (which is the session's
own job, in :mod:`adecore_lsp.session`): what the server offers (its capabilities and the
registrations since, filtered by document selectors) and what it says (diagnostics,
progress, notifications, requests, errors), each a subscription that returns a
:class:`~adecore_lsp.types.Disposable`. :class:`~adecore_lsp.LspSession` takes these
methods from :class:`ServerView`; none of them is on the path of a request or a message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .listeners import SessionListeners
from .protocol.capabilities.capabilities import CapabilityRegistry
from .protocol.capabilities.selectors import DocumentInfo, DocumentLike, as_document
from .protocol.documents.document_sync import DocumentSync
from .server_calls import RequestHandler, ServerCalls
from .types import Disposable, JSONObject

# Internal to the library: LspSession is the public face of these methods.
__all__: list[str] = []

Document = DocumentLike | None


class ServerView:
    """The capability queries and the listeners of a session (see the module's docstring).

    The session makes the four parts below in its constructor.
    """

    __slots__ = ()

    _registry: CapabilityRegistry
    _sync: DocumentSync
    _listeners: SessionListeners
    _calls: ServerCalls

    # -- capabilities ------------------------------------------------------------------

    def supports(self, method: str, document: Document = None) -> bool:
        """Whether the server answers ``method``, for ``document`` when given.

        From the static capabilities and the registrations since, filtered by their
        document selectors. ``document`` is a URI or a mapping with ``uri`` and
        ``languageId``.
        """
        return self._registry.supports(method, self._document_info(document))

    def registrations(self, method: str) -> list[JSONObject]:
        """The register options of the server's live registrations of ``method``, newest
        first (``workspace/didChangeWatchedFiles``: its watchers)."""
        return [dict(found.register_options) for found in self._registry.registrations(method)]

    def provider_options(self, method: str, document: Document = None) -> JSONObject | None:
        """The options of the provider of ``method`` (``{}`` for ``true``), or ``None``."""
        return self._registry.provider_options(method, self._document_info(document))

    def _document_info(self, document: Document) -> DocumentInfo | None:
        if isinstance(document, str):
            # An open document's language counts for selectors that name one.
            known = self._sync.infos.get(document)
            if known is not None:
                return known
            opened = self._sync.store.get(document)  # a notebook's cell
            return DocumentInfo(document, None if opened is None else opened.language_id)
        return None if document is None else as_document(document)

    def on_capabilities_changed(self, listener: Callable[[str], object]) -> Disposable:
        """Hear each method whose capability was registered, unregistered or refreshed."""
        return self._listeners.on_capabilities_changed(listener)

    # -- listening ---------------------------------------------------------------------

    def on_diagnostics(self, listener: Callable[[JSONObject], object]) -> Disposable:
        """Hear diagnostics (pushed, or pulled) for the current text of open documents.

        A pushed report for another version is dropped, one without a version applies to the
        current text, and closing a document delivers ``{uri, diagnostics: []}``. Reports
        about documents that are not open reach ``on_notification`` listeners only.
        """
        return self._listeners.diagnostics.add(listener)

    def on_progress(self, listener: Callable[[JSONObject], object]) -> Disposable:
        """Hear ``$/progress`` params."""
        return self._listeners.progress.add(listener)

    def on_notification(self, method: str, listener: Callable[[Any], object]) -> Disposable:
        """Hear the params of every ``method`` notification of the server, in wire order."""
        return self._listeners.on_notification(method, listener)

    def on_request(self, method: str, handler: RequestHandler) -> Disposable:
        """Answer the server's ``method`` requests with ``handler(params, cancelled)``.

        The handler may be async; its return value is the result, an :class:`LspError`
        it raises is the error answer, any other exception an ``InternalError`` answer.
        ``cancelled`` is set when the server cancels, and an async handler's task is
        cancelled too. It replaces the session's own answer, except for
        ``client/registerCapability`` and ``client/unregisterCapability``, which the session
        must track. One handler per method: the newest wins.
        """
        return self._calls.on_request(method, handler)

    def on_error(self, listener: Callable[[BaseException], object]) -> Disposable:
        """Hear errors of the connection, of the server's messages and of listeners."""
        return self._listeners.on_error(listener)
