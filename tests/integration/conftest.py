"""Helpers for the tests that drive real language servers."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from adecore_lsp import Disposable, LspTransport
from adecore_lsp.transports.base import CloseListener, MessageListener

if TYPE_CHECKING:
    from tests.integration.scenario import ScenarioResult

VENV_BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[2]
NPM_PREFIX = ROOT / "build" / "servers" / "npm"
"""Where ``scripts/install_servers.py`` installs the npm servers."""
RESULTS_FILE = ROOT / "build" / "interop-results.json"
"""The interop scenarios' results, merged by server name; read by ``scripts/compat_table.py``."""


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


def find_npm_server(relative: str) -> str:
    """The path of a file under the npm prefix (``node_modules/.bin/yaml-language-server``).

    Missing, it fails the test in CI and skips it elsewhere, as :func:`find_server` does.
    """
    found = NPM_PREFIX / relative
    if not found.exists():
        reason = f"{relative} is not installed (run scripts/install_servers.py)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return str(found)


class InteropResults:
    """Collects the interop scenarios' results and merges them into :data:`RESULTS_FILE`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.results: dict[str, dict[str, Any]] = {}

    def record(self, result: ScenarioResult) -> None:
        """Keep ``result``, replacing an earlier one of the same server."""
        self.results[result.name] = result.to_json()

    def write(self) -> None:
        """Merge into the file: the servers that ran replace their rows, the others stay."""
        if not self.results:
            return
        try:
            merged: dict[str, Any] = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            merged = {}
        merged.update(self.results)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(dict(sorted(merged.items())), indent=2, ensure_ascii=False)
        self.path.write_text(text + "\n", encoding="utf-8")


@pytest.fixture(scope="session")
def interop_results() -> Iterator[InteropResults]:
    """The session's result collector; written to ``build/interop-results.json`` at the end."""
    results = InteropResults(RESULTS_FILE)
    yield results
    results.write()


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
