"""A language server that never says anything about a file, for the MCP server's tests.

It answers ``initialize`` (full text sync and hover advertised) and ``shutdown``, exits on
``exit`` or at the end of its stdin, and publishes no diagnostic: every wait for final
diagnostics runs into its timeout. A hover is never answered (only ``$/cancelRequest`` ends
it, with ``RequestCancelled``). Any other request gets ``MethodNotFound``. With a file name
as its argument, it appends the method of every message it gets to that file, one a line.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

# Run as a script (python tests/.../this.py): the repository's root on the path for the
# shared framing.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.stdio_framing import read_message, write_message


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
