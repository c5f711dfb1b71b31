"""A caller in a file the session never opened, broken by MCP ``edit`` and by ``apply_rename``
of its callee's module, found and named: the edit's affected set is the edited file and the
files that depend on it (the import graph for Python and TypeScript, the server's references
for Go), opened for the question. Against basedpyright, ty, typescript-language-server and
gopls; ruff, which declares that its findings depend on no other file, is asked about the
edited file alone."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import NPM_BIN, need

from .harness import Client, structured

pytestmark = pytest.mark.real_server

PYTHON = {
    "lib.py": "def area(width: int, height: int) -> int:\n    return width * height\n",
    "app.py": (
        "from lib import area\n\n\ndef helper() -> int:\n    return 0\n\n\nsize: int = area(2, 3)\n"
    ),
    "alone.py": "x: int = 1\n",
}
PYTHON_EDIT = {"old": "-> int:\n    return width", "new": "-> str:\n    return str(width"}
PYTHON_EDIT_TAIL = {"old": "height\n", "new": "height)\n"}

TYPESCRIPT = {
    "tsconfig.json": '{"compilerOptions": {"strict": true, "noEmit": true}}\n',
    "lib.ts": "export function area(width: number, height: number): number {\n"
    "  return width * height;\n}\n",
    "app.ts": 'import { area } from "./lib";\n\nfunction helper(): number {\n  return 0;\n}\n\n'
    "export const size: number = area(2, 3) + helper();\n",
}
TYPESCRIPT_EDIT = [
    {"old": "): number {\n  return width * height;", "new": "): string {\n  return `${width}`;"}
]

GO = {
    "go.mod": "module example.com/demo\n\ngo 1.21\n",
    "lib/lib.go": "package lib\n\n// Area is the area.\nfunc Area(width, height int) int {\n"
    "\treturn width * height\n}\n",
    "main.go": 'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/demo/lib"\n)\n\n'
    "func main() {\n\tvar size int = lib.Area(2, 3)\n\tfmt.Println(size)\n}\n",
}
GO_EDIT = [
    {"old": "package lib\n", "new": 'package lib\n\nimport "strconv"\n'},
    {
        "old": "int) int {\n\treturn width * height",
        "new": "int) string {\n\treturn strconv.Itoa(width)",
    },
]


@pytest.fixture
def typescript_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    need("typescript-language-server")
    monkeypatch.setenv("PATH", os.pathsep.join([str(NPM_BIN), os.environ.get("PATH", "")]))


def project(base: Path, files: dict[str, str]) -> Path:
    root = base / "project"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Client, Path]]:
    server, files = request.param
    need(server)
    if server == "typescript-language-server":
        request.getfixturevalue("typescript_on_path")
    root = project(tmp_path, files)
    session = Client.stdio("--root", root, "--trust", "--server", server, "--timeout", "60")
    try:
        yield session, root
    finally:
        session.close()


def introduced_in(found: dict[str, Any], path: str) -> list[dict[str, Any]]:
    return [item for item in found["introduced"] if item["path"] == path]


@pytest.mark.parametrize(
    ("client", "edits", "caller"),
    [
        (("basedpyright", PYTHON), [PYTHON_EDIT, PYTHON_EDIT_TAIL], "app.py"),
        (("ty", PYTHON), [PYTHON_EDIT, PYTHON_EDIT_TAIL], "app.py"),
        (("typescript-language-server", TYPESCRIPT), TYPESCRIPT_EDIT, "app.ts"),
        (("gopls", GO), GO_EDIT, "main.go"),
    ],
    indirect=["client"],
    ids=["basedpyright", "ty", "typescript-language-server", "gopls"],
)
def test_an_edit_names_the_caller_it_broke_in_a_file_never_opened(
    client: tuple[Client, Path], edits: list[dict[str, str]], caller: str
) -> None:
    session, _root = client
    edited = "lib/lib.go" if caller == "main.go" else "lib." + caller.rsplit(".", 1)[1]
    found = structured(session.call("edit", {"path": edited, "edits": edits}))
    assert (found["applied"], found["complete"], found["not_reached"]) == (True, True, [])
    assert caller in found["checked"]
    broken = introduced_in(found, caller)
    assert broken, found
    assert all(item["severity"] == "error" for item in broken)
    # Undone: the caller's error is resolved, and nothing else is said of it.
    back = [{"old": edit["new"], "new": edit["old"]} for edit in reversed(edits)]
    undone = structured(session.call("edit", {"path": edited, "edits": back}))
    assert undone["introduced"] == []
    assert [item["path"] for item in undone["resolved"]].count(caller) == len(broken)


@pytest.mark.parametrize(
    ("client", "target", "caller"),
    [
        (("basedpyright", PYTHON), "lib.py#area", "app.py"),
        (("ty", PYTHON), "lib.py#area", "app.py"),
        (("typescript-language-server", TYPESCRIPT), "lib.ts#area", "app.ts"),
    ],
    indirect=["client"],
    ids=["basedpyright", "ty", "typescript-language-server"],
)
def test_a_rename_names_the_caller_it_broke_in_a_file_never_opened(
    client: tuple[Client, Path], target: str, caller: str
) -> None:
    """Renamed to the name of a function the caller defines itself: every use is renamed,
    and the caller's own function now clashes with what it imports."""
    session, _root = client
    found = structured(session.call("apply_rename", {"target": target, "new_name": "helper"}))
    assert (found["applied"], found["complete"]) == (True, True)
    assert caller in found["changed_files"]
    assert caller in found["checked"]
    assert introduced_in(found, caller), found


@pytest.mark.parametrize("client", [("gopls", GO)], indirect=True, ids=["gopls"])
def test_a_go_rename_checks_the_callers_its_server_found(client: tuple[Client, Path]) -> None:
    """gopls refuses a rename that would clash; one it makes is checked where the renamed
    function is used (its references), and breaks nothing."""
    session, _root = client
    found = structured(
        session.call("apply_rename", {"target": "lib/lib.go#Area", "new_name": "Size"})
    )
    assert (found["applied"], found["complete"], found["introduced"]) == (True, True, [])
    assert set(found["checked"]) >= {"lib/lib.go", "main.go"}


@pytest.mark.parametrize("client", [("ruff", PYTHON)], indirect=True, ids=["ruff"])
def test_ruff_is_asked_about_the_edited_file_alone(client: tuple[Client, Path]) -> None:
    """ruff declares ``interFileDependencies: false``: its findings in app.py cannot change
    with lib.py, so only lib.py is checked (its new finding named)."""
    session, _root = client
    edit = {"old": "def area", "new": "import os\n\n\ndef area"}
    found = structured(session.call("edit", {"path": "lib.py", "edits": [edit]}))
    assert (found["applied"], found["complete"]) == (True, True)
    assert found["checked"] == ["lib.py"]
    assert [(item["path"], item["code"]) for item in found["introduced"]] == [("lib.py", "F401")]


@pytest.mark.parametrize("client", [("gopls", GO)], indirect=True, ids=["gopls"])
def test_an_edit_outside_every_symbol_checks_the_whole_root(client: tuple[Client, Path]) -> None:
    """An edit that touches no top-level symbol (a comment between them, here the package's
    own): what depends on it cannot be known from references, so every file of the root
    its server takes is checked."""
    session, _root = client
    edit = {"old": "package lib\n", "new": "// Package lib is a library.\npackage lib\n"}
    found = structured(session.call("edit", {"path": "lib/lib.go", "edits": [edit]}))
    assert (found["applied"], found["complete"], found["introduced"]) == (True, True, [])
    assert {"lib/lib.go", "main.go"} <= set(found["checked"])
