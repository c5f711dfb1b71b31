"""Completion answers as one ``CompletionList`` whose items carry the list's defaults.

Lists run to thousands of items, so the work per item is a few dict operations: items that
get no default are shared with the answer, and the others are copied once, shallowly.
"""

from __future__ import annotations

from typing import Any, Final

from ...types import JSONObject
from .normalize import check_objects, is_range, wrong

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

_METHOD: Final = "textDocument/completion"

# The item defaults that are copied into an item lacking them, as they are.
_PLAIN_DEFAULTS: Final = ("commitCharacters", "insertTextFormat", "insertTextMode", "data")


def _check_items(items: object) -> list[Any]:
    if type(items) is not list:
        raise wrong(_METHOD, items, "a CompletionItem[]")
    check_objects(items, _METHOD, "a CompletionItem")
    return items


def _edit_range(defaults: JSONObject) -> JSONObject | None:
    """The ``textEdit`` of the ``editRange`` default, without its ``newText``.

    ``{"range": ...}`` for a ``Range``, ``{"insert": ..., "replace": ...}`` for the
    ``InsertReplaceEdit`` form, ``None`` without one.
    """
    edit_range = defaults.get("editRange")
    if edit_range is None:
        return None
    if is_range(edit_range):
        return {"range": edit_range}
    if (
        type(edit_range) is dict
        and is_range(edit_range.get("insert"))
        and is_range(edit_range.get("replace"))
    ):
        return {"insert": edit_range["insert"], "replace": edit_range["replace"]}
    raise wrong(_METHOD, edit_range, "a Range or {insert, replace}", " as itemDefaults.editRange")


def _with_defaults(
    items: list[JSONObject], plain: JSONObject, edit_range: JSONObject | None
) -> list[JSONObject]:
    """``items``, each item lacking a default replaced by a copy that has it."""
    keys = plain.keys()
    result: list[JSONObject] = []
    append = result.append
    for index, item in enumerate(items):
        if edit_range is not None and "textEdit" not in item:
            new_text = item.get("textEditText", item.get("label"))
            if type(new_text) is not str:
                raise wrong(
                    _METHOD,
                    item,
                    "a CompletionItem with a label or textEditText",
                    f" at index {index}",
                )
            item = {**plain, **item, "textEdit": {"newText": new_text, **edit_range}}
        elif not keys <= item.keys():
            item = {**plain, **item}
        append(item)
    return result


def completion(result: object) -> JSONObject:
    """A ``CompletionList`` from a ``CompletionList``, a ``CompletionItem[]`` or ``null``.

    A bare list (or ``null``) becomes ``{"isIncomplete": False, "items": [...]}``. The
    list's ``itemDefaults`` are written into each item lacking the field and removed from
    the list: ``editRange`` into a ``textEdit`` (an ``InsertReplaceEdit`` when it is
    ``{insert, replace}``) whose ``newText`` is the item's ``textEditText``, else its
    ``label``; ``commitCharacters``, ``insertTextFormat``, ``insertTextMode`` and ``data``
    as they are. An item's own ``textEdit`` is kept. A missing ``isIncomplete`` means
    ``False``.

    Raises:
        LspError: ``InternalError`` for an answer of another shape.
    """
    if result is None:
        return {"isIncomplete": False, "items": []}
    if type(result) is list:
        return {"isIncomplete": False, "items": _check_items(result)}
    if type(result) is not dict:
        raise wrong(_METHOD, result, "a CompletionList, a CompletionItem[] or null")
    items = _check_items(result.get("items"))
    incomplete = result.get("isIncomplete", False)
    if type(incomplete) is not bool:
        raise wrong(_METHOD, incomplete, "a boolean", " as isIncomplete")
    defaults = result.get("itemDefaults")
    if defaults is None and "itemDefaults" not in result and "isIncomplete" in result:
        return result
    if type(defaults) is not dict and defaults is not None:
        raise wrong(_METHOD, defaults, "CompletionItemDefaults", " as itemDefaults")
    defaults = defaults or {}
    plain = {key: defaults[key] for key in _PLAIN_DEFAULTS if key in defaults}
    edit_range = _edit_range(defaults)
    if plain or edit_range is not None:
        items = _with_defaults(items, plain, edit_range)
    normalised = {key: value for key, value in result.items() if key != "itemDefaults"}
    normalised["isIncomplete"] = incomplete
    normalised["items"] = items
    return normalised
