"""Fixtures: a session joined to a scripted fake server by a memory transport pair."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from adecore_lsp import LspSession, create_memory_transport_pair
from tests.fake_server import FakeServer

SessionFactory = Callable[..., LspSession]


@pytest.fixture
def pair() -> tuple[Any, Any]:
    return create_memory_transport_pair()


@pytest.fixture
def server(pair: tuple[Any, Any]) -> FakeServer:
    return FakeServer(pair[1])


@pytest.fixture
async def make_session(pair: tuple[Any, Any]) -> AsyncIterator[SessionFactory]:
    made: list[LspSession] = []

    def make(**options: Any) -> LspSession:
        session = LspSession(pair[0], **options)
        made.append(session)
        return session

    yield make
    for session in made:
        await session.shutdown()
