"""Pull diagnostics without I/O: result ids, reports to deliver, and what listeners heard.

:class:`PullState` keeps, per document, the last result id the server gave, the items of its
last full report, the version the last pull was made for, and the report the diagnostics
listeners last heard (pushed or pulled). It builds the params of a ``textDocument/diagnostic``
request and turns its answer, a ``DocumentDiagnosticReport``, into the reports to deliver
(``{"uri", "version", "diagnostics"}``): an ``unchanged`` report gives the items of the last
full one, and related documents that are open get their current version. An answer of the
wrong shape raises :class:`~adecore_lsp.errors.LspError` ``InternalError``, and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import ErrorCodes, LspError
from ...types import JSONObject
from ..documents.documents import TextDocument
from .normalize import wrong

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

METHOD = "textDocument/diagnostic"

Find = Callable[[object], TextDocument | None]
"""The open document a server's URI names (matched by path), or None."""

RETRY, DROP, REPORT = "retry", "drop", "report"


@dataclass
class _Entry:
    result_id: str | None = None
    items: list[Any] | None = None
    """The items of the last full report."""
    pulled: int | None = None
    """The version the last pull was made for."""
    heard: tuple[int, list[Any]] | None = None
    """The version and the diagnostics the listeners last heard."""


@dataclass(frozen=True)
class _Report:
    result_id: str | None
    items: list[Any] | None
    """None for an ``unchanged`` report."""


class PullState:
    """The pull-diagnostics bookkeeping of one session, keyed by the open document's URI.

    ``find`` matches a URI to an open document by path; ``dedupe`` is whether a report equal
    to the last one heard for the same version is kept from the listeners.
    """

    __slots__ = ("_entries", "_find", "dedupe")

    def __init__(self, find: Find, *, dedupe: bool) -> None:
        self._find = find
        self.dedupe = dedupe
        self._entries: dict[str, _Entry] = {}

    def _entry(self, uri: str) -> _Entry:
        entry = self._entries.get(uri)
        if entry is None:
            entry = self._entries[uri] = _Entry()
        return entry

    # -- requests --------------------------------------------------------------------------

    def params(
        self, uri: str, version: int | None, options: Mapping[str, Any] | None
    ) -> JSONObject:
        """The ``DocumentDiagnosticParams`` of a pull of ``uri`` made for ``version``.

        With the provider's ``identifier`` and the last result id, when there are any.
        """
        entry = self._entry(uri)
        entry.pulled = version
        params: JSONObject = {"textDocument": {"uri": uri}}
        identifier = None if options is None else options.get("identifier")
        if isinstance(identifier, str):
            params["identifier"] = identifier
        if entry.result_id is not None:
            params["previousResultId"] = entry.result_id
        return params

    def pulled_version(self, uri: str) -> int | None:
        """The version the last pull of ``uri`` was made for."""
        entry = self._entries.get(uri)
        return None if entry is None else entry.pulled

    def receive(
        self, uri: str, version: int | None, result: Any
    ) -> tuple[list[Any], list[JSONObject]]:
        """Take the answer to a pull of ``uri`` made for ``version`` (None: not open).

        Returns the items for ``uri`` and the reports to deliver: ``uri``'s own when it is
        open, then those of its related documents that are open, with their current version.

        Raises:
            LspError: ``InternalError`` for an answer of the wrong shape, or an ``unchanged``
                report of ``uri`` with no earlier full one; nothing is kept then.
        """
        main = _report(result, "")
        related: list[tuple[TextDocument, _Report]] = []
        documents = result.get("relatedDocuments")
        if documents is not None:
            if type(documents) is not dict:
                raise wrong(METHOD, documents, "an object", " as relatedDocuments")
            for related_uri, value in documents.items():
                report = _report(value, f" in relatedDocuments[{related_uri!r}]")
                document = self._find(related_uri)
                if document is not None and document.uri != uri:
                    related.append((document, report))
        items = self._items(uri, main)
        if items is None:
            raise LspError(
                ErrorCodes.InternalError,
                f"{METHOD}: the server answered unchanged for {uri} but sent no full report of it",
            )
        reports = []
        if version is not None:
            reports.append({"uri": uri, "version": version, "diagnostics": items})
        for document, report in related:
            related_items = self._items(document.uri, report)
            if related_items is not None:
                diagnostics = {"diagnostics": related_items}
                reports.append({"uri": document.uri, "version": document.version, **diagnostics})
        return items, reports

    def _items(self, uri: str, report: _Report) -> list[Any] | None:
        """Record ``report`` of ``uri``; its items, or the last full ones when unchanged."""
        entry = self._entries.get(uri)
        if report.items is None and (entry is None or entry.items is None):
            return None
        entry = self._entry(uri)
        entry.result_id = report.result_id
        if report.items is not None:
            entry.items = report.items
        return entry.items

    # -- what the listeners heard ----------------------------------------------------------

    def hear(self, uri: str, version: int, diagnostics: Any) -> bool:
        """Record what the listeners of ``uri`` hear now; False when they heard just that."""
        items = diagnostics if type(diagnostics) is list else []
        entry = self._entry(uri)
        heard = (version, items)
        if self.dedupe and entry.heard == heard:
            return False
        entry.heard = heard
        return True

    def pushed(self, report: JSONObject) -> bool:
        """:meth:`hear` for a pushed report about an open document's current text."""
        document = self._find(report.get("uri"))
        if document is None:
            return False
        return self.hear(document.uri, document.version, report.get("diagnostics"))

    def forget(self, uri: str) -> None:
        """The document closed: its result id, items and what was heard go."""
        self._entries.pop(uri, None)

    def current(self, uri: str) -> list[Any] | None:
        """The last report heard for the current version of the open document, or None."""
        document = self._find(uri)
        entry = None if document is None else self._entries.get(document.uri)
        if document is None or entry is None or entry.heard is None:
            return None
        version, items = entry.heard
        return list(items) if version == document.version else None

    def last(self, uri: str) -> list[Any]:
        """The last diagnostics heard for the open document, whatever their version."""
        document = self._find(uri)
        entry = None if document is None else self._entries.get(document.uri)
        if entry is None or entry.heard is None:
            return []
        return list(entry.heard[1])


