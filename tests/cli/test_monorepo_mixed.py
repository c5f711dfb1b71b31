"""npm workspaces with project references (typescript-language-server), a go.work of two
modules (gopls), and both beside a uv workspace (basedpyright) under one ``.git``: one
TypeScript process and one gopls for the repository, each package checked as its own
command line checks it, references whole across packages from anywhere in the repository, a
definition that waits for the project, and a Python question that starts no other language's
server. Server processes are counted from ``--trace`` (each ``initialize`` sent is one)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.integration.conftest import NPM_PREFIX, find_server

from .conftest import Ran, need, no_traceback, run, tool_env, write
from .test_monorepo_python import USES, UV_TREE

pytestmark = pytest.mark.real_server

TS_TREE = {
    "package.json": '{"name": "mono", "private": true, "workspaces": ["packages/*"]}\n',
    "tsconfig.json": (
        '{"files": [], "references": [{"path": "packages/x"}, {"path": "packages/y"}]}\n'
    ),
    "packages/x/package.json": (
        '{"name": "@mono/x", "version": "0.0.0", "main": "src/index.ts", "types": "src/index.ts"}\n'
    ),
    "packages/x/tsconfig.json": (
        '{"compilerOptions": {"composite": true, "strict": false, "target": "es2020", '
        '"module": "commonjs", "rootDir": "src", "outDir": "dist"}, "include": ["src"]}\n'
    ),
    "packages/y/package.json": (
        '{"name": "@mono/y", "version": "0.0.0", "dependencies": {"@mono/x": "*"}}\n'
    ),
    "packages/y/tsconfig.json": (
        '{"compilerOptions": {"composite": true, "strict": true, "target": "es2020", '
        '"module": "commonjs", "rootDir": "src", "outDir": "dist", '
        '"paths": {"@mono/x": ["../x/src/index.ts"]}}, "include": ["src"], '
        '"references": [{"path": "../x"}]}\n'
    ),
    "packages/x/src/index.ts": (
        "export function greet(name: string): string {\n"
        '  return "hello " + name;\n'
        "}\n"
        "\n"
        "export const twice = (name: string): string => greet(name) + greet(name);\n"
        "export function loose(value) {\n"
        "  return value;\n"
        "}\n"
    ),
    "packages/x/src/more.ts": 'import { greet } from "./index";\n\nexport const x = greet("a");\n',
    "packages/y/src/index.ts": (
        'import { greet } from "@mono/x";\n\nexport const y = greet("b");\n'
        'export const z = greet("c");\nexport function loose(value) {\n  return value;\n}\n'
    ),
    "packages/y/src/other.ts": (
        'import { greet } from "@mono/x";\n\nexport const w = greet("d");\n'
        "export const n: number = greet(w);\n"
    ),
}
"""x is not strict, y is: y's ``loose`` is an error (implicit any), x's is not."""

TS_USES = [
    ("packages/x/src/index.ts", 5, 48),
    ("packages/x/src/index.ts", 5, 62),
    ("packages/x/src/more.ts", 1, 10),
    ("packages/x/src/more.ts", 3, 18),
    ("packages/y/src/index.ts", 1, 10),
    ("packages/y/src/index.ts", 3, 18),
    ("packages/y/src/index.ts", 4, 18),
    ("packages/y/src/other.ts", 1, 10),
    ("packages/y/src/other.ts", 3, 18),
    ("packages/y/src/other.ts", 4, 26),
]
"""Every use of x's ``greet`` (its declaration aside), as one typescript-language-server at
the repository's root finds them once its projects have loaded."""

