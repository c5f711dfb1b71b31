"""A check's pulls go out a few at a time; the work on each answer (its findings converted
and split while the server works on the others) waits until the worker that got it has sent
its next pull, so that it never holds the server up."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp.protocol.workspace.finality import FinalityStatus
from adecore_lsp.workspace.checks import checking, pulls

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


async def test_an_answer_is_worked_on_once_and_not_after_its_check_ended() -> None:
    """Each answer that made a document final is worked on once; a pull's callback that
    comes after the check ended (the pulls are cancelled then) does nothing."""
    items: list[object] = [{"message": "m"}]

    class Finality:
        def status(self, _uri: str, _now: float) -> FinalityStatus:
            return FinalityStatus(True, items, False, None)

    class Handle:
        finality = Finality()

    handle: Any = Handle()
    worked: list[str] = []
    once = checking._Once(
        [(handle, "file:///a.py", Path("/a.py"))],
        lambda _h, uri, _path, _status: worked.append(uri),
    )
    once(handle, "file:///a.py")
    once(handle, "file:///a.py")  # the same answer: not again
    once(handle, "file:///other.py")  # no document of this check
    assert worked == ["file:///a.py"]
    items = [{"message": "another"}]  # a new answer (a refresh's pull)
    once(handle, "file:///a.py")
    assert worked == ["file:///a.py", "file:///a.py"]
    once.end()
    items = [{"message": "late"}]
    once(handle, "file:///a.py")
    assert len(worked) == 2
