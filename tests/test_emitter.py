"""Emitter and Disposable: order, async listeners, contained failures, idempotent dispose."""

from __future__ import annotations

import asyncio

import pytest

from adecore_lsp import Disposable
from adecore_lsp._emitter import Emitter


def test_listeners_run_in_order_and_dispose_once() -> None:
    """Listeners hear values in the order added; dispose removes one, idempotently."""
    heard: list[str] = []
    emitter: Emitter[int] = Emitter()
    first = emitter.add(lambda value: heard.append(f"a{value}"))
    emitter.add(lambda value: heard.append(f"b{value}"))
    emitter.fire(1)
    first.dispose()
    first.dispose()
    emitter.fire(2)
    assert heard == ["a1", "b1", "b2"]
    assert first.disposed


def test_a_failing_listener_does_not_stop_the_others() -> None:
    """An exception goes to the error handler; the next listener still runs."""
    errors: list[BaseException] = []
    heard: list[int] = []
    emitter: Emitter[int] = Emitter(errors.append)

    def broken(value: int) -> None:
        raise RuntimeError("x")

    emitter.add(broken)
    emitter.add(heard.append)
    emitter.fire(3)
    assert heard == [3]
    assert [type(error) for error in errors] == [RuntimeError]


async def test_async_listeners_run_as_tasks() -> None:
    """A coroutine listener runs as a task; its failure reaches the error handler."""
    errors: list[BaseException] = []
    heard: list[int] = []
    emitter: Emitter[int] = Emitter(errors.append)

    async def slow(value: int) -> None:
        await asyncio.sleep(0)
        heard.append(value)
        raise KeyError(value)

    emitter.add(slow)
    emitter.fire(1)
    assert heard == []
    for _ in range(3):
        await asyncio.sleep(0)
    assert heard == [1]
    assert [type(error) for error in errors] == [KeyError]


def test_a_listener_may_dispose_itself_while_firing() -> None:
    """Removing a listener during fire does not skip the others."""
    heard: list[str] = []
    emitter: Emitter[int] = Emitter()
    handle: list[Disposable] = []
    handle.append(emitter.add(lambda value: handle[0].dispose()))
    emitter.add(lambda value: heard.append("second"))
    emitter.fire(1)
    emitter.fire(2)
    assert heard == ["second", "second"]


def test_non_callable_listener_is_refused() -> None:
    """Adding something that cannot be called fails at once."""
    emitter: Emitter[int] = Emitter()
    with pytest.raises(TypeError):
        emitter.add(5)  # type: ignore[arg-type]


def test_disposable_is_a_context_manager() -> None:
    """Leaving the with block disposes."""
    calls: list[int] = []
    with Disposable(lambda: calls.append(1)) as disposable:
        assert not disposable.disposed
    assert disposable.disposed
    disposable.dispose()
    assert calls == [1]


@pytest.mark.parametrize("error", [asyncio.CancelledError(), GeneratorExit(), BaseException("odd")])
@pytest.mark.parametrize("listeners", [1, 2])
def test_a_listener_raising_a_base_exception_is_contained(
    error: BaseException, listeners: int
) -> None:
    """CancelledError and other BaseExceptions reach the error handler, not the caller."""
    errors: list[BaseException] = []
    heard: list[int] = []
    emitter: Emitter[int] = Emitter(errors.append)

    def broken(value: int) -> None:
        raise error

    emitter.add(broken)
    if listeners == 2:
        emitter.add(heard.append)
    emitter.fire(1)
    emitter.call(broken, 2)
    assert errors == [error, error]
    assert heard == ([1] if listeners == 2 else [])


@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit])
def test_keyboard_interrupt_and_system_exit_go_through(error: type[BaseException]) -> None:
    """The program being stopped is not a listener failure: it reaches the caller."""
    errors: list[BaseException] = []
    emitter: Emitter[int] = Emitter(errors.append)

    def stopping(value: int) -> None:
        raise error

    emitter.add(stopping)
    with pytest.raises(error):
        emitter.fire(1)
    emitter.add(lambda value: None)
    with pytest.raises(error):
        emitter.fire(2)
    assert errors == []


def test_fire_tells_whether_anyone_heard() -> None:
    """fire returns False with no listener (so a transport keeps the value), else True."""
    emitter: Emitter[int] = Emitter()
    assert emitter.fire(1) is False
    listener = emitter.add(lambda value: None)
    assert emitter.fire(2) is True
    emitter.add(lambda value: None)
    assert emitter.fire(3) is True
    listener.dispose()
    assert emitter.fire(4) is True
