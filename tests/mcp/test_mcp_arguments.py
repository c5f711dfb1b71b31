"""Every tool refuses an argument it does not take: a tool error naming it and listing the
arguments the tool takes, with nothing done (``fix`` given ``path`` instead of ``paths``
used to fix the whole root). The tools are those the server lists, so a new tool is
covered without a change here; driven by the MCP SDK's own client, with ruff."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp.mcp.server import build
from adecore_lsp.mcp.state import Options
from tests.integration.conftest import find_server

from .harness import Client, structured, text

pytestmark = pytest.mark.real_server

UNUSED = "import os\n\nvalue = 1\n"
"""A file ruff's fix-all changes (the unused import goes)."""


def listed_tools() -> dict[str, dict[str, Any]]:
    """Each tool the server lists, by name, with its input schema."""
    app = build(Options(root=Path(__file__).parent))
    return {tool.name: tool.input_schema for tool in asyncio.run(app.list_tools())}


TOOLS = listed_tools()

PLAUSIBLE: dict[str, Any] = {
    "path": "fix.py",
    "paths": ["fix.py"],
    "target": "fix.py#value",
    "query": "value",
    "new_name": "amount",
    "new": "value = 2\n",
}
"""A value for each required argument of the tools: a call that the tool would take and
act on, but for the unknown argument beside it."""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mcp-arguments")
    (root / "fix.py").write_text(UNUSED, encoding="utf-8")
    (root / "other.py").write_text(UNUSED, encoding="utf-8")
    (root / "pyproject.toml").write_text('[project]\nname = "a"\nversion = "0"\n')
    return root.resolve()


@pytest.fixture(scope="module")
def client(project: Path) -> Iterator[Client]:
    find_server("ruff")
    session = Client.stdio("--root", project, "--server", "ruff")
    try:
        yield session
    finally:
        session.close()


def test_every_schema_is_closed_to_other_arguments(client: Client) -> None:
    listed = client.list_tools().tools
    assert {tool.name for tool in listed} == set(TOOLS)
    for tool in listed:
        assert tool.input_schema["additionalProperties"] is False, tool.name


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_an_unknown_argument_is_refused_naming_it(client: Client, project: Path, name: str) -> None:
    schema = TOOLS[name]
    arguments = {key: PLAUSIBLE[key] for key in schema.get("required", [])}
    arguments["bogus_option"] = True
    before = {path.name: path.read_bytes() for path in project.iterdir()}
    result = client.call(name, arguments)
    assert result.is_error, text(result)
    message = text(result)
    assert f"{name} does not take the argument `bogus_option`; nothing was done." in message
    takes = ", ".join(f"`{key}`" for key in schema["properties"])
    assert f"The arguments {name} takes: {takes}." in message
    assert {path.name: path.read_bytes() for path in project.iterdir()} == before


def test_fix_given_path_for_paths_writes_nothing(client: Client, project: Path) -> None:
    before = {path.name: path.read_bytes() for path in project.iterdir()}
    result = client.call("fix", {"path": "other.py", "write": True})
    assert result.is_error
    assert "fix does not take the argument `path` (did you mean `paths`?)" in text(result)
    assert {path.name: path.read_bytes() for path in project.iterdir()} == before
    # Said right, the same call fixes the one file named.
    fixed = structured(client.call("fix", {"paths": ["other.py"], "write": True}))
    assert fixed["changed_files"] == ["other.py"]
    assert (project / "fix.py").read_bytes() == before["fix.py"]


def test_several_unknown_arguments_are_named_together(client: Client) -> None:
    result = client.call("hover", {"target": "fix.py#value", "verbose": 1, "colour": "red"})
    assert result.is_error
    assert "hover does not take the arguments `verbose`, `colour`;" in text(result)
