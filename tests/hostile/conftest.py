"""Fixtures for the fault tests: the hostile server, and a watch on everything left behind.

Every test here runs under :func:`quiet_loop`, which fails it if anything logged an error
(asyncio's "Task exception was never retrieved" and "Exception in callback" among them),
if a warning was raised anywhere (an unclosed transport's ``ResourceWarning`` too, even one
raised inside a callback or a finalizer, where the suite's warnings-as-errors cannot reach),
or if an exception was raised where nobody could catch it.
"""

from __future__ import annotations

import gc
import logging
import sys
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import ServerProcess, spawn_server

HOSTILE_SERVER = Path(__file__).parent / "hostile_server.py"

Spawn = Callable[..., Awaitable[ServerProcess]]


class _Collect(logging.Handler):
    """Keeps every record at ERROR or above."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def quiet_loop() -> Iterator[None]:
    """Fail the test on any logged error, any warning and any unraisable exception."""
    handler = _Collect()
    root = logging.getLogger()
    root.addHandler(handler)
    unraisable: list[str] = []
    previous_hook = sys.unraisablehook

    def hook(info: Any) -> None:
        unraisable.append(f"{info.err_msg}: {info.exc_value!r} in {info.object!r}")

    sys.unraisablehook = hook
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
            # Finalizers of anything left unclosed run now, inside the watch.
            gc.collect()
    finally:
        sys.unraisablehook = previous_hook
        root.removeHandler(handler)
    problems = [f"logged: {record.getMessage()}" for record in handler.records]
    problems += [f"warning: {w.category.__name__}: {w.message}" for w in caught]
    problems += [f"unraisable: {text}" for text in unraisable]
    assert not problems, "\n".join(problems)


@pytest.fixture
def record_time(request: pytest.FixtureRequest) -> Callable[[float], None]:
    """Record a test's measured time to outcome, in seconds, as a user property."""

    def record(seconds: float) -> None:
        request.node.user_properties.append(("time_to_outcome", round(seconds, 4)))

    return record


@pytest.fixture
async def spawn() -> AsyncIterator[Spawn]:
    """Start the hostile server as a child process; every one is stopped after the test."""
    started: list[ServerProcess] = []

    async def start(mode: str = "normal", **options: Any) -> ServerProcess:
        server = await spawn_server(
            [sys.executable, str(HOSTILE_SERVER), "--mode", mode], **options
        )
        started.append(server)
        return server

    yield start
    for server in started:
        await server.aclose(grace_period=0.5)
