"""What a closed workspace refuses: every call that could start a server raises
:func:`closed_error` once ``aclose`` ran (part of the facade, beside :mod:`.workspace`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from ..errors import WorkspaceClosedError

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


class Closable(Protocol):
    """A workspace, as far as closing goes: whether ``aclose`` ran."""

    @property
    def closed(self) -> bool: ...


W = TypeVar("W", bound=Closable)
P = ParamSpec("P")
R = TypeVar("R")


def closed_error() -> WorkspaceClosedError:
    """What a call of a closed workspace raises (it starts nothing)."""
    return WorkspaceClosedError()


def when_open(
    method: Callable[Concatenate[W, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[W, P], Coroutine[Any, Any, R]]:
    """A method that a closed workspace refuses with :func:`closed_error`."""

    async def guarded(self: W, /, *args: P.args, **kwargs: P.kwargs) -> R:
        if self.closed:
            raise closed_error()
        return await method(self, *args, **kwargs)

    functools.update_wrapper(guarded, method)
    return guarded
