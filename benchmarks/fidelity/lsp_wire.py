"""A minimal LSP client of the harness's own, for the truth: not the library under test.

It starts a server on stdio, says what a plain editor says in ``initialize``, answers the
server's requests with the empty answers the specification allows, opens files, and sends
requests; nothing more (no readiness guesses: the truth is settled by asking again).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from pathlib import Path
from typing import Any


class WireError(Exception):
    """The server answered with an error, died, or did not answer in time."""


def uri(path: Path) -> str:
    """The ``file://`` URI of an absolute path."""
    return path.resolve().as_uri()


class Wire:
    """One server process and the messages with it."""

    def __init__(self, process: asyncio.subprocess.Process, root: Path) -> None:
        self.process = process
        self.root = root
        self.next_id = 0
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.progress: set[object] = set()
        self.pushed: dict[str, list[dict[str, Any]]] = {}
        self.versions: dict[str, int] = {}
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def start(cls, argv: list[str], root: Path) -> Wire:
        """Start ``argv`` in its own process group at ``root`` and initialize it."""
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=root,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
        wire = cls(process, root)
        capabilities = {
            "workspace": {
                "configuration": True,
                "workspaceFolders": True,
                "workspaceEdit": {"documentChanges": True},
            },
            "textDocument": {
                "synchronization": {"didSave": True},
                "publishDiagnostics": {"versionSupport": True},
                "references": {},
                "definition": {"linkSupport": False},
                "rename": {"prepareSupport": False},
                "diagnostic": {},
            },
            "window": {"workDoneProgress": True},
        }
        folder = {"uri": uri(root), "name": root.name}
        await wire.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": uri(root),
                "workspaceFolders": [folder],
                "capabilities": capabilities,
            },
            timeout=120,
        )
        wire.notify("initialized", {})
        return wire

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: Any) -> None:
        """Send a notification."""
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: Any, timeout: float = 60) -> Any:
        """Send a request and wait for its result.

        Raises:
            WireError: an error answer, the server gone, or no answer within ``timeout``.
        """
        self.next_id += 1
        number = self.next_id
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[number] = future
        self._send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        try:
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError as error:
            raise WireError(f"{method}: no answer within {timeout} s") from error
        finally:
            self.pending.pop(number, None)

    def open(self, path: Path, language: str) -> str:
        """Open ``path`` with its text on disk (again, with a new version, if open); the text.

        Raises:
            OSError, UnicodeDecodeError: the file cannot be read as UTF-8 (nothing is sent).
        """
        key = uri(path)
        text = path.read_bytes().decode("utf-8")  # line ends as on disk
        if key in self.versions:
            self.versions[key] += 1
            self.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": key, "version": self.versions[key]},
                    "contentChanges": [{"text": text}],
                },
            )
            return text
        self.versions[key] = 1
        document = {"uri": key, "languageId": language, "version": 1, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": document})
        return text

    async def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        try:
            while True:
                length = 0
                while True:
                    line = await stream.readline()
                    if not line:
                        raise EOFError
                    if line in (b"\r\n", b"\n"):
                        break
                    name, _, value = line.decode("ascii").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                self._dispatch(json.loads(await stream.readexactly(length)))
        except (EOFError, asyncio.IncompleteReadError, ValueError):
            for future in self.pending.values():
                if not future.done():
                    future.set_exception(WireError("the server's output ended"))

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" not in message:
            future = self.pending.get(message.get("id", -1))
            if future is not None and not future.done():
                if "error" in message:
                    future.set_exception(WireError(str(message["error"].get("message"))))
                else:
                    future.set_result(message.get("result"))
            return
        method, params = message["method"], message.get("params") or {}
        if method == "$/progress":
            kind = (params.get("value") or {}).get("kind")
            if kind == "begin":
                self.progress.add(params.get("token"))
            elif kind == "end":
                self.progress.discard(params.get("token"))
        elif method == "textDocument/publishDiagnostics":
            self.pushed[params["uri"]] = params.get("diagnostics", [])
        if "id" in message:
            result: Any = None
            if method == "workspace/configuration":
                result = [None for _ in params.get("items", [])]
            elif method == "workspace/workspaceFolders":
                result = [{"uri": uri(self.root), "name": self.root.name}]
            self._send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    async def close(self) -> None:
        """Shut the server down politely, then kill its process group."""
        with contextlib.suppress(WireError, OSError, ConnectionError):
            await self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.process.wait(), 10)
        self.reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.reader
