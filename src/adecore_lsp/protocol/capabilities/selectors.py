"""Document selectors and file operation filters: which documents a capability covers.

A server scopes a capability to some documents with a *document selector*: a list of filters
``{language?, scheme?, pattern?}``; a document is selected when any filter matches, and a
filter matches when every field it has matches. The glob rules of ``pattern`` are
:mod:`.globs`'.

- A string ``pattern`` is matched against the URI's path, percent-decoded
  (``file:///a/b%20c.ts`` gives ``/a/b c.ts``; ``file:///C:/x`` gives ``C:/x``). A
  RelativePattern ``{baseUri, pattern}`` (``baseUri`` a URI or a WorkspaceFolder) matches the
  path below the base, for URIs with the base's scheme and authority.
- ``language`` and ``scheme`` compare equal, or are ``*`` for any; a scheme compares without
  case. A filter with none of ``language``, ``scheme`` and ``pattern`` matches nothing, and a
  notebook cell filter (one with ``notebook``) matches no plain text document. A bare string
  filter (deprecated) is a language id. A ``None`` selector selects every document.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias
from urllib.parse import unquote, urlsplit

from .globs import GlobError, compile_glob, glob_matches

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


@dataclass(frozen=True)
class DocumentInfo:
    """What a selector looks at: the document's URI and its language id, if known."""

    uri: str
    language_id: str | None = None


DocumentLike: TypeAlias = DocumentInfo | Mapping[str, Any] | str
"""A :class:`DocumentInfo`, a mapping with ``uri`` and ``languageId`` (or ``language_id``), or
a bare URI (then filters naming a language do not match)."""


def as_document(document: DocumentLike) -> DocumentInfo:
    """Normalise the accepted document forms to a :class:`DocumentInfo`.

    Raises:
        TypeError: the value is none of the accepted forms.
    """
    if isinstance(document, DocumentInfo):
        return document
    if isinstance(document, str):
        return DocumentInfo(document)
    if isinstance(document, Mapping) and isinstance(document.get("uri"), str):
        language = document.get("languageId", document.get("language_id"))
        return DocumentInfo(document["uri"], language if isinstance(language, str) else None)
    raise TypeError(f"expected a URI, a DocumentInfo or a mapping with 'uri', got {document!r}")


# --- URIs and patterns ---------------------------------------------------------------------

_DRIVE = re.compile(r"/[A-Za-z]:(?:/|$)")


@functools.lru_cache(maxsize=1024)
def _split_uri(uri: str) -> tuple[str, str, str]:
    parts = urlsplit(uri)
    path = unquote(parts.path).replace("\\", "/")
    if _DRIVE.match(path):
        path = path[1:]  # "/C:/x" is the Windows path "C:/x"
    return parts.scheme.lower(), parts.netloc.lower(), path


def uri_path(uri: str) -> str:
    """The percent-decoded path of a URI, with ``/`` separators, that patterns match."""
    return _split_uri(uri)[2]


def pattern_matches(pattern: object, uri: str, *, ignore_case: bool = False) -> bool:
    """Whether a glob string or a RelativePattern matches the URI; an unreadable one does not."""
    try:
        if isinstance(pattern, str):
            return glob_matches(pattern, uri_path(uri), ignore_case=ignore_case)
        base, glob = _relative_pattern(pattern)
    except (GlobError, TypeError):
        return False
    scheme, authority, path = _split_uri(uri)
    base_scheme, base_authority, base_path = _split_uri(base)
    if (scheme, authority) != (base_scheme, base_authority):
        return False
    base_path = base_path.rstrip("/")
    if path == base_path:
        relative = ""
    elif path.startswith(base_path + "/"):
        relative = path[len(base_path) + 1 :]
    else:
        return False
    try:
        return glob_matches(glob, relative, ignore_case=ignore_case)
    except GlobError:
        return False


def _relative_pattern(pattern: object) -> tuple[str, str]:
    """The base URI and glob of a RelativePattern; TypeError if it is not one."""
    if isinstance(pattern, Mapping):
        base, glob = pattern.get("baseUri"), pattern.get("pattern")
        if isinstance(base, Mapping):  # a WorkspaceFolder
            base = base.get("uri")
        if isinstance(base, str) and isinstance(glob, str):
            return base, glob
    raise TypeError(f"not a glob pattern or a RelativePattern: {pattern!r}")


