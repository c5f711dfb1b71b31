"""File paths and ``file:`` URIs, both ways: what every part of the library compares.

Servers spell the same file differently (``+[x]`` where the client sent ``%2B%5Bx%5D``), so
URIs from a server are matched by the path they name, never by string.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from .protocol.documents.uris import uri_to_path as _uri_to_path_string

__all__ = ["path_to_uri", "uri_to_path"]


def path_to_uri(path: str | os.PathLike[str]) -> str:
    """The ``file:`` URI of ``path``, made absolute first, percent-encoded as UTF-8.

    >>> path_to_uri("/home/me/my proj/+[x].py")
    'file:///home/me/my%20proj/%2B%5Bx%5D.py'
    """
    if isinstance(path, Path) and path.is_absolute():
        return path.as_uri()
    return Path(path).absolute().as_uri()


def uri_to_path(uri: str) -> Path:
    """The local path a ``file:`` URI names, percent-escapes decoded.

    On Windows, ``file:///c%3A/x`` and ``file:///C:/x`` give ``C:\\x``, and
    ``file://host/share/x`` a UNC path.

    Raises:
        ValueError: ``uri`` is not a ``file:`` URI, or (on POSIX) names a host other than
            ``localhost``.
    """
    if not isinstance(uri, str):
        raise TypeError(f"a URI is a str, not {type(uri).__name__}")
    windows = os.name == "nt"
    if not windows:
        host = urlsplit(uri).netloc
        if host and host.lower() != "localhost":
            raise ValueError(f"{uri!r} names the host {host!r}: not a file on this machine")
    path = _uri_to_path_string(uri, windows=windows)
    if path is None:
        raise ValueError(f"{uri!r} is not a file: URI")
    return Path(path)


def canonical_uri(uri: str) -> str:
    """One spelling per file: servers spell the same path differently (``+`` or ``%2B``)."""
    if _CANONICAL.fullmatch(uri) and "/./" not in uri and not uri.endswith("/."):
        return uri  # as path_to_uri spells it: nothing to quote, nothing to normalise
    try:
        return path_to_uri(uri_to_path(uri))
    except ValueError:
        return uri


_CANONICAL = re.compile(r"file://(?:/[A-Za-z0-9_.~-]+)+" if os.name != "nt" else r"(?!)")
"""A POSIX ``file:`` URI of characters ``path_to_uri`` never quotes, without empty parts."""
