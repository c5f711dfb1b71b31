"""semantic_tokens: relative integers into absolute, named tokens; each lie refused."""

from __future__ import annotations

from typing import Any

import pytest

from adecore_lsp import SemanticToken as Exported
from adecore_lsp.errors import ErrorCodes, LspError
from adecore_lsp.protocol.shapes.semantic_tokens import (
    SemanticToken,
    decode_semantic_tokens,
    semantic_tokens,
)

LEGEND = {
    "tokenTypes": ["namespace", "class", "function", "variable"],
    "tokenModifiers": ["declaration", "static", "readonly"],
}
T = SemanticToken


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ([], []),
        ([0, 0, 3, 1, 0], [T(0, 0, 3, "class", frozenset())]),
        (
            # the example of the specification: three tokens, the third on a later line
            [2, 5, 3, 0, 3, 0, 5, 4, 1, 0, 3, 2, 7, 2, 0],
            [
                T(2, 5, 3, "namespace", frozenset({"declaration", "static"})),
                T(2, 10, 4, "class", frozenset()),
                T(5, 2, 7, "function", frozenset()),
            ],
        ),
        (
            [0, 4, 1, 3, 7, 0, 0, 1, 3, 4, 1, 0, 2, 2, 2],
            [
                T(0, 4, 1, "variable", frozenset({"declaration", "static", "readonly"})),
                T(0, 4, 1, "variable", frozenset({"readonly"})),
                T(1, 0, 2, "function", frozenset({"static"})),
            ],
        ),
    ],
    ids=["empty", "one", "specification-example", "same-start-and-modifiers"],
)
def test_decode(data: list[int], expected: list[SemanticToken]) -> None:
    tokens = decode_semantic_tokens(data, LEGEND)
    assert tokens == expected
    assert all(type(token) is SemanticToken for token in tokens)


def test_token_is_named_and_exported() -> None:
    token = decode_semantic_tokens([1, 2, 3, 2, 4], LEGEND)[0]
    assert (token.line, token.character, token.length) == (1, 2, 3)
    assert token.type == "function"
    assert token.modifiers == frozenset({"readonly"})
    assert Exported is SemanticToken


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (None, []),
        ({"data": []}, []),
        ({"resultId": "3", "data": [0, 1, 2, 0, 0]}, [T(0, 1, 2, "namespace", frozenset())]),
    ],
    ids=["null", "empty", "tokens"],
)
def test_semantic_tokens(result: object, expected: list[SemanticToken]) -> None:
    assert semantic_tokens(result, LEGEND) == expected


@pytest.mark.parametrize(
    ("data", "legend", "parts"),
    [
        ([0, 0, 1, 0], LEGEND, ("4 integers as data", "a multiple of 5")),
        ([0, 0, 1, 0, 0, 1], LEGEND, ("6 integers",)),
        ([0, 0, 1, 4, 0], LEGEND, ("token type 4 at token 0", "the legend's 4 tokenTypes")),
        ([0, 0, 1, 0, 0, 1, 0, 1, 9, 0], LEGEND, ("token type 9 at token 1",)),
        ([0, 0, 1, 0, 8], LEGEND, ("modifier bit set 0b1000", "3 tokenModifiers")),
        ([0, 0, 1, 0, -1], LEGEND, ("the number -1 in data", "an unsigned integer")),
        ([0, 0, 1.5, 0, 0], LEGEND, ("the number 1.5 in data",)),
        ([0, "0", 1, 0, 0], LEGEND, ("the string '0' in data",)),
        ([0, None, 1, 0, 0], LEGEND, ("null in data",)),
        ([0, 2**64, 1, 0, 0], LEGEND, ("in data",)),
        ("0 0 1 0 0", LEGEND, ("as data", "a list of integers")),
        ([], None, ("a SemanticTokensLegend with tokenTypes",)),
        ([], {"tokenTypes": ["a"]}, ("with tokenModifiers (a string[])",)),
        ([], {"tokenTypes": ["a", 1], "tokenModifiers": []}, ("with tokenTypes",)),
    ],
    ids=[
        "short",
        "not-multiple",
        "type-outside",
        "later-type-outside",
        "modifier-outside",
        "negative",
        "float",
        "string",
        "null",
        "too-large",
        "data-string",
        "no-legend",
        "no-modifiers",
        "type-name-number",
    ],
)
def test_decode_lies(data: Any, legend: Any, parts: tuple[str, ...]) -> None:
    with pytest.raises(LspError) as caught:
        decode_semantic_tokens(data, legend)
    assert caught.value.code == ErrorCodes.InternalError
    assert caught.value.message.startswith("textDocument/semanticTokens: the server answered")
    for part in parts:
        assert part in caught.value.message


@pytest.mark.parametrize("result", ["x", [], {"resultId": "1"}], ids=["string", "list", "no-data"])
def test_semantic_tokens_lies(result: object) -> None:
    with pytest.raises(LspError, match="not SemanticTokens or null"):
        semantic_tokens(result, LEGEND)


def test_100000_tokens_decode_to_absolute_positions() -> None:
    """A long stream: positions accumulate (the cost is benchmarks/bench_normalize.py's)."""
    data = [1, 2, 3, 0, 1] * 100_000
    tokens = decode_semantic_tokens(data, LEGEND)
    assert len(tokens) == 100_000
    assert tokens[-1].line == 100_000
    assert tokens[-1].character == 2
