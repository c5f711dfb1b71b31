"""One rename from the answers of several roots of a server: each root's process (one per
package for basedpyright) edits the uses it sees, and the plan is their union.

Two roots that see one file give its edits twice: the same range with the same new text is
one edit. Two different edits whose ranges overlap (or two different insertions at one
place) mean the roots disagree about that file: :class:`RootsDisagree`, and nothing is
planned from them. A use that some root finds and no root's edit covers (ty renames from a
consumer's process only the declaring file) is :func:`uncovered`: the caller refuses such a
rename rather than plan one that breaks the consumer. Sans-I/O: ``WorkspaceEdit`` values
in, one out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


class RootsDisagree(ValueError):
    """Two roots of one server answered a rename with different edits of one place."""

    def __init__(self, uri: str, first: Mapping[str, Any], second: Mapping[str, Any]) -> None:
        self.uri = uri
        self.edits = (first, second)
        super().__init__(
            f"the server's roots disagree about {uri}: one edits {_show(first)}, another "
            f"{_show(second)}"
        )


def _show(edit: Mapping[str, Any]) -> str:
    start, end = edit["range"]["start"], edit["range"]["end"]
    return (
        f"{start['line'] + 1}:{start['character'] + 1}-{end['line'] + 1}:"
        f"{end['character'] + 1} to {edit.get('newText')!r}"
    )


def _key(position: Mapping[str, Any]) -> tuple[int, int]:
    return int(position["line"]), int(position["character"])


def merge_root_edits(edits: Sequence[Mapping[str, Any] | None]) -> dict[str, Any]:
    """The ``WorkspaceEdit`` that makes every edit of ``edits`` once (``None``: a root that
    answered none), as ``documentChanges``: the text edits of each document in the order of
    their places, then each resource operation (create, rename, delete) once, in the order
    first seen; ``changeAnnotations`` together.

    Raises:
        RootsDisagree: two different edits of one document overlap.
        ValueError: an edit is not a ``WorkspaceEdit`` of text edits and operations.
    """
    texts: dict[str, list[Mapping[str, Any]]] = {}
    operations: list[Mapping[str, Any]] = []
    annotations: dict[str, Any] = {}
    for edit in edits:
        if edit is None:
            continue
        if not isinstance(edit, Mapping):
            raise ValueError(f"a rename answered {edit!r}, which is no WorkspaceEdit")
        for uri, items in (edit.get("changes") or {}).items():
            texts.setdefault(uri, []).extend(items)
        for change in edit.get("documentChanges") or []:
            if "textDocument" in change:
                texts.setdefault(change["textDocument"]["uri"], []).extend(change["edits"])
            elif change not in operations:
                operations.append(change)
        annotations.update(edit.get("changeAnnotations") or {})
    changes: list[Any] = [
        {"textDocument": {"uri": uri, "version": None}, "edits": _one_each(uri, items)}
        for uri, items in texts.items()
    ]
    merged: dict[str, Any] = {"documentChanges": changes + operations}
    if annotations:
        merged["changeAnnotations"] = annotations
    return merged


def _one_each(uri: str, items: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The edits of one document, each once, in the order of their places."""
    ordered = sorted(items, key=lambda e: (_key(e["range"]["start"]), _key(e["range"]["end"])))
    kept: list[Mapping[str, Any]] = []
    for edit in ordered:
        if kept:
            last = kept[-1]
            if _same(last, edit):
                continue
            last_end, start = _key(last["range"]["end"]), _key(edit["range"]["start"])
            insertions = last["range"]["start"] == last["range"]["end"] == edit["range"]["end"]
            if start < last_end or (start == last_end and insertions):
                raise RootsDisagree(uri, last, edit)
        kept.append(edit)
    return kept


def _same(one: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    return (
        one["range"] == other["range"]
        and one.get("newText") == other.get("newText")
        and one.get("annotationId") == other.get("annotationId")
    )


def uncovered(
    edit: Mapping[str, Any], uses: Sequence[tuple[str, Mapping[str, Any]]]
) -> list[tuple[str, Mapping[str, Any]]]:
    """The ``(uri, range)`` of ``uses`` that no text edit of ``edit`` (as
    :func:`merge_root_edits` makes it) covers, in the order given. URIs are compared as
    they are spelled: the caller gives both in one spelling."""
    ranges: dict[str, list[tuple[tuple[int, int], tuple[int, int]]]] = {}
    for change in edit.get("documentChanges") or []:
        if "textDocument" in change:
            ranges.setdefault(change["textDocument"]["uri"], []).extend(
                (_key(item["range"]["start"]), _key(item["range"]["end"]))
                for item in change["edits"]
            )
    missing = []
    for uri, place in uses:
        start, end = _key(place["start"]), _key(place["end"])
        if not any(first <= start and end <= last for first, last in ranges.get(uri, ())):
            missing.append((uri, place))
    return missing
