"""Content-Length framing for the tests' scripted language servers (plain blocking I/O, no
library code: a server under test must not share the client's framing)."""

from __future__ import annotations

import json
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
    """Write ``message`` framed, and flush it."""
    body = json.dumps(message).encode("utf-8")
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()
