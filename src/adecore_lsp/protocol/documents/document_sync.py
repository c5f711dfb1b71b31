"""Open documents as the server sees them: which notifications to send, which reports to keep.

:class:`DocumentSync` joins the document store to the capability registry. It decides, per
document, what the server asked for (no sync, the full text, or incremental edits; open and
close; save with or without the text), hands each notification to a ``send`` callback, keeps
the diagnostics that belong to the current text of an open document, and tells whether an
answer was computed for a text that has moved on. Sans-IO: the session does the sending.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..capabilities.capabilities import CapabilityRegistry, SyncOptions
from ..capabilities.selectors import DocumentInfo
from .documents import (
    DocumentStore,
    TextDocument,
    did_change_params,
    did_close_params,
    did_open_params,
    did_save_params,
)
from .uris import uri_to_path

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

Snapshot = tuple[str, int]
"""A document's URI and the version a request was made against."""

Send = Callable[[str, Any], None]


class DocumentSync:
    """The open documents of one session and the notifications that keep the server in step."""

    __slots__ = ("_by_path", "_registry", "_send", "infos", "store")

    def __init__(self, registry: CapabilityRegistry, send: Send) -> None:
        self.store = DocumentStore()
        self._registry = registry
        self._send = send
        # The open documents by the path their URI names: servers spell URIs their own way
        # (``+[x]`` for ``%2B%5Bx%5D``), so what they send is matched by path, never by string.
        self._by_path: dict[str, str] = {}
        self.infos: dict[str, DocumentInfo] = {}
        """What capability selectors look at, per open document (made once, asked often)."""

    def _sync(self, document: TextDocument) -> SyncOptions:
        # A notebook's cells are in the store without an entry of their own here.
        info = self.infos.get(document.uri) or DocumentInfo(document.uri, document.language_id)
        return self._registry.text_document_sync(info)

    def open(self, uri: str, language_id: str, text: str, encoding: str) -> TextDocument:
        """Open a document and send ``didOpen`` when the server wants it."""
        _check_str("uri", uri)
        _check_str("language_id", language_id)
        _check_str("text", text)
        document = self.store.open(uri, language_id, text, encoding)
        self._by_path[_path_key(uri)] = uri
        self.infos[uri] = DocumentInfo(uri, language_id)
        if self._sync(document).open_close:
            self._send("textDocument/didOpen", did_open_params(document))
        return document

    def change(
        self,
        uri: str,
        text: str | None = None,
        edits: Sequence[Mapping[str, Any]] | None = None,
    ) -> TextDocument:
        """Change a document and send ``didChange`` in the sync kind the server asked for."""
        document = self._open_document(uri)
        kind = self._sync(document).change
        document, changes = self.store.change(uri, text, edits=edits, sync_kind=kind)
        if changes:
            self._send("textDocument/didChange", did_change_params(document, changes))
        return document

    def save(self, uri: str) -> TextDocument:
        """Send ``didSave`` (with the text when the server asked for it), if wanted."""
        document = self._open_document(uri)
        sync = self._sync(document)
        if sync.save:
            self._send("textDocument/didSave", did_save_params(document, sync.include_text))
        return document

    def close(self, uri: str) -> TextDocument:
        """Close a document and send ``didClose`` when the server wants it."""
        document = self._open_document(uri)
        open_close = self._sync(document).open_close
        self.store.close(uri)
        self._by_path.pop(_path_key(uri), None)
        self.infos.pop(uri, None)
        if open_close:
            self._send("textDocument/didClose", did_close_params(document))
        return document

    def _open_document(self, uri: str) -> TextDocument:
        document = self.store.get(uri)
        if document is None:
            raise ValueError(f"the document {uri} is not open")
        return document

    def find(self, uri: object) -> TextDocument | None:
        """The open document a server's URI names: by string, else by the path it names."""
        if not isinstance(uri, str):
            return None
        document = self.store.get(uri)
        if document is None:
            opened = self._by_path.get(_path_key(uri))
            document = None if opened is None else self.store.get(opened)
        return document

    def current_diagnostics(self, params: Any) -> Any:
        """A ``publishDiagnostics`` report about the current text of an open document, or None.

        A report without a version applies to the current text; one for another version
        (an older text, or a version the client never sent) is dropped. A report whose URI
        names an open document's path in another spelling comes back under the document's
        own URI, so that listeners find it by the URI they opened.
        """
        if not isinstance(params, dict):
            return None
        uri = params.get("uri")
        document = self.find(uri)
        if document is None:
            return None
        version = params.get("version")
        if version is not None and not (type(version) is int and version == document.version):
            return None
        if uri != document.uri:
            params = {**params, "uri": document.uri}
        return params

    def snapshot(self, params: Any) -> Snapshot | None:
        """The open document a request's params are about, with its version, if any."""
        if type(params) is not dict:
            return None
        text_document = params.get("textDocument")
        if type(text_document) is not dict:
            return None
        document = self.find(text_document.get("uri"))
        if document is None:
            return None
        return document.uri, document.version

    def is_current(self, snapshot: Snapshot) -> bool:
        """Whether the document is still open at the version of ``snapshot``."""
        document = self.store.get(snapshot[0])
        return document is not None and document.version == snapshot[1]


def _check_str(name: str, value: object) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")


def _path_key(uri: str) -> str:
    """What two spellings of one file's URI share: the decoded path (the URI itself else)."""
    path = uri_to_path(uri)
    return uri if path is None else path
