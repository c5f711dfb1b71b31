"""The command line on trees as a newcomer meets them: folders and the current folder as
paths, paths shown where they work, runs that check nothing, files that are not UTF-8, outlines
filtered by kind, search hits that are targets, messages in words, versions, exit statuses.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.workspace.test_scripted import SCRIPT as SCRIPTED_SERVER

from .conftest import need, no_traceback, run, write

pytestmark = pytest.mark.real_server

SCRIPTED = f"{sys.executable} {SCRIPTED_SERVER}"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A project with a package below the root, a file that is not UTF-8, and a folder of
    nothing a server takes."""
    root = write(
        tmp_path / "proj",
        {
            "pyproject.toml": '[project]\nname = "proj"\n',
            "top.py": "import sys\n",
            "src/pkg/__init__.py": "",
            "src/pkg/core.py": "import os\n\n\ndef run() -> None:\n    pass\n",
            "docs/index.md": "# Docs\n",
        },
    )
    (root / "src" / "pkg" / "latin.py").write_bytes("name = 'café'\n".encode("latin-1"))
    return root


def test_check_takes_folders_and_the_current_folder(tree: Path) -> None:
    need("ruff")
    folder = run("check", "--server", "ruff", "src/pkg", cwd=tree)
    assert folder.status == 3, folder.err  # latin.py is not UTF-8: not checked, said so
    assert "src/pkg/core.py:1:8: warning: `os` imported but unused" in folder.out
    assert "top.py" not in folder.out
    assert "incomplete: diagnostics not final (not UTF-8): src/pkg/latin.py" in folder.err
    # In a subfolder, a plain check covers that folder, paths relative to it in text ...
    here = run("check", "--server", "ruff", cwd=tree / "src")
    assert here.status == 3
    assert here.out.startswith("pkg/core.py:1:8: warning:")
    assert "top.py" not in here.out
    assert "pkg/latin.py" in here.err
    # ... and relative to the root in the machine formats.
    machine = run("check", "--server", "ruff", "--format", "json", ".", cwd=tree / "src")
    document = json.loads(machine.out)
    assert [d["path"] for d in document["diagnostics"]] == ["src/pkg/core.py"]
    assert document["files"]["src/pkg/latin.py"] == {"complete": False, "reason": "not_utf8"}
    whole = run("check", "--server", "ruff", ".", cwd=tree)
    assert "top.py:1:8:" in whole.out
    assert "src/pkg/core.py:1:8:" in whole.out
    no_traceback(whole)


def test_a_run_that_checks_nothing_exits_2_saying_why(tree: Path) -> None:
    need("ruff")
    empty = run("check", "--server", "ruff", "docs", cwd=tree)
    assert empty.status == 2
    assert "nothing to check: docs has no file that an installed language server takes" in (
        empty.err
    )
    assert empty.out == ""
    named = run("check", "--server", "ruff", "docs/index.md", cwd=tree)
    assert named.status == 2
    fixed = run("fix", "--server", "ruff", "docs", cwd=tree)
    assert fixed.status == 2, fixed.err
    assert "nothing to check" in fixed.err
    # ruff formats Markdown (its Python code blocks), as `ruff format docs` does: none here.
    formatted = run("format", "--server", "ruff", "docs", cwd=tree)
    assert formatted.status == 0, formatted.err
    assert formatted.err == "0 files would change\n"


def test_format_and_fix_take_folders(tree: Path) -> None:
    need("ruff")
    write(tree, {"src/pkg/ugly.py": "x  =  1\n"})
    formatted = run("format", "--server", "ruff", "src", cwd=tree)
    assert formatted.status == 3  # latin.py is left alone, said so
    assert "+++ b/src/pkg/ugly.py" in formatted.out
    assert "left as they are (not UTF-8): src/pkg/latin.py" in formatted.err
    fixed = run("fix", "--server", "ruff", "src/pkg/core.py", cwd=tree)
    assert fixed.status == 0, fixed.err
    assert "-import os" in fixed.out


