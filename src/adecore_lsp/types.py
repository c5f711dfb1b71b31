"""JSON aliases and the small listener types shared by every layer."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeAlias

if sys.version_info >= (3, 11):
    from typing import Self
else:  # pragma: no cover - Python 3.10
    from typing_extensions import Self

__all__ = ["JSON", "Disposable", "JSONObject", "Listener"]

JSON: TypeAlias = dict[str, Any] | list[Any] | str | int | float | bool | None
"""Any JSON value as Python holds it."""

JSONObject: TypeAlias = dict[str, Any]
"""A JSON object: one JSON-RPC message, or a params or result object."""

Listener: TypeAlias = Callable[..., object]
"""A listener: a plain function, or an ``async def`` whose coroutine runs as a task."""


class Disposable:
    """Undoes a registration once: ``dispose()`` may be called any number of times.

    Also a context manager, so ``with transport.on_message(listener): ...`` keeps the
    listener for the block alone.
    """

    __slots__ = ("_action",)

    def __init__(self, action: Callable[[], object] | None = None) -> None:
        self._action = action

    def dispose(self) -> None:
        """Run the undo action the first time; do nothing after that."""
        action, self._action = self._action, None
        if action is not None:
            action()

    @property
    def disposed(self) -> bool:
        """Whether ``dispose()`` has run."""
        return self._action is None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.dispose()
