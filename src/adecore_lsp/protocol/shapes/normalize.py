"""Feature results in the current LSP 3.17 shape, whatever older or alternative form came.

Each function takes what a server answered, decoded from JSON, and returns the one shape
an application works with: a ``null`` answer becomes ``[]`` where a list is meant and
``None`` where one object is meant; older forms (``MarkedString``, a bare ``Command``, a
``LocationLink``, a ``changes`` map) become their current form.

A server may answer anything, so every member these functions read is checked first, and
an answer of the wrong shape raises :class:`~adecore_lsp.errors.LspError` with
``ErrorCodes.InternalError`` and a message that names the method, what came and what was
expected, never an ``AttributeError``, ``KeyError`` or ``TypeError``. Members passed
through untouched are not checked: their shape is the server's word.

Results are plain dicts and lists. The answer is never modified: what changes is built
anew, and what does not is shared with it.
"""

from __future__ import annotations

import re
import reprlib
from collections.abc import Callable, Mapping
from typing import Any, Final

from ...errors import ErrorCodes, LspError
from ...types import JSONObject
from ..documents.positions import Position

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

_KIND: Final[dict[type, str]] = {
    bool: "the boolean",
    int: "the number",
    float: "the number",
    str: "the string",
    list: "the list",
    dict: "the object",
}


def describe(value: object) -> str:
    """A short description of a JSON value for an error message: its kind and a bounded repr."""
    if value is None:
        return "null"
    return f"{_KIND.get(type(value), 'the value')} {reprlib.repr(value)}"


def server_error(method: str, what: str, expected: str) -> LspError:
    """The error of an answer of the wrong shape: ``<method>: the server answered ...``."""
    return LspError(
        ErrorCodes.InternalError, f"{method}: the server answered {what}, not {expected}"
    )


def wrong(method: str, value: object, expected: str, where: str = "") -> LspError:
    """:func:`server_error` for ``value``, described, optionally placed (``" in items[3]"``)."""
    return server_error(method, describe(value) + where, expected)


def is_position(value: object) -> bool:
    """Whether ``value`` is an LSP ``Position``: integer ``line`` and ``character``."""
    return (
        type(value) is dict
        and type(value.get("line")) is int
        and type(value.get("character")) is int
    )


def is_range(value: object) -> bool:
    """Whether ``value`` is an LSP ``Range``: two positions, ``start`` and ``end``."""
    return type(value) is dict and is_position(value.get("start")) and is_position(value.get("end"))


def check_list(result: object, method: str, expected: str) -> list[Any]:
    """``[]`` for ``null``, the list itself for a list; any other answer raises."""
    if result is None:
        return []
    if type(result) is not list:
        raise wrong(method, result, expected + " or null")
    return result


def check_objects(items: list[Any], method: str, expected: str, where: str = "") -> None:
    """Raise unless every member of ``items`` is an object (checked at C speed)."""
    if items and set(map(type, items)) != {dict}:
        index, item = next((i, x) for i, x in enumerate(items) if type(x) is not dict)
        raise wrong(method, item, expected, f" at index {index}{where}")


def list_result(result: object, method: str) -> list[JSONObject]:
    """The answer of a request whose result is a list of objects, or ``null``.

    For folding ranges, inlay hints, document links, code lenses, highlights, selection
    ranges and call or type hierarchy items: ``null`` gives ``[]`` and a list of objects is
    returned as is.

    Raises:
        LspError: ``InternalError`` for anything else, or a member that is not an object.
    """
    items = check_list(result, method, "a list")
    check_objects(items, method, "an object")
    return items


# -- locations --------------------------------------------------------------------------


def _location(item: object, method: str, where: str) -> JSONObject:
    expected = "a Location or a LocationLink"
    if type(item) is not dict:
        raise wrong(method, item, expected, where)
    if "targetUri" in item:
        uri, range_ = item["targetUri"], item.get("targetSelectionRange")
        if type(uri) is not str or not is_range(range_):
            raise wrong(method, item, "a LocationLink with a targetSelectionRange", where)
        return {"uri": uri, "range": range_}
    if type(item.get("uri")) is not str or not is_range(item.get("range")):
        raise wrong(method, item, expected, where)
    return item


