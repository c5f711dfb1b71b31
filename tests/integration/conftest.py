"""Helpers for the tests that drive real language servers."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import Disposable, LspTransport
from adecore_lsp.transports.base import CloseListener, MessageListener

VENV_BIN = Path(sys.executable).parent


def find_server(name: str) -> str:
    """The path of a server executable: beside this Python first, then on PATH.

    A missing server fails the test in CI (where the project's files must have installed
    it) and skips it elsewhere, saying why.
    """
    beside = VENV_BIN / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        reason = f"{name} is not installed (bash scripts/test.sh installs it)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return found


class RecordingTransport:
    """Passes everything through to a real transport and keeps a log of both directions."""

    def __init__(self, inner: LspTransport) -> None:
        self.inner = inner
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        inner.on_message(self.received.append)

    def send(self, message: dict[str, Any]) -> None:
        self.inner.send(message)
        self.sent.append(message)

    def on_message(self, listener: MessageListener) -> Disposable:
        return self.inner.on_message(listener)

    def on_close(self, listener: CloseListener) -> Disposable:
        return self.inner.on_close(listener)

    def close(self) -> None:
        self.inner.close()

    def answers_to(self, method: str) -> list[tuple[Any, Any]]:
        """Each server request of ``method`` with the result the client sent for it."""
        asked = {
            message["id"]: message.get("params")
            for message in self.received
            if message.get("method") == method and "id" in message
        }
        return [
            (asked[message["id"]], message.get("result"))
            for message in self.sent
            if "method" not in message and message.get("id") in asked
        ]
