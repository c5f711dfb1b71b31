"""Open text documents: their text and versions, and the changes sent to servers.

Sans-IO: :class:`DocumentStore` keeps the documents and answers what to send; the session
sends it. The rules it follows:

- Versions strictly increase per URI for the whole life of a store, also when a document
  is closed and opened again (the last version of a closed URI is remembered): servers
  match diagnostics and stale answers by version.
- ``change`` with a new full text sends, for incremental sync (kind 2), the smallest single
  edit between the old and the new text; for full sync (kind 1) the whole text; for no sync
  (kind 0) nothing, though the text and version still change. ``change`` with edits (LSP
  ``TextDocumentContentChangeEvent``\\ s, each valid against the text the one before it left)
  applies them and sends them under incremental sync with their ranges written back from the
  offsets they were applied at, so the server's text and ours cannot drift apart.
- A change that leaves the text as it was (the same text, or no edits) changes nothing,
  version included, and has nothing to send.
- The smallest edit leaves out the common prefix and suffix, found by comparing blocks of
  characters in C (never one character at a time in Python). An end that would fall
  between the ``"\\r"`` and ``"\\n"`` of a break, where no position exists, takes that
  character in. A document of 64 Ki characters or more keeps a second copy of its text in
  blocks, so that the next text is compared without copying the old one first.

Malformed changes and positions raise :class:`ValueError` before anything is changed; a
misused call (a document that is not open, both or neither of ``text`` and ``edits``) raises
:class:`ValueError` or :class:`TypeError` with a message that says what is wrong.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final, TypeVar, overload

from .positions import (
    LineIndex,
    Position,
    PositionEncoding,
    Range,
    check_encoding,
    range_tuples,
)
from .textdiff import BLOCKS_FROM, Blocks, diff

# Public, re-exported by adecore_lsp; the store and the helpers are the session's.
__all__ = ["TextDocument"]

SYNC_KINDS: Final = (0, 1, 2)
"""``TextDocumentSyncKind``: 0 none, 1 full text, 2 incremental."""

_T = TypeVar("_T")
_Span = tuple[tuple[int, int], tuple[int, int]]
_Event = tuple[_Span | None, str]


class TextDocument:
    """An open text document: read-only for applications, changed through the session.

    Positions use the document's ``encoding``, the one negotiated with the server. The line
    index behind :meth:`offset_at` and :meth:`position_at` is built on first use and kept up
    to date through edits.
    """

    __slots__ = ("_blocks", "_encoding", "_index", "_language_id", "_text", "_uri", "_version")

    def __init__(
        self, uri: str, language_id: str, version: int, text: str, encoding: str = "utf-16"
    ) -> None:
        """A document ``uri`` in ``language_id`` at ``version`` holding ``text``.

        Raises:
            TypeError: if a value has the wrong type.
            ValueError: for an unknown ``encoding``.
        """
        for name, value in (("uri", uri), ("language_id", language_id), ("text", text)):
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a str, got {type(value).__name__}")
        self._uri = uri
        self._language_id = language_id
        self._version = _check_version(version)
        self._text = text
        self._encoding: PositionEncoding = check_encoding(encoding)
        self._index: LineIndex | None = None
        self._blocks: Blocks | None = None

    def __repr__(self) -> str:
        return (
            f"<TextDocument {self._uri} {self._language_id} v{self._version}, "
            f"{len(self._text)} chars, {self._encoding}>"
        )

    @property
    def uri(self) -> str:
        """The document's URI."""
        return self._uri

    @property
    def language_id(self) -> str:
        """The language identifier sent in ``didOpen`` (``"python"``, ``"rust"``...)."""
        return self._language_id

    @property
    def version(self) -> int:
        """The version of the current text; it grows with every change."""
        return self._version

    @property
    def text(self) -> str:
        """The current text."""
        return self._text

    @property
    def encoding(self) -> PositionEncoding:
        """The position encoding of this document's positions."""
        return self._encoding

    def offset_at(self, position: Mapping[str, Any]) -> int:
        """The ``str`` index of an LSP position, clamped (see :mod:`.positions`).

        Raises:
            ValueError: if ``line`` or ``character`` is missing or not an integer.
        """
        return self._line_index().offset_at(position)

    def position_at(self, offset: int) -> Position:
        """The LSP position of a ``str`` index, clamped to the text."""
        return self._line_index().position_at(offset)

    def range_at(self, start: int, end: int) -> Range:
        """The LSP range between two ``str`` indices."""
        return self._line_index().range_at(start, end)

    def offsets_of(self, range_: Mapping[str, Any]) -> tuple[int, int]:
        """The ``(start, end)`` indices of an LSP range, clamped.

        Raises:
            ValueError: if it is not a range of integer positions, or ends before it starts.
        """
        return self._line_index().offsets_of(range_)

    # -- for the session ------------------------------------------------------------------

    def _line_index(self) -> LineIndex:
        index = self._index
        if index is None:
            index = self._index = LineIndex(self._text, self._encoding)
        return index

    def _replace(
        self,
        text: str,
        version: int,
        index: LineIndex | None = None,
        blocks: Blocks | None = None,
    ) -> None:
        """Hold ``text`` at ``version``; ``index`` and ``blocks`` describe it when given."""
        self._text = text
        self._version = version
        self._index = index if index is not None and index.text is text else None
        self._blocks = blocks