def test_symbols_kind_keeps_the_containers(tmp_path: Path) -> None:
    need("basedpyright")
    root = write(
        tmp_path / "proj",
        {
            "app.py": (
                "X = 1\n\n\nclass A:\n    y = 2\n\n    def one(self) -> None:\n        pass\n\n\n"
                "class B:\n    z = 3\n\n\ndef free() -> None:\n    pass\n"
            )
        },
    )
    ran = run("symbols", "app.py", "--kind", "method", "--server", "basedpyright", cwd=root)
    assert ran.status == 0, ran.err
    assert ran.out.splitlines() == ["class A  4", "  method one  7"]
    data = json.loads(
        run(
            "symbols",
            "app.py",
            "--kind",
            "method,function",
            "--format",
            "json",
            "--server",
            "basedpyright",
            cwd=root,
        ).out
    )
    assert [(s["name"], [c["name"] for c in s["children"]]) for s in data] == [
        ("A", ["one"]),
        ("free", []),
    ]


def test_find_prints_targets_that_resolve_to_the_very_symbol(tmp_path: Path) -> None:
    """Once wrong: a local of a method printed as ``TestRequests.test_x/session``, which is
    no target."""
    need("basedpyright")
    root = write(
        tmp_path / "proj",
        {
            "tests/test_api.py": (
                "class TestRequests:\n"
                "    def test_x(self) -> None:\n"
                "        session = 1\n"
                "        print(session)\n"
            )
        },
    )
    found = run("find", "session", "--server", "basedpyright", "--format", "json", cwd=root)
    assert found.status == 0, found.err
    [hit] = [h for h in json.loads(found.out) if h["name"] == "session"]
    assert hit["name_path"] == "TestRequests/test_x/session"
    assert (hit["path"], hit["line"], hit["column"]) == ("tests/test_api.py", 3, 9)
    text = run("find", "session", "--server", "basedpyright", cwd=root / "tests")
    assert "variable TestRequests/test_x/session  test_api.py:3:9" in text.out
    target = f"{hit['path']}#{hit['name_path']}"
    resolved = run("definition", target, "--server", "basedpyright", "--format", "json", cwd=root)
    assert resolved.status == 0, resolved.err
    assert [(p["line"], p["column"]) for p in json.loads(resolved.out)] == [(3, 9)]


def test_find_with_typescript_keeps_the_class_and_the_names_column(tmp_path: Path) -> None:
    need("typescript-language-server")
    root = write(
        tmp_path / "proj",
        {
            "tsconfig.json": '{"compilerOptions": {"strict": true}}\n',
            "src/shapes.ts": ("export class Circle {\n  area(): number {\n    return 1;\n  }\n}\n"),
        },
    )
    found = run(
        "find", "area", "--server", "typescript-language-server", "--format", "json", cwd=root
    )
    assert found.status == 0, found.err
    [hit] = [h for h in json.loads(found.out) if h["name"] == "area"]
    assert hit["name_path"] == "Circle/area"
    assert (hit["line"], hit["column"]) == (2, 3)


def test_messages_are_words_and_name_no_absolute_root(tmp_path: Path) -> None:
    root = write(tmp_path / "proj", {"a.txt": "one\ntwo\n"})
    config = {
        "diagnostics": [
            {
                "delay": 0,
                "items": [
                    {
                        "range": {
                            "start": {"line": 0, "character": 0},
                            "end": {"line": 0, "character": 3},
                        },
                        "severity": 1,
                        "message": "cannot read $ROOTPATH/b.txt nor $ROOT/c.txt in $ROOTPATH",
                    }
                ],
            }
        ]
    }
    env = {"SCRIPTED_SERVER": json.dumps(config)}
    text = run("check", "a.txt", "--command", SCRIPTED, cwd=root, env=env)
    assert text.status == 1, text.err
    assert "cannot read b.txt nor c.txt in ." in text.out
    assert str(root) not in text.out
    assert root.as_uri() not in text.out
    sub = write(root, {"sub/x.txt": "x\n"}) / "sub"
    below = run("check", "../a.txt", "--command", SCRIPTED, "--root", root, cwd=sub, env=env)
    assert "cannot read ../b.txt nor ../c.txt in .." in below.out
    missing = run("check", "a.txt", "--server", "zuban", cwd=root)
    assert "(InternalError)" not in missing.err
    assert "(MethodNotFound)" not in missing.err


