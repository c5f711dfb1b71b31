"""Glob patterns, as document selectors and file operation filters use them.

The LSP text on globs is incomplete (it says
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
                       included, and may nest; ``{a}`` and ``{a,ab}`` are fine. A glob
                       matches when one of its brace expansions does (``a/{**,b}`` is
                       ``a/**`` or ``a/b``)
``[a-z0-9_]``          one character of the set or ranges, within a segment
``[!a-z]``, ``[^a-z]``  one character not in the set (and not ``/``)
``/`` and ``\\``        path separators, in patterns and in the matched path alike
anything else          itself, case-sensitively (file operation filters may ignore case)
=====================  =====================================================================

- A glob must match the whole candidate (it is anchored at both ends), so ``*.ts`` does not
  match ``/a/b.ts``: real selectors say ``**/*.ts``.
- A ``{`` without its ``}``, a ``[`` without its ``]`` or a reversed range (``[z-a]``) make the
  glob unreadable: :func:`compile_glob` raises :class:`GlobError`, and a filter using it
  matches nothing. A lone ``}``, ``]`` or ``,`` is an ordinary character. So do braces that
  cost too much: nested more than 32 deep, expanding to more than 1024 alternatives, or
  to more than 16384 characters in all (or the glob's own length, if longer); and so does a
  glob longer than 4096 characters.

Globs are read once and cached. Matching never backtracks: ``**`` and ``*`` are matched by
the two-pointer wildcard algorithm (over segments, then within a segment), so a hostile glob
costs at most about (length of its expansions) * len(path) steps, never exponential time.
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


class GlobError(ValueError):
    """A glob pattern that cannot be read; ``glob`` is the pattern, ``reason`` says why."""

    def __init__(self, glob: str, reason: str) -> None:
        super().__init__(f"unreadable glob pattern {glob!r}: {reason}")
        self.glob = glob
        self.reason = reason


# Limits on what braces may cost: a hostile server must not make reading or matching a glob
# expensive. Beyond any of them the glob is unreadable (GlobError), like an unclosed brace.
_MAX_BRACE_DEPTH = 32
_MAX_ALTERNATIVES = 1024
_MAX_EXPANDED_LENGTH = 16384  # characters of all expansions together, or the glob's own length
_MAX_GLOB_LENGTH = 4096  # matching costs up to the glob's length times the path's


class _Mark(enum.Enum):
    """Wildcard tokens; a literal character is a ``str`` and a separator is ``"/"``."""

    STAR = "*"
    ONE = "?"


@dataclass(frozen=True, slots=True)
class _CharClass:
    """A bracket expression: one character of (or, negated, not of) a set and ranges."""

    negate: bool
    chars: frozenset[str]
    ranges: tuple[tuple[str, str], ...]
    ignore_case: bool = False

    def _has(self, char: str) -> bool:
        return char in self.chars or any(low <= char <= high for low, high in self.ranges)

    def contains(self, char: str) -> bool:
        """Whether the class matches ``char`` (never a separator: segments hold none)."""
        hit = self._has(char) or (
            self.ignore_case
            and any(len(other) == 1 and self._has(other) for other in (char.lower(), char.upper()))
        )
        return hit != self.negate


_Token: TypeAlias = "str | _Mark | _CharClass"
_Alternative: TypeAlias = tuple[_Token, ...]
_Part: TypeAlias = "_Token | list[_Alternative]"  # a token, or the expansions of a brace group


def _expand_braces(glob: str, ignore_case: bool) -> list[_Alternative]:
    """Read a glob into the brace-free token sequences it stands for, without recursion.

    Raises:
        GlobError: unbalanced brackets or braces, a reversed range, or braces nested or
            multiplied beyond the limits above.
    """
    if len(glob) > _MAX_GLOB_LENGTH:
        raise GlobError(glob[:80], f"longer than {_MAX_GLOB_LENGTH} characters")
    stack: list[tuple[list[_Alternative], list[_Part]]] = []
    group: list[_Alternative] = []  # finished alternatives of the innermost open brace group
    parts: list[_Part] = []  # the alternative being read
    pos = 0
    while pos < len(glob):
        char = glob[pos]
        if char == "[":
            char_class, pos = _read_class(glob, pos, ignore_case)
            parts.append(char_class)
            continue
        pos += 1
        if char == "{":
            if len(stack) == _MAX_BRACE_DEPTH:
                raise GlobError(glob, f"braces nested more than {_MAX_BRACE_DEPTH} deep")
            stack.append((group, parts))
            group, parts = [], []
        elif stack and char in ",}":  # outside braces both are ordinary characters
            _add_alternatives(glob, group, _product(glob, parts))
            parts = []
            if char == "}":
                finished = group
                group, parts = stack.pop()
                parts.append(finished)
        elif char == "*":
            parts.append(_Mark.STAR)
        elif char == "?":
            parts.append(_Mark.ONE)
        elif char in "/\\":
            parts.append("/")
        else:
            parts.append(char)
    if stack:
        raise GlobError(glob, "'{' without a closing '}'")
    return list(dict.fromkeys(_product(glob, parts)))


def _add_alternatives(glob: str, group: list[_Alternative], more: list[_Alternative]) -> None:
    group.extend(more)
    if len(group) > _MAX_ALTERNATIVES:
        raise GlobError(glob, f"braces give more than {_MAX_ALTERNATIVES} alternatives")


def _product(glob: str, parts: list[_Part]) -> list[_Alternative]:
    """Every sequence that picks one expansion of each brace group among the tokens."""
    choices: list[list[_Alternative]] = []
    run: list[_Token] = []
    for part in parts:
        if isinstance(part, list):
            choices.extend([[tuple(run)], part] if run else [part])
            run = []
        else:
            run.append(part)
    if run:
        choices.append([tuple(run)])
    count = math.prod(len(choice) for choice in choices)
    if count > _MAX_ALTERNATIVES:
        raise GlobError(glob, f"braces give more than {_MAX_ALTERNATIVES} alternatives")
    limit = max(len(glob), _MAX_EXPANDED_LENGTH)
    result: list[_Alternative] = [()]
    for choice in choices:
        result = [done + more for done in result for more in choice]
        # Each step only lengthens the sequences, so stopping early is safe.
        if sum(len(alternative) for alternative in result) > limit:
            raise GlobError(glob, f"braces expand to more than {limit} characters")
    return result


def _read_class(glob: str, start: int, ignore_case: bool) -> tuple[_CharClass, int]:
    """The bracket expression opening at ``start``, and the position after its ``]``."""
    pos = start + 1
    negate = pos < len(glob) and glob[pos] in "!^"
    pos += negate
    chars: set[str] = set()
    ranges: list[tuple[str, str]] = []
    first = True
    while pos < len(glob) and (first or glob[pos] != "]"):
        # "]" right after "[" or "[!" is a member, as in POSIX brackets.
        first = False
        low = glob[pos]
        if pos + 2 < len(glob) and glob[pos + 1] == "-" and glob[pos + 2] != "]":
            high = glob[pos + 2]
            if low > high:
                raise GlobError(glob, f"range {low}-{high} is reversed")
            ranges.append((low, high))
            pos += 3
        else:
            chars.add(low)
            pos += 1
    if pos >= len(glob):
        raise GlobError(glob, "'[' without a closing ']'")
    return _CharClass(negate, frozenset(chars), tuple(ranges), ignore_case), pos + 1


def _fold(char: str) -> str:
    """One character without case; never changes the length, so positions stay aligned."""
    for folded in (char.casefold(), char.lower()):
        if len(folded) == 1:
            return folded
    return char


class _Piece:
    """A run of single-character tokens between stars: it matches text of its own width."""

    __slots__ = ("items", "text", "width")

    def __init__(self, tokens: Sequence[_Token], ignore_case: bool) -> None:
        # Classes fold case themselves (they were read knowing ignore_case).
        items = tuple(
            _fold(token) if ignore_case and isinstance(token, str) else token for token in tokens
        )
        self.items = items
        self.width = len(items)
        # All-literal pieces (the usual case) are compared as whole strings.
        literal = all(isinstance(item, str) for item in items)
        self.text = "".join(str(item) for item in items) if literal else None

    def match_at(self, segment: str, folded: str, pos: int) -> bool:
        """Whether the piece matches the segment at ``pos`` (which leaves room for it)."""
        if self.text is not None:
            return folded.startswith(self.text, pos)
        for offset, item in enumerate(self.items):
            if isinstance(item, str):
                if folded[pos + offset] != item:
                    return False
            elif isinstance(item, _CharClass) and not item.contains(segment[pos + offset]):
                return False
        return True

    def find(self, segment: str, folded: str, start: int, last: int) -> int:
        """The leftmost position in ``start..last`` where the piece matches, or -1."""
        if self.text is not None:
            return folded.find(self.text, start, last + self.width)
        for pos in range(start, last + 1):
            if self.match_at(segment, folded, pos):
                return pos
        return -1


class _Segment:
    """One path segment of a glob: pieces joined by ``*``, matched greedily left to right.

    Each piece has a fixed width, so placing every middle piece at its leftmost match is
    never worse than any other placement: no choice is ever revisited, which keeps a
    segment match at O(len(pattern) * len(text)) whatever the number of stars.
    """

    __slots__ = ("minimum", "pieces", "starred")

    def __init__(self, tokens: Sequence[_Token], ignore_case: bool) -> None:
        runs: list[list[_Token]] = [[]]
        for token in tokens:
            if token is _Mark.STAR:
                runs.append([])
            else:
                runs[-1].append(token)
        # Empty runs between stars ("a**b") are a single star; the first and last stay.
        kept = [runs[0], *(run for run in runs[1:-1] if run), runs[-1]] if len(runs) > 1 else runs
        self.pieces = tuple(_Piece(run, ignore_case) for run in kept)
        self.starred = len(runs) > 1
        self.minimum = sum(piece.width for piece in self.pieces)

    def matches(self, segment: str, folded: str) -> bool:
        """Whether the whole segment (no separators in it) matches."""
        first, last = self.pieces[0], self.pieces[-1]
        if not self.starred:
            return len(segment) == first.width and first.match_at(segment, folded, 0)
        end = len(segment) - last.width
        if len(segment) < self.minimum or not first.match_at(segment, folded, 0):
            return False
        if not last.match_at(segment, folded, end):
            return False
        pos = first.width
        for piece in self.pieces[1:-1]:
            pos = piece.find(segment, folded, pos, end - piece.width)
            if pos < 0:
                return False
            pos += piece.width
        return True


# A brace-free glob as path segments; None is a globstar (any number of whole segments).
_SegmentPattern: TypeAlias = tuple["_Segment | None", ...]


def _segment_pattern(tokens: _Alternative, ignore_case: bool) -> _SegmentPattern:
    """Split a brace-free token sequence at separators; a segment of two or more stars is ``**``."""
    segments: list[_Segment | None] = []
    current: list[_Token] = []
    run = 0  # how many globstars the last run of them had
    for token in (*tokens, "/"):
        if token != "/":
            current.append(token)
            continue
        if len(current) >= 2 and all(item is _Mark.STAR for item in current):
            run += 1
            if not segments or segments[-1] is not None:  # "**/**" is one globstar
                segments.append(None)
        else:
            run = 0
            segments.append(_Segment(current, ignore_case))
        current = []
    if run >= 2 and len(segments) >= 2:
        # "a/**/**" ends in "a/" and anything after it, never in "a" alone: only a lone
        # last "/**" makes its slash optional (the inner "**/" keeps its own).
        segments.append(_Segment([_Mark.STAR], ignore_case))
    return tuple(segments)


def _match_segments(pattern: _SegmentPattern, segments: list[str], folded: list[str]) -> bool:
    """Match path segments with the two-pointer wildcard algorithm at segment level.

    A globstar is remembered with the segment it started at; on a mismatch it takes one
    more segment and matching resumes after it. Each (pattern, path) segment pair is tried
    at most once per globstar, so the cost is O(len(pattern) * len(segments)) segment
    matches, with no backtracking stack.
    """
    p = s = 0
    star_p, star_s = -1, 0
    while s < len(segments):
        if p < len(pattern):
            item = pattern[p]
            if item is None:
                star_p, star_s, p = p, s, p + 1
                continue
            if item.matches(segments[s], folded[s]):
                p, s = p + 1, s + 1
                continue
        if star_p < 0:
            return False
        star_s += 1
        p, s = star_p + 1, star_s
    return all(item is None for item in pattern[p:])


class CompiledGlob:
    """A glob read once: its brace expansions, each split into path segment matchers.

    Matching never backtracks, so its cost is bounded by the sizes of glob and path
    (see :func:`_match_segments` and :class:`_Segment`), whatever a server sends.
    """

    __slots__ = ("_alternatives", "glob", "ignore_case")

    def __init__(self, glob: str, *, ignore_case: bool = False) -> None:
        """Read the glob.

        Raises:
            GlobError: the glob cannot be read.
        """
        self.glob = glob
        self.ignore_case = ignore_case
        self._alternatives = tuple(
            _segment_pattern(alternative, ignore_case)
            for alternative in _expand_braces(glob, ignore_case)
        )

    def matches(self, path: str) -> bool:
        """Whether the glob matches the whole path (``\\`` in the path counts as ``/``)."""
        segments = path.replace("\\", "/").split("/")
        folded = ["".join(map(_fold, s)) for s in segments] if self.ignore_case else segments
        return any(_match_segments(alt, segments, folded) for alt in self._alternatives)

    def __repr__(self) -> str:
        return f"CompiledGlob({self.glob!r}, ignore_case={self.ignore_case})"


@functools.lru_cache(maxsize=1024)
def _compiled(glob: str, ignore_case: bool) -> CompiledGlob | str:
    # The reason is cached rather than the exception so each caller gets a fresh one.
    try:
        return CompiledGlob(glob, ignore_case=ignore_case)
    except GlobError as error:
        return error.reason


def compile_glob(glob: str, *, ignore_case: bool = False) -> CompiledGlob:
    """The matcher for a glob (use its ``matches``); cached per pattern.

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
    return compile_glob(glob, ignore_case=ignore_case).matches(path)