def _report(value: Any, where: str) -> _Report:
    """A ``FullDocumentDiagnosticReport`` or ``UnchangedDocumentDiagnosticReport``, checked."""
    if type(value) is not dict:
        raise wrong(METHOD, value, "a DocumentDiagnosticReport", where)
    kind, result_id = value.get("kind"), value.get("resultId")
    if result_id is not None and type(result_id) is not str:
        raise wrong(METHOD, result_id, "a string", f" as resultId{where}")
    if kind == "full":
        items = value.get("items")
        if type(items) is not list:
            raise wrong(METHOD, items, "a list", f" as items{where}")
        return _Report(result_id, items)
    if kind == "unchanged":
        if result_id is None:
            raise wrong(METHOD, result_id, "a string", f" as the resultId of unchanged{where}")
        return _Report(result_id, None)
    raise wrong(METHOD, kind, '"full" or "unchanged"', f" as kind{where}")


def failure_action(error: LspError, retried: bool) -> str:
    """What to do with a pull that failed: ``retry`` it, ``drop`` it quietly, or ``report`` it.

    ``ServerCancelled`` asks for one retry unless its data says ``retriggerRequest: false``
    (then it is dropped: the server refreshes when it is ready); ``ContentModified`` is
    dropped, as a newer pull follows the change.
    """
    code = error.code
    if code == ErrorCodes.ServerCancelled:
        data = error.data
        if isinstance(data, dict) and data.get("retriggerRequest") is False:
            return DROP
        return REPORT if retried else RETRY
    if code == ErrorCodes.ContentModified:
        return DROP
    return REPORT


def overlapping(diagnostics: list[Any], range_: Mapping[str, Any]) -> list[Any]:
    """The diagnostics whose range overlaps ``range_`` (touching counts), in order."""
    start, end = _point(range_.get("start")), _point(range_.get("end"))
    if start is None or end is None:
        return []
    found = []
    for diagnostic in diagnostics:
        span = diagnostic.get("range") if type(diagnostic) is dict else None
        if type(span) is not dict:
            continue
        first, last = _point(span.get("start")), _point(span.get("end"))
        if first is not None and last is not None and first <= end and start <= last:
            found.append(diagnostic)
    return found


def _point(position: Any) -> tuple[int, int] | None:
    if type(position) is not dict:
        return None
    line, character = position.get("line"), position.get("character")
    if type(line) is not int or type(character) is not int:
        return None
    return line, character
