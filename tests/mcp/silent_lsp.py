"""A language server that never says anything about a file, for the MCP server's tests.

It answers ``initialize`` (full text sync and hover advertised) and ``shutdown``, exits on
``exit`` or at the end of its stdin, and publishes no diagnostic: every wait for final
diagnostics runs into its timeout. A hover is never answered (only ``$/cancelRequest`` ends
it, with ``RequestCancelled``). Any other request gets ``MethodNotFound``. With a file name
as its argument, it appends the method of every message it gets to that file, one a line.
"""

from __future__ import annotations

import json
import sys
from typing import Any, BinaryIO


def read_message(stream: BinaryIO) -> dict[str, Any] | None:
    """One framed JSON-RPC message, or ``None`` at the end of the stream."""
    length = None
    while True:
        header = stream.readline()
        if not header:
            return None
        header = header.strip()
        if not header:
            break
        name, _, value = header.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    if length is None:
        return None
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def write_message(stream: BinaryIO, message: dict[str, Any]) -> None:
    body = json.dumps(message).encode("utf-8")
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def main(log: str | None) -> int:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        message = read_message(stdin)
        if message is None or message.get("method") == "exit":
            return 0
        if log is not None and "method" in message:
            with open(log, "a", encoding="utf-8") as file:
                file.write(f"{message['method']}\n")
        if message.get("method") == "$/cancelRequest":
            cancelled = message.get("params", {}).get("id")
            error = {"code": -32800, "message": "cancelled"}
            write_message(stdout, {"jsonrpc": "2.0", "id": cancelled, "error": error})
            continue
        if "id" not in message or "method" not in message:
            continue
        method = message["method"]
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        if method == "textDocument/hover":
            continue
        if method == "initialize":
            reply["result"] = {
                "capabilities": {"textDocumentSync": 1, "hoverProvider": True},
                "serverInfo": {"name": "silent"},
            }
        elif method == "shutdown":
            reply["result"] = None
        else:
            reply["error"] = {"code": -32601, "message": f"silent: no {method}"}
        write_message(stdout, reply)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else None))
