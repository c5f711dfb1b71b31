"""A language server that answers initialize, then dies on the first other request."""

from __future__ import annotations

import json
import os
import sys


def read_message() -> dict[str, object] | None:
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    assert length is not None
    message: dict[str, object] = json.loads(sys.stdin.buffer.read(length))
    return message


def write_message(message: dict[str, object]) -> None:
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    sys.stdout.buffer.flush()


def main() -> None:
    while (message := read_message()) is not None:
        if message.get("method") == "initialize":
            write_message({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": {}}})
        elif "id" in message:
            os._exit(3)  # crash mid-request, with the request unanswered


main()