def pattern_problems(pattern: object) -> list[ValueError]:
    """What is wrong with a glob string or RelativePattern, for reporting (``[]`` if fine)."""
    try:
        glob = pattern if isinstance(pattern, str) else _relative_pattern(pattern)[1]
        compile_glob(glob)
    except GlobError as error:
        return [error]
    except TypeError as error:
        return [ValueError(str(error))]
    return []


# --- document selectors --------------------------------------------------------------------


def filter_matches(document_filter: object, document: DocumentInfo) -> bool:
    """Whether one document filter matches the document (see the module rules)."""
    if isinstance(document_filter, str):
        return document_filter in ("*", document.language_id)
    if not isinstance(document_filter, Mapping) or "notebook" in document_filter:
        return False
    return fields_match(document_filter, "language", document.language_id, document.uri)


def fields_match(entry: Mapping[str, Any], kind_field: str, kind: str | None, uri: str) -> bool:
    """Whether a filter's fields all match: its ``kind_field`` (``language`` of a document
    filter, ``notebookType`` of a notebook filter) equal to ``kind`` or ``*``, its
    ``scheme`` and its ``pattern``. A filter with none of the three matches nothing."""
    wanted = entry.get(kind_field)
    scheme = entry.get("scheme")
    pattern = entry.get("pattern")
    if wanted is None and scheme is None and pattern is None:
        return False
    if wanted is not None and wanted not in ("*", kind):
        return False
    if scheme is not None and not (
        isinstance(scheme, str) and scheme.lower() in ("*", _split_uri(uri)[0])
    ):
        return False
    return pattern is None or pattern_matches(pattern, uri)


def selector_matches(selector: object, document: DocumentInfo) -> bool:
    """Whether any filter of the selector matches; ``None`` selects every document."""
    if selector is None:
        return True
    if not isinstance(selector, list):
        return False
    return any(filter_matches(item, document) for item in selector)


def selector_problems(selector: object) -> list[ValueError]:
    """What is wrong with a selector, for reporting: bad shapes, empty filters, bad globs."""
    if selector is None:
        return []
    if not isinstance(selector, list):
        return [ValueError(f"documentSelector must be a list or null, got {selector!r}")]
    problems: list[ValueError] = []
    for item in selector:
        if isinstance(item, str) or (isinstance(item, Mapping) and "notebook" in item):
            continue
        if not isinstance(item, Mapping):
            problems.append(ValueError(f"document filter must be an object, got {item!r}"))
            continue
        fields = [item.get(name) for name in ("language", "scheme", "pattern")]
        if all(value is None for value in fields):
            problems.append(
                ValueError(f"document filter {dict(item)!r} names no language, scheme or pattern")
            )
        if any(value is not None and not isinstance(value, str) for value in fields[:2]):
            problems.append(ValueError(f"document filter {dict(item)!r} has a non-string field"))
        if fields[2] is not None:
            problems.extend(pattern_problems(fields[2]))
    return problems


# --- file operation filters ----------------------------------------------------------------


def file_operation_filters_match(filters: object, uri: str) -> bool:
    """Whether any FileOperationFilter ``{scheme?, pattern: {glob, options?}}`` matches the URI.

    ``pattern.matches`` (file or folder) is not checked: that needs the file system.
    """
    if not isinstance(filters, list):
        return False
    scheme = _split_uri(uri)[0]
    for item in filters:
        if not isinstance(item, Mapping) or not isinstance(item.get("pattern"), Mapping):
            continue
        wanted = item.get("scheme")
        if wanted is not None and not (isinstance(wanted, str) and wanted.lower() == scheme):
            continue
        pattern = item["pattern"]
        options = pattern.get("options")
        ignore_case = isinstance(options, Mapping) and options.get("ignoreCase") is True
        if isinstance(pattern.get("glob"), str) and pattern_matches(
            pattern["glob"], uri, ignore_case=ignore_case
        ):
            return True
    return False


def file_operation_filter_problems(filters: object) -> list[ValueError]:
    """What is wrong with a list of FileOperationFilters, for reporting."""
    if not isinstance(filters, list):
        return [ValueError(f"file operation filters must be a list, got {filters!r}")]
    problems: list[ValueError] = []
    for item in filters:
        pattern = item.get("pattern") if isinstance(item, Mapping) else None
        glob = pattern.get("glob") if isinstance(pattern, Mapping) else None
        if not isinstance(glob, str):
            problems.append(ValueError(f"file operation filter without a glob: {item!r}"))
        else:
            problems.extend(pattern_problems(glob))
    return problems