def locations(result: object, method: str = "textDocument/definition") -> list[JSONObject]:
    """``list[Location]`` from a ``Location``, ``Location[]``, ``LocationLink[]`` or ``null``.

    A ``LocationLink`` becomes ``Location(uri=targetUri, range=targetSelectionRange)``;
    lists mixing both are accepted. ``method`` names the request in errors (definition,
    declaration, typeDefinition, implementation, references).

    Raises:
        LspError: ``InternalError`` for an answer of another shape.
    """
    if type(result) is dict:
        return [_location(result, method, "")]
    items = check_list(result, method, "a Location, a Location[], a LocationLink[]")
    return [_location(item, method, f" at index {index}") for index, item in enumerate(items)]


# -- hover ------------------------------------------------------------------------------

_BACKTICKS: Final = re.compile("`+")
_HOVER: Final = "textDocument/hover"
_MARKED: Final = "a MarkedString (a string or {language, value})"


def code_block(language: str, value: str) -> str:
    """``value`` as a fenced markdown code block, its fence longer than any backtick run in it."""
    longest = max(map(len, _BACKTICKS.findall(value)), default=0)
    fence = "`" * max(3, longest + 1)
    if not value.endswith("\n"):
        value += "\n"
    return f"{fence}{language}\n{value}{fence}"


def _marked_string(part: object, where: str) -> str:
    """The markdown of one ``MarkedString``; ``""`` for an empty one."""
    if type(part) is str:
        return part
    if type(part) is dict and "kind" not in part:
        language, value = part.get("language"), part.get("value")
        if type(language) is str and type(value) is str:
            return code_block(language, value) if value else ""
    raise wrong(_HOVER, part, _MARKED, where)


def hover(result: object) -> JSONObject | None:
    """A ``Hover`` whose ``contents`` is always ``MarkupContent``, or ``None`` for nothing.

    A ``MarkedString`` (a string, kept as markdown, or ``{language, value}``, which becomes
    a fenced code block) or a list of them becomes one markdown text, the parts separated
    by a blank line; empty parts are left out. ``MarkupContent`` is kept as it came
    (``plaintext`` stays plaintext). ``null``, ``""``, ``[]`` and an empty value give
    ``None``. A ``range`` is kept.

    Raises:
        LspError: ``InternalError`` for an answer of another shape.
    """
    if result is None:
        return None
    if type(result) is not dict or "contents" not in result:
        raise wrong(_HOVER, result, "a Hover or null")
    contents = result["contents"]
    range_ = result.get("range")
    if range_ is not None and not is_range(range_):
        raise wrong(_HOVER, range_, "a Range", " as the Hover's range")
    if type(contents) is dict and "kind" in contents:
        if (
            contents["kind"] not in ("markdown", "plaintext")
            or type(contents.get("value")) is not str
        ):
            raise wrong(_HOVER, contents, "MarkupContent of kind markdown or plaintext")
        if not contents["value"]:
            return None
        markup = contents
    else:
        if type(contents) is list:
            parts = [_marked_string(part, f" at index {i}") for i, part in enumerate(contents)]
            text = "\n\n".join(part for part in parts if part)
        else:
            text = _marked_string(contents, "")
        if not text:
            return None
        markup = {"kind": "markdown", "value": text}
    if range_ is None:
        return {"contents": markup}
    return {"contents": markup, "range": range_}


# -- code actions -----------------------------------------------------------------------


def code_actions(result: object) -> list[JSONObject]:
    """``list[CodeAction]`` from ``(Command | CodeAction)[]`` or ``null``.

    A bare ``Command`` (whose ``command`` is a string) becomes
    ``{"title": command["title"], "command": command}``; a ``CodeAction`` is kept.

    Raises:
        LspError: ``InternalError`` for an answer of another shape.
    """
    method = "textDocument/codeAction"
    items = check_list(result, method, "a (Command | CodeAction)[]")
    actions: list[JSONObject] = []
    for index, item in enumerate(items):
        where = f" at index {index}"
        if type(item) is not dict or type(item.get("title")) is not str:
            raise wrong(method, item, "a Command or a CodeAction", where)
        command = item.get("command")
        if type(command) is str:
            if type(item.get("arguments", [])) is not list:
                raise wrong(method, item["arguments"], "a list", f"{where} as its arguments")
            actions.append({"title": item["title"], "command": item})
            continue
        if command is not None and (
            type(command) is not dict
            or type(command.get("title")) is not str
            or type(command.get("command")) is not str
        ):
            raise wrong(method, command, "a Command", f"{where} as its command")
        actions.append(item)
    return actions


# -- rename -----------------------------------------------------------------------------


def _word_around(text: str, offset: int) -> tuple[int, int]:
    """The run of word characters (``\\w``: alphanumerics and ``_``) around ``offset``."""
    start = end = min(max(offset, 0), len(text))
    while start and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    size = len(text)
    while end < size and (text[end].isalnum() or text[end] == "_"):
        end += 1
    return start, end


