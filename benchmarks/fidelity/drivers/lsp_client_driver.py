"""Run lsp-client inside its own venv (Python 3.12+) and answer the adapter in JSON lines.

The same protocol as ``multilspy_driver.py``: a first line in (``root``, ``language``,
``argv``), a first line out once the client's ``async with`` has finished ``initialize``, then
one line per call matched by ``id``: ``result`` (the library's return value, unstructured to
JSON by lsprotocol's converter) and ``size``, or ``error``.

The clients are the library's own, as shipped: ``BasedpyrightClient`` and ``TypescriptClient``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from importlib import metadata
from typing import Any, TextIO

from lsp_client import BasedpyrightClient, LocalServer, Position, TypescriptClient
from lsprotocol.converters import get_converter


def client_for(hello: dict[str, Any]) -> Any:
    """The library's client for the language, on the given server command line."""
    argv: list[str] = hello["argv"]
    server = LocalServer(program=argv[0], args=argv[1:], cwd=hello["root"])
    kind = TypescriptClient if hello["language"] == "typescript" else BasedpyrightClient
    return kind(server=server, workspace=hello["root"])


async def run(client: Any, call: dict[str, Any]) -> Any:
    """One call on the client; what the library returned."""
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
        out.write(json.dumps({"ok": True, "version": metadata.version("lsp-client")}) + "\n")
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
