"""textdiff: the edit between two texts, with and without the block copy of the old text."""

from __future__ import annotations

import pytest

from adecore_lsp.protocol.documents.textdiff import BLOCKS_FROM, Blocks, diff

BLOCK = BLOCKS_FROM // 4  # the size of one block


def big_text() -> str:
    """A text of five and a half blocks whose characters differ from their neighbours."""
    return "".join(chr(ord("a") + i % 26) for i in range(BLOCK * 5 + BLOCK // 2))


@pytest.mark.parametrize(
    ("start", "end", "inserted"),
    [
        (BLOCK + 10, 2 * BLOCK - 10, ""),  # most of a block deleted: the rest folds forward
        (BLOCK + 10, BLOCK + 11, "xyz"),  # a small change inside a block
        (0, 3 * BLOCK, ""),  # whole blocks deleted
        (4 * BLOCK, 4 * BLOCK, "q" * (3 * BLOCK)),  # a large insertion is cut into blocks
        (0, len(big_text()), ""),  # everything deleted
    ],
)
def test_blocks_follow_the_text_through_edits(start: int, end: int, inserted: str) -> None:
    """After replace, the blocks hold the new text, and diff against them stays exact."""
    old = big_text()
    blocks = Blocks(old)
    new = old[:start] + inserted + old[end:]
    assert diff(old, new, blocks) == diff(old, new)
    span = diff(old, new, blocks)
    blocks.replace(span[0], span[1], new, span[2])
    assert "".join(blocks.blocks) == new
    assert all(len(block) <= 2 * BLOCK for block in blocks.blocks)
    cut = min(5, len(new))
    newer = new[:cut] + "!" + new[cut:]
    assert diff(new, newer, blocks) == diff(new, newer) == (cut, cut, cut + 1)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("abc", "abc", (3, 3, 3)),
        ("abc", "abXc", (2, 2, 3)),
        ("a\r\nb", "a\rb", (1, 3, 2)),  # dropping the "\n" rewrites the whole break
        ("a\r\nb", "a\nb", (1, 3, 2)),  # an end between "\r" and "\n" takes the "\n" in
        ("a\r\nb", "a\rXb", (1, 3, 3)),  # a start between them moves back to the "\r"
        ("", "x", (0, 0, 1)),
    ],
)
def test_diff_spans(old: str, new: str, expected: tuple[int, int, int]) -> None:
    """diff gives the smallest span, never one that splits a "\\r\\n" break."""
    start, old_end, new_end = diff(old, new)
    assert (start, old_end, new_end) == expected
    assert old[:start] + new[start:new_end] + old[old_end:] == new
