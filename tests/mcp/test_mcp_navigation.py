"""Navigation through the MCP server, timed and ordered as an agent needs it.

``references`` on a warm server waits for no timer: a server that reports work-done progress
for each of its answers (as basedpyright does, "Finding references") does not make the next
call wait out a settle window. Scripted (``scripted_lsp.py``) and with basedpyright.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import find_server

from .harness import Client, structured

SCRIPTED = Path(__file__).with_name("scripted_lsp.py")

SETTLE = 3.0
"""The scripted server's settle window: what a call would wait after the last one's progress."""

WARM_BOUND = 1.0
"""A warm references call answers within this (the server's own time is milliseconds)."""

USES = "def f() -> int:\n    return 1\n\n\nf()\nf()\n"


def place(line: int, start: int, end: int) -> dict[str, Any]:
    return {
        "uri": "$ROOT/a.py",
        "range": {
            "start": {"line": line, "character": start},
            "end": {"line": line, "character": end},
        },
    }


def scripted_root(root: Path, config: dict[str, Any], settle: float = SETTLE) -> Path:
    """A root whose ``.py`` files go to the scripted server with ``config``, declared ready
    by its registration of pulls (as basedpyright is), with a settle window of ``settle``."""
    command = json.dumps([sys.executable, str(SCRIPTED), json.dumps(config)])
    (root / "adecore-lsp.toml").write_text(
        'servers = ["scripted"]\n[server.scripted]\n'
        f"command = {command}\n"
        'languages = { ".py" = "python" }\n'
        'readiness = "registration"\n'
        'ready_registration = "textDocument/diagnostic"\n'
        f"settle = {settle}\n",
        encoding="utf-8",
    )
    (root / "a.py").write_text(USES, encoding="utf-8")
    return root.resolve()


@pytest.fixture
def progressing(tmp_path: Path) -> Iterator[Client]:
    """A client of a server that reports progress while it answers each references call."""
    config = {
        "register_pulls": True,
        "references": [place(4, 0, 1), place(5, 0, 1)],
        "symbols": {"a.py": []},
    }
    root = scripted_root(tmp_path, config)
    session = Client.stdio("--root", root, "--trust")
    try:
        yield session
    finally:
        session.close()


def timed(client: Client, name: str, arguments: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    began = time.monotonic()
    result = client.call(name, arguments)
    return time.monotonic() - began, structured(result)


def test_warm_references_wait_for_no_settle_window(progressing: Client) -> None:
    _first, found = timed(progressing, "references", {"target": "a.py:1:5"})
    assert [(item["line"], item["column"]) for item in found["items"]] == [(5, 1), (6, 1)]
    for _ in range(2):
        took, again = timed(progressing, "references", {"target": "a.py:1:5"})
        assert again["items"] == found["items"]
        assert took < WARM_BOUND, f"a warm references call took {took:.2f} s"


@pytest.mark.real_server
def test_warm_references_with_basedpyright_wait_for_no_timer(tmp_path: Path) -> None:
    """basedpyright reports "Finding references" for each call, and its settle window is
    1.5 s: the second call used to wait that long after the first."""
    find_server("basedpyright-langserver")
    (tmp_path / "lib.py").write_text(USES, encoding="utf-8")
    (tmp_path / "use.py").write_text("from lib import f\n\nf()\n", encoding="utf-8")
    client = Client.stdio("--root", tmp_path.resolve(), "--server", "basedpyright")
    try:
        structured(client.call("diagnostics", {}))  # analysed: its pulls reported progress
        _first, found = timed(client, "references", {"target": "lib.py#f"})
        assert {(item["path"], item["line"]) for item in found["items"]} == {
            ("lib.py", 5),
            ("lib.py", 6),
            ("use.py", 1),
            ("use.py", 3),
        }
        for _ in range(2):
            took, again = timed(client, "references", {"target": "lib.py#f"})
            assert again["items"] == found["items"]
            assert took < WARM_BOUND, f"a warm references call took {took:.2f} s"
    finally:
        client.close()


# -- find_symbol: the best match first ------------------------------------------------------------

ECHOES_A = "def secho(): ...\ndef echo(): ...\nclass Echo: ...\ndef echoes(): ...\n"
ECHOES_B = "class Printer:\n    def echo(self): ...\ndef echo_via_pager(): ...\n"
ECHOES_INIT = "from a import echo as echo\n"


def symbol(name: str, kind: int, line: int, column: int, **more: Any) -> dict[str, Any]:
    """A ``DocumentSymbol`` whose name starts at ``line``:``column`` (0-based)."""
    whole = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 20}}
    name_range = {
        "start": {"line": line, "character": column},
        "end": {"line": line, "character": column + len(name)},
    }
    return {"name": name, "kind": kind, "range": whole, "selectionRange": name_range, **more}


