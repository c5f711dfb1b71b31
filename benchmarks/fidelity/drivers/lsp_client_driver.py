"""Run lsp-client inside its own venv (Python 3.12+) and answer the adapter in JSON lines.

The same protocol as ``multilspy_driver.py``: a first line in (``root``, ``language``,
``argv``), a first line out once the client's ``async with`` has finished ``initialize``, then
one line per call matched by ``id``: ``result`` (the library's return value, unstructured to
JSON by lsprotocol's converter) and ``size``, or ``error``.

The clients are the library's own, as shipped: ``BasedpyrightClient`` and ``TypescriptClient``.
With ``wait_progress`` in the first line, the client also takes the server's work-done
progress through the library's own extension point (a capability mixin, as its clients are
made of): it says ``window.workDoneProgress``, accepts ``window/workDoneProgress/create`` and
follows ``$/progress``. Each question then opens its file first (the library's own
``open_files``) and waits as the truth does: the first question 2 s, then every question until
every progress the server began has ended (servers begin theirs when a file opens:
typescript-language-server's project loading; measured, none before).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from importlib import metadata
from typing import Any, Protocol, TextIO, runtime_checkable

import lsprotocol.types as lsp_type
from attrs import define
from lsp_client import BasedpyrightClient, LocalServer, Position, TypescriptClient
from lsp_client.protocol import (
    CapabilityClientProtocol,
    ServerNotificationHook,
    ServerRequestHook,
    ServerRequestHookProtocol,
    ServerRequestHookRegistry,
    WindowCapabilityProtocol,
)
from lsprotocol.converters import get_converter

OPEN: set[str] = set()
"""The progress tokens begun and not yet ended (one client per driver process)."""
SETTLE_LIMIT = 240.0


@runtime_checkable
class WithWorkDoneProgress(
    WindowCapabilityProtocol,  # type: ignore[misc]
    ServerRequestHookProtocol,  # type: ignore[misc]
    CapabilityClientProtocol,  # type: ignore[misc]
    Protocol,
):
    """``window/workDoneProgress/create`` and ``$/progress``: the open progress tokens."""

    @classmethod
    def iter_methods(cls) -> Iterator[str]:
        yield from super().iter_methods()
        yield from (lsp_type.PROGRESS, lsp_type.WINDOW_WORK_DONE_PROGRESS_CREATE)

    @classmethod
    def register_window_capability(cls, cap: lsp_type.WindowClientCapabilities) -> None:
        super().register_window_capability(cap)
        cap.work_done_progress = True

    @classmethod
    def check_server_capability(cls, cap: lsp_type.ServerCapabilities) -> None:
        super().check_server_capability(cap)

    async def receive_progress(self, noti: lsp_type.ProgressNotification) -> None:
        value = noti.params.value
        kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
        if kind == "begin":
            OPEN.add(str(noti.params.token))
        elif kind == "end":
            OPEN.discard(str(noti.params.token))

    async def respond_progress_create(
        self, req: lsp_type.WorkDoneProgressCreateRequest
    ) -> lsp_type.WorkDoneProgressCreateResponse:
        return lsp_type.WorkDoneProgressCreateResponse(id=req.id, result=None)

    def register_server_request_hooks(self, registry: ServerRequestHookRegistry) -> None:
        super().register_server_request_hooks(registry)
        registry.register(
            lsp_type.PROGRESS,
            ServerNotificationHook(
                cls=lsp_type.ProgressNotification, execute=self.receive_progress
            ),
        )
        registry.register(
            lsp_type.WINDOW_WORK_DONE_PROGRESS_CREATE,
            ServerRequestHook(
                cls=lsp_type.WorkDoneProgressCreateRequest, execute=self.respond_progress_create
            ),
        )


@define
class SettlingBasedpyright(WithWorkDoneProgress, BasedpyrightClient):  # type: ignore[misc]
    """The library's basedpyright client that follows the server's progress."""


@define
class SettlingTypescript(WithWorkDoneProgress, TypescriptClient):  # type: ignore[misc]
    """The library's TypeScript client that follows the server's progress."""


def client_for(hello: dict[str, Any]) -> Any:
    """The library's client for the language, on the given server command line."""
    argv: list[str] = hello["argv"]
    server = LocalServer(program=argv[0], args=argv[1:], cwd=hello["root"])
    typescript = hello["language"] == "typescript"
    if hello.get("wait_progress"):
        kind: Any = SettlingTypescript if typescript else SettlingBasedpyright
    else:
        kind = TypescriptClient if typescript else BasedpyrightClient
    return kind(server=server, workspace=hello["root"])


WAITED: list[float] = []
"""The seconds each question waited for the server's progress (settled clients only)."""


async def settled() -> None:
    """Wait as the truth does: 2 s before the first question, then until no progress the
    server began is open."""
    loop = asyncio.get_running_loop()
    began = loop.time()
    if not WAITED:
        await asyncio.sleep(2.0)
    while OPEN and loop.time() - began < SETTLE_LIMIT:
        await asyncio.sleep(0.1)
    WAITED.append(loop.time() - began)


async def run(client: Any, call: dict[str, Any]) -> Any:
    """One call on the client; what the library returned. A settled client opens the file
    and waits for the server's progress first."""
    if isinstance(client, SettlingBasedpyright | SettlingTypescript) and "path" in call:
        async with client.open_files(call["path"]):
            await settled()
            return await ask(client, call)
    return await ask(client, call)


async def ask(client: Any, call: dict[str, Any]) -> Any:
    """The library's own request for one call."""
    position = Position(call.get("line", 0), call.get("column", 0))
    op = call["op"]
    if op == "references":
        return await client.request_references(
            file_path=call["path"], position=position, include_declaration=False
        )
    if op == "rename":
        if not hasattr(client, "request_rename"):
            raise NotImplementedError("this client has no rename request")
        return await client.request_rename(call["path"], position, call["new_name"])
    raise ValueError(f"unknown op {op!r}")


async def answer(client: Any, call: dict[str, Any], out: TextIO) -> None:
    """Do one call and write its line (the result or the error)."""
    reply: dict[str, Any] = {"id": call["id"]}
    try:
        text = json.dumps(get_converter().unstructure(await run(client, call)))
        reply.update(result=json.loads(text), size=len(text.encode()))
    except NotImplementedError as error:
        reply["unsupported"] = str(error)
    except BaseException as error:
        reply["error"] = f"{type(error).__name__}: {error}"
        if not isinstance(error, Exception):
            raise
    out.write(json.dumps(reply) + "\n")
    out.flush()


async def main() -> None:
    """Start the client, then answer calls until ``stop`` or the end of stdin."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    loop = asyncio.get_running_loop()
    hello = json.loads(await loop.run_in_executor(None, sys.stdin.readline))
    tasks: set[asyncio.Task[None]] = set()
    async with contextlib.AsyncExitStack() as stack:
        try:
            client = await stack.enter_async_context(client_for(hello))
        except BaseException as error:
            out.write(json.dumps({"error": f"{type(error).__name__}: {error!r}"}) + "\n")
            out.flush()
            raise
        ready = {"ok": True, "version": metadata.version("lsp-client")}
        out.write(json.dumps(ready) + "\n")
        out.flush()
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                break
            call = json.loads(line)
            if call.get("op") == "stop":
                break
            task = asyncio.create_task(answer(client, call, out))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        for task in tasks:
            task.cancel()


if __name__ == "__main__":
    asyncio.run(main())
