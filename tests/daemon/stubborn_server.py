"""A language server that only SIGKILL ends: it ignores SIGTERM, SIGHUP and the end of its
input, and it has a child of its own, in its process group, that ignores them too.

It writes its pid and its child's, a line each, to the file its first argument names, then
answers ``initialize`` (and any other request with ``null``) and publishes nothing. Run as
``python stubborn_server.py PIDS_FILE``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

# Run as a script: the repository's root on the path for the shared framing.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.stdio_framing import read_message, write_message

IGNORED = (signal.SIGTERM, signal.SIGHUP)

CHILD = (
    "import signal, time\n"
    "for number in (signal.SIGTERM, signal.SIGHUP):\n"
    "    signal.signal(number, signal.SIG_IGN)\n"
    "while True:\n"
    "    time.sleep(60)\n"
)


def main(pids: Path) -> None:
    for number in IGNORED:
        signal.signal(number, signal.SIG_IGN)  # the child inherits it from its first instant
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
    )
    pids.write_text(f"{os.getpid()}\n{child.pid}\n")
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while (message := read_message(stdin)) is not None:
        method = message.get("method")
        if method == "initialize":
            result = {"capabilities": {"textDocumentSync": 1}}
            write_message(stdout, {"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif "id" in message and method is not None:
            write_message(stdout, {"jsonrpc": "2.0", "id": message["id"], "result": None})
    while True:  # the end of its input does not end it
        time.sleep(60)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
