"""Each checker's own glob language, turned into regular expressions over absolute paths
(``/`` separated). They differ, and a scope is only right if each is read as its tool reads
it:

- pyright: ``*`` and ``?`` within one path part, ``**`` any number of parts; a pattern
  matches the path it names and everything below it (``src`` covers ``src/a/b.py``).
- ty: gitignore-like globs (``*``, ``?``, ``[abc]``, ``**`` as a whole part, ``\\`` escapes);
  a trailing ``/`` matches folders only.
- pyrefly: Rust's ``glob`` patterns matched with their defaults, where ``*`` and ``?``
  cross ``/`` too; a pattern also matches everything below what it names.
- TypeScript: the compiler's own translation (``*`` and ``**`` skip names that start with a
  dot and the package folders ``node_modules``, ``bower_components``, ``jspm_packages``).

Sans-I/O: strings in, compiled patterns out.
"""

from __future__ import annotations

import posixpath
import re

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


def absolute(folder: str, pattern: str) -> str:
    """``pattern`` resolved against ``folder`` as a path (``.`` and ``..`` parts folded, a
    trailing ``/`` dropped); an absolute pattern is itself."""
    joined = posixpath.normpath(posixpath.join(folder, pattern))
    return "/" + joined.lstrip("/") if joined.startswith("//") else joined


# -- pyright -----------------------------------------------------------------------------------

_PYRIGHT_DOUBLE = r"(?:/[^/][^/]*)*?"


def pyright_pattern(folder: str, spec: str) -> tuple[str, re.Pattern[str], bool]:
    """pyright's file spec ``spec`` of a configuration in ``folder``: its root (the part
    before the first wildcard), the expression that matches what it names and everything
    below, and whether it holds ``**`` (pyright then walks every folder under the root)."""
    path = absolute(folder, spec)
    parts = path.split("/")[1:]
    pattern = ""
    for part in parts:
        pattern += _PYRIGHT_DOUBLE if part == "**" else "/" + _pyright_part(part)
    root_parts: list[str] = []
    for part in parts:
        if part == "**" or "*" in part or "?" in part:
            break
        root_parts.append(part)
    root = "/" + "/".join(root_parts)
    deep = re.search(r"(^|/)\*\*($|/)", spec) is not None
    return root, re.compile(f"^(?:{pattern})(?:$|/)"), deep


def _pyright_part(part: str) -> str:
    out = []
    for char in part:
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char.isascii() and (char.isalnum() or char == "_" or char.isspace()):
            out.append(char)
        else:
            out.append(re.escape(char))
    return "".join(out)


# -- globset (ty) ------------------------------------------------------------------------------


def globset(pattern: str) -> re.Pattern[str]:
    """A glob as the ``globset`` crate reads it with a literal separator and backslash
    escapes (ty's patterns): ``*`` and ``?`` stay within a part, ``**`` is any number of
    parts, ``[...]`` a class (``[!...]`` negated), ``{a,b}`` either.

    Raises:
        ValueError: an unclosed ``[`` or ``{``.
    """
    return re.compile("^" + _glob_body(pattern, crossing=False) + "$")


def _glob_body(pattern: str, *, crossing: bool, escapes: bool | None = None) -> str:
    """The expression of a glob; with ``crossing``, ``*`` and ``?`` cross ``/`` (Rust's
    ``glob`` with its default options); ``escapes`` (default: not ``crossing``) reads
    ``\\`` escapes and ``{a,b}`` alternations."""
    if escapes is None:
        escapes = not crossing
    star = ".*" if crossing else "[^/]*"
    one = "." if crossing else "[^/]"
    parts = split_parts(pattern)
    out: list[str] = []
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            if len(parts) == 1:
                out.append(".*")
            elif index == 0:
                out.append("(?:.*/)?")
            elif last:
                out.append("/.*")
            else:
                out.append("/(?:.*/)?")
            continue
        if index > 0 and parts[index - 1] != "**":
            out.append("/")
        out.append(_glob_part(part, star, one, escapes=escapes))
    return "".join(out)


def split_parts(pattern: str) -> list[str]:
    """A glob's path parts: split at each ``/`` that is not inside ``[...]``."""
    parts = [""]
    inside = False
    for index, char in enumerate(pattern):
        if char == "[" and not inside:
            inside = pattern.find("]", index + 2) != -1
        elif char == "]" and inside:
            inside = False
        if char == "/" and not inside:
            parts.append("")
        else:
            parts[-1] += char
    return parts