GO_TREE = {
    "go.work": "go 1.19\n\nuse (\n\t./app\n\t./lib\n)\n",
    "lib/go.mod": "module example.com/lib\n\ngo 1.19\n",
    "lib/lib.go": (
        "package lib\n\n// Area is the area of a rectangle.\n"
        "func Area(width, height int) int {\n\treturn width * height\n}\n\n"
        "// Square is the area of a square.\nfunc Square(side int) int {\n"
        "\treturn Area(side, side)\n}\n"
    ),
    "app/go.mod": "module example.com/app\n\ngo 1.19\n",
    "app/main.go": (
        'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/lib"\n)\n\n'
        "func main() {\n\tfmt.Println(lib.Area(2, 3))\n}\n"
    ),
}
"""Two modules of one go.work: app calls lib's Area."""

TSC = NPM_PREFIX / "node_modules" / "typescript" / "bin" / "tsc"
"""TypeScript 5's tsc, whose tsserver typescript-language-server runs."""


def mixed(root: Path) -> Path:
    """The three workspaces under one ``.git``."""
    for prefix, tree in (("python/", UV_TREE), ("web/", TS_TREE), ("go/", GO_TREE)):
        write(root, {prefix + name: text for name, text in tree.items()})
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root.resolve()


@pytest.fixture
def ts(tmp_path: Path) -> Path:
    need("typescript-language-server")
    root = write(tmp_path / "ts", TS_TREE)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root.resolve()


@pytest.fixture
def go(tmp_path: Path) -> Path:
    find_server("gopls")
    find_server("go")
    return write(tmp_path / "go", GO_TREE).resolve()


def places(ran: Ran) -> list[tuple[str, int, int]]:
    assert ran.status == 0, ran
    no_traceback(ran)
    return [(p["path"], p["line"], p["column"]) for p in json.loads(ran.out)]


def started(trace: Path) -> list[tuple[str, str]]:
    """Each server process a run started: its id and root (from the ``initialize`` sent)."""
    found = []
    for line in trace.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        message = record["message"]
        if record["direction"] == "send" and message.get("method") == "initialize":
            found.append((record["server"], message["params"]["rootUri"]))
    return sorted(found)


TSC_LINE = re.compile(r"^(?P<path>[^(\s]+)\((?P<line>\d+),(?P<column>\d+)\): error (?P<code>TS\d+)")


