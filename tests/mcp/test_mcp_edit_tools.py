"""The tools that change files and the navigation tools, driven by the MCP SDK's own client.

``edit`` (by replacements and by symbol, written and previewed), ``format`` and ``fix`` (with
ruff), ``apply_rename``'s resolved findings, ``callers``, ``callees``, ``implementation`` and
``type_definition`` against basedpyright and ruff; a write whose check afterwards runs out
of time, and a file changed on disk during an edit, against a server that never answers.
Every structured result is checked against its tool's declared ``outputSchema``.
"""

from __future__ import annotations

import importlib
import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from tests.integration.conftest import find_server

from .harness import Client, structured, text

pytestmark = pytest.mark.real_server

# jsonschema (a dependency of the SDK) ships no type hints: load it untyped.
jsonschema: Any = importlib.import_module("jsonschema")

SILENT = Path(__file__).with_name("silent_lsp.py")

LIB = """from typing import Protocol


class Shape(Protocol):
    def area(self) -> float: ...


class Square:
    def area(self) -> float:
        return 4.0


def helper(x: int) -> int:
    return x + 1


def make() -> Square:
    return Square()
"""

USE = """from lib import helper, make


def run() -> float:
    square = make()
    return helper(1) + square.area()
"""

API = """def greet(name: str) -> str:
    return "Hello, " + name
"""

CALLER = """from {module} import greet

print(greet("you"))
"""

DUP = """first = 0
second = 1
first = 0
"""

BLOCKS = """import os


def first() -> int:
    return 1


def second() -> int:
    return 2
"""

FIXME = """def fn() -> int:
    return 1


def use() -> int:
    return fnn()
"""

SIGNATURE = [
    {"old": "def greet(name: str) -> str:", "new": "def greet(name: str, mark: str) -> str:"},
    {"old": '"Hello, " + name', "new": '"Hello, " + name + mark'},
]

EDIT_KEYS = {
    "diff",
    "changed_files",
    "applied",
    "introduced",
    "resolved",
    "complete",
    "reason",
    "checked",
    "not_reached",
}


