"""Document selectors, file operation filters and the glob patterns they use.

A server scopes a capability to some documents with a *document selector*: a list of filters
``{language?, scheme?, pattern?}``; a document is selected when any filter matches, and a
filter matches when every field it has matches. The LSP text on globs is incomplete (it says
``*`` matches "one or more" characters, which its authors call a mistake), so the rules used
here are written down in full:

=====================  =====================================================================
Glob syntax            Meaning
=====================  =====================================================================
``*``                  zero or more characters within one path segment (never ``/``)
``?``                  exactly one character within a segment
``**``                 as a whole segment: any number of whole segments, including none
                       (``**/*.ts`` matches ``/a/b.ts`` and ``b.ts``; ``a/**`` matches ``a``,
                       ``a/b`` and ``a/b/c``); inside a segment (``**.ts``) it is ``*``
``{a,b}``              either alternative; alternatives may hold any glob, ``/`` and ``**``
                       included, and may nest; ``{a}`` and ``{a,ab}`` are fine
``[a-z0-9_]``          one character of the set or ranges, within a segment
``[!a-z]``, ``[^a-z]``  one character not in the set (and not ``/``)
``/`` and ``\\``        path separators, in patterns and in the matched path alike
anything else          itself, case-sensitively (file operation filters may ignore case)
=====================  =====================================================================

- A glob must match the whole candidate (it is anchored at both ends), so ``*.ts`` does not
  match ``/a/b.ts``: real selectors say ``**/*.ts``.
- A ``{`` without its ``}``, a ``[`` without its ``]`` or a reversed range (``[z-a]``) make the
  glob unreadable: :func:`compile_glob` raises :class:`GlobError`, and a filter using it
  matches nothing. A lone ``}``, ``]`` or ``,`` is an ordinary character.
- A string ``pattern`` is matched against the URI's path, percent-decoded
  (``file:///a/b%20c.ts`` gives ``/a/b c.ts``; ``file:///C:/x`` gives ``C:/x``). A
  RelativePattern ``{baseUri, pattern}`` (``baseUri`` a URI or a WorkspaceFolder) matches the
  path below the base, for URIs with the base's scheme and authority.
- ``language`` and ``scheme`` compare equal, or are ``*`` for any; a scheme compares without
  case. A filter with none of ``language``, ``scheme`` and ``pattern`` matches nothing, and a
  notebook cell filter (one with ``notebook``) matches no plain text document. A bare string
  filter (deprecated) is a language id. A ``None`` selector selects every document.

Compiled globs are cached, so matching a selector costs a regex match per pattern.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias
from urllib.parse import unquote, urlsplit

__all__ = [
    "DocumentInfo",
    "DocumentLike",
    "GlobError",
    "as_document",
    "compile_glob",
    "file_operation_filter_problems",
    "file_operation_filters_match",
    "filter_matches",
    "glob_matches",
    "pattern_matches",
    "pattern_problems",
    "selector_matches",
    "selector_problems",
    "uri_path",
]


@dataclass(frozen=True)
class DocumentInfo:
    """What a selector looks at: the document's URI and its language id, if known."""

    uri: str
    language_id: str | None = None


DocumentLike: TypeAlias = DocumentInfo | Mapping[str, Any] | str
"""A :class:`DocumentInfo`, a mapping with ``uri`` and ``languageId`` (or ``language_id``), or
a bare URI (then filters naming a language do not match)."""


class GlobError(ValueError):
    """A glob pattern that cannot be read; ``glob`` is the pattern, ``reason`` says why."""

    def __init__(self, glob: str, reason: str) -> None:
        super().__init__(f"unreadable glob pattern {glob!r}: {reason}")
        self.glob = glob
        self.reason = reason


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


# --- globs ---------------------------------------------------------------------------------

# Parsed glob nodes: ("lit", text) | ("sep", "/") | ("star", count) | ("one", "") |
# ("set", regex) | ("alt", [sequence, ...]). Kept as tuples: the tree lives only while compiling.
_Node: TypeAlias = tuple[str, Any]
_SEGMENT_CHAR = "[^/]"


