"""Fake language servers for the process tests: ``python server.py MODE [ARG]``.

Each mode is one behaviour a real server may show. The frames are read and written here
with a few lines of code of their own, so the tests never check the library against itself.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable

STDIN = sys.stdin.buffer
STDOUT = sys.stdout.buffer


def read_frame() -> bytes | None:
    """Read one frame's body from stdin, or return None at the end of stdin."""
    length = -1
    while True:
        line = STDIN.readline()
        if not line:
            return None
        if line == b"\r\n":
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    body = STDIN.read(length)
    return body if len(body) == length else None


def write_frame(body: bytes) -> None:
    STDOUT.write(b"Content-Length: %d\r\n\r\n%b" % (len(body), body))
    STDOUT.flush()


def say(line: str) -> None:
    """Write one line to stderr, where a test waits for it."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def echo(limit: str = "-1") -> None:
    """Send every frame back as it came; with a number, exit after that many frames."""
    left = int(limit)
    while left != 0 and (body := read_frame()) is not None:
        write_frame(body)
        left -= 1


def banner() -> None:
    """Print a log line to stdout before the first frame, as a misconfigured server does."""
    STDOUT.write(b"Starting the example server v1.2 on stdio\n")
    STDOUT.flush()
    echo()


def stderr_flood() -> None:
    """On the first frame, write 5 MB to stderr (many lines, one huge line), then echo."""
    first = read_frame()
    err = sys.stderr.buffer
    line = b"log line %06d " + b"x" * 80 + b"\r\n"
    for number in range(40_000):  # about 4 MB of lines
        err.write(line % number)
    err.write(b"y" * (1024 * 1024) + b"\n")  # one 1 MiB line
    err.write(b"last line \xc3\xa9 \xff\n")  # an e acute, then a byte that is not UTF-8
    err.flush()
    if first is not None:
        write_frame(first)
        echo()


def exit_mid_frame() -> None:
    """Answer with half a frame, then exit with code 3."""
    STDOUT.write(b'Content-Length: 100\r\n\r\n{"jsonrpc": "2.0", ')
    STDOUT.flush()
    sys.exit(3)


def close_stdin() -> None:
    """Close stdin but stay alive with stdout open: writes to it fail."""
    os.close(0)
    say("ready")
    time.sleep(60)


def stubborn(term: str = "") -> None:
    """Ignore the end of stdin; ignore SIGTERM too unless given the argument "term"."""
    if term != "term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    say("ready")
    time.sleep(60)


def forks() -> None:
    """Start a grandchild that holds stdout and stderr, then exit at the end of stdin."""
    grandchild = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], stdin=subprocess.DEVNULL
    )
    say(f"grandchild {grandchild.pid}")
    STDIN.read()


MODES: dict[str, Callable[..., None]] = {
    mode.__name__: mode
    for mode in (echo, banner, stderr_flood, exit_mid_frame, close_stdin, stubborn, forks)
}

if __name__ == "__main__":
    MODES[sys.argv[1]](*sys.argv[2:])
