"""Unused declarations and unreachable code in TypeScript: where the compiler options make
them errors (``noUnusedLocals``, ``noUnusedParameters``, ``allowUnreachableCode: false``),
``check`` counts the errors ``tsc --noEmit`` does, with TypeScript 7's ``tsc --lsp`` (which
reports them as warnings unless told otherwise) and with typescript-language-server on
TypeScript 5; with the options off, neither counts them, as the command line shows none."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from .conftest import NPM_BIN, need, run, tool_env, write

pytestmark = pytest.mark.real_server

STRICT_UNUSED = {
    "strict": True,
    "noEmit": True,
    "noUnusedLocals": True,
    "noUnusedParameters": True,
    "allowUnreachableCode": False,
    "allowJs": True,
    "checkJs": True,
    "target": "es2020",
    "module": "commonjs",
}

PROJECT = {
    "src/lib.ts": (
        "export const one = 1;\nexport const two = 2;\n"
        "export function pair(): [number, number] {\n  return [1, 2];\n}\n"
    ),
    "src/a.ts": (
        'import { one, two } from "./lib";\nimport { pair } from "./lib";\n\n'
        "interface Unused {\n  name: string;\n}\n\ntype Alias<T> = { value: number };\n\n"
        "class Box {\n  constructor(private readonly label: string) {}\n}\nexport { Box };\n\n"
        "function helper(first: number, second: string): number {\n"
        "  const local = 3;\n"
        '  let count: number = "text";\n'
        "  const [x, y] = pair();\n"
        "  const { a, b } = { a: 1, b: 2 };\n"
        "  return first;\n"
        "  helper(1, second);\n"
        "}\n\nexport function run<U, V>(): void {\n  helper(1, 'a');\n}\n"
    ),
    "src/b.js": (
        "function compute(first, second) {\n  const local = 1;\n  return first;\n}\n"
        "export const value = compute(1, 2);\n"
    ),
}
"""Unused imports, types, type parameters, a parameter property, parameters, locals,
destructured elements, unreachable code, one type error; a JavaScript file checked too."""

CLI_ERROR = re.compile(r"^(.+?)\((\d+),(\d+)\): error TS(\d+):", re.M)

Error = tuple[str, int, int, int]
"""An error's path, line, column (1-based) and code."""


def project(root: Path, unused_are_errors: bool) -> Path:
    options = dict(STRICT_UNUSED)
    if not unused_are_errors:
        for name in ("noUnusedLocals", "noUnusedParameters", "allowUnreachableCode"):
            del options[name]
    tsconfig = json.dumps({"compilerOptions": options, "include": ["src"]}, indent=2)
    return write(root, {**PROJECT, "tsconfig.json": tsconfig})


def command_line(root: Path, server: str) -> set[Error]:
    """``tsc --noEmit`` of the TypeScript the server runs: 7 (native) for tsc, 5 for
    typescript-language-server."""
    if server == "tsc":
        argv = [str(NPM_BIN / "tsc")]
    else:
        argv = ["node", str(NPM_BIN.parent / "typescript" / "bin" / "tsc")]
    done = subprocess.run(
        [*argv, "--noEmit", "--pretty", "false", "-p", "."],
        cwd=root,
        env=tool_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    return {
        (Path(path).as_posix(), int(line), int(column), int(code))
        for path, line, column, code in CLI_ERROR.findall(done.stdout)
    }


def checked(root: Path, server: str) -> tuple[set[Error], dict[str, int]]:
    """Our check's errors, and how many findings of each severity it gave."""
    ran = run("check", "--server", server, "--format", "json", "--no-progress", cwd=root)
    assert ran.status in (0, 1), ran
    document = json.loads(ran.out)
    assert document["complete"] is True, ran
    errors = {
        (d["path"], d["line"], d["column"], int(d["code"]))
        for d in document["diagnostics"]
        if d["severity"] == "error"
    }
    severities: dict[str, int] = {}
    for d in document["diagnostics"]:
        severities[d["severity"]] = severities.get(d["severity"], 0) + 1
    return errors, severities


STYLE_CODES = {6133, 6138, 6192, 6196, 6198, 6205, 7027}


@pytest.mark.parametrize("server", ["tsc", "typescript-language-server"])
def test_unused_declarations_are_errors_where_the_command_line_fails_on_them(
    tmp_path: Path, server: str
) -> None:
    """Once wrong with tsc 7: 6133, 6138, 6192, 6196 and 7027 came as warnings, 6 errors
    and 10 warnings where its command line has 16 errors."""
    need(server)
    root = project(tmp_path / "on", unused_are_errors=True)
    theirs = command_line(root, server)
    assert {code for *_place, code in theirs} >= STYLE_CODES | {2322}
    errors, severities = checked(root, server)
    assert errors == theirs
    assert "warning" not in severities
    # The summary line counts them as the command line does.
    text = run("check", "--server", server, "--no-progress", cwd=root)
    assert text.out.splitlines()[-1].startswith(f"{len(theirs)} errors, 0 warnings in ")


@pytest.mark.parametrize("server", ["tsc", "typescript-language-server"])
def test_without_the_options_unused_declarations_are_hints_not_counted(
    tmp_path: Path, server: str
) -> None:
    need(server)
    root = project(tmp_path / "off", unused_are_errors=False)
    theirs = command_line(root, server)
    assert {code for *_place, code in theirs} == {2322, 7006}
    errors, severities = checked(root, server)
    assert errors == theirs
    assert "warning" not in severities
    assert severities["hint"] >= len(STYLE_CODES)
