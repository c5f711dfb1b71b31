"""LSP text edits put into a text: each edit's range (in the session's position encoding,
about the text as it is) found in code points, checked for overlap, and spliced in order.
Sans-I/O: a text in, a text (or the spans) out."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..documents.positions import LineIndex, PositionEncoding

# Internal to the library: apply_edit in adecore_lsp.features.apply is the public face.
__all__: list[str] = []

Span = tuple[tuple[int, int], tuple[int, int]]
"""An LSP range as ``((start line, start character), (end line, end character))``."""


def apply_text_edits(
    text: str,
    edits: Collection[tuple[Span, str]],
    encoding: PositionEncoding,
    uri: str = "the document",
) -> str:
    """``text`` with ``edits`` applied, each against ``text`` as it is (not in sequence).

    Raises:
        ValueError: a line past the last line, or edits that overlap.
    """
    if not edits:
        return text
    return spliced(text, text_edit_offsets(text, edits, encoding, uri))


def text_edit_offsets(
    text: str,
    edits: Collection[tuple[Span, str]],
    encoding: PositionEncoding,
    uri: str = "the document",
) -> tuple[tuple[int, int, str], ...]:
    """``edits`` (LSP ranges in ``encoding``, each against ``text`` as it is) as
    ``(start, end, new text)`` in code points of ``text``, in the order they apply (by
    place; inserts at one place in the order given).

    Raises:
        ValueError: a line past the last line, or edits that overlap.
    """
    if not edits:
        return ()
    index = LineIndex(text, encoding)
    lines = index.line_count
    spans: list[tuple[int, int, int, str]] = []
    for order, (((start_line, start_char), (end_line, end_char)), new) in enumerate(edits):
        if end_line >= lines:
            raise ValueError(f"an edit of {uri} reaches line {end_line}; it has {lines} lines")
        start = index.offset_for(start_line, start_char, encoding)
        end = index.offset_for(end_line, end_char, encoding)
        spans.append((start, end, order, new))
    spans.sort()
    at = 0
    for start, end, _order, _new in spans:
        if start < at:
            raise ValueError(f"edits of {uri} overlap at {index.position_at(start)}")
        at = end
    return tuple((start, end, new) for start, end, _order, new in spans)


def spliced(text: str, spans: Sequence[tuple[int, int, str]]) -> str:
    """``text`` with each ``(start, end, new text)`` of ``spans`` (in order) put in."""
    pieces: list[str] = []
    at = 0
    for start, end, new in spans:
        pieces.append(text[at:start])
        pieces.append(new)
        at = end
    pieces.append(text[at:])
    return "".join(pieces)