class _GlobParser:
    """Recursive descent over one glob, producing the node tree."""

    def __init__(self, glob: str) -> None:
        self.glob = glob
        self.pos = 0

    def parse(self) -> list[_Node]:
        return self._sequence(depth=0)

    def _sequence(self, depth: int) -> list[_Node]:
        text, nodes = self.glob, list[_Node]()
        while self.pos < len(text):
            char = text[self.pos]
            if depth and char in ",}":
                return nodes  # the enclosing brace group continues from here
            if char == "{":
                nodes.append(("alt", self._braces(depth)))
                continue
            if char == "[":
                nodes.append(("set", self._bracket()))
                continue
            self.pos += 1
            if char == "*":
                count = 1
                while self.pos < len(text) and text[self.pos] == "*":
                    self.pos, count = self.pos + 1, count + 1
                nodes.append(("star", count))
            elif char == "?":
                nodes.append(("one", ""))
            elif char in "/\\":
                nodes.append(("sep", "/"))
            else:
                nodes.append(("lit", char))
        if depth:
            raise GlobError(self.glob, "'{' without a closing '}'")
        return nodes

    def _braces(self, depth: int) -> list[list[_Node]]:
        self.pos += 1  # past "{"
        alternatives = [self._sequence(depth + 1)]
        while self.glob[self.pos] == ",":  # _sequence raised if the text ran out
            self.pos += 1
            alternatives.append(self._sequence(depth + 1))
        self.pos += 1  # past "}"
        return alternatives

    def _bracket(self) -> str:
        text, start = self.glob, self.pos
        pos = start + 1
        negate = pos < len(text) and text[pos] in "!^"
        pos += negate
        members: list[str] = []
        first = True
        while pos < len(text) and (first or text[pos] != "]"):
            # "]" right after "[" or "[!" is a member, as in POSIX brackets.
            first = False
            low = text[pos]
            if pos + 2 < len(text) and text[pos + 1] == "-" and text[pos + 2] != "]":
                high = text[pos + 2]
                if low > high:
                    raise GlobError(self.glob, f"range {low}-{high} is reversed")
                members.append(f"{_class_escape(low)}-{_class_escape(high)}")
                pos += 3
            else:
                members.append(_class_escape(low))
                pos += 1
        if pos >= len(text):
            raise GlobError(self.glob, "'[' without a closing ']'")
        self.pos = pos + 1
        body = "".join(members)
        # A separator never matches a bracket expression, negated or not.
        return f"[^/{body}]" if negate else f"(?:(?!/)[{body}])"


def _class_escape(char: str) -> str:
    return "\\" + char if char in "\\]^-[" else char


def _emit(nodes: list[_Node], start_boundary: bool, end_boundary: bool) -> str:
    """Regex for a node sequence; the flags say whether it starts and ends at a segment edge."""
    out: list[str] = []
    index, count = 0, len(nodes)

    def globstar_at(i: int) -> bool:
        kind, value = nodes[i]
        before = start_boundary if i == 0 else nodes[i - 1][0] == "sep"
        after = end_boundary if i == count - 1 else nodes[i + 1][0] == "sep"
        return kind == "star" and value >= 2 and before and after

    while index < count:
        kind, value = nodes[index]
        if kind == "sep" and index + 2 == count and end_boundary and globstar_at(index + 1):
            out.append("(?:/.*)?")  # "a/**": the directory itself or anything below it
            index += 2
            continue
        if kind == "star" and globstar_at(index):
            if index + 1 < count:  # followed by a separator: whole segments, or none
                out.append(f"(?:{_SEGMENT_CHAR}*/)*")
                index += 2
            else:
                out.append(".*")
                index += 1
            continue
        if kind == "star":
            out.append(f"{_SEGMENT_CHAR}*")
        elif kind == "one":
            out.append(_SEGMENT_CHAR)
        elif kind == "set":
            out.append(value)
        elif kind == "sep":
            out.append("/")
        elif kind == "lit":
            out.append(re.escape(value))
        else:  # "alt": each alternative sits where the braces are
            before = start_boundary if index == 0 else nodes[index - 1][0] == "sep"
            after = end_boundary if index == count - 1 else nodes[index + 1][0] == "sep"
            out.append("(?:" + "|".join(_emit(alt, before, after) for alt in value) + ")")
        index += 1
    return "".join(out)


@functools.lru_cache(maxsize=1024)
def _compiled(glob: str, ignore_case: bool) -> re.Pattern[str] | str:
    # The reason is cached rather than the exception so each caller gets a fresh one.
    try:
        regex = _emit(_GlobParser(glob).parse(), True, True)
    except GlobError as error:
        return error.reason
    flags = re.DOTALL | (re.IGNORECASE if ignore_case else 0)
    try:
        return re.compile(regex, flags)
    except re.error as error:  # pragma: no cover - the parser rejects what re would
        return str(error)


def compile_glob(glob: str, *, ignore_case: bool = False) -> re.Pattern[str]:
    """The anchored regex for a glob (use ``fullmatch``); cached per pattern.

    Raises:
        GlobError: the glob cannot be read.
    """
    compiled = _compiled(glob, ignore_case)
    if isinstance(compiled, str):
        raise GlobError(glob, compiled)
    return compiled


def glob_matches(glob: str, path: str, *, ignore_case: bool = False) -> bool:
    """Whether the glob matches the whole path (``\\`` in the path counts as ``/``).

    Raises:
        GlobError: the glob cannot be read.
    """
    regex = compile_glob(glob, ignore_case=ignore_case)
    return regex.fullmatch(path.replace("\\", "/")) is not None


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
    language = document_filter.get("language")
    scheme = document_filter.get("scheme")
    pattern = document_filter.get("pattern")
    if language is None and scheme is None and pattern is None:
        return False
    if language is not None and language not in ("*", document.language_id):
        return False
    if scheme is not None and not (
        isinstance(scheme, str) and scheme.lower() in ("*", _split_uri(document.uri)[0])
    ):
        return False
    return pattern is None or pattern_matches(pattern, document.uri)


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
