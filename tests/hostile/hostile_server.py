"""A hostile language server for the fault tests: it misbehaves on command.

One core, :class:`HostileServer`, decides what to answer; it reads whole messages and writes
through a :class:`Wire`. Two drivers give it a wire:

- :func:`main` runs it as a real child process over stdin and stdout (``python
  hostile_server.py [--mode MODE]``); only this driver can write raw bytes, so the byte-level
  faults (bad frames, log lines, slow writes) need it.
- :func:`serve_memory` runs it in-process on the server end of a memory transport pair.

A test picks a fault by sending a ``hostile/<fault>`` request, or, for faults that must
happen before any request, by a ``--mode`` on the command line (see :data:`MODES`).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any, Protocol

MODES = ("normal", "exit-on-initialize", "log-before", "content-type", "ignore-exit")
"""``exit-on-initialize``: die (code 4) on ``initialize``; ``log-before``: print a log line
to stdout before the first frame; ``content-type``: give every frame a ``Content-Type``
header; ``ignore-exit``: survive ``exit``, the end of stdin and SIGTERM."""

DEEP = 100_000
"""How deep ``hostile/deep`` nests its JSON."""


class Wire(Protocol):
    """Where the core writes: whole messages, raw bytes, stderr, and the end of stdout."""

    def send(self, message: dict[str, Any]) -> None:
        """Send one whole message."""

    def send_bytes(self, data: bytes) -> None:
        """Write ``data`` as is where messages go, at once."""

    def stderr(self, data: bytes) -> None:
        """Write ``data`` to stderr."""

    def close_stdout(self) -> None:
        """Close the message channel for good, but keep running."""

    def exit(self, code: int) -> None:
        """End the server at once with ``code``."""


def frame(message: dict[str, Any], *, content_type: bool = False) -> bytes:
    """Encode ``message`` as a ``Content-Length`` frame, optionally with a ``Content-Type``."""
    body = json.dumps(message, ensure_ascii=False).encode()
    if content_type:
        # Content-Type first, in another case, with blanks: all valid per the LSP base protocol.
        head = b"content-type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length:  %d\r\n"
    else:
        head = b"Content-Length: %d\r\n"
    return head % len(body) + b"\r\n" + body


def raw_frame(body: bytes) -> bytes:
    """A frame around ``body`` as given, readable or not."""
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class HostileServer:
    """The core: answers ``initialize`` and ``shutdown``, and runs the fault it is asked for."""

    def __init__(self, wire: Wire, mode: str = "normal") -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}")
        self.wire = wire
        self.mode = mode
        # Server requests sent by hostile/requests: id -> how many answers came.
        self.answers: dict[str, int] = {}
        self._flood: Any = None  # the id of the hostile/requests request to answer
        self._missing = 0

    def handle(self, message: dict[str, Any]) -> None:
        """React to one message of the client."""
        method = message.get("method")
        if method is None:
            self._answered(message)
            return
        request_id = message.get("id")
        params = message.get("params") or {}
        if request_id is None:
            return  # notifications, exit included: the stdio driver decides when to stop
        if method == "initialize":
            if self.mode == "exit-on-initialize":
                self.wire.exit(4)
                return
            self._reply(request_id, {"capabilities": {}, "serverInfo": {"name": "hostile"}})
        elif method == "shutdown":
            self._reply(request_id, None)
        elif method.startswith("hostile/"):
            getattr(self, "_" + method[len("hostile/") :].replace("-", "_"))(request_id, params)
        else:
            self.wire.send(
                {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": method}}
            )

    def _reply(self, request_id: Any, result: Any) -> None:
        self.wire.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def _answered(self, message: dict[str, Any]) -> None:
        key = str(message.get("id"))
        if key not in self.answers:
            return
        self.answers[key] += 1
        if self.answers[key] == 1:
            self._missing -= 1
        if self._flood is not None and not self._missing:
            request_id, self._flood = self._flood, None
            self._reply(request_id, self._stats())

    def _stats(self) -> dict[str, int]:
        counts = list(self.answers.values())
        return {
            "sent": len(counts),
            "once": counts.count(1),
            "missing": counts.count(0),
            "twice_or_more": sum(1 for count in counts if count > 1),
        }

    # -- the faults, each a hostile/<name> request ----------------------------------------

    def _ping(self, request_id: Any, params: Any) -> None:
        self._reply(request_id, "pong")

    def _crash(self, request_id: Any, params: Any) -> None:
        self.wire.exit(3)

    def _silent(self, request_id: Any, params: Any) -> None:
        pass  # never answered

    def _stderr(self, request_id: Any, params: Any) -> None:
        line = b"x" * 1023 + b"\n"
        for _ in range(int(params["kib"])):
            self.wire.stderr(line)
        self._reply(request_id, "done")

    def _log(self, request_id: Any, params: Any) -> None:
        self.wire.send_bytes(b"INFO: indexing the workspace\n")
        self._reply(request_id, "after the log line")

    def _big(self, request_id: Any, params: Any) -> None:
        self._reply(request_id, "x" * int(params["bytes"]))

    def _slow(self, request_id: Any, params: Any) -> None:
        data = frame({"jsonrpc": "2.0", "id": request_id, "result": params.get("echo")})
        for byte in data:
            self.wire.send_bytes(bytes((byte,)))
            time.sleep(0.01)

    def _burst(self, request_id: Any, params: Any) -> None:
        for n in range(int(params["count"])):
            self.wire.send({"jsonrpc": "2.0", "method": "hostile/tick", "params": {"n": n}})
        self._reply(request_id, "done")

    def _unknown_id(self, request_id: Any, params: Any) -> None:
        self.wire.send({"jsonrpc": "2.0", "id": 987_654_321, "result": "nobody asked"})
        self._reply(request_id, "done")

    def _twice(self, request_id: Any, params: Any) -> None:
        self._reply(request_id, "first")
        self._reply(request_id, "second")

    def _invalid_utf8(self, request_id: Any, params: Any) -> None:
        self.wire.send_bytes(raw_frame(b'{"jsonrpc":"2.0","method":"m","params":"\xff\xfe"}'))

    def _not_object(self, request_id: Any, params: Any) -> None:
        self.wire.send_bytes(raw_frame(b'[{"jsonrpc":"2.0","id":%d,"result":1}]' % request_id))

    def _deep(self, request_id: Any, params: Any) -> None:
        nested = b"[" * DEEP + b"]" * DEEP
        self.wire.send_bytes(raw_frame(b'{"jsonrpc":"2.0","method":"m","params":' + nested + b"}"))

    def _requests(self, request_id: Any, params: Any) -> None:
        """Send ``count`` server requests; answer this one when each has an answer."""
        count = int(params["count"])
        method = params["method"]
        self.answers = {f"s{n}": 0 for n in range(count)}
        self._missing = count
        self._flood = request_id
        for n in range(count):
            self.wire.send({"jsonrpc": "2.0", "id": f"s{n}", "method": method, "params": {"n": n}})

    def _stats_now(self, request_id: Any, params: Any) -> None:
        self._reply(request_id, self._stats())

    def _close_stdout(self, request_id: Any, params: Any) -> None:
        self.wire.close_stdout()


# -- the stdio driver ---------------------------------------------------------------------


class _StdioWire:
    """A wire over this process's stdin and stdout."""

    def __init__(self, content_type: bool) -> None:
        self._out = sys.stdout.buffer
        self._content_type = content_type
        self.open = True

    def send(self, message: dict[str, Any]) -> None:
        if self.open:
            self._out.write(frame(message, content_type=self._content_type))

    def send_bytes(self, data: bytes) -> None:
        if self.open:
            self._out.write(data)
            self._out.flush()

    def stderr(self, data: bytes) -> None:
        sys.stderr.buffer.write(data)

    def flush(self) -> None:
        if self.open:
            self._out.flush()

    def close_stdout(self) -> None:
        self._out.flush()
        self.open = False
        os.close(1)

    def exit(self, code: int) -> None:
        os._exit(code)


