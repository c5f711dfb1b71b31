"""The environment a call runs in: the process's own, or the one a caller gave.

The daemon runs the commands of several callers at once, each with the caller's whole
environment (``PATH`` decides which servers are found, ``XDG_CONFIG_HOME`` where the trust
store is, ``NO_COLOR`` whether stderr is coloured, and the servers started get it). That
environment travels in a context variable, which asyncio gives every task a command starts;
everything in the library that reads the environment reads it through :func:`getenv` and
:func:`environ`. Outside :func:`using` both read ``os.environ``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

_CURRENT: ContextVar[Mapping[str, str] | None] = ContextVar("adecore_lsp_environment", default=None)


def environ() -> Mapping[str, str]:
    """The environment of the running call."""
    given = _CURRENT.get()
    return os.environ if given is None else given


def getenv(name: str, default: str | None = None) -> str | None:
    """One variable of the environment of the running call."""
    return environ().get(name, default)


def home() -> str:
    """The user's home folder, from the call's ``HOME`` (else the process's)."""
    return getenv("HOME") or os.path.expanduser("~")


@contextmanager
def using(environment: Mapping[str, str]) -> Iterator[None]:
    """Run the block (and every task it starts) with ``environment`` as the environment."""
    token = _CURRENT.set(dict(environment))
    try:
        yield
    finally:
        _CURRENT.reset(token)