def test_server_versions_come_from_the_executable_when_serverinfo_has_none(
    tmp_path: Path,
) -> None:
    need("basedpyright")
    need("typescript-language-server")
    root = write(tmp_path / "proj", {"a.py": "x: int = 1\n", "b.ts": "export const y = 1;\n"})
    ran = run(
        "check", "--server", "basedpyright", "--server", "typescript-language-server", cwd=root
    )
    summary = ran.out.splitlines()[-1]
    assert "basedpyright 1." in summary, summary
    assert "typescript-language-server 5." in summary, summary
    data = json.loads(
        run("check", "--server", "basedpyright", "--format", "json", "a.py", cwd=root).out
    )
    assert data["servers"][0]["version"].startswith("1.")


def test_a_request_that_times_out_exits_3(tmp_path: Path) -> None:
    root = write(tmp_path / "proj", {"a.txt": "one\n"})
    env = {"SCRIPTED_SERVER": json.dumps({"hover": "x", "silent": {"textDocument/hover": [1]}})}
    ran = run("hover", "a.txt:1:1", "--command", SCRIPTED, "--timeout", "2", cwd=root, env=env)
    assert ran.status == 3, ran.err
    assert "incomplete:" in ran.err
    assert "no answer within 2 s" in ran.err
    no_traceback(ran)


def test_command_without_extensions(tmp_path: Path) -> None:
    """Once wrong: ``--command`` failed whenever no path argument had an extension."""
    root = write(tmp_path / "proj", {"Makefile": "all:\n", "notes.txt": "x\n", "a.py": "x\n"})
    env = {"SCRIPTED_SERVER": json.dumps({"diagnostics": [{"delay": 0, "items": []}]})}
    named = run("check", "Makefile", "--command", SCRIPTED, cwd=root, env=env)
    assert named.status == 0, named.err
    assert "in 1 file" in named.out
    # No path: the files whose extension or name the registry knows (a.py, not notes.txt).
    folder = run("check", "--command", SCRIPTED, "--format", "json", cwd=root, env=env)
    assert folder.status == 0, folder.err
    assert sorted(json.loads(folder.out)["files"]) == ["a.py"]


def test_server_keeps_the_projects_settings(tmp_path: Path) -> None:
    """Once wrong: ``--server ruff`` took the registry's entry and dropped the project's
    ``[tool.adecore-lsp.server.ruff]`` settings."""
    need("ruff")
    root = write(
        tmp_path / "proj",
        {
            "pyproject.toml": (
                "[tool.adecore-lsp.server.ruff]\n"
                'settings = { lineLength = 20, lint = { select = ["E501"] } }\n'
            ),
            "app.py": "value = 'a line longer than twenty'\n",
        },
    )
    ran = run("check", "--server", "ruff", "--format", "json", cwd=root)
    codes = [d["code"] for d in json.loads(ran.out)["diagnostics"]]
    assert codes == ["E501"], ran.err


def _places(out: str) -> list[Any]:
    return [(p["path"], p["line"], p["column"]) for p in json.loads(out)]


def test_places_are_in_path_line_column_order(tmp_path: Path) -> None:
    root = write(tmp_path / "proj", {"a.txt": "one two\nthree\n", "b.txt": "x\ny\nz\n"})

    def at(name: str, line: int, start: int) -> dict[str, Any]:
        return {
            "uri": f"$ROOT/{name}",
            "range": {
                "start": {"line": line, "character": start},
                "end": {"line": line, "character": start + 1},
            },
        }

    shuffled = [at("b.txt", 2, 0), at("a.txt", 0, 4), at("b.txt", 0, 0), at("a.txt", 0, 0)]
    env = {"SCRIPTED_SERVER": json.dumps({"references": shuffled})}
    ran = run(
        "references",
        "a.txt:1:1",
        "--include-declaration",
        "--format",
        "json",
        "--command",
        SCRIPTED,
        cwd=root,
        env=env,
    )
    assert ran.status == 0, ran.err
    assert _places(ran.out) == [("a.txt", 1, 1), ("a.txt", 1, 5), ("b.txt", 1, 1), ("b.txt", 3, 1)]
