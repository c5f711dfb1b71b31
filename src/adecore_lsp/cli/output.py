"""Where the command line writes: results to stdout, everything else to stderr.

Nothing but results ever reaches stdout, so a pipe or a file gets exactly the answer. No
colour goes into a pipe, and ``NO_COLOR`` (https://no-color.org) turns it off everywhere.
"""

from __future__ import annotations

import sys
from typing import TextIO

from ..environment import getenv
from ..plain_text import one_line as one_line
from ..plain_text import shown_path as shown_path

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


class Output:
    """stdout for results, stderr for messages (not at all with ``quiet``)."""

    def __init__(self, *, quiet: bool, out: TextIO | None = None, err: TextIO | None = None):
        self.quiet = quiet
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr

    @property
    def colour(self) -> bool:
        """Whether stderr may carry colour: a terminal, and ``NO_COLOR`` not set."""
        return not getenv("NO_COLOR") and _is_terminal(self.err)

    def result(self, text: str) -> None:
        """Write ``text`` (with its line end) to stdout."""
        self.out.write(text)

    def line(self, text: str) -> None:
        self.out.write(text + "\n")

    def note(self, text: str) -> None:
        """A message for the person (a summary, what was written); nothing with ``quiet``."""
        if not self.quiet:
            self.err.write(text + "\n")
            self.err.flush()

    def warning(self, text: str) -> None:
        """A warning the person must see: on stderr, also with ``quiet``."""
        self.err.write(f"adecore-lsp: warning: {text}\n")
        self.err.flush()

    def error(self, text: str) -> None:
        """An error: always shown, on stderr, prefixed so that it reads as one."""
        self.err.write(f"adecore-lsp: error: {text}\n")
        self.err.flush()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