def _check_version(version: object) -> int:
    if not isinstance(version, int) or isinstance(version, bool):
        raise TypeError(f"a version must be an int, got {version!r}")
    return version


# -- changes -------------------------------------------------------------------------------


def _parse_changes(changes: object) -> list[_Event]:
    """Check every change event up front, so that applying them cannot fail half-way."""
    if isinstance(changes, (str, bytes)) or not isinstance(changes, Sequence):
        raise ValueError(f"changes must be a list of change events, got {changes!r}")
    parsed: list[_Event] = []
    for number, event in enumerate(changes):
        what = f"change {number}"
        if not isinstance(event, Mapping):
            raise ValueError(f"{what} must be an object with 'text', got {event!r}")
        text = event.get("text")
        if not isinstance(text, str):
            raise ValueError(f"{what} needs a string 'text', got {text!r}")
        if "range" in event:
            parsed.append((range_tuples(event["range"], f"{what} range"), text))
        else:
            parsed.append((None, text))
    return parsed


def _apply(
    text: str,
    index: LineIndex | None,
    events: list[_Event],
    encoding: PositionEncoding,
    *,
    owned: bool,
    collect: bool,
) -> tuple[str, LineIndex | None, list[dict[str, Any]]]:
    """Apply checked events in order; the new text, its index if known, the events sent.

    ``index`` (for ``text``) is edited in place only if ``owned``. With ``collect``, each
    range event is returned with its range written back from the clamped offsets.
    """
    sent: list[dict[str, Any]] = []
    last = len(events) - 1
    for number, (span, new) in enumerate(events):
        if span is None:
            text, index = new, None
            if collect:
                sent.append({"text": new})
            continue
        if index is None:
            index, owned = LineIndex(text, encoding), True
        (start_line, start_char), (end_line, end_char) = span
        start = index.offset_for(start_line, start_char, encoding)
        end = index.offset_for(end_line, end_char, encoding)
        if collect:
            sent.append({"range": _range(index, start, end, encoding), "text": new})
        text = text[:start] + new + text[end:]
        if number == last and not owned:
            index = None  # the caller's index stays as it was
            continue
        if not owned:
            index, owned = index.copy(), True
        index.edit(start, end, text)
    return text, index, sent


def _range(index: LineIndex, start: int, end: int, encoding: PositionEncoding) -> Range:
    return {"start": index.position_for(start, encoding), "end": index.position_for(end, encoding)}


def apply_changes(
    document_or_text: TextDocument | str,
    changes: Sequence[Mapping[str, Any]],
    encoding: str | None = None,
) -> str:
    """The text after applying LSP ``TextDocumentContentChangeEvent``\\ s in order.

    ``{"text": ...}`` alone replaces the whole text; ``{"range": ..., "text": ...}`` replaces
    that range of the text the previous event left (``rangeLength`` is ignored). Positions
    are in ``encoding`` (default: the document's, or ``"utf-16"`` for a ``str``) and clamped
    as :mod:`.positions` says. The document itself is not changed.

    Raises:
        ValueError: for a malformed event or range, or a range that ends before it starts
            (checked before anything is applied), or an unknown encoding.
    """
    if isinstance(document_or_text, TextDocument):
        text = document_or_text.text
        chosen = check_encoding(encoding or document_or_text.encoding)
        index = document_or_text._index
    elif isinstance(document_or_text, str):
        text, chosen, index = document_or_text, check_encoding(encoding or "utf-16"), None
    else:
        raise TypeError(f"expected a TextDocument or a str, got {type(document_or_text).__name__}")
    events = _parse_changes(changes)
    return _apply(text, index, events, chosen, owned=False, collect=False)[0]


