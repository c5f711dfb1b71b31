"""The exit statuses of ``adecore-lsp``, in one place for every part of the command line."""

from __future__ import annotations

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

OK, FINDINGS, FAILURE, INCOMPLETE = 0, 1, 2, 3
"""Clean; findings (or pending changes); a usage error or a failure; incomplete."""

INTERRUPTED = 130
"""Ctrl-C (128 + SIGINT)."""