def hit(name: str, kind: int, file: str, line: int, container: str | None = None) -> dict[str, Any]:
    """A ``SymbolInformation`` of ``workspace/symbol`` for a symbol on ``line`` of ``file``."""
    where = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 20}}
    found: dict[str, Any] = {
        "name": name,
        "kind": kind,
        "location": {"uri": f"$ROOT/{file}", "range": where},
    }
    if container is not None:
        found["containerName"] = container
    return found


FUNCTION, CLASS, METHOD, VARIABLE = 12, 5, 6, 13

ECHO_CONFIG: dict[str, Any] = {
    "register_pulls": True,
    "symbols": {
        "a.py": [
            symbol("secho", FUNCTION, 0, 4),
            symbol("echo", FUNCTION, 1, 4),
            symbol("Echo", CLASS, 2, 6),
            symbol("echoes", FUNCTION, 3, 4),
        ],
        "b.py": [
            symbol("Printer", CLASS, 0, 6, children=[symbol("echo", METHOD, 1, 8)]),
            symbol("echo_via_pager", FUNCTION, 2, 4),
        ],
        "__init__.py": [symbol("echo", VARIABLE, 0, 22)],
    },
    # The worst order a server can answer in: the best match last.
    "workspace_symbols": [
        hit("secho", FUNCTION, "a.py", 0),
        hit("echo_via_pager", FUNCTION, "b.py", 2),
        hit("echo", METHOD, "b.py", 1, "Printer"),
        hit("echoes", FUNCTION, "a.py", 3),
        hit("Echo", CLASS, "a.py", 2),
        hit("echo", VARIABLE, "__init__.py", 0),
        hit("echo", FUNCTION, "a.py", 1),
    ],
}


@pytest.fixture
def echoes(tmp_path: Path) -> Iterator[Client]:
    root = scripted_root(tmp_path, ECHO_CONFIG)
    (root / "a.py").write_text(ECHOES_A, encoding="utf-8")
    (root / "b.py").write_text(ECHOES_B, encoding="utf-8")
    (root / "__init__.py").write_text(ECHOES_INIT, encoding="utf-8")
    session = Client.stdio("--root", root, "--trust")
    try:
        yield session
    finally:
        session.close()


def test_find_symbol_ranks_the_exact_name_first_then_prefixes(echoes: Client) -> None:
    found = structured(echoes.call("find_symbol", {"query": "echo"}))
    assert [item["target"] for item in found["items"]] == [
        "a.py#echo",  # the name itself, at the top level
        "__init__.py#echo",  # the name itself, an import's (after the definition)
        "b.py#Printer/echo",  # the name itself, inside a class
        "a.py#Echo",  # the name but for case
        "a.py#echoes",  # starts with it (by path among those)
        "b.py#echo_via_pager",
        "a.py#secho",  # holds it
    ]
    first = structured(echoes.call("find_symbol", {"query": "echo", "limit": 1}))
    assert [item["target"] for item in first["items"]] == ["a.py#echo"]
    assert (first["total"], first["truncated"]) == (7, True)
    # Case counts only between equals: the exact spelling first.
    capital = structured(echoes.call("find_symbol", {"query": "Echo"}))
    assert [item["target"] for item in capital["items"]][:3] == [
        "a.py#Echo",
        "a.py#echo",
        "__init__.py#echo",
    ]
    # A query naming a path matches the end of each name path.
    method = structured(echoes.call("find_symbol", {"query": "Printer/echo"}))
    assert method["items"][0]["target"] == "b.py#Printer/echo"
