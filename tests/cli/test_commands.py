"""The commands of ``adecore-lsp`` as a user runs them, against real servers.

Python (ruff, basedpyright), C (clangd, with ``compile_flags.txt``) and TypeScript (``tsc``,
TypeScript 7's own server, and typescript-language-server): ``check`` and the navigation
commands in text and json, on files with non-ASCII text before the names; the edits
(``rename``, ``format``, ``fix``) with and without ``--write``; ``servers``, ``doctor``,
``capabilities``; global options on either side of the command; ``--version``, ``--help``;
no colour into a pipe.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp._version import __version__
from adecore_lsp.workspace.servers.registry import Registry
from tests.cli.conftest import (
    ANSI,
    Ran,
    column_of,
    installed,
    need,
    no_traceback,
    run,
    run_all,
    run_jobs,
    snapshot,
    tool_env,
    write,
)
from tests.integration.conftest import VENV_BIN

pytestmark = pytest.mark.real_server

# -- the projects --------------------------------------------------------------------------------

PY_LIB = '''\
"""Greetings, with an emoji 😀 before the names."""


class Greeter:
    def greet(self, name: str) -> str:
        return "hello " + name

    def shout(self, name: str) -> str:
        return self.greet(name).upper()


def make() -> Greeter:
    return Greeter()
'''
PY_APP_LINES = [
    "from lib import Greeter, make",
    "",
    "",
    "def main() -> None:",
    '    é = "😀"; print(make().greet(é))',
    '    Greeter().shout("x")',
]
PY_APP = "\n".join(PY_APP_LINES) + "\n"
UGLY = "import sys\nx=1\ndef f( a ):\n  return a\n"
PY_FILES = {
    "pyproject.toml": (
        '[project]\nname = "demo"\nversion = "0"\n\n[tool.ruff.lint]\nselect = ["F"]\n\n'
        '[tool.basedpyright]\ntypeCheckingMode = "standard"\n'
    ),
    "lib.py": PY_LIB,
    "app.py": PY_APP,
    "notes.txt": "Not code: no server takes it. ☃\n",
}
GREET_COL = column_of(PY_APP_LINES[4], "greet")

C_UTIL = "/* café 😀 */\nint add(int a, int b) { return a + b; }\n"
C_MAIN_LINES = [
    '#include "util.h"',
    "",
    "int twice(int x) { /* é😀 */ return add(x, x); }",
    "",
    "int main(void) { /* ☃ */ return twice(2) + missing; }",
]
C_FILES = {
    "compile_flags.txt": "-std=c11\n",
    "util.h": "int add(int a, int b);\n",
    "util.c": '#include "util.h"\n' + C_UTIL,
    "main.c": "\n".join(C_MAIN_LINES) + "\n",
}
ADD_COL = column_of(C_MAIN_LINES[2], "add")
MISSING_COL = column_of(C_MAIN_LINES[4], "missing")

TS_LIB = """\
// café 😀
export class Greeter {
  greet(name: string): string {
    return "hello " + name;
  }
}

