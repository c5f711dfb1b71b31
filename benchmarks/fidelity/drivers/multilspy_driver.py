"""Run multilspy inside its own venv and answer the adapter in JSON lines on stdin/stdout.

The first line in says where and with what (``root``, ``language``, ``argv``); the first line
out says ``ok`` once ``start_server`` has finished its handshake. Then each line in is a call
(``id``, ``op`` and its arguments) answered by one line with the same ``id``: ``result`` (the
library's own return value, as JSON) and ``size``, or ``error``. Calls run concurrently, so a
call that never returns does not hold the ones after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
from importlib import metadata
from typing import Any, TextIO

from multilspy import LanguageServer
from multilspy.multilspy_config import Language, MultilspyConfig
from multilspy.multilspy_logger import MultilspyLogger


def configure(hello: dict[str, Any]) -> tuple[MultilspyConfig, str]:
    """The configuration multilspy accepts for the server asked for, and what was not kept."""
    argv: list[str] = hello["argv"]
    if hello["language"] == "typescript":
        # server_binary is run as [server_binary, "--stdio"].
        note = "" if argv[1:] == ["--stdio"] else f"arguments {argv[1:]} dropped"
        return MultilspyConfig(code_language=Language.TYPESCRIPT, server_binary=argv[0]), note
    # Python is always jedi-language-server (found on PATH, from multilspy's own venv).
    note = "multilspy runs its own jedi-language-server for Python, whatever it is given"
    return MultilspyConfig(code_language=Language.PYTHON), note


async def answer(lsp: LanguageServer, call: dict[str, Any], out: TextIO) -> None:
    """Do one call and write its line (the result or the error)."""
    reply: dict[str, Any] = {"id": call["id"]}
    try:
        if call["op"] != "references":
            raise ValueError(f"unknown op {call['op']!r}")
        result = await lsp.request_references(call["path"], call["line"], call["column"])
        text = json.dumps(result)
        reply.update(result=json.loads(text), size=len(text.encode()))
    except Exception as error:
        reply["error"] = f"{type(error).__name__}: {error}"
    out.write(json.dumps(reply) + "\n")
    out.flush()


async def main() -> None:
    """Start the server, then answer calls until ``stop`` or the end of stdin."""
    # Keep the protocol's stdout to ourselves: anything else printing goes to stderr.
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO)
    loop = asyncio.get_running_loop()
    hello = json.loads(await loop.run_in_executor(None, sys.stdin.readline))
    config, note = configure(hello)
    tasks: set[asyncio.Task[None]] = set()
    async with contextlib.AsyncExitStack() as stack:
        try:
            lsp = LanguageServer.create(config, MultilspyLogger(), hello["root"])
            await stack.enter_async_context(lsp.start_server())
        except BaseException as error:
            out.write(json.dumps({"error": f"{type(error).__name__}: {error}"}) + "\n")
            out.flush()
            raise
        ready = {"ok": True, "note": note, "version": metadata.version("multilspy")}
        out.write(json.dumps(ready) + "\n")
        out.flush()
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                break
            call = json.loads(line)
            if call.get("op") == "stop":
                break
            task = asyncio.create_task(answer(lsp, call, out))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        for task in tasks:
            task.cancel()


if __name__ == "__main__":
    asyncio.run(main())