def minimal_change(
    old: str,
    new: str,
    index_of_old: LineIndex | None = None,
    encoding: str | None = None,
) -> dict[str, Any]:
    """The smallest single ``TextDocumentContentChangeEvent`` that turns ``old`` into ``new``.

    The range is expressed against ``old`` in ``encoding`` (default: the index's, else
    ``"utf-16"``); the common prefix and suffix are left out, except that an end falling
    between ``"\\r"`` and ``"\\n"`` takes that character in. Equal texts give an empty edit
    at the end of the text. ``index_of_old`` saves indexing ``old`` again.

    Raises:
        ValueError: if ``index_of_old`` indexes another text, or for an unknown encoding.
    """
    if index_of_old is None:
        index_of_old = LineIndex(old, encoding or "utf-16")
    elif index_of_old.text is not old and index_of_old.text != old:
        raise ValueError("index_of_old does not index the old text")
    chosen = check_encoding(encoding or index_of_old.encoding)
    start, old_end, new_end = diff(old, new)
    return {"range": _range(index_of_old, start, old_end, chosen), "text": new[start:new_end]}


# -- the store -----------------------------------------------------------------------------


class DocumentStore(Mapping[str, TextDocument]):
    """The open documents by URI, with per-URI versions that only grow.

    A read-only mapping for applications; :meth:`open`, :meth:`change` and :meth:`close`
    are for the session, which sends what they return.
    """

    def __init__(self) -> None:
        """Start with no documents."""
        self._documents: dict[str, TextDocument] = {}
        self._versions: dict[str, int] = {}

    def __getitem__(self, uri: str) -> TextDocument:
        return self._documents[uri]

    @overload
    def get(self, uri: str, /) -> TextDocument | None: ...

    @overload
    def get(self, uri: str, /, default: TextDocument | _T) -> TextDocument | _T: ...

    def get(self, uri: str, /, default: object = None) -> object:
        """The open document at ``uri``, else ``default``.

        Mapping's own ``get`` goes through ``__getitem__`` and a ``KeyError``; this runs for
        every request that names a document, open or not.
        """
        return self._documents.get(uri, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._documents)

    def __len__(self) -> int:
        return len(self._documents)

    def __contains__(self, uri: object) -> bool:
        return uri in self._documents

    def __repr__(self) -> str:
        return f"<DocumentStore {len(self._documents)} open>"

    def last_version(self, uri: str) -> int | None:
        """The latest version ``uri`` had, open or since closed; ``None`` if never opened."""
        return self._versions.get(uri)

    def open(
        self,
        uri: str,
        language_id: str,
        text: str,
        encoding: str = "utf-16",
        *,
        version: int | None = None,
    ) -> TextDocument:
        """Open a document; send ``did_open_params(document)``.

        Its version is ``version`` if given, else 1 for a new URI or one more than the
        URI's last version.

        Raises:
            ValueError: if ``uri`` is open already, or ``version`` does not grow.
        """
        if uri in self._documents:
            raise ValueError(f"the document {uri} is already open; close it first")
        chosen = self._next_version(uri, version)
        document = TextDocument(uri, language_id, chosen, text, encoding)
        self._documents[uri] = document
        self._versions[uri] = chosen
        return document

    def change(
        self,
        uri: str,
        text: str | None = None,
        *,
        edits: Sequence[Mapping[str, Any]] | None = None,
        sync_kind: int = 2,
        version: int | None = None,
    ) -> tuple[TextDocument, list[dict[str, Any]]]:
        """Change an open document to ``text``, or by ``edits``; what to send, per sync kind.

        Returns the document and the ``contentChanges`` to send with
        ``did_change_params(document, changes)``; an empty list means send nothing (no sync,
        or no change at all). The version becomes ``version`` if given, else grows by one.

        Raises:
            ValueError: if ``uri`` is not open, ``sync_kind`` is not 0, 1 or 2, ``version``
                does not grow, or an edit is malformed (nothing is changed then).
            TypeError: unless exactly one of ``text`` and ``edits`` is given.
        """
        document = self._documents.get(uri)
        if document is None:
            raise ValueError(f"the document {uri} is not open")
        if (text is None) == (edits is None):
            raise TypeError("change() takes either the new text or edits, not both or neither")
        if sync_kind not in SYNC_KINDS or isinstance(sync_kind, bool):
            raise ValueError(
                f"sync_kind must be 0 (none), 1 (full) or 2 (incremental): {sync_kind!r}"
            )
        if text is not None:
            if not isinstance(text, str):
                raise TypeError(f"text must be a str, got {type(text).__name__}")
            return self._change_text(document, text, sync_kind, version)
        events = _parse_changes(edits)
        if not events:
            return document, []
        chosen = self._next_version(uri, version)
        new_text, index, sent = _apply(
            document.text,
            document._index,
            events,
            document.encoding,
            owned=True,
            collect=sync_kind == 2,
        )
        self._commit(document, new_text, chosen, index)
        return document, _to_send(sync_kind, new_text, sent)

    def close(self, uri: str) -> TextDocument:
        """Close a document and return it; send ``did_close_params(document)``.

        Raises:
            ValueError: if ``uri`` is not open.
        """
        document = self._documents.pop(uri, None)
        if document is None:
            raise ValueError(f"the document {uri} is not open")
        return document

    def _change_text(
        self, document: TextDocument, text: str, sync_kind: int, version: int | None
    ) -> tuple[TextDocument, list[dict[str, Any]]]:
        old = document.text
        index = document._index
        if index is None and sync_kind == 2:
            index = document._line_index()
        if index is None:
            # Nothing needs positions: skip the diff, the index is rebuilt when asked for.
            if text == old:
                return document, []
            self._commit(document, text, self._next_version(document.uri, version), None)
            return document, _to_send(sync_kind, text, [])
        blocks = document._blocks
        if blocks is None and len(old) >= BLOCKS_FROM:
            blocks = Blocks(old)
        start, old_end, new_end = diff(old, text, blocks)
        if start == old_end == new_end:
            document._blocks = blocks
            return document, []
        chosen = self._next_version(document.uri, version)
        sent = []
        if sync_kind == 2:
            change = {"range": _range(index, start, old_end, document.encoding)}
            sent.append({**change, "text": text[start:new_end]})
        index.edit(start, old_end, text)
        if blocks is not None:
            blocks.replace(start, old_end, text, new_end)
        self._commit(document, text, chosen, index, blocks)
        return document, _to_send(sync_kind, text, sent)

    def _next_version(self, uri: str, version: int | None) -> int:
        last = self._versions.get(uri)
        if version is None:
            return 1 if last is None else last + 1
        _check_version(version)
        if last is not None and version <= last:
            raise ValueError(f"the version of {uri} must grow past {last}, got {version}")
        return version

    def _commit(
        self,
        document: TextDocument,
        text: str,
        version: int,
        index: LineIndex | None,
        blocks: Blocks | None = None,
    ) -> None:
        document._replace(text, version, index, blocks)
        self._versions[document.uri] = version


