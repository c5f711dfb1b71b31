"""``file:`` URIs and paths, as plain string functions (no file system is touched)."""

from __future__ import annotations

import os
import re
from urllib.parse import unquote, urlsplit

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

_WINDOWS = os.name == "nt"
_NOT_PLAIN = re.compile(r"[%?#\t\r\n]")
"""What splitting and decoding a URI would change: escapes, a query or fragment, and the
characters urlsplit removes. A ``file:///`` URI without them is its path after the scheme."""


def uri_to_path(uri: str, *, windows: bool = _WINDOWS) -> str | None:
    """The local path a ``file:`` URI names, or ``None`` for a URI of another scheme.

    Percent-escapes are decoded. With ``windows``, ``file:///c%3A/x`` and ``file:///C:/x``
    give ``C:\\x`` and ``file://host/share/x`` the UNC path ``\\\\host\\share\\x``.
    """
    if not windows and uri.startswith("file:///") and _NOT_PLAIN.search(uri) is None:
        return uri[7:]  # what urlsplit and unquote would give, without their cost
    parts = urlsplit(uri)
    if parts.scheme.lower() != "file":
        return None
    path = unquote(parts.path)
    host = parts.netloc
    if not windows:
        return path
    if len(path) >= 3 and path[0] == "/" and path[2] == ":" and path[1].isalpha():
        path = path[1].upper() + path[2:]
    path = path.replace("/", "\\")
    if host and host.lower() != "localhost":
        return f"\\\\{unquote(host)}{path}"
    return path


def folder_name(uri: str) -> str:
    """The last segment of a URI's path, decoded: a workspace folder's default name."""
    path = unquote(urlsplit(uri).path).rstrip("/")
    return path.rsplit("/", 1)[-1] or uri
