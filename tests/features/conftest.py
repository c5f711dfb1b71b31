"""Fixtures: a session joined to a scripted fake server, for the feature calls."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from adecore_lsp import LspSession, create_memory_transport_pair
from tests.fake_server import FakeServer

URI = "file:///w/app.py"
TEXT = "def greet(name):\n    return f'hi {name} 😀'\n\ngreet('x')\n"

Start = Callable[..., Any]


@pytest.fixture
async def start() -> AsyncIterator[Start]:
    """``await start(capabilities, **options)``: a ready session and its fake server."""
    made: list[LspSession] = []

    async def make(
        capabilities: dict[str, Any] | None = None, **options: Any
    ) -> tuple[LspSession, FakeServer]:
        client, server_end = create_memory_transport_pair()
        server = FakeServer(
            server_end, capabilities=capabilities or {}, server_info={"name": "fakels"}
        )
        session = LspSession(client, root_uri="file:///w", **options)
        made.append(session)
        await session.initialize()
        return session, server

    yield make
    for session in made:
        await session.shutdown()