def _read_message() -> dict[str, Any] | None:
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
    message: dict[str, Any] = json.loads(sys.stdin.buffer.read(length))
    return message


def main(argv: list[str]) -> None:
    """Serve over stdin and stdout until ``exit`` or the end of stdin (unless told not to)."""
    mode = argv[argv.index("--mode") + 1] if "--mode" in argv else "normal"
    wire = _StdioWire(content_type=mode == "content-type")
    server = HostileServer(wire, mode)
    if mode == "ignore-exit":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if mode == "log-before":
        wire.send_bytes(b"Starting the hostile server, version 1.0\n")
    while (message := _read_message()) is not None:
        if message.get("method") == "exit" and mode != "ignore-exit":
            return
        server.handle(message)
        wire.flush()
    if mode == "ignore-exit" or not wire.open:
        while True:  # linger until killed
            time.sleep(60)


# -- the memory driver --------------------------------------------------------------------


class _MemoryWire:
    """A wire over the server end of a memory transport pair: messages only."""

    def __init__(self, transport: Any) -> None:
        self._transport = transport

    def send(self, message: dict[str, Any]) -> None:
        self._transport.send(message)

    def send_bytes(self, data: bytes) -> None:
        raise NotImplementedError("raw bytes need the stdio driver")

    def stderr(self, data: bytes) -> None:
        raise NotImplementedError("stderr needs the stdio driver")

    def close_stdout(self) -> None:
        self._transport.close()

    def exit(self, code: int) -> None:
        self._transport.close()


def serve_memory(transport: Any, mode: str = "normal") -> HostileServer:
    """Run the core in-process on ``transport``, the server end of a memory pair."""
    server = HostileServer(_MemoryWire(transport), mode)
    transport.on_message(server.handle)
    return server


if __name__ == "__main__":
    main(sys.argv[1:])