class Checked:
    """A client whose every structured result is checked against the tool's outputSchema."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.schemas = {tool.name: tool.output_schema for tool in client.list_tools().tools}

    def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        result = self.client.call(name, arguments)
        if not result.is_error:
            schema = self.schemas[name]
            assert schema is not None, name
            jsonschema.validate(result.structured_content, schema)
        return result

    def ok(self, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
        result = self.call(name, arguments)
        return structured(result), text(result)


def write(root: Path, files: dict[str, str]) -> Path:
    for name, content in files.items():
        (root / name).write_text(content, encoding="utf-8")
    return root.resolve()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(
        tmp_path_factory.mktemp("mcp-edits"),
        {
            "lib.py": LIB,
            "use.py": USE,
            "api.py": API,
            "caller.py": CALLER.format(module="api"),
            "api_preview.py": API,
            "caller_preview.py": CALLER.format(module="api_preview"),
            "dup.py": DUP,
            "blocks.py": BLOCKS,
            "fixme.py": FIXME,
            "pyproject.toml": '[project]\nname = "mcp-edits"\nversion = "0"\n',
        },
    )


@pytest.fixture(scope="module")
def client(project: Path) -> Iterator[Checked]:
    find_server("basedpyright-langserver")
    find_server("ruff")
    session = Client.stdio("--root", project, "--server", "basedpyright", "--server", "ruff")
    try:
        yield Checked(session)
    finally:
        session.close()


@pytest.fixture(scope="module")
def ruff_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(
        tmp_path_factory.mktemp("mcp-ruff"),
        {
            "fmt.py": "values = [1,2,  3]\n",
            "fix.py": "import os\n\nvalue = 1\n",
            "pyproject.toml": '[project]\nname = "mcp-ruff"\nversion = "0"\n',
        },
    )


@pytest.fixture(scope="module")
def ruff(ruff_project: Path) -> Iterator[Checked]:
    find_server("ruff")
    session = Client.stdio("--root", ruff_project, "--server", "ruff")
    try:
        yield Checked(session)
    finally:
        session.close()


def codes(items: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {(item["path"], item["server"], item["code"]) for item in items}


# -- the tools as listed --------------------------------------------------------------------


def test_the_new_tools_are_listed_with_their_annotations_and_schemas(client: Checked) -> None:
    listed = {tool.name: tool for tool in client.client.list_tools().tools}
    for name in ("edit", "format", "fix"):
        hints = listed[name].annotations
        assert hints is not None
        assert hints.model_dump(by_alias=True, exclude_none=True) == {
            "readOnlyHint": False,
            "destructiveHint": True,
        }
    for name in ("callers", "callees", "implementation", "type_definition"):
        hints = listed[name].annotations
        assert hints is not None
        assert hints.model_dump(by_alias=True, exclude_none=True) == {
            "readOnlyHint": True,
            "openWorldHint": False,
        }
        tool = listed[name]
        assert tool.output_schema is not None
        assert set(tool.output_schema["required"]) == {
            "items",
            "total",
            "truncated",
            "complete",
            "reason",
        }
        assert tool.input_schema["required"] == ["target"]
        assert set(tool.input_schema["properties"]) >= {"target", "limit"}
    edit = listed["edit"]
    assert edit.output_schema is not None
    assert set(edit.output_schema["required"]) == EDIT_KEYS
    assert edit.input_schema["required"] == ["path"]
    arguments = edit.input_schema["properties"]
    assert {"path", "edits", "target", "new", "write"} <= set(arguments)
    assert arguments["write"]["default"] is True
    assert "exactly once" in arguments["edits"]["description"]
    for name in ("format", "fix"):
        tool = listed[name]
        assert tool.input_schema["properties"]["write"]["default"] is False
        assert "resolved" in tool.output_schema["required"]  # type: ignore[index]


# -- navigation -------------------------------------------------------------------------------


def test_callers_are_listed_at_their_names(client: Checked) -> None:
    found, shown = client.ok("callers", {"target": "lib.py#helper"})
    assert found["items"] == [
        {
            "path": "use.py",
            "line": 4,
            "column": 5,
            "end_line": 4,
            "end_column": 8,
            "text": "def run() -> float:",
            "cell": None,
        }
    ]
    assert (found["total"], found["truncated"], found["complete"]) == (1, False, True)
    assert "use.py:4:5: def run() -> float:" in shown


def test_callees_are_listed_at_their_names_and_capped(client: Checked) -> None:
    found, _shown = client.ok("callees", {"target": "use.py#run"})
    assert [
        (item["path"], item["line"], item["column"], item["text"]) for item in found["items"]
    ] == [
        ("lib.py", 9, 9, "    def area(self) -> float:"),
        ("lib.py", 13, 5, "def helper(x: int) -> int:"),
        ("lib.py", 17, 5, "def make() -> Square:"),
    ]
    one, _shown = client.ok("callees", {"target": "use.py#run", "limit": 1})
    assert (len(one["items"]), one["total"], one["truncated"]) == (1, 3, True)


def test_implementation_and_type_definition(client: Checked) -> None:
    found, _shown = client.ok("implementation", {"target": "lib.py#Shape/area"})
    places = [(item["path"], item["line"], item["text"]) for item in found["items"]]
    assert ("lib.py", 9, "    def area(self) -> float:") in places
    typed, shown = client.ok("type_definition", {"target": "use.py:5:5"})
    assert [(item["path"], item["line"], item["column"]) for item in typed["items"]] == [
        ("lib.py", 8, 7)
    ]
    assert typed["items"][0]["text"] == "class Square:"
    assert "lib.py:8:7: class Square:" in shown


# -- edit -------------------------------------------------------------------------------------


def test_an_edit_previewed_writes_nothing_and_says_what_it_would_break(
    client: Checked, project: Path
) -> None:
    # The caller is open once something looked at it: the edit's check covers it.
    opened, _shown = client.ok("diagnostics", {"paths": ["caller_preview.py"]})
    assert [item for item in opened["items"] if item["severity"] == "error"] == []
    edited = project / "api_preview.py"
    before = (edited.read_bytes(), edited.stat().st_mtime_ns)
    found, shown = client.ok("edit", {"path": "api_preview.py", "edits": SIGNATURE, "write": False})
    assert found["applied"] is False
    assert found["complete"] is True
    assert found["reason"] is None
    assert found["changed_files"] == ["api_preview.py"]
    assert found["diff"].startswith("diff --git a/api_preview.py b/api_preview.py\n")
    assert "+def greet(name: str, mark: str) -> str:\n" in found["diff"]
    [broken] = [item for item in found["introduced"] if item["code"] == "reportCallIssue"]
    assert broken["path"] == "caller_preview.py"
    assert (broken["line"], broken["severity"]) == (3, "error")
    assert broken["text"] == 'print(greet("you"))'
    assert 'Argument missing for parameter "mark"' in broken["message"]
    assert (edited.read_bytes(), edited.stat().st_mtime_ns) == before
    assert "Nothing was written (write: false)" in shown
    assert "caller_preview.py:3:7: error: Argument missing" in shown
    # The servers have the text on disk again: the caller is fine.
    after, _shown = client.ok("diagnostics", {"paths": ["caller_preview.py"]})
    assert [item for item in after["items"] if item["severity"] == "error"] == []


def test_an_edit_written_names_what_it_broke_in_another_open_file(
    client: Checked, project: Path
) -> None:
    opened, _shown = client.ok("diagnostics", {"paths": ["caller.py"]})
    assert [item for item in opened["items"] if item["severity"] == "error"] == []
    found, shown = client.ok("edit", {"path": "api.py", "edits": SIGNATURE})
    assert found["applied"] is True
    assert (found["complete"], found["reason"]) == (True, None)
    assert found["changed_files"] == ["api.py"]
    assert (project / "api.py").read_text(encoding="utf-8") == (
        'def greet(name: str, mark: str) -> str:\n    return "Hello, " + name + mark\n'
    )
    assert ("caller.py", "basedpyright", "reportCallIssue") in codes(found["introduced"])
    assert not [item for item in found["introduced"] if item["path"] == "api.py"]
    assert found["resolved"] == []
    assert "Wrote api.py." in shown
    assert "It introduced" in shown
    assert "caller.py:3:7: error: Argument missing for parameter" in shown
    # What the diagnostics tool says now agrees.
    now, _shown = client.ok("diagnostics", {"paths": ["caller.py"], "min_severity": "error"})
    assert [item["code"] for item in now["items"]] == ["reportCallIssue"]


def test_an_old_text_found_twice_is_an_error_and_nothing_changes(
    client: Checked, project: Path
) -> None:
    before = (project / "dup.py").read_bytes()
    result = client.call("edit", {"path": "dup.py", "edits": [{"old": "first = 0", "new": "x"}]})
    assert result.is_error
    message = text(result)
    assert "'first = 0' occurs 2 times in dup.py (at lines 1, 3)" in message
    assert "nothing was changed" in message
    assert (project / "dup.py").read_bytes() == before
    # All or none: a first replacement that would do is not written when a later one fails.
    later = client.call(
        "edit",
        {
            "path": "dup.py",
            "edits": [{"old": "second = 1", "new": "second = 2"}, {"old": "third", "new": "x"}],
        },
    )
    assert later.is_error
    assert "edits[1]: the old text 'third' does not occur in dup.py" in text(later)
    assert (project / "dup.py").read_bytes() == before


def test_an_old_text_not_found_or_a_change_of_nothing_is_an_error(
    client: Checked, project: Path
) -> None:
    before = (project / "dup.py").read_bytes()
    missing = client.call("edit", {"path": "dup.py", "edits": [{"old": "third = 2", "new": "x"}]})
    assert missing.is_error
    assert "edits[0]: the old text 'third = 2' does not occur in dup.py" in text(missing)
    same = client.call(
        "edit", {"path": "dup.py", "edits": [{"old": "second = 1", "new": "second = 1"}]}
    )
    assert same.is_error
    assert "the edit changes nothing" in text(same)
    neither = client.call("edit", {"path": "dup.py"})
    assert neither.is_error
    assert "give edits" in text(neither)
    assert (project / "dup.py").read_bytes() == before


def test_an_edit_by_symbol_replaces_its_whole_lines(client: Checked, project: Path) -> None:
    found, shown = client.ok(
        "edit",
        {
            "path": "blocks.py",
            "target": "blocks.py#first",
            "new": "def first() -> int:\n    return 10",
        },
    )
    assert found["applied"] is True
    assert (project / "blocks.py").read_text(encoding="utf-8") == BLOCKS.replace(
        "return 1\n", "return 10\n"
    )
    assert "-    return 1\n+    return 10\n" in found["diff"]
    assert found["introduced"] == []
    assert "It introduced no diagnostics." in shown
    elsewhere = client.call(
        "edit", {"path": "blocks.py", "target": "lib.py#helper", "new": "def helper(): ..."}
    )
    assert elsewhere.is_error
    assert "lib.py#helper names function helper of lib.py, not of blocks.py" in text(elsewhere)


def test_apply_rename_says_what_it_resolved(client: Checked) -> None:
    found, shown = client.ok("apply_rename", {"target": "fixme.py#fn", "new_name": "fnn"})
    assert found["applied"] is True
    assert found["introduced"] == []
    resolved = codes(found["resolved"])
    assert {
        ("fixme.py", "basedpyright", "reportUndefinedVariable"),
        ("fixme.py", "ruff", "F821"),
    } <= resolved
    f821 = next(item for item in found["resolved"] if item["code"] == "F821")
    assert (f821["line"], f821["text"]) == (6, "    return fnn()")
    assert "It resolved" in shown


# -- format and fix (ruff) ------------------------------------------------------------------------


def test_format_previews_every_file_of_the_root(ruff: Checked, ruff_project: Path) -> None:
    before = (ruff_project / "fmt.py").read_bytes()
    found, shown = ruff.ok("format", {})
    assert found["applied"] is False
    assert found["changed_files"] == ["fmt.py"]
    assert found["edits"] == {"fmt.py": 1}
    assert "-values = [1,2,  3]\n+values = [1, 2, 3]\n" in found["diff"]
    assert (found["introduced"], found["resolved"]) == ([], [])
    assert "Nothing was written; call format again with write: true to write it." in shown
    assert (ruff_project / "fmt.py").read_bytes() == before


def test_format_writes_and_then_has_nothing_to_change(ruff: Checked, ruff_project: Path) -> None:
    found, shown = ruff.ok("format", {"paths": ["fmt.py"], "write": True})
    assert found["applied"] is True
    assert (found["complete"], found["reason"]) == (True, None)
    assert found["changed_files"] == ["fmt.py"]
    assert (ruff_project / "fmt.py").read_text(encoding="utf-8") == "values = [1, 2, 3]\n"
    assert "Wrote 1 file (1 edit): fmt.py." in shown
    again, shown = ruff.ok("format", {"paths": ["fmt.py"], "write": True})
    assert again["applied"] is False
    assert (again["diff"], again["changed_files"], again["edits"]) == ("", [], {})
    assert "Nothing to change" in shown


def test_fix_previews_then_writes_and_says_what_it_resolved(
    ruff: Checked, ruff_project: Path
) -> None:
    fixed = ruff_project / "fix.py"
    before = (fixed.read_bytes(), fixed.stat().st_mtime_ns)
    preview, shown = ruff.ok("fix", {"paths": ["fix.py"]})
    assert preview["applied"] is False
    assert preview["changed_files"] == ["fix.py"]
    assert "-import os\n" in preview["diff"]
    assert "call fix again with write: true" in shown
    assert (fixed.read_bytes(), fixed.stat().st_mtime_ns) == before
    found, shown = ruff.ok("fix", {"paths": ["fix.py"], "write": True})
    assert found["applied"] is True
    assert "import os" not in fixed.read_text(encoding="utf-8")
    [unused] = [item for item in found["resolved"] if item["code"] == "F401"]
    assert (unused["line"], unused["text"]) == (1, "import os")  # its line before the fix
    assert found["introduced"] == []
    assert "It resolved 1 diagnostic:" in shown
    nothing, shown = ruff.ok("fix", {"paths": ["fix.py"], "write": True})
    assert (nothing["applied"], nothing["diff"]) == (False, "")
    assert "Nothing to fix" in shown


# -- a server that never answers ------------------------------------------------------------------


def silent_root(root: Path) -> Path:
    command = json.dumps([sys.executable, str(SILENT)])
    return write(
        root,
        {
            "app.py": "def main() -> None:\n    print(undefined)\n",
            "adecore-lsp.toml": 'servers = ["silent"]\n[server.silent]\n'
            f"command = {command}\n"
            'languages = { ".py" = "python" }\n',
        },
    )


def test_a_write_whose_check_did_not_finish_says_it_was_written(tmp_path: Path) -> None:
    root = silent_root(tmp_path)
    session = Client.stdio("--root", root, "--timeout", "2", "--trust")
    try:
        client = Checked(session)
        warm = client.call("diagnostics", {"paths": ["app.py"]})
        assert structured(warm)["complete"] is False
        found, shown = client.ok(
            "edit", {"path": "app.py", "edits": [{"old": "undefined", "new": "1"}]}
        )
        assert found["applied"] is True
        assert found["complete"] is False
        assert found["reason"] == "timeout"
        assert found["introduced"] == []
        assert (root / "app.py").read_text(encoding="utf-8") == (
            "def main() -> None:\n    print(1)\n"
        )
        assert "Wrote app.py." in shown
        assert "the write succeeded and stands (do not write it again)" in shown
        assert "ask again" not in shown
        assert "It introduced no diagnostics." not in shown
    finally:
        session.close()


def test_an_edit_of_a_file_changed_on_disk_meanwhile_is_refused(tmp_path: Path) -> None:
    root = silent_root(tmp_path)
    session = Client.stdio("--root", root, "--timeout", "2", "--trust")
    try:
        session.call("diagnostics", {"paths": ["app.py"]})  # the server is warm
        answers: list[types.CallToolResult] = []
        call = threading.Thread(
            target=lambda: answers.append(
                session.call(
                    "edit", {"path": "app.py", "edits": [{"old": "undefined", "new": "1"}]}
                )
            )
        )
        call.start()
        # While the edit waits for the diagnostics before it, someone else writes the file.
        time.sleep(0.8)
        foreign = "def main() -> None:\n    print('someone else')\n"
        (root / "app.py").write_text(foreign, encoding="utf-8")
        call.join(30)
        [result] = answers
        assert result.is_error
        assert "nothing was written: app.py changed on disk" in text(result)
        assert (root / "app.py").read_text(encoding="utf-8") == foreign
    finally:
        session.close()
