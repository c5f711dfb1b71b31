"""A language server whose answers an MCP test scripts, run as a real subprocess.

``python scripted_lsp.py '<json>'`` takes, all optional:

- ``symbols``: file name -> its ``DocumentSymbol`` list (``documentSymbolProvider``);
- ``workspace_symbols``: the ``SymbolInformation`` answer to every ``workspace/symbol``, in
  the order given, whatever the query (``$ROOT`` in a string is the root's URI);
- ``references``: the locations answering every ``textDocument/references`` (``$ROOT`` as
  above), each answer made as basedpyright makes it: ``window/workDoneProgress/create``
  first (waiting for the client's answer), then ``$/progress`` begin and end, then the answer;
- ``register_pulls``: register ``textDocument/diagnostic`` after ``initialized`` (the signal
  of a server whose readiness is a registration), and answer each pull with an empty report;
- ``watch``: register ``workspace/didChangeWatchedFiles`` for ``**/*.py`` after ``initialized``;
- ``log``: a file to which each message received is appended, a line each: its method, and
  the URI's last part for a pull, the changed files' for ``didChangeWatchedFiles``;
- ``hold_pulls``: file name -> the ordinal (from 1) of its pull from which its pulls are
  never answered (a server still busy with that file when the client's time runs out).

``shutdown`` is answered and ``exit`` ends it; any other request gets ``MethodNotFound``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

# Run as a script (python tests/.../this.py): the repository's root on the path for the
# shared framing.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.stdio_framing import read_message, write_message

CONFIG: dict[str, Any] = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}


def capabilities() -> dict[str, Any]:
    found: dict[str, Any] = {"textDocumentSync": 1}
    if "symbols" in CONFIG:
        found["documentSymbolProvider"] = True
    if "workspace_symbols" in CONFIG:
        found["workspaceSymbolProvider"] = True
    if "references" in CONFIG:
        found["referencesProvider"] = True
    return found


def about(method: str, params: Any) -> str:
    """What a logged message is about: a pulled file's name, the files changed on disk."""
    if method == "textDocument/diagnostic":
        return str(params["textDocument"]["uri"]).rsplit("/", 1)[-1]
    if method == "workspace/didChangeWatchedFiles":
        return " ".join(str(change["uri"]).rsplit("/", 1)[-1] for change in params["changes"])
    return ""


def rooted(value: Any, root: str) -> Any:
    """``value`` with ``$ROOT`` in its strings replaced by the root's URI."""
    return json.loads(json.dumps(value).replace("$ROOT", root))


def main() -> int:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    root = ""
    tokens = 0
    pulled: dict[str, int] = {}

    def send(message: dict[str, Any]) -> None:
        write_message(stdout, {"jsonrpc": "2.0", **message})

    later: list[dict[str, Any] | None] = []
    """Messages read while waiting for an answer of the client, taken up after it."""

    def answer_of(request_id: Any) -> None:
        """Read until the client answers our request ``request_id``."""
        while True:
            message = read_message(stdin)
            if message is None or ("method" not in message and message.get("id") == request_id):
                return
            later.append(message)

    while True:
        message = later.pop(0) if later else read_message(stdin)
        if message is None or message.get("method") == "exit":
            return 0
        method = message.get("method")
        params = message.get("params") or {}
        if CONFIG.get("log") and method is not None:
            with open(CONFIG["log"], "a", encoding="utf-8") as file:
                file.write(f"{method} {about(method, params)}".rstrip() + "\n")
        if method == "initialized" and CONFIG.get("watch"):
            watchers = {"watchers": [{"globPattern": "**/*.py"}]}
            send(
                {
                    "id": "watch",
                    "method": "client/registerCapability",
                    "params": {
                        "registrations": [
                            {
                                "id": "watch",
                                "method": "workspace/didChangeWatchedFiles",
                                "registerOptions": watchers,
                            }
                        ]
                    },
                }
            )
            answer_of("watch")
        if method == "initialized" and CONFIG.get("register_pulls"):
            options = {"interFileDependencies": True, "workspaceDiagnostics": False}
            registration = {
                "id": "pulls",
                "method": "textDocument/diagnostic",
                "registerOptions": options,
            }
            send(
                {
                    "id": "register",
                    "method": "client/registerCapability",
                    "params": {"registrations": [registration]},
                }
            )
            answer_of("register")
            continue
        if "id" not in message or method is None:
            continue
        reply: dict[str, Any] = {"id": message["id"]}
        if method == "initialize":
            root = params.get("rootUri") or ""
            reply["result"] = {"capabilities": capabilities(), "serverInfo": {"name": "scripted"}}
        elif method == "shutdown":
            reply["result"] = None
        elif method == "textDocument/documentSymbol":
            name = params["textDocument"]["uri"].rsplit("/", 1)[-1]
            reply["result"] = CONFIG.get("symbols", {}).get(name, [])
        elif method == "workspace/symbol":
            reply["result"] = rooted(CONFIG["workspace_symbols"], root)
        elif method == "textDocument/references":
            tokens += 1
            token = f"references-{tokens}"
            send(
                {
                    "id": token,
                    "method": "window/workDoneProgress/create",
                    "params": {"token": token},
                }
            )
            answer_of(token)
            begin = {"kind": "begin", "title": "Finding references", "cancellable": True}
            send({"method": "$/progress", "params": {"token": token, "value": begin}})
            send({"method": "$/progress", "params": {"token": token, "value": {"kind": "end"}}})
            reply["result"] = rooted(CONFIG["references"], root)
        elif method == "textDocument/diagnostic":
            name = about(method, params)
            pulled[name] = pulled.get(name, 0) + 1
            held = CONFIG.get("hold_pulls", {}).get(name)
            if held is not None and pulled[name] >= held:
                continue  # never answered
            reply["result"] = {"kind": "full", "items": []}
        else:
            reply["error"] = {"code": -32601, "message": f"scripted: no {method}"}
        send(reply)


if __name__ == "__main__":
    raise SystemExit(main())
