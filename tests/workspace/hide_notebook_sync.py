"""A stdio proxy in front of a real language server that hides its ``notebookDocumentSync``
capability: the server as a client sees it then takes notebooks as one joined document.

    python hide_notebook_sync.py SERVER [ARGS...]

Everything passes through unchanged but the ``initialize`` answer, whose
``capabilities.notebookDocumentSync`` is removed (registrations of ``notebookDocument/sync``
are dropped too).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from typing import IO


def read_frame(stream: IO[bytes]) -> bytes | None:
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    assert length is not None
    return stream.read(length)


def write_frame(stream: IO[bytes], body: bytes) -> None:
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def hidden(body: bytes) -> bytes:
    message = json.loads(body)
    result = message.get("result")
    if isinstance(result, dict) and isinstance(result.get("capabilities"), dict):
        result["capabilities"].pop("notebookDocumentSync", None)
        return json.dumps(message).encode("utf-8")
    params = message.get("params")
    if message.get("method") == "client/registerCapability" and isinstance(params, dict):
        kept = [
            r for r in params.get("registrations", []) if r.get("method") != "notebookDocument/sync"
        ]
        params["registrations"] = kept
        return json.dumps(message).encode("utf-8")
    return body


def main() -> None:
    server = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    stdin, stdout = server.stdin, server.stdout
    assert stdin is not None
    assert stdout is not None

    def up() -> None:
        while (frame := read_frame(sys.stdin.buffer)) is not None:
            write_frame(stdin, frame)
        stdin.close()

    threading.Thread(target=up, daemon=True).start()
    while (frame := read_frame(stdout)) is not None:
        write_frame(sys.stdout.buffer, hidden(frame))
    sys.exit(server.wait())


if __name__ == "__main__":
    main()
