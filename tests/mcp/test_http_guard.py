"""The ASGI guard in front of ``mcp --http``, request by request (no network)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from adecore_lsp.mcp.http_guard import HttpGuard, allowed_names, is_loopback


async def app(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def status(guard: HttpGuard, headers: dict[str, str], kind: str = "http") -> int:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request"}

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": kind, "headers": [(k.encode(), v.encode()) for k, v in headers.items()]}
    asyncio.run(guard(scope, receive, send))
    return int(sent[0]["status"]) if sent else 0


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("10.0.0.2", False),
        ("example.org", False),
    ],
)
def test_loopback_binds(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_host_then_origin_then_token() -> None:
    guard = HttpGuard(app, allowed_names("127.0.0.1", remote=False), token=None)
    assert status(guard, {"host": "127.0.0.1:8765"}) == 200
    assert status(guard, {"host": "LOCALHOST"}) == 200
    assert status(guard, {"host": "[::1]:9"}) == 200
    assert status(guard, {}) == 421
    assert status(guard, {"host": "attacker.example:8765"}) == 421
    assert status(guard, {"host": "127.0.0.1", "origin": "http://attacker.example"}) == 403
    assert status(guard, {"host": "127.0.0.1", "origin": "file://"}) == 403
    assert status(guard, {"host": "127.0.0.1", "origin": "http://127.0.0.1:3000"}) == 200
    assert status(guard, {}, kind="lifespan") == 200  # not HTTP: passed through


def test_a_remote_bind_allows_its_names_and_wants_the_token() -> None:
    names = allowed_names("0.0.0.0", remote=True, extra=["dev.box", "[fd00::1]"])
    assert {"dev.box", "fd00::1", "127.0.0.1"} <= names
    assert "0.0.0.0" not in names
    guard = HttpGuard(app, names, token="t0k3n")
    assert status(guard, {"host": "dev.box"}) == 401
    assert status(guard, {"host": "dev.box", "authorization": "Bearer nope"}) == 401
    assert status(guard, {"host": "dev.box", "authorization": "Bearer t0k3n"}) == 200
    assert status(guard, {"host": "other.box", "authorization": "Bearer t0k3n"}) == 421
