"""``.gitignore`` files read and matched as git does, for a walk of a tree git cannot list.

``pathspec`` turns each pattern into a regular expression (``*``, ``?``, ``[...]``, ``**``,
escapes, trailing spaces); the decision is git's own (``gitignore(5)``): a walk asks about each
path once its folder is kept (an ignored folder is never entered, so nothing under it can be
kept again); the nearest ``.gitignore`` with a pattern matching the path itself decides, and in
it the last such pattern (``!`` keeps); a pattern with a ``/`` before its end matches the path
relative to its file's folder, one without matches the last part of the path at any depth; a
pattern ending in ``/`` matches folders only. ``pathspec``'s own ``GitIgnoreSpec`` answers for a
whole path at once, which differs from git where a folder pattern is negated (``*`` then
``!*/``), so only its patterns are used here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

# Internal to the library: nothing here is public API.
__all__: list[str] = []

_PLAIN_FLAGS = re.compile("").flags


@dataclass(frozen=True)
class IgnoreFile:
    """The patterns of one ``.gitignore`` (or ``.git/info/exclude``) and the folder they are
    relative to. Each pattern is its expression, whether it ignores (``False``: a ``!`` line
    keeps), and whether it is anchored (a ``/`` before its end: matched against the path
    relative to :attr:`folder`, not against the path's last part); last line first, since
    the last matching pattern decides."""

    folder: str
    patterns: tuple[tuple[re.Pattern[str], bool, bool], ...]
    any_pattern: re.Pattern[str] | None
    """All the patterns in one expression, which a path must match for any of them to:
    most paths match none, and one search says so (``None`` when it cannot be built)."""

    def verdict(self, path: str, is_folder: bool) -> bool | None:
        """``True`` when this file ignores ``path`` (inside :attr:`folder`), ``False`` when a
        ``!`` pattern keeps it, ``None`` when no pattern matches the path itself (a pattern
        that matches only a folder above it does not count: that folder was kept)."""
        relative = path[len(self.folder) + 1 :] + ("/" if is_folder else "")
        if self.any_pattern is not None and self.any_pattern.search(relative) is None:
            return None
        name = relative[relative.rfind("/", 0, len(relative) - 1) + 1 :]
        for regex, ignores, anchored in self.patterns:
            if not anchored:
                if regex.search(name) is not None:  # the last part alone: no folder above
                    return ignores
                continue
            # ``pathspec`` ends a match of a folder (and so of all below it) with a named
            # group; a match without it is the path itself (``a/b``) or lies below a prefix
            # (``a/**``), which does not match the prefix's own folder (``a/``).
            whole = regex.fullmatch(relative)
            if whole is not None and (whole.lastgroup is not None or not is_folder):
                return ignores
            found = regex.search(relative)
            if (
                found is not None
                and found.lastgroup is None
                and not (is_folder and found.end() == len(relative))
            ):
                return ignores
        return None


def read_ignore_file(path: Path, folder: str) -> IgnoreFile | None:
    """The patterns of the ignore file ``path``, relative to ``folder``; ``None`` when it is
    missing, unreadable or holds no pattern. A line git could not use either (a lone ``\\``,
    a range such as ``[z-a]``) is skipped, as git skips it."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    patterns = [pattern for line in lines if (pattern := _pattern(line)) is not None]
    if not patterns:
        return None
    return IgnoreFile(folder, tuple(reversed(patterns)), _any_of([p for p, _, _ in patterns]))


def ignored(path: str, is_folder: bool, files: tuple[IgnoreFile, ...]) -> bool:
    """Whether the ignore ``files`` that apply to ``path`` (outermost first) ignore it, the
    nearest one with a matching pattern deciding."""
    for ignore_file in reversed(files):
        verdict = ignore_file.verdict(path, is_folder)
        if verdict is not None:
            return verdict
    return False


def _pattern(line: str) -> tuple[re.Pattern[str], bool, bool] | None:
    text = line.rstrip()
    if text.endswith("/**/") and not text.endswith("\\/**/"):
        # The folders inside ``a`` (``a/**/``), which ``pathspec`` reads as ``a/`` itself.
        line = text[: -len("/**/")] + "/**/*/"
    try:
        compiled = GitIgnoreSpecPattern(line)
    except (ValueError, re.error):
        return None
    if compiled.include is None or compiled.regex is None:
        return None  # a comment or a blank line
    body = line[1:] if line.startswith("!") else line
    anchored = "/" in body.rstrip().rstrip("/")
    return compiled.regex, compiled.include, anchored


def _any_of(regexes: list[re.Pattern[str]]) -> re.Pattern[str] | None:
    """One expression that matches where any of ``regexes`` does (their named groups made
    plain, as one name cannot be given twice); ``None`` where that cannot be done safely."""
    parts = []
    for regex in regexes:
        if regex.flags != _PLAIN_FLAGS:
            return None
        text = regex.pattern
        for name in regex.groupindex:
            group = f"(?P<{name}>"
            if text.count(group) != 1:
                return None
            text = text.replace(group, "(?:")
        parts.append(f"(?:{text})")
    try:
        return re.compile("|".join(parts))
    except re.error:
        return None