def tsc_in(package: Path) -> set[tuple[str, int, int, str]]:
    """What ``tsc -p`` finds in a copy of the tree, run in ``package`` (its references built
    first with ``tsc -b``, as a project that uses them is checked)."""
    copy = package.parents[1].parent / (package.parents[1].name + "-tsc")
    if not copy.exists():
        shutil.copytree(package.parents[1], copy)
    inside = copy / package.relative_to(package.parents[1])
    references = json.loads((inside / "tsconfig.json").read_text()).get("references", [])
    for reference in references:
        subprocess.run(
            ["node", str(TSC), "-b", reference["path"]],
            cwd=inside, env=tool_env(), capture_output=True, timeout=120,
        )  # fmt: skip
    done = subprocess.run(
        ["node", str(TSC), "-p", ".", "--noEmit", "--pretty", "false"],
        cwd=inside, env=tool_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    found = set()
    for line in done.stdout.splitlines():
        matched = TSC_LINE.match(line)
        if matched:
            place = (int(matched["line"]), int(matched["column"]))
            found.add((matched["path"], *place, matched["code"]))
    return found


def test_one_typescript_process_checks_each_package_as_tsc_does(ts: Path, tmp_path: Path) -> None:
    trace = tmp_path / "check.jsonl"
    ran = run(
        "check", "--server", "typescript-language-server", "--format", "json", "--no-progress",
        "--trace", trace, cwd=ts,
    )  # fmt: skip
    assert ran.status == 1, ran
    document = json.loads(ran.out)
    assert document["complete"] is True
    for package in ("packages/x", "packages/y"):
        ours = {
            (d["path"][len(package) + 1 :], d["line"], d["column"], f"TS{d['code']}")
            for d in document["diagnostics"]
            if d["path"].startswith(package + "/") and d["severity"] == "error"
        }
        assert ours == tsc_in(ts / package), package
    assert started(trace) == [("typescript-language-server", ts.as_uri())]


def test_typescript_references_are_whole_from_the_root_and_from_a_package(ts: Path) -> None:
    """One process at the repository's root answers across the project references (before:
    rooted at x's folder from x's declaration, x's uses alone)."""
    target = "packages/x/src/index.ts:1:17"
    common = ("--server", "typescript-language-server", "--format", "json", "--no-progress")
    at_root = run("references", target, *common, cwd=ts)
    in_x = run("references", "src/index.ts:1:17", *common, cwd=ts / "packages/x")
    assert places(at_root) == TS_USES
    assert places(in_x) == TS_USES
    assert str(ts) not in at_root.out + in_x.out


def test_a_definition_asked_at_once_waits_for_the_project(ts: Path) -> None:
    """typescript-language-server answers from the lone file for seconds after the open (the
    import line); the definition waits for its project and lands on x's declaration."""
    ran = run(
        "definition", "src/index.ts:3:18", "--server", "typescript-language-server",
        "--no-progress", cwd=ts / "packages/y",
    )  # fmt: skip
    assert ran.status == 0, ran
    assert ran.out == "../x/src/index.ts:1:17: export function greet(name: string): string {\n"


def test_a_go_work_is_one_gopls_whose_references_reach_every_module(
    go: Path, tmp_path: Path
) -> None:
    trace = tmp_path / "refs.jsonl"
    ran = run(
        "references", "lib.go:4:6", "--server", "gopls", "--format", "json", "--no-progress",
        "--trace", trace, cwd=go / "lib", env={"GOFLAGS": "", "GOPROXY": "off"},
    )  # fmt: skip
    assert places(ran) == [("app/main.go", 10, 18), ("lib/lib.go", 10, 9)]
    assert started(trace) == [("gopls", go.as_uri())]
    assert str(go) not in ran.out


def test_a_repository_of_three_languages(tmp_path: Path) -> None:
    """Under one ``.git``: from inside a package the root is the repository's workspace of
    that language (places print relative to where one stands); a Python question starts
    basedpyright alone, one process per package holding its configuration; TypeScript
    answers whole from its package."""
    need("basedpyright")
    need("typescript-language-server")
    root = mixed(tmp_path / "repo")
    trace = tmp_path / "python.jsonl"
    python = run(
        "references", "../a/src/alpha/__init__.py:1:5", "--format", "json", "--no-progress",
        "--trace", trace, cwd=root / "python/packages/b",
    )  # fmt: skip
    # The repository's root for a path of the uv workspace is that workspace's folder (the
    # outermost workspace below the .git): places in JSON are relative to it.
    assert places(python) == USES
    assert started(trace) == [
        ("basedpyright", (root / "python/packages/a").as_uri()),
        ("basedpyright", (root / "python/packages/b").as_uri()),
    ]
    # With the whole repository as the root, a Python question still starts no TypeScript
    # or Go server (before: every server of every language, eleven processes).
    whole = tmp_path / "whole.jsonl"
    everything = run(
        "references", "python/packages/a/src/alpha/__init__.py:1:5", "--root", ".",
        "--format", "json", "--no-progress", "--trace", whole, cwd=root,
    )  # fmt: skip
    assert places(everything) == [("python/" + path, line, column) for path, line, column in USES]
    assert started(whole) == started(trace)
    text = run(
        "references", "../x/src/index.ts:1:17", "--server", "typescript-language-server",
        "--no-progress", cwd=root / "web/packages/y",
    )  # fmt: skip
    assert text.status == 0, text
    assert text.out.splitlines()[0] == (
        "../x/src/index.ts:5:48: export const twice = (name: string): string => "
        "greet(name) + greet(name);"
    )
    assert len(text.out.splitlines()) == len(TS_USES)
    assert str(root) not in python.out + text.out
