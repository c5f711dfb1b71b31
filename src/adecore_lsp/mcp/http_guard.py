"""Who may talk to the MCP server over HTTP: ``Host`` and ``Origin`` checked, a bearer token
for any bind that is not loopback.

A web page the person visits can make their browser send requests to ``127.0.0.1`` (a DNS
rebinding attack names the address by a host of the attacker's); the ``Host`` check answers
those 421, an ``Origin`` of another site 403. A bind to any other address is reachable from
the network, so it also needs ``Authorization: Bearer TOKEN`` (401 without it).
"""

from __future__ import annotations

import hmac
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

# Internal to the library: nothing here is public API.
__all__: list[str] = []

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a bind address) is loopback: 127.0.0.0/8, ``::1``, ``localhost``."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def own_names() -> set[str]:
    """The machine's own host names and addresses, as a ``Host`` header may name them."""
    names = {socket.gethostname().lower()}
    try:
        names.add(socket.getfqdn().lower())
        for info in socket.getaddrinfo(socket.gethostname(), None):
            names.add(str(info[4][0]).lower())
    except OSError:
        pass
    return names


def allowed_names(bind: str, remote: bool, extra: Iterable[str] = ()) -> set[str]:
    """The host names a request may name: the bound address and loopback's names; with
    ``remote`` also the machine's own names and ``extra`` (``--allowed-host``)."""
    names = {bind.strip("[]").lower(), *LOOPBACK_NAMES}
    if remote:
        names |= own_names()
        names |= {name.strip("[]").lower() for name in extra}
    names.discard("0.0.0.0")
    names.discard("::")
    return names


def _host_of(value: str) -> str:
    """The host of a ``Host`` header (``name``, ``name:port``, ``[v6]:port``), lower-cased."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    if value.count(":") == 1:
        return value.split(":", 1)[0]
    return value


class HttpGuard:
    """ASGI middleware in front of the MCP app: ``Host`` (421), ``Origin`` (403), and a
    bearer token (401) when one is set."""

    def __init__(self, app: App, names: set[str], token: str | None) -> None:
        self.app = app
        self.names = names
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        headers = {
            key.decode("latin-1").lower(): value.decode("latin-1")
            for key, value in scope.get("headers", ())
        }
        host = headers.get("host")
        if host is None or _host_of(host) not in self.names:
            await _refuse(send, 421, "this server does not answer for that Host")
            return
        origin = headers.get("origin")
        if origin is not None and not self._origin_allowed(origin):
            await _refuse(send, 403, "requests from that Origin are not allowed")
            return
        if self.token is not None:
            given = headers.get("authorization", "")
            expected = f"Bearer {self.token}"
            if not hmac.compare_digest(given.encode(), expected.encode()):
                await _refuse(send, 401, "a bearer token is needed (Authorization: Bearer ...)")
                return
        await self.app(scope, receive, send)

    def _origin_allowed(self, origin: str) -> bool:
        parts = urlsplit(origin.strip())
        if parts.scheme not in ("http", "https"):
            return False
        return (parts.hostname or "").lower() in self.names


async def _refuse(send: Send, status: int, text: str) -> None:
    body = text.encode() + b"\n"
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
