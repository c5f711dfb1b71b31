"""The common prefix and suffix of two texts, found in blocks, and the edit between them.

Comparing slices of ``_BLOCK`` characters runs in C; a Python loop per character would cost
a hundred times more on a large file. :class:`Blocks` keeps a large text cut into blocks, so
the next version of it is compared without copying the old one first.
"""

from __future__ import annotations

from typing import Final

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

# Characters compared per slice when looking for the common prefix and suffix: big enough
# that the Python overhead per block vanishes, small enough that a block past the first
# difference costs little to copy.
_BLOCK: Final = 16 * 1024

# A text of at least this many characters keeps a copy of itself in blocks (_Blocks), so
# that the next full text is compared without slicing, that is without copying, the old one.
BLOCKS_FROM: Final = 4 * _BLOCK


def _prefix_in(piece: str, new: str, position: int) -> int:
    """The length of the common prefix of ``piece`` and ``new[position:]``.

    A binary search that slices ``piece`` only: ``new`` is compared in place.
    """
    if new.startswith(piece, position):
        return len(piece)
    low, size = 0, len(piece)  # piece[:low] matches; the first difference is in the next size
    while size > 1:
        half = size >> 1
        if new.startswith(piece[low : low + half], position + low):
            low += half
            size -= half
        else:
            size = half
    return low


def _suffix_in(piece: str, new: str, end: int, limit: int) -> int:
    """The length of the common suffix of ``piece`` and ``new[:end]``, at most ``limit``.

    ``limit`` is at most ``len(piece)`` and ``end``. Slices ``piece`` only.
    """
    top = len(piece)
    if new.endswith(piece[top - limit :], 0, end):
        return limit
    done, size = 0, limit  # piece's last `done` match; the last difference is in the next size
    while size > 1:
        half = size >> 1
        if new.endswith(piece[top - done - half : top - done], 0, end - done):
            done += half
            size -= half
        else:
            size = half
    return done


def _common_prefix(old: str, new: str) -> int:
    """The length of the common prefix, comparing slices of ``old`` block by block in C."""
    limit = min(len(old), len(new))
    for low in range(0, limit, _BLOCK):
        piece = old[low : min(low + _BLOCK, limit)]
        matched = _prefix_in(piece, new, low)
        if matched < len(piece):
            return low + matched
    return limit


def _common_suffix(old: str, new: str, limit: int) -> int:
    """The length of the common suffix, at most ``limit``, block by block in C."""
    old_end, new_end = len(old), len(new)
    for done in range(0, limit, _BLOCK):
        size = min(_BLOCK, limit - done)
        piece = old[old_end - done - size : old_end - done]
        matched = _suffix_in(piece, new, new_end - done, size)
        if matched < size:
            return done + matched
    return limit


class Blocks:
    """A text as a list of blocks of about ``_BLOCK`` characters, kept beside it.

    ``new.startswith(block, position)`` compares a whole ``str`` with a region of another
    in C, without the copy that slicing the old text would make on every change. After a
    change only the blocks around the edit are cut again from the new text.
    """

    __slots__ = ("blocks",)

    def __init__(self, text: str) -> None:
        self.blocks = [text[i : i + _BLOCK] for i in range(0, len(text), _BLOCK)]

    def common_prefix(self, new: str) -> int:
        """The length of the common prefix of the text and ``new``."""
        # A block of ASCII against a wider ``new`` would be compared one character at a
        # time; a slice of ``new`` narrows to the block's width and compares with memcmp.
        wide = not new.isascii()
        position = 0
        for block in self.blocks:
            size = len(block)
            if (
                new[position : position + size] == block
                if wide and block.isascii()
                else new.startswith(block, position)
            ):
                position += size
                continue
            return position + _prefix_in(block, new, position)
        return position

    def common_suffix(self, new: str, limit: int) -> int:
        """The length of the common suffix of the text and ``new``, at most ``limit``."""
        wide = not new.isascii()
        done, end = 0, len(new)
        for block in reversed(self.blocks):
            size = len(block)
            if done + size <= limit and (
                new[end - size : end] == block
                if wide and block.isascii()
                else new.endswith(block, 0, end)
            ):
                done += size
                end -= size
                continue
            return done + _suffix_in(block, new, end, min(limit - done, size, end))
        return done

    def replace(self, start: int, old_end: int, new: str, new_end: int) -> None:
        """Describe ``new``, where ``new[start:new_end]`` replaced ``text[start:old_end]``."""
        blocks = self.blocks
        count = len(blocks)
        first = 0
        region_start = 0
        while first < count and region_start + len(blocks[first]) < start:
            region_start += len(blocks[first])
            first += 1
        last, region_end = first, region_start
        while last < count and (last == first or region_end < old_end):
            region_end += len(blocks[last])
            last += 1
        # Fold a small remainder into the next block, so deletions do not leave crumbs.
        if last < count and region_end - region_start + new_end - old_end < _BLOCK // 4:
            region_end += len(blocks[last])
            last += 1
        region = new[region_start : region_end + new_end - old_end]
        if len(region) <= 2 * _BLOCK:
            blocks[first:last] = [region] if region else []
        else:
            blocks[first:last] = [region[i : i + _BLOCK] for i in range(0, len(region), _BLOCK)]


def diff(old: str, new: str, blocks: Blocks | None = None) -> tuple[int, int, int]:
    """``(start, old_end, new_end)``: ``old[start:old_end]`` became ``new[start:new_end]``.

    The smallest such span, widened by one character at either end that would otherwise
    fall between the ``"\\r"`` and ``"\\n"`` of a break in ``old``, where no position exists.
    ``start == old_end == new_end`` means the texts are equal. ``blocks``, if given, hold
    ``old`` and spare copying it.
    """
    old_length, new_length = len(old), len(new)
    if blocks is None:
        start = _common_prefix(old, new)
        suffix = _common_suffix(old, new, min(old_length, new_length) - start)
    else:
        start = blocks.common_prefix(new)
        suffix = blocks.common_suffix(new, min(old_length, new_length) - start)
    old_end, new_end = old_length - suffix, new_length - suffix
    if 0 < start < old_length and old[start - 1] == "\r" and old[start] == "\n":
        start -= 1
    if 0 < old_end < old_length and old[old_end - 1] == "\r" and old[old_end] == "\n":
        old_end += 1
        new_end += 1
    return start, old_end, new_end