def prepare_rename(
    result: object,
    text: str,
    offset: int,
    *,
    offset_of: Callable[[Mapping[str, Any]], int],
    position_of: Callable[[int], Position],
) -> JSONObject | None:
    """``{"range", "placeholder"}`` or ``None`` from any ``prepareRename`` answer.

    ``text`` is the document's text, ``offset`` the ``str`` index the rename was asked at,
    ``offset_of`` and ``position_of`` its conversions between LSP positions and ``str``
    indices (``TextDocument.offset_at`` and ``TextDocument.position_at``, or a
    ``LineIndex``'s). ``{range, placeholder}`` is kept; a bare ``Range`` gets the text it
    covers as its placeholder; ``{"defaultBehavior": true}`` becomes the run of word
    characters (``\\w``) around ``offset``, or ``None`` when there is none there.
    ``null`` and ``{"defaultBehavior": false}`` give ``None``.

    Raises:
        LspError: ``InternalError`` for an answer of another shape, or a range that ends
            before it starts.
    """
    method = "textDocument/prepareRename"
    expected = "a Range, {range, placeholder}, {defaultBehavior} or null"
    if result is None:
        return None
    if type(result) is not dict:
        raise wrong(method, result, expected)
    if "defaultBehavior" in result:
        if type(result["defaultBehavior"]) is not bool:
            raise wrong(method, result, expected)
        if not result["defaultBehavior"]:
            return None
        start, end = _word_around(text, offset)
        if start == end:
            return None
        range_ = {"start": position_of(start), "end": position_of(end)}
        return {"range": range_, "placeholder": text[start:end]}
    if "placeholder" in result:
        if type(result["placeholder"]) is not str or not is_range(result.get("range")):
            raise wrong(method, result, expected)
        return result
    if not is_range(result):
        raise wrong(method, result, expected)
    start, end = offset_of(result["start"]), offset_of(result["end"])
    if end < start:
        raise wrong(method, result, "a Range that starts before it ends")
    return {"range": result, "placeholder": text[start:end]}


# -- workspace edits --------------------------------------------------------------------

_RESOURCE_KINDS: Final = frozenset({"create", "rename", "delete"})


def _check_document_change(change: object, method: str, where: str) -> None:
    if type(change) is dict:
        if "kind" in change:
            if change["kind"] in _RESOURCE_KINDS:
                return
        else:
            document = change.get("textDocument")
            if (
                type(document) is dict
                and type(document.get("uri")) is str
                and type(change.get("edits")) is list
            ):
                return
    raise wrong(method, change, "a TextDocumentEdit, CreateFile, RenameFile or DeleteFile", where)


def workspace_edit(
    result: object,
    version_of: Callable[[str], int | None],
    method: str = "textDocument/rename",
) -> JSONObject:
    """A ``WorkspaceEdit`` that always has ``documentChanges``, from any ``WorkspaceEdit``.

    A ``changes`` map becomes one ``TextDocumentEdit`` per URI whose ``version`` is
    ``version_of(uri)`` (the open document's version, or ``None``); when both are present
    ``documentChanges`` wins. ``changeAnnotations`` are kept; ``null`` gives
    ``{"documentChanges": []}``.

    Raises:
        LspError: ``InternalError`` for an answer of another shape.
    """
    if result is None:
        return {"documentChanges": []}
    if type(result) is not dict:
        raise wrong(method, result, "a WorkspaceEdit or null")
    changes = result.get("documentChanges")
    if changes is not None:
        if type(changes) is not list:
            raise wrong(method, changes, "a list", " as documentChanges")
        for index, change in enumerate(changes):
            _check_document_change(change, method, f" at documentChanges[{index}]")
    else:
        by_uri = result.get("changes")
        if by_uri is not None and type(by_uri) is not dict:
            raise wrong(method, by_uri, "a map of URIs to TextEdit[]", " as changes")
        changes = []
        for uri, edits in (by_uri or {}).items():
            if type(edits) is not list:
                raise wrong(method, edits, "a TextEdit[]", f" at changes[{uri!r}]")
            document = {"uri": uri, "version": version_of(uri)}
            changes.append({"textDocument": document, "edits": edits})
    edit: JSONObject = {"documentChanges": changes}
    annotations = result.get("changeAnnotations")
    if annotations is not None:
        if type(annotations) is not dict:
            raise wrong(method, annotations, "a map of ChangeAnnotations", " as changeAnnotations")
        edit["changeAnnotations"] = annotations
    return edit