def _glob_part(part: str, star: str, one: str, *, escapes: bool) -> str:
    out: list[str] = []
    index = 0
    while index < len(part):
        char = part[index]
        if char == "\\" and escapes and index + 1 < len(part):
            out.append(re.escape(part[index + 1]))
            index += 2
            continue
        if char == "*":
            out.append(star)
        elif char == "?":
            out.append(one)
        elif char == "[":
            end = part.find("]", index + 2)
            if end == -1:
                raise ValueError(f"unclosed character class in {part!r}")
            body = part[index + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            index = end + 1
            continue
        elif char == "{" and escapes:
            end = part.find("}", index)
            if end == -1:
                raise ValueError(f"unclosed alternation in {part!r}")
            choices = part[index + 1 : end].split(",")
            out.append(
                "(?:" + "|".join(_glob_part(c, star, one, escapes=True) for c in choices) + ")"
            )
            index = end + 1
            continue
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


# -- Rust glob (pyrefly) -----------------------------------------------------------------------


def rust_glob(pattern: str) -> re.Pattern[str]:
    """A pattern of Rust's ``glob`` crate matched with its default options (pyrefly's):
    ``*`` and ``?`` cross ``/``, ``**`` must be a whole part.

    Raises:
        ValueError: ``**`` that is not a whole part, or an unclosed ``[``.
    """
    for part in split_parts(pattern):
        if "**" in part and part != "**":
            raise ValueError(f"`**` must be a whole path part in {pattern!r}")
    return re.compile("^" + _glob_body(pattern, crossing=True) + "$")


# -- globset without a literal separator (ruff) --------------------------------------------------


def ruff_glob(pattern: str) -> re.Pattern[str]:
    """A glob as ruff builds it (the ``globset`` crate's defaults): ``*`` and ``?`` cross
    ``/``, ``**`` as a whole part is any number of parts, ``[...]`` a class, ``{a,b}``
    either, ``\\`` escapes.

    Raises:
        ValueError: an unclosed ``[`` or ``{``.
    """
    return re.compile("^" + _glob_body(pattern, crossing=True, escapes=True) + "$")


# -- TypeScript --------------------------------------------------------------------------------

_PACKAGES = r"(?!(?:node_modules|bower_components|jspm_packages)(?:/|$))"
_TS_DOUBLE = {
    "files": rf"(?:/{_PACKAGES}[^/.][^/]*)*?",
    "directories": rf"(?:/{_PACKAGES}[^/.][^/]*)*?",
    "exclude": r"(?:/.+?)?",
}
_TS_STAR = {
    "files": r"(?:[^./]|(?:\.(?!min\.js$))?)*",
    "directories": "[^/]*",
    "exclude": "[^/]*",
}


def ts_subpattern(spec: str, folder: str, usage: str) -> str | None:
    """TypeScript's expression for one ``include`` or ``exclude`` spec (``usage``:
    ``files``, ``directories`` or ``exclude``), as ``getSubPatternFromSpec`` makes it;
    ``None`` for an include that ends in ``**`` (which the compiler refuses)."""
    parts = absolute(folder, spec).split("/")
    parts[0] = ""
    last = parts[-1]
    if usage != "exclude" and last == "**":
        return None
    if not re.search(r"[.*?]", last):
        parts += ["**", "*"]
    out = ""
    written = False
    optional = 0
    for part in parts:
        if part == "**":
            out += _TS_DOUBLE[usage]
        else:
            if usage == "directories":
                out += "(?:"
                optional += 1
            if written:
                out += "/"
            if usage != "exclude":
                piece = ""
                rest = part
                if part.startswith("*"):
                    piece += "(?:[^./]" + _TS_STAR[usage] + ")?"
                    rest = part[1:]
                elif part.startswith("?"):
                    piece += "[^./]"
                    rest = part[1:]
                piece += _ts_escape(rest, usage)
                if piece != part:
                    out += _PACKAGES
                out += piece
            else:
                out += _ts_escape(part, usage)
        written = True
    return out + ")?" * optional


def _ts_escape(text: str, usage: str) -> str:
    out = []
    for char in text:
        if char == "*":
            out.append(_TS_STAR[usage])
        elif char == "?":
            out.append("[^/]")
        elif char.isascii() and (char.isalnum() or char == "_" or char.isspace()):
            out.append(char)
        else:
            out.append("\\" + char if char.isascii() else re.escape(char))
    return "".join(out)


def ts_regex(specs: list[str], folder: str, usage: str) -> re.Pattern[str] | None:
    """One expression for all ``specs`` (``None`` without any), anchored as the compiler
    anchors it: to the end of the path, or for ``exclude`` to the end or a ``/``."""
    patterns = [p for spec in specs if (p := ts_subpattern(spec, folder, usage)) is not None]
    if not patterns:
        return None
    end = "(?:$|/)" if usage == "exclude" else "$"
    return re.compile("^(?:" + "|".join(f"(?:{p})" for p in patterns) + ")" + end)