export function make(): Greeter {
  return new Greeter();
}
"""
TS_APP_LINES = [
    'import { make } from "./lib";',
    "",
    "export function main(): void {",
    '  /* é😀 */ const n: number = "x"; console.log(make().greet("w"), n);',
    "}",
]
TS_FILES = {
    "tsconfig.json": json.dumps(
        {"compilerOptions": {"strict": True, "target": "es2020", "module": "commonjs"}}
    ),
    "lib.ts": TS_LIB,
    "app.ts": "\n".join(TS_APP_LINES) + "\n",
}
TS_GREET_COL = column_of(TS_APP_LINES[3], "greet")
TS_N_COL = column_of(TS_APP_LINES[3], " n") + 1


def _navigation(server: tuple[str, ...], targets: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """The navigation command lines of one project, each in text and json."""
    jobs: dict[str, tuple[str, ...]] = {}
    for command, target in targets.items():
        name, _, extra = command.partition(" ")
        args = (name, target, *extra.split()) if extra else (name, target)
        jobs[f"{name} text"] = (*args, *server)
        jobs[f"{name} json"] = (*args, *server, "--format", "json")
    return jobs


@pytest.fixture(scope="module")
def python_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    need("basedpyright")
    need("ruff")
    return write(tmp_path_factory.mktemp("python"), PY_FILES)


def _python_jobs() -> dict[str, tuple[str, ...]]:
    return _navigation(
        ("--server", "basedpyright", "--no-progress"),
        {
            "hover": "lib.py#Greeter/greet",
            "definition": f"app.py:5:{GREET_COL}",
            "references --context 1": "lib.py#Greeter/greet",
            "symbols": "lib.py",
            "find": "greet",
            "callers": "lib.py#Greeter/greet",
            "callees": "lib.py#Greeter/shout",
        },
    )


def _c_jobs() -> dict[str, tuple[str, ...]]:
    jobs = _navigation(
        ("--server", "clangd"),
        {
            "hover": f"main.c:3:{ADD_COL}",
            "definition": f"main.c:3:{ADD_COL}",
            "references --context 1": "util.c#add",
            "symbols": "main.c",
            "find": "twice",
            "callers": "util.c#add",
            "callees": "main.c#twice",
        },
    )
    jobs["check text"] = ("check", "main.c", "util.c")
    jobs["check json"] = ("check", "main.c", "util.c", "--format", "json")
    jobs["check jsonl"] = ("check", "main.c", "--format", "jsonl")
    return jobs


def _ts_jobs() -> dict[str, tuple[str, ...]]:
    jobs = _navigation(
        ("--server", "tsc"),
        {
            "hover": "lib.ts#Greeter/greet",
            "definition": f"app.ts:4:{TS_GREET_COL}",
            "references --context 1": "lib.ts#Greeter/greet",
            "symbols": "lib.ts",
            "find": "Greeter",
            "callers": "lib.ts#make",
            "callees": "app.ts#main",
        },
    )
    jobs["check text"] = ("check", "--server", "tsc", "app.ts", "lib.ts")
    jobs["check json"] = ("check", "--server", "tsc", "app.ts", "lib.ts", "--format", "json")
    jobs["tsls check json"] = (
        "check",
        "--server",
        "typescript-language-server",
        "app.ts",
        "lib.ts",
        "--format",
        "json",
    )
    return jobs


@pytest.fixture(scope="module")
def answers(
    python_project: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, dict[str, Ran]]:
    """Every navigation run of the three projects, made at once: project -> name -> run."""
    for server in ("clangd", "tsc", "typescript-language-server"):
        need(server)
    roots = {
        "python": python_project,
        "c": write(tmp_path_factory.mktemp("c"), C_FILES),
        "ts": write(tmp_path_factory.mktemp("ts"), TS_FILES),
    }
    jobs = {"python": _python_jobs(), "c": _c_jobs(), "ts": _ts_jobs()}
    ran = run_jobs(
        {
            f"{project}:{name}": (roots[project], args)
            for project, named in jobs.items()
            for name, args in named.items()
        },
        workers=6,
    )
    return {
        project: {name: ran[f"{project}:{name}"] for name in named}
        for project, named in jobs.items()
    }


@pytest.fixture(scope="module")
def python(answers: dict[str, dict[str, Ran]]) -> dict[str, Ran]:
    return answers["python"]


@pytest.fixture(scope="module")
def c(answers: dict[str, dict[str, Ran]]) -> dict[str, Ran]:
    return answers["c"]


@pytest.fixture(scope="module")
def ts(answers: dict[str, dict[str, Ran]]) -> dict[str, Ran]:
    return answers["ts"]


def _ok(ran: Ran) -> Ran:
    assert ran.status == 0, ran
    no_traceback(ran)
    return ran


def _json(ran: Ran) -> Any:
    return json.loads(_ok(ran).out)


LOCATION_KEYS = {"path", "line", "column", "end_line", "end_column", "text", "cell"}
SYMBOL_KEYS = {"name", "name_path", "kind", "path", "line", "column", "cell", "children"}


def _locations(
    ran: Ran, *, references: bool = False, context: bool = False
) -> tuple[list[tuple[str, int, int]], list[Any]]:
    """The ``(path, line, column)`` of each record of a json answer, and the records."""
    records = _json(ran)
    assert isinstance(records, list)
    keys = (
        LOCATION_KEYS
        | ({"container"} if references else set())
        | ({"context"} if context else set())
    )
    for record in records:
        assert set(record) == keys, record
    return [(r["path"], r["line"], r["column"]) for r in records], records


def _text_locations(ran: Ran) -> list[tuple[str, int, int, str]]:
    found = []
    for line in _ok(ran).out.splitlines():
        match = re.match(r"^(\S.*?):(\d+):(\d+): (.*)$", line)
        if match:
            found.append((match[1], int(match[2]), int(match[3]), match[4]))
    return found


def _symbols_json(ran: Ran) -> list[Any]:
    records: list[Any] = _json(ran)

    def walk(symbol: Any) -> None:
        assert set(symbol) == SYMBOL_KEYS, symbol
        for child in symbol["children"]:
            walk(child)

    for record in records:
        walk(record)
    return records


# -- Python: basedpyright ------------------------------------------------------------------------


def test_python_hover(python: dict[str, Ran]) -> None:
    text = _ok(python["hover text"]).out
    assert "def greet" in text
    assert "name: str" in text
    assert "-> str" in text
    document = _json(python["hover json"])
    assert set(document) == {"markdown"}
    assert document["markdown"].rstrip("\n") == text.rstrip("\n")


def test_python_definition(python: dict[str, Ran]) -> None:
    found, records = _locations(python["definition json"])
    assert found == [("lib.py", 5, 9)]
    assert records[0]["end_column"] == 9 + len("greet")
    assert records[0]["text"] == "    def greet(self, name: str) -> str:"
    assert _text_locations(python["definition text"]) == [
        ("lib.py", 5, 9, "def greet(self, name: str) -> str:")
    ]


def test_python_references_with_context(python: dict[str, Ran]) -> None:
    found, records = _locations(python["references json"], references=True, context=True)
    assert sorted(found) == [("app.py", 5, GREET_COL), ("lib.py", 9, 21)]
    by_path = {record["path"]: record for record in records}
    app = by_path["app.py"]
    assert app["container"] == "main"
    assert app["text"] == PY_APP_LINES[4]
    assert app["context"] == PY_APP_LINES[3:6]
    assert by_path["lib.py"]["container"] == "Greeter/shout"
    text = _ok(python["references text"]).out
    assert f"app.py:5:{GREET_COL}: {PY_APP_LINES[4].strip()}\n" in text
    assert "lib.py:9:21: return self.greet(name).upper()\n" in text
    # --context 1: the line before and the line after, indented under the reference.
    assert f"    {PY_APP_LINES[3]}\n    {PY_APP_LINES[4]}\n    {PY_APP_LINES[5]}\n" in text


def test_python_symbols(python: dict[str, Ran]) -> None:
    records = _symbols_json(python["symbols json"])
    assert [(r["kind"], r["name"], r["line"], r["column"]) for r in records] == [
        ("class", "Greeter", 4, 7),
        ("function", "make", 12, 5),
    ]
    methods = [(m["name_path"], m["kind"], m["line"]) for m in records[0]["children"]]
    assert methods == [("Greeter/greet", "method", 5), ("Greeter/shout", "method", 8)]
    lines = _ok(python["symbols text"]).out.splitlines()
    assert lines[0] == "class Greeter  4"
    assert "  method greet  5" in lines
    assert "  method shout  8" in lines
    assert "function make  12" in lines


def test_python_find(python: dict[str, Ran]) -> None:
    records = _symbols_json(python["find json"])
    found = [(r["kind"], r["name_path"], r["path"], r["line"], r["column"]) for r in records]
    assert ("method", "Greeter/greet", "lib.py", 5, 9) in found
    assert "method Greeter/greet  lib.py:5:9" in _ok(python["find text"]).out.splitlines()


def test_python_callers_and_callees(python: dict[str, Ran]) -> None:
    found, _ = _locations(python["callers json"])
    assert sorted(found) == [("app.py", 4, 5), ("lib.py", 8, 9)]
    assert sorted(_text_locations(python["callers text"])) == [
        ("app.py", 4, 5, "def main() -> None:"),
        ("lib.py", 8, 9, "def shout(self, name: str) -> str:"),
    ]
    found, _ = _locations(python["callees json"])
    assert ("lib.py", 5, 9) in found
    assert ("lib.py", 5, 9, "def greet(self, name: str) -> str:") in _text_locations(
        python["callees text"]
    )


# -- C: clangd -----------------------------------------------------------------------------------


def test_c_check(c: dict[str, Ran]) -> None:
    ran = c["check text"]
    assert ran.status == 1, ran
    assert f"main.c:5:{MISSING_COL}: error: " in ran.out
    assert "missing" in ran.out
    assert re.match(r"^1 error, \d+ warnings? in 2 files \(clangd", ran.out.splitlines()[-1])
    document = json.loads(c["check json"].out)
    assert c["check json"].status == 1
    [error] = [d for d in document["diagnostics"] if d["severity"] == "error"]
    assert (error["path"], error["line"], error["column"]) == ("main.c", 5, MISSING_COL)
    assert error["end_column"] == MISSING_COL + len("missing")
    assert error["server"] == "clangd"
    assert set(document["files"]) == {"main.c", "util.c"}
    [record] = [json.loads(line) for line in c["check jsonl"].out.splitlines()]
    line = C_MAIN_LINES[4]
    assert record["location"]["range"]["start"] == {
        "line": 5,
        "column": len(line[: MISSING_COL - 1].encode("utf-8")) + 1,
    }


def test_c_hover(c: dict[str, Ran]) -> None:
    text = _ok(c["hover text"]).out
    assert "add" in text
    assert "int a" in text
    document = _json(c["hover json"])
    assert set(document) == {"markdown"}
    assert document["markdown"].rstrip("\n") == text.rstrip("\n")


def test_c_definition(c: dict[str, Ran]) -> None:
    found, records = _locations(c["definition json"])
    assert len(found) == 1
    assert found[0] in (("util.h", 1, 5), ("util.c", 3, 5))
    assert "int add(int a, int b)" in records[0]["text"]
    [(path, line, column, text)] = _text_locations(c["definition text"])
    assert (path, line, column) == found[0]
    assert text.startswith("int add(int a, int b)")


def test_c_references_with_context(c: dict[str, Ran]) -> None:
    found, records = _locations(c["references json"], references=True, context=True)
    assert ("main.c", 3, ADD_COL) in found
    use = next(r for r in records if r["path"] == "main.c")
    assert use["container"] == "twice"
    assert use["context"] == C_MAIN_LINES[1:4]
    assert use["text"] == C_MAIN_LINES[2]
    text = _ok(c["references text"]).out
    assert f"main.c:3:{ADD_COL}: {C_MAIN_LINES[2]}\n" in text


def test_c_symbols_and_find(c: dict[str, Ran]) -> None:
    records = _symbols_json(c["symbols json"])
    assert [(r["kind"], r["name"], r["line"], r["column"]) for r in records] == [
        ("function", "twice", 3, 5),
        ("function", "main", 5, 5),
    ]
    assert _ok(c["symbols text"]).out == "function twice  3\nfunction main  5\n"
    found = [
        (r["kind"], r["name_path"], r["path"], r["line"]) for r in _symbols_json(c["find json"])
    ]
    assert ("function", "twice", "main.c", 3) in found
    assert "function twice  main.c:3:5" in _ok(c["find text"]).out.splitlines()


def test_c_callers_and_callees(c: dict[str, Ran]) -> None:
    found, _ = _locations(c["callers json"])
    assert found == [("main.c", 3, 5)]
    assert _text_locations(c["callers text"]) == [("main.c", 3, 5, C_MAIN_LINES[2])]
    found, _ = _locations(c["callees json"])
    assert found == [("util.c", 3, 5)]
    assert _text_locations(c["callees text"]) == [
        ("util.c", 3, 5, "int add(int a, int b) { return a + b; }")
    ]


# -- TypeScript: tsc (TypeScript 7) and typescript-language-server ------------------------------


def test_ts_check_with_both_servers(ts: dict[str, Ran]) -> None:
    ran = ts["check text"]
    assert ran.status == 1, ran
    assert ran.out.startswith(f"app.ts:4:{TS_N_COL}: error: Type 'string' is not assignable")
    assert ran.out.splitlines()[-1].startswith("1 error, 0 warnings in 2 files (tsc")
    for name in ("check json", "tsls check json"):
        assert ts[name].status == 1, ts[name]
        document = json.loads(ts[name].out)
        [error] = document["diagnostics"]
        assert (error["path"], error["line"], error["column"], error["end_column"]) == (
            "app.ts",
            4,
            TS_N_COL,
            TS_N_COL + 1,
        )
        assert str(error["code"]) == "2322"
        assert document["complete"] is True


def test_ts_hover(ts: dict[str, Ran]) -> None:
    text = _ok(ts["hover text"]).out
    assert "Greeter.greet(name: string): string" in text
    document = _json(ts["hover json"])
    assert set(document) == {"markdown"}
    assert document["markdown"].rstrip("\n") == text.rstrip("\n")


def test_ts_definition_and_references(ts: dict[str, Ran]) -> None:
    found, _ = _locations(ts["definition json"])
    assert found == [("lib.ts", 3, 3)]
    assert _text_locations(ts["definition text"]) == [
        ("lib.ts", 3, 3, "greet(name: string): string {")
    ]
    found, records = _locations(ts["references json"], references=True, context=True)
    assert found == [("app.ts", 4, TS_GREET_COL)]
    assert records[0]["context"] == TS_APP_LINES[2:5]
    assert records[0]["container"] == "main"
    text = _ok(ts["references text"]).out
    assert text.startswith(f"app.ts:4:{TS_GREET_COL}: {TS_APP_LINES[3].strip()}\n")


def test_ts_symbols_and_find(ts: dict[str, Ran]) -> None:
    records = _symbols_json(ts["symbols json"])
    assert [(r["kind"], r["name"], r["line"]) for r in records] == [
        ("class", "Greeter", 2),
        ("function", "make", 8),
    ]
    assert [(m["name_path"], m["line"], m["column"]) for m in records[0]["children"]] == [
        ("Greeter/greet", 3, 3)
    ]
    assert _ok(ts["symbols text"]).out == "class Greeter  2\n  method greet  3\nfunction make  8\n"
    found = [
        (r["kind"], r["name"], r["path"], r["line"], r["column"])
        for r in _symbols_json(ts["find json"])
    ]
    assert ("class", "Greeter", "lib.ts", 2, 14) in found
    assert "class Greeter  lib.ts:2:14" in _ok(ts["find text"]).out.splitlines()


def test_ts_callers_and_callees(ts: dict[str, Ran]) -> None:
    found, _ = _locations(ts["callers json"])
    assert found == [("app.ts", 3, 17)]
    assert _text_locations(ts["callers text"]) == [
        ("app.ts", 3, 17, "export function main(): void {")
    ]
    found, _ = _locations(ts["callees json"])
    assert ("lib.ts", 8, 17) in found
    assert ("lib.ts", 3, 3) in found
    shown = _text_locations(ts["callees text"])
    assert ("lib.ts", 8, 17, "export function make(): Greeter {") in shown


# -- edits ---------------------------------------------------------------------------------------


@pytest.fixture
def editable(python_project: Path, tmp_path: Path) -> Path:
    """A copy of the Python project, with a badly formatted file, that a test may change."""
    copy = tmp_path / "project"
    shutil.copytree(python_project, copy)
    (copy / "ugly.py").write_text(UGLY, encoding="utf-8")
    return copy


def _changed(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    assert set(after) == set(before), "files were added or removed"
    return {path for path in before if before[path] != after[path]}


def test_rename_without_write_prints_a_diff_and_writes_nothing(editable: Path) -> None:
    before = snapshot(editable)
    rename = ("rename", "lib.py#Greeter/greet", "salute", "--server", "basedpyright")
    runs = run_all(
        {"text": (*rename, "--no-progress"), "json": (*rename, "--quiet", "--format", "json")},
        cwd=editable,
        workers=2,
    )
    assert snapshot(editable) == before
    ran = _ok(runs["text"])
    out = ran.out
    for path in ("app.py", "lib.py"):
        assert f"--- a/{path}\n+++ b/{path}\n" in out
    assert (
        "-    def greet(self, name: str) -> str:\n+    def salute(self, name: str) -> str:\n" in out
    )
    assert (
        "-        return self.greet(name).upper()\n+        return self.salute(name).upper()\n"
        in out
    )
    assert f"-{PY_APP_LINES[4]}\n+{PY_APP_LINES[4].replace('greet', 'salute')}\n" in out
    assert re.search(r"^@@ -\d+(,\d+)? \+\d+(,\d+)? @@", out, re.MULTILINE)
    assert "2 files would change" in ran.err
    # The diff applies as it is.
    check = subprocess.run(
        ["git", "apply", "--check", "-"],
        input=out.encode("utf-8"),
        cwd=editable,
        capture_output=True,
        timeout=30,
    )
    assert check.returncode == 0, check.stderr

    document = _json(runs["json"])
    assert sorted(document["changed_files"]) == ["app.py", "lib.py"]
    assert document["written"] is None
    assert set(document["files"]) == {"app.py", "lib.py"}
    assert document["diff"] == out


def test_rename_write_changes_the_files_and_nothing_else(editable: Path) -> None:
    before = snapshot(editable)
    ran = _ok(
        run(
            "rename",
            "lib.py#Greeter/greet",
            "salute",
            "--write",
            "--server",
            "basedpyright",
            "--no-progress",
            cwd=editable,
        )
    )
    after = snapshot(editable)
    assert _changed(before, after) == {"app.py", "lib.py"}
    assert after["lib.py"].decode("utf-8") == PY_LIB.replace("greet", "salute")
    assert after["app.py"].decode("utf-8") == PY_APP.replace("greet", "salute")
    assert "+    def salute(self, name: str) -> str:" in ran.out
    assert "2 files changed" in ran.err
    # No errors introduced: the new name is used everywhere.
    assert "(introduced)" not in ran.out


def test_rename_write_exits_1_when_it_introduces_errors(editable: Path) -> None:
    before = snapshot(editable)
    # A function named like the class: basedpyright reports the class as redeclared.
    ran = run(
        "rename",
        "lib.py#make",
        "Greeter",
        "--write",
        "--server",
        "basedpyright",
        "--no-progress",
        cwd=editable,
    )
    assert ran.status == 1, ran
    no_traceback(ran)
    assert _changed(before, snapshot(editable)) == {"app.py", "lib.py"}
    introduced = [line for line in ran.out.splitlines() if line.endswith("(introduced)")]
    assert any(
        line.startswith("lib.py:4:7: error: ") and "Greeter" in line for line in introduced
    ), ran.out


def _ruff_format(text: str, root: Path) -> str:
    done = subprocess.run(
        [str(VENV_BIN / "ruff"), "format", "--stdin-filename", "ugly.py", "-"],
        input=text.encode("utf-8"),
        cwd=root,
        capture_output=True,
        timeout=30,
        env=tool_env(),
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.decode("utf-8")


def test_format_check_diff_and_write(editable: Path) -> None:
    before = snapshot(editable)
    pending = run("format", "--check", "--server", "ruff", "ugly.py", cwd=editable)
    assert pending.status == 1, pending
    assert "--- a/ugly.py\n+++ b/ugly.py\n" in pending.out
    assert "-x=1\n" in pending.out
    assert "+x = 1\n" in pending.out
    whole_root = run("format", "--check", "--server", "ruff", cwd=editable)
    assert whole_root.status == 1, whole_root
    # app.py has two statements on a line: ruff splits them; lib.py is formatted already.
    assert "+++ b/ugly.py" in whole_root.out
    assert "+++ b/app.py" in whole_root.out
    assert "lib.py" not in whole_root.out
    already = run("format", "--check", "--server", "ruff", "lib.py", cwd=editable)
    assert already.status == 0, already
    assert already.out == ""
    preview = _ok(run("format", "--server", "ruff", "ugly.py", cwd=editable))
    assert preview.out == pending.out
    assert snapshot(editable) == before

    written = _ok(run("format", "--write", "--server", "ruff", "ugly.py", cwd=editable))
    after = snapshot(editable)
    assert _changed(before, after) == {"ugly.py"}
    assert after["ugly.py"].decode("utf-8") == _ruff_format(UGLY, editable)
    assert "1 file changed" in written.err
    again = run("format", "--check", "--server", "ruff", "ugly.py", cwd=editable)
    assert again.status == 0, again


def test_format_json(editable: Path) -> None:
    document = _json(run("format", "--format", "json", "--server", "ruff", "ugly.py", cwd=editable))
    assert document["changed_files"] == ["ugly.py"]
    assert document["written"] is None
    assert document["files"]["ugly.py"]["diff"] == document["diff"]


def test_fix_with_ruff(editable: Path) -> None:
    before = snapshot(editable)
    preview = _ok(run("fix", "--server", "ruff", "ugly.py", cwd=editable))
    assert "-import sys\n" in preview.out
    assert snapshot(editable) == before
    pending = run("fix", "--check", "--server", "ruff", "ugly.py", cwd=editable)
    assert pending.status == 1, pending
    written = run("fix", "--write", "--server", "ruff", "ugly.py", cwd=editable)
    assert written.status == 0, written
    after = snapshot(editable)
    assert _changed(before, after) == {"ugly.py"}
    assert after["ugly.py"].decode("utf-8") == UGLY.replace("import sys\n", "")


# -- servers, doctor, capabilities ---------------------------------------------------------------


@pytest.fixture(scope="module")
def misc(python_project: Path) -> dict[str, Ran]:
    jobs: dict[str, tuple[str, ...]] = {
        "servers json": ("servers", "--format", "json"),
        "servers text": ("servers",),
        "doctor text": ("doctor", "ruff"),
        "doctor json": ("doctor", "ruff", "--format", "json"),
        "capabilities text": ("capabilities", "app.py", "--server", "ruff"),
        "capabilities json": ("capabilities", "app.py", "--server", "ruff", "--format", "json"),
    }
    return run_all(jobs, cwd=python_project, env={"NO_COLOR": "1"}, workers=3)


def test_servers_json_lists_every_registry_id(misc: dict[str, Ran]) -> None:
    rows = _json(misc["servers json"])
    registry = Registry.default()
    assert [row["id"] for row in rows] == [spec.id for spec in registry]
    notebooks = {row["id"]: row["notebooks"] for row in rows}
    assert (notebooks["ruff"], notebooks["basedpyright"], notebooks["pyright"]) == (
        "sync",
        "sync",
        "joined",
    )
    assert notebooks["clangd"] is None
    for row in rows:
        assert set(row) == {
            "id",
            "languages",
            "installed",
            "path",
            "version",
            "notebooks",
            "scope",
        }
        assert row["notebooks"] in (None, "sync", "joined", "auto")
        assert isinstance(row["installed"], bool)
        assert (row["path"] is not None) == row["installed"], row
        assert isinstance(row["languages"], list)
        assert row["languages"]
    by_id = {row["id"]: row for row in rows}
    ruff = by_id["ruff"]
    assert ruff["installed"] is True
    assert Path(ruff["path"]).name == "ruff"
    assert Path(ruff["path"]).is_absolute()
    assert ruff["languages"] == ["python"]
    assert isinstance(ruff["version"], str)
    assert re.match(r"^\d+\.\d+", ruff["version"])
    assert "c" in by_id["clangd"]["languages"]
    # Which configuration decides each checker's files: [tool.basedpyright] without an
    # include (the root), pyright's own table missing (its defaults), no tsconfig.
    assert ruff["scope"]["include"] == ["*.py", "*.pyi", "*.ipynb", "**/pyproject.toml"]
    based = by_id["basedpyright"]["scope"]
    assert based["config"] == "pyproject.toml [tool.basedpyright]"
    assert based["include"] == ["."]
    assert based["exclude"][:1] == ["**/node_modules"]
    assert based["error"] is None
    assert by_id["pyright"]["scope"]["config"] is None
    assert by_id["tsc"]["scope"]["config"] is None
    if not installed("zuban"):
        assert by_id["zuban"] == {
            "id": "zuban",
            "languages": ["python"],
            "installed": False,
            "path": None,
            "version": None,
            "notebooks": "sync",
            "scope": None,
        }


def test_servers_text_is_a_table(misc: dict[str, Ran]) -> None:
    lines = _ok(misc["servers text"]).out.splitlines()
    rows = _json(misc["servers json"])
    assert len(lines) == len(rows)
    for line, row in zip(lines, rows, strict=True):
        assert line.split()[0] == row["id"]
        if row["installed"]:
            assert row["path"] in line
        else:
            assert line.endswith("not installed")


def test_doctor_ruff(misc: dict[str, Ran]) -> None:
    [row] = _json(misc["doctor json"])
    assert set(row) == {
        "id",
        "ok",
        "error",
        "start_ms",
        "ready_s",
        "position_encoding",
        "sync",
        "diagnostics",
        "scope",
    }
    assert row["id"] == "ruff"
    assert row["scope"]["config"] is not None  # ruff's own configuration decides
    assert row["ok"] is True
    assert row["error"] is None
    assert isinstance(row["start_ms"], int)
    assert row["start_ms"] >= 0
    assert row["position_encoding"] in ("utf-8", "utf-16", "utf-32")
    assert row["sync"] in ("full", "incremental")
    assert row["diagnostics"] == "pull"
    [line] = _ok(misc["doctor text"]).out.splitlines()
    assert line.startswith("ruff ")
    assert " ok " in line
    assert row["position_encoding"] in line
    assert "pull diagnostics" in line


def test_capabilities_of_a_file(misc: dict[str, Ran]) -> None:
    rows = _json(misc["capabilities json"])
    assert all(set(row) == {"method", "options"} for row in rows)
    methods = {row["method"]: row["options"] for row in rows}
    assert "textDocument/diagnostic" in methods
    assert "textDocument/hover" in methods
    assert "source.fixAll.ruff" in methods["textDocument/codeAction"]["codeActionKinds"]
    assert "textDocument/definition" not in methods
    lines = _ok(misc["capabilities text"]).out.splitlines()
    assert [line.split("  ")[0] for line in lines] == [row["method"] for row in rows]
    action = next(line for line in lines if line.startswith("textDocument/codeAction  "))
    assert json.loads(action.split("  ", 1)[1]) == methods["textDocument/codeAction"]


# -- the command line itself ---------------------------------------------------------------------


def test_global_options_before_and_after_the_command(python_project: Path) -> None:
    runs = [
        run("--server", "ruff", "check", "app.py", cwd=python_project),
        run("check", "--server", "ruff", "app.py", cwd=python_project),
        run("check", "app.py", "--server", "ruff", cwd=python_project),
        run(
            "--timeout",
            "30",
            "--no-progress",
            "check",
            "app.py",
            "--server",
            "ruff",
            cwd=python_project,
        ),
    ]
    assert runs[0].status == 0, runs[0]
    assert runs[0].out.endswith(")\n")
    assert "(ruff " in runs[0].out
    assert "basedpyright" not in runs[0].out
    for other in runs[1:]:
        assert (other.status, other.out) == (runs[0].status, runs[0].out)


def test_a_trace_replayed_without_the_server_gives_the_same_answer(
    python_project: Path, tmp_path: Path
) -> None:
    trace = tmp_path / "check.jsonl"
    live = run(
        "check", "--server", "ruff", "--trace", trace, "app.py", "lib.py", cwd=python_project
    )
    assert live.status == 0, live
    lines = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert lines
    assert all(set(line) == {"time", "direction", "server", "message"} for line in lines)
    assert {line["direction"] for line in lines} == {"send", "receive"}
    assert lines[0]["message"]["method"] == "initialize"
    # No ruff on PATH: the trace answers.
    replayed = run(
        "check",
        "--server",
        "ruff",
        "--replay",
        trace,
        "app.py",
        "lib.py",
        cwd=python_project,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert (replayed.status, replayed.out) == (live.status, live.out), replayed


def test_version(tmp_path: Path) -> None:
    ran = run("--version", cwd=tmp_path)
    assert (ran.status, ran.out, ran.err) == (0, f"adecore-lsp {__version__}\n", "")
    console = VENV_BIN / "adecore-lsp"
    if console.exists():
        done = subprocess.run(
            [str(console), "--version"], capture_output=True, timeout=30, env=tool_env()
        )
        assert done.returncode == 0
        assert done.stdout.decode() == f"adecore-lsp {__version__}\n"


COMMANDS = (
    "check",
    "hover",
    "definition",
    "references",
    "implementation",
    "type-definition",
    "callers",
    "callees",
    "symbols",
    "find",
    "rename",
    "format",
    "fix",
    "capabilities",
    "servers",
    "doctor",
)


def test_help_on_every_command(tmp_path: Path) -> None:
    jobs: dict[str, tuple[str, ...]] = {name: (name, "--help") for name in COMMANDS}
    jobs["top"] = ("--help",)
    for name, ran in run_all(jobs, cwd=tmp_path, workers=4).items():
        assert ran.status == 0, (name, ran)
        assert ran.out.startswith("usage: adecore-lsp"), name
        if name != "top":
            assert f"usage: adecore-lsp {name}" in ran.out
            for option in ("--server", "--timeout", "--quiet", "--no-progress"):
                assert option in ran.out, (name, option)
        assert ran.err == ""


def test_no_colour_into_a_pipe_or_with_no_color(
    python_project: Path,
    misc: dict[str, Ran],
    python: dict[str, Ran],
    c: dict[str, Ran],
    ts: dict[str, Ran],
) -> None:
    jobs: dict[str, tuple[str, ...]] = {
        "check": ("check", "--server", "ruff", "app.py", "lib.py"),
        "error": ("hover", "app.py:1:1", "--server", "nope-such-server"),
        "help": ("--help",),
    }
    runs = [
        *run_all(
            jobs, cwd=python_project, env={"NO_COLOR": "1", "TERM": "xterm-256color"}
        ).values(),
        *run_all(jobs, cwd=python_project, env={"TERM": "xterm-256color"}).values(),
    ]
    assert runs[1].status == 2
    assert "nope-such-server" in runs[1].err
    for each in (misc, python, c, ts):
        runs.extend(each.values())
    for ran in runs:
        assert not ANSI.search(ran.out), ran
        assert not ANSI.search(ran.err), ran