def _to_send(sync_kind: int, text: str, incremental: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if sync_kind == 2:
        return incremental
    if sync_kind == 1:
        return [{"text": text}]
    return []


# -- notification params -------------------------------------------------------------------


def did_open_params(document: TextDocument) -> dict[str, Any]:
    """``textDocument/didOpen`` params: the whole ``TextDocumentItem``."""
    return {
        "textDocument": {
            "uri": document.uri,
            "languageId": document.language_id,
            "version": document.version,
            "text": document.text,
        }
    }


def did_change_params(
    document: TextDocument, changes: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """``textDocument/didChange`` params: the new version and the changes that lead to it."""
    return {
        "textDocument": {"uri": document.uri, "version": document.version},
        "contentChanges": [dict(change) for change in changes],
    }


def will_save_params(document: TextDocument, reason: int = 1) -> dict[str, Any]:
    """``textDocument/willSave`` (and ``willSaveWaitUntil``) params; reason 1 is manual."""
    return {"textDocument": {"uri": document.uri}, "reason": reason}


def did_save_params(document: TextDocument, include_text: bool = False) -> dict[str, Any]:
    """``textDocument/didSave`` params, with the text when the server asked for it."""
    params: dict[str, Any] = {"textDocument": {"uri": document.uri}}
    if include_text:
        params["text"] = document.text
    return params


def did_close_params(document: TextDocument) -> dict[str, Any]:
    """``textDocument/didClose`` params."""
    return {"textDocument": {"uri": document.uri}}
