"""Semantic tokens decoded from the server's relative integers into absolute tokens.

A server sends five integers per token: the line relative to the previous token's, the
start character relative to the previous token's when both are on the same line (else
from the line's start), the length, an index into the legend's ``tokenTypes`` and a bit
set over its ``tokenModifiers``. Files have tens of thousands of tokens, so the integers
are checked in one C pass (an unsigned ``array``) and decoded in one tight loop.
"""

from __future__ import annotations

from array import array
from typing import Any, Final, NamedTuple

from ...types import JSONObject
from .normalize import server_error, wrong

# Public, re-exported by adecore_lsp; the decoding functions serve the session.
__all__ = ["SemanticToken"]

_METHOD: Final = "textDocument/semanticTokens"


class SemanticToken(NamedTuple):
    """One semantic token at an absolute position.

    ``character`` and ``length`` count in the negotiated position encoding, as the server
    sent them; ``type`` and ``modifiers`` are names from the server's legend.
    """

    line: int
    character: int
    length: int
    type: str
    modifiers: frozenset[str]


def _names(legend: object, key: str) -> list[str]:
    names = legend.get(key) if type(legend) is dict else None
    if type(names) is not list or not all(type(name) is str for name in names):
        raise wrong(_METHOD, legend, f"a SemanticTokensLegend with {key} (a string[])")
    return names


class _Modifiers(dict[int, frozenset[str]]):
    """The modifier names of each bit set, computed the first time a set is met."""

    def __init__(self, names: list[str]) -> None:
        super().__init__()
        self.names = names

    def __missing__(self, bits: int) -> frozenset[str]:
        if bits >> len(self.names):
            raise server_error(
                _METHOD,
                f"the modifier bit set {bits:#b}",
                f"a set over the legend's {len(self.names)} tokenModifiers",
            )
        names = frozenset(name for i, name in enumerate(self.names) if bits >> i & 1)
        self[bits] = names
        return names


def decode_semantic_tokens(data: list[int], legend: JSONObject) -> list[SemanticToken]:
    """The tokens of ``data``, a ``SemanticTokens.data`` array, named with ``legend``.

    ``legend`` is the server's ``SemanticTokensLegend`` (``tokenTypes`` and
    ``tokenModifiers``). Positions become absolute; ``type`` is the name at the token's
    type index, ``modifiers`` the names of the bits set. JSON booleans in ``data`` count
    as 0 and 1 (telling them apart from integers would cost a pass in Python).

    Raises:
        LspError: ``InternalError`` when ``data`` is not a list of unsigned integers whose
            length is a multiple of 5, or a type index or modifier bit is outside the legend.
    """
    types = _names(legend, "tokenTypes")
    modifiers = _Modifiers(_names(legend, "tokenModifiers"))
    if type(data) is not list:
        raise wrong(_METHOD, data, "a list of integers", " as data")
    try:
        array("Q", data)
    except (TypeError, OverflowError):
        bad = next(x for x in data if type(x) not in (int, bool) or not 0 <= x < 1 << 64)
        raise wrong(_METHOD, bad, "an unsigned integer", " in data") from None
    if len(data) % 5:
        raise server_error(
            _METHOD, f"{len(data)} integers as data", "a multiple of 5 (five per token)"
        )
    tokens: list[SemanticToken] = []
    append = tokens.append
    new = tuple.__new__
    line = character = 0
    numbers = iter(data)
    try:
        for delta_line, delta_start, length, kind, bits in zip(
            numbers, numbers, numbers, numbers, numbers, strict=False
        ):
            if delta_line:
                line += delta_line
                character = delta_start
            else:
                character += delta_start
            append(new(SemanticToken, (line, character, length, types[kind], modifiers[bits])))
    except IndexError:
        index = len(tokens)
        raise server_error(
            _METHOD,
            f"the token type {data[index * 5 + 3]} at token {index}",
            f"an index into the legend's {len(types)} tokenTypes",
        ) from None
    return tokens


def semantic_tokens(result: object, legend: JSONObject) -> list[SemanticToken]:
    """The tokens of a ``semanticTokens/full`` or ``/range`` answer; ``null`` gives ``[]``.

    Raises:
        LspError: ``InternalError`` for an answer that is not ``SemanticTokens`` or
            ``null``, or whose ``data`` does not decode (see :func:`decode_semantic_tokens`).
    """
    if result is None:
        return []
    if type(result) is not dict or "data" not in result:
        raise wrong(_METHOD, result, "SemanticTokens or null")
    data: Any = result["data"]
    return decode_semantic_tokens(data, legend)
