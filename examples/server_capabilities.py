"""Spawn a real language server, shake hands over the stdio transport, print what it supports.

    python examples/server_capabilities.py [server command ...]

Without arguments it runs ``ruff server`` (from the ``servers`` extra) in
``examples/sample_project``. This example talks through the transport alone, message by
message, to show the wire layer; ``LspSession`` does all of this for you.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from adecore_lsp import LspTransport, spawn_server

SAMPLE = Path(__file__).resolve().parent / "sample_project"


def default_command() -> list[str]:
    """``ruff server``, preferring the ruff installed beside this Python."""
    beside = Path(sys.executable).parent / "ruff"
    ruff = str(beside) if beside.exists() else shutil.which("ruff")
    if ruff is None:
        raise SystemExit("ruff is not installed: pip install 'adecore-lsp[servers]'")
    return [ruff, "server"]


async def call(transport: LspTransport, request_id: int, method: str, params: Any = None) -> Any:
    """Send one request and wait for the response with the same id."""
    answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def hear(message: dict[str, Any]) -> None:
        if message.get("id") == request_id and "method" not in message and not answer.done():
            answer.set_result(message)

    def closed(reason: BaseException | None) -> None:
        if not answer.done():
            answer.set_exception(ConnectionError(f"the server went away: {reason}"))

    with transport.on_message(hear), transport.on_close(closed):
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        transport.send(message)
        response = await asyncio.wait_for(answer, 30)
    if "error" in response:
        raise RuntimeError(f"{method} failed: {response['error']}")
    return response.get("result")


def providers(capabilities: dict[str, Any]) -> list[str]:
    """The names of the features the server announces."""
    return sorted(key for key, value in capabilities.items() if value not in (None, False))


async def main(command: list[str]) -> int:
    async with await spawn_server(command, cwd=SAMPLE) as server:
        result = await call(
            server.transport,
            1,
            "initialize",
            {
                "processId": os.getpid(),
                "clientInfo": {"name": "adecore-lsp example"},
                "rootUri": SAMPLE.as_uri(),
                "workspaceFolders": [{"uri": SAMPLE.as_uri(), "name": SAMPLE.name}],
                "capabilities": {"general": {"positionEncodings": ["utf-32", "utf-8", "utf-16"]}},
            },
        )
        server.transport.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        info = result.get("serverInfo", {})
        capabilities = result["capabilities"]
        print(f"server: {info.get('name', command[0])} {info.get('version', '')}".rstrip())
        print(f"position encoding: {capabilities.get('positionEncoding', 'utf-16')}")
        print("supports:")
        for name in providers(capabilities):
            print(f"  {name}")
        await call(server.transport, 2, "shutdown")
        server.transport.send({"jsonrpc": "2.0", "method": "exit"})
        code = await asyncio.wait_for(server.wait(), 10)
    print(f"exit code: {code}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:] or default_command())))
