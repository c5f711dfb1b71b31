"""``adecore-lsp mcp`` on stdio, driven by the MCP SDK's own client, with basedpyright and ruff.

One server serves the whole module (as one host session would): every tool is called and
its result checked field by field; errors come back as tool errors with the workspace's
message, and the next call is still served.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import find_server

from .harness import Client, structured, text

pytestmark = pytest.mark.real_server

APP = '''"""A module for the MCP server's tests."""

import os


class Greeter:
    def greet(self, name: str) -> str:
        return f"Hello, {name}"


class Other:
    def greet(self) -> str:
        return "hi"


def helper(x: int) -> int:
    return x + 1


def main() -> None:
    print("😀", helper(1), Greeter().greet("a"))
    print(undefined_name)
'''

UTIL = """from app import helper


def twice(x: int) -> int:
    return helper(helper(x))
"""

NAMES = """def old_name() -> int:
    return 1


def taken() -> int:
    return 2


def use() -> int:
    return old_name() + taken()
"""

TOOLS = {
    "diagnostics",
    "symbols",
    "find_symbol",
    "definition",
    "type_definition",
    "implementation",
    "hover",
    "references",
    "callers",
    "callees",
    "rename",
    "apply_rename",
    "edit",
    "format",
    "fix",
    "restart",
}
WRITING = {"apply_rename", "edit", "format", "fix"}
PLAN_KEYS = {
    "diff",
    "changed_files",
    "edits",
    "applied",
    "introduced",
    "resolved",
    "complete",
    "reason",
    "checked",
    "not_reached",
}
LIST_KEYS = {"items", "total", "truncated", "complete", "reason"}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mcp-project")
    files = {
        "app.py": APP,
        "util.py": UTIL,
        "names.py": NAMES,
        "pyproject.toml": '[project]\nname = "mcp-test"\nversion = "0"\n',
    }
    for name, content in files.items():
        (root / name).write_text(content, encoding="utf-8")
    return root.resolve()


@pytest.fixture(scope="module")
def client(project: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    find_server("basedpyright-langserver")
    find_server("ruff")
    log = tmp_path_factory.mktemp("mcp-log") / "stderr.txt"
    with log.open("w", encoding="utf-8") as errlog:
        session = Client.stdio(
            "--root", project, "--server", "basedpyright", "--server", "ruff", errlog=errlog
        )
        try:
            yield session
        finally:
            session.close()
    assert "Traceback" not in log.read_text(encoding="utf-8")


def by_code(items: list[dict[str, Any]], code: str) -> dict[str, Any]:
    [item] = [item for item in items if item["code"] == code]
    return item


# -- the tools as listed --------------------------------------------------------------------


def test_the_tools_are_listed_with_annotations_and_output_schemas(
    client: Client, project: Path
) -> None:
    assert client.initialized is not None
    instructions = client.initialized.instructions or ""
    assert str(project) in instructions
    assert "basedpyright, ruff" in instructions
    listed = {tool.name: tool for tool in client.list_tools().tools}
    assert set(listed) == TOOLS
    for name, tool in listed.items():
        hints = tool.annotations
        assert hints is not None, name
        shown = hints.model_dump(by_alias=True, exclude_none=True)
        if name in WRITING:
            assert shown == {"readOnlyHint": False, "destructiveHint": True}, name
        elif name == "restart":
            assert shown == {"readOnlyHint": False, "destructiveHint": False}
        else:
            assert shown == {"readOnlyHint": True, "openWorldHint": False}, name
        schema = tool.output_schema
        assert schema is not None, name
        assert schema["type"] == "object", name
        if name == "hover":
            assert set(schema["required"]) == {"markdown"}
        elif name in ("rename", "apply_rename", "format", "fix"):
            assert set(schema["required"]) == PLAN_KEYS, name
        elif name == "edit":
            assert set(schema["required"]) == PLAN_KEYS - {"edits"}
        else:
            assert set(schema["required"]) == LIST_KEYS, name
    location = listed["definition"].output_schema["$defs"]["LocationShape"]  # type: ignore[index]
    assert set(location["required"]) == {
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "text",
        "cell",
    }
    target = listed["references"].input_schema["properties"]["target"]["description"]
    for form in ("path:LINE:COL", "path#Class/method", "bare `Name`", "1-based", "code points"):
        assert form in target
    assert listed["references"].input_schema["required"] == ["target"]


# -- reading ---------------------------------------------------------------------------------


def test_diagnostics_merge_both_servers_field_by_field(client: Client) -> None:
    result = client.call("diagnostics", {"paths": ["app.py"]})
    found = structured(result)
    assert set(found) == LIST_KEYS
    assert found["complete"] is True
    assert found["reason"] is None
    assert found["truncated"] is False
    assert found["total"] == len(found["items"])
    items = found["items"]
    assert {item["server"] for item in items} == {"basedpyright", "ruff"}
    assert by_code(items, "F401") == {
        "path": "app.py",
        "line": 3,
        "column": 8,
        "end_line": 3,
        "end_column": 10,
        "text": "import os",
        "cell": None,
        "severity": "warning",
        "message": "`os` imported but unused\n\nhelp: Remove unused import: `os`",
        "source": "Ruff",
        "code": "F401",
        "server": "ruff",
    }
    undefined = by_code(items, "reportUndefinedVariable")
    assert undefined == {
        "path": "app.py",
        "line": 22,
        "column": 11,
        "end_line": 22,
        "end_column": 25,
        "text": "    print(undefined_name)",
        "cell": None,
        "severity": "error",
        "message": '"undefined_name" is not defined',
        "source": "basedpyright",
        "code": "reportUndefinedVariable",
        "server": "basedpyright",
    }
    assert by_code(items, "F821")["severity"] == "error"
    assert [item["line"] for item in items] == sorted(item["line"] for item in items)
    shown = text(result)
    assert "app.py:22:11: error: Undefined name `undefined_name` [F821] (ruff)" in shown
    assert "Final for the files' current text." in shown


def test_diagnostics_sized_by_severity_and_limit(client: Client) -> None:
    errors = structured(client.call("diagnostics", {"paths": ["app.py"], "min_severity": "error"}))
    assert {item["code"] for item in errors["items"]} == {"reportUndefinedVariable", "F821"}
    assert errors["total"] == 2
    cut = client.call("diagnostics", {"paths": ["app.py"], "limit": 1})
    found = structured(cut)
    assert found["truncated"] is True
    assert found["total"] == 5
    [kept] = found["items"]
    assert kept["severity"] == "error"  # the most severe are kept
    assert "Showing 1 of 5, the most severe first" in text(cut)


def test_diagnostics_of_the_whole_root_and_of_a_folder(client: Client, project: Path) -> None:
    whole = structured(client.call("diagnostics"))
    assert {item["path"] for item in whole["items"]} >= {"app.py"}
    assert whole["complete"] is True
    folder = structured(client.call("diagnostics", {"paths": ["."]}))
    assert folder["total"] == whole["total"]
    absolute = structured(client.call("diagnostics", {"paths": [str(project / "app.py")]}))
    assert absolute["total"] == 5


def test_symbols_as_a_tree(client: Client) -> None:
    top = structured(client.call("symbols", {"path": "app.py", "depth": 1}))
    assert [(s["kind"], s["name"]) for s in top["items"]] == [
        ("variable", "os"),
        ("class", "Greeter"),
        ("class", "Other"),
        ("function", "helper"),
        ("function", "main"),
    ] or [(s["kind"], s["name"]) for s in top["items"]] == [
        ("class", "Greeter"),
        ("class", "Other"),
        ("function", "helper"),
        ("function", "main"),
    ]
    assert all(s["children"] == [] for s in top["items"])
    tree = structured(client.call("symbols", {"path": "app.py"}))
    [greeter] = [s for s in tree["items"] if s["name"] == "Greeter"]
    assert greeter == {
        "name": "Greeter",
        "name_path": "Greeter",
        "kind": "class",
        "path": "app.py",
        "line": 6,
        "column": 7,
        "cell": None,
        "target": "app.py#Greeter",
        "children": [
            {
                "name": "greet",
                "name_path": "Greeter/greet",
                "kind": "method",
                "path": "app.py",
                "line": 7,
                "column": 9,
                "cell": None,
                "target": "app.py#Greeter/greet",
                "children": greeter["children"][0]["children"],
            }
        ],
    }
    # total counts every symbol of the tree, a class and each of its members one each.
    assert tree["total"] == count(tree["items"])
    assert tree["truncated"] is False
    assert tree["complete"] is True
    few = structured(client.call("symbols", {"path": "app.py", "limit": 2}))
    assert count(few["items"]) == 2
    assert few["total"] == tree["total"]
    assert few["truncated"] is True


def count(items: list[dict[str, Any]]) -> int:
    """Every symbol of a tree of symbol shapes, depth first."""
    return sum(1 + count(item["children"]) for item in items)


def test_find_symbol_gives_targets(client: Client) -> None:
    result = client.call("find_symbol", {"query": "greet"})
    found = structured(result)
    targets = {item["target"] for item in found["items"]}
    assert {"app.py#Greeter/greet", "app.py#Other/greet"} <= targets
    [method] = [item for item in found["items"] if item["target"] == "app.py#Other/greet"]
    assert method == {
        "name": "greet",
        "name_path": "Other/greet",
        "kind": "method",
        "path": "app.py",
        "line": 12,
        "column": 9,
        "cell": None,
        "children": [],
        "target": "app.py#Other/greet",
    }
    one = structured(client.call("find_symbol", {"query": "greet", "limit": 1}))
    assert len(one["items"]) == 1
    assert one["truncated"] is True
    assert one["total"] == found["total"]


def test_definition_of_a_position_in_code_points(client: Client) -> None:
    # Column 16 counts the emoji as one code point (UTF-16 would say 17).
    found = structured(client.call("definition", {"target": "app.py:21:16"}))
    assert found["items"] == [
        {
            "path": "app.py",
            "line": 16,
            "column": 5,
            "end_line": 16,
            "end_column": 11,
            "text": "def helper(x: int) -> int:",
            "cell": None,
        }
    ]
    assert (found["total"], found["truncated"], found["complete"]) == (1, False, True)
    across = structured(client.call("definition", {"target": "util.py:5:12"}))
    assert [(item["path"], item["line"]) for item in across["items"]] == [("app.py", 16)]


def test_hover_by_name_path(client: Client) -> None:
    found = structured(client.call("hover", {"target": "app.py#helper"}))
    assert set(found) == {"markdown"}
    assert "def helper(x: int) -> int" in found["markdown"]


def test_references_with_containers_and_context(client: Client) -> None:
    result = client.call("references", {"target": "app.py#helper", "context": 1})
    found = structured(result)
    places = [(item["path"], item["line"], item["column"]) for item in found["items"]]
    assert places == [
        ("app.py", 21, 16),
        ("util.py", 1, 17),
        ("util.py", 5, 12),
        ("util.py", 5, 19),
    ]
    first = found["items"][0]
    assert first == {
        "path": "app.py",
        "line": 21,
        "column": 16,
        "end_line": 21,
        "end_column": 22,
        "text": '    print("😀", helper(1), Greeter().greet("a"))',
        "cell": None,
        "container": "main",
        "context": [
            "def main() -> None:",
            '    print("😀", helper(1), Greeter().greet("a"))',
            "    print(undefined_name)",
        ],
    }
    assert found["items"][2]["container"] == "twice"
    plain = structured(client.call("references", {"target": "app.py#helper", "limit": 2}))
    assert "context" not in plain["items"][0]
    assert (len(plain["items"]), plain["total"], plain["truncated"]) == (2, 4, True)
    declared = structured(
        client.call("references", {"target": "app.py#helper", "include_declaration": True})
    )
    assert declared["total"] == 5
    assert "app.py:21:16 in main:" in text(result)


def test_progress_of_the_servers_is_forwarded(client: Client) -> None:
    progress: list[tuple[float, float | None, str | None]] = []
    result = client.call("references", {"target": "app.py#Greeter/greet"}, progress=progress)
    assert not result.is_error, text(result)
    assert progress, "no progress notification came"
    values = [value for value, _total, _message in progress]
    assert values == sorted(values)
    assert len(set(values)) == len(values)
    assert all((message or "").startswith("basedpyright: ") for _v, _t, message in progress)


# -- errors: tool errors, and the next call is served -------------------------------------------


def test_a_target_that_matches_several_lists_them_as_targets(client: Client) -> None:
    result = client.call("hover", {"target": "greet"})
    assert result.is_error
    message = text(result)
    assert "'greet' matches 2 symbols" in message
    assert "app.py#Greeter/greet" in message
    assert "app.py#Other/greet" in message
    # One of the candidates, as listed, is a target that works.
    again = structured(client.call("hover", {"target": "app.py#Other/greet"}))
    assert "(method) def greet(self" in again["markdown"]


@pytest.mark.parametrize(
    ("tool", "arguments", "said"),
    [
        ("hover", {"target": "no_such_name"}, "no symbol named no_such_name"),
        ("definition", {"target": "app.py#Nope"}, "Nope"),
        ("hover", {"target": "/etc/hostname:1"}, "is outside the workspace root"),
        ("symbols", {"path": "../elsewhere.py"}, "is outside the workspace root"),
        ("diagnostics", {"paths": ["/etc"]}, "is outside the workspace root"),
        ("hover", {"target": "app.py:99:1"}, "app.py has 22 lines"),
        ("hover", {"target": "app.py"}, "it names a file"),
        ("symbols", {"path": "missing.py"}, "missing.py is not a file"),
        ("restart", {"server": "pyright"}, "no server 'pyright' has been started here"),
        ("rename", {"target": "app.py#helper", "new_name": ""}, "new_name"),
    ],
)
def test_errors_are_tool_errors_and_the_server_goes_on(
    client: Client, tool: str, arguments: dict[str, Any], said: str
) -> None:
    result = client.call(tool, arguments)
    assert result.is_error
    assert said in text(result)
    assert result.structured_content is None
    after = structured(client.call("hover", {"target": "app.py#helper"}))
    assert after["markdown"]


# -- edits -------------------------------------------------------------------------------------


def test_rename_previews_and_writes_nothing(client: Client, project: Path) -> None:
    before = {path.name: path.read_bytes() for path in project.glob("*.py")}
    result = client.call("rename", {"target": "names.py#old_name", "new_name": "fresh"})
    plan = structured(result)
    assert plan["applied"] is False
    assert plan["introduced"] == []
    assert plan["resolved"] == []
    assert plan["changed_files"] == ["names.py"]
    assert plan["edits"] == {"names.py": 2}
    assert plan["diff"].startswith("diff --git a/names.py b/names.py\n")
    assert "-def old_name() -> int:\n+def fresh() -> int:\n" in plan["diff"]
    assert "+    return fresh() + taken()\n" in plan["diff"]
    assert {path.name: path.read_bytes() for path in project.glob("*.py")} == before
    assert "Nothing was written; apply_rename writes it." in text(result)


def test_apply_rename_writes_and_says_what_it_introduced(client: Client, project: Path) -> None:
    result = client.call("apply_rename", {"target": "names.py#old_name", "new_name": "taken"})
    plan = structured(result)
    assert plan["applied"] is True
    assert plan["changed_files"] == ["names.py"]
    assert plan["edits"] == {"names.py": 2}
    written = (project / "names.py").read_text(encoding="utf-8")
    assert written.startswith("def taken() -> int:\n    return 1\n")
    assert "return taken() + taken()" in written
    codes = {(item["server"], item["code"]) for item in plan["introduced"]}
    assert codes == {("basedpyright", "reportRedeclaration"), ("ruff", "F811")}
    f811 = by_code(plan["introduced"], "F811")
    assert (f811["path"], f811["line"], f811["text"]) == ("names.py", 5, "def taken() -> int:")
    assert plan["resolved"] == []
    assert "It introduced 2 diagnostics:" in text(result)
    # The same rename again: old_name is gone, nothing is written.
    again = client.call("apply_rename", {"target": "names.py#old_name", "new_name": "taken"})
    assert again.is_error
    assert "old_name" in text(again)


def test_a_file_edited_behind_the_servers_back_is_seen(client: Client, project: Path) -> None:
    edited = project / "edited.py"
    edited.write_text('value: int = "text"\n', encoding="utf-8")
    first = structured(client.call("diagnostics", {"paths": ["edited.py"]}))
    assert [item["code"] for item in first["items"]] == ["reportAssignmentType"]
    edited.write_text("value: int = 1\nother: str = 2\n", encoding="utf-8")
    second = structured(client.call("diagnostics", {"paths": ["edited.py"]}))
    assert [(item["line"], item["code"]) for item in second["items"]] == [
        (2, "reportAssignmentType")
    ]
    assert second["items"][0]["text"] == "other: str = 2"
    outline = structured(client.call("symbols", {"path": "edited.py"}))
    assert [item["name"] for item in outline["items"]] == ["value", "other"]


def test_restart_gives_each_servers_status(client: Client) -> None:
    before = structured(client.call("restart", {"server": "ruff"}))
    [ruff] = before["items"]
    assert set(ruff) == {"id", "pid", "state", "restarts", "rss_bytes"}
    assert ruff["id"] == "ruff"
    assert ruff["state"] == "running"
    assert ruff["restarts"] >= 1
    every = structured(client.call("restart"))
    assert sorted(item["id"] for item in every["items"]) == ["basedpyright", "ruff"]
    assert all(isinstance(item["pid"], int) for item in every["items"])
    assert every["total"] == 2
    assert every["complete"] is True
    after = structured(client.call("diagnostics", {"paths": ["app.py"]}))
    assert after["total"] == 5
