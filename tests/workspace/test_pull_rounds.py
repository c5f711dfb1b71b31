"""A check's pulls go out a few at a time; the work on each answer (its findings converted
and split while the server works on the others) waits until the worker that got it has sent
its next pull, so that it never holds the server up."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from adecore_lsp.workspace.checks import pulls

HANDLE: Any = object()
"""No server: ``pull_one`` is replaced, and nothing else reads the handle."""


async def test_an_answer_is_worked_on_once_the_next_pull_went_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sent: list[str] = []
    answers: dict[str, asyncio.Future[None]] = {}

    async def pull_one(_handle: Any, uri: str) -> None:
        sent.append(uri)
        answers[uri] = asyncio.get_running_loop().create_future()
        await answers[uri]

    monkeypatch.setattr(pulls, "pull_one", pull_one)
    monkeypatch.setattr(pulls, "PULLS_AT_ONCE", 2)
    worked: list[tuple[str, list[str]]] = []
    uris = [f"file:///m{n}.py" for n in range(5)]
    task = asyncio.ensure_future(
        pulls.pull_round(HANDLE, uris, None, set(), lambda uri: worked.append((uri, list(sent))))
    )
    await until(lambda: len(sent) == 2)
    assert sent == uris[:2]
    for number, uri in enumerate(uris):
        answers[uri].set_result(None)
        await until(lambda: len(worked) == number + 1)  # noqa: B023 (awaited here)
        # m0's answer is worked on once m2's pull went out, and so on: each worker sends
        # its next pull first (until none is left).
        assert worked[-1] == (uri, uris[: min(len(uris), number + 3)])
    await task


async def until(condition: Callable[[], bool]) -> None:
    """Let the loop run until ``condition`` holds (a hundred turns at most)."""
    for _ in range(100):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("the condition never held")


async def test_without_a_callback_the_round_pulls_every_document(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sent: list[str] = []

    async def pull_one(_handle: Any, uri: str) -> None:
        sent.append(uri)

    monkeypatch.setattr(pulls, "pull_one", pull_one)
    await pulls.pull_round(HANDLE, ["a", "b", "c"], None, set())
    assert sorted(sent) == ["a", "b", "c"]
