"""A repository of three monorepos under one ``.git``: a uv workspace (basedpyright), npm
workspaces with project references (typescript-language-server) and a go.work of two modules
(gopls). What a check of the whole repository and a ``references`` of each language cost:
the server processes started (by server and root), their memory, the time, and the places
found.

    python benchmarks/bench_monorepo.py [--quick] [--before PATH]

Each measure runs in a fresh process with a fresh ``Workspace`` at the repository's root
and the registry's servers (every installed server a file of the tree needs: JSON, TOML and
YAML servers too). With ``--before PATH`` (a ``src`` folder of another version of the
library) the same measures are run from it, side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
BIN = Path(sys.executable).parent
NPM_BIN = HERE.parent.parent / "build" / "servers" / "npm" / "node_modules" / ".bin"

PYTHON = {
    "pyproject.toml": '[project]\nname = "root"\nversion = "0"\n'
    '[tool.uv.workspace]\nmembers = ["packages/*"]\n',
    "packages/a/pyproject.toml": '[project]\nname = "alpha"\nversion = "0"\n'
    '[tool.pyright]\ntypeCheckingMode = "strict"\n',
    "packages/a/src/alpha/__init__.py": "def greet(name: str) -> str:\n"
    '    return "hello " + name\n\n\ndef twice(name: str) -> str:\n'
    "    return greet(name) + greet(name)\n",
    "packages/a/src/alpha/more.py": 'from alpha import greet\n\nx = greet("a")\n',
    "packages/b/pyproject.toml": '[project]\nname = "beta"\nversion = "0"\n'
    '[tool.pyright]\ntypeCheckingMode = "basic"\nextraPaths = ["../a/src"]\n',
    "packages/b/src/beta/__init__.py": 'from alpha import greet\n\nprint(greet("b"))\n'
    'y = greet("c")\n',
    "packages/b/src/beta/other.py": 'import alpha\n\nz = alpha.greet("d")\n',
}
TYPESCRIPT = {
    "package.json": '{"name": "mono", "private": true, "workspaces": ["packages/*"]}\n',
    "tsconfig.json": '{"files": [], "references": [{"path": "packages/x"}, '
    '{"path": "packages/y"}]}\n',
    "packages/x/package.json": '{"name": "@mono/x", "main": "src/index.ts"}\n',
    "packages/x/tsconfig.json": '{"compilerOptions": {"composite": true, "rootDir": "src", '
    '"outDir": "dist"}, "include": ["src"]}\n',
    "packages/y/package.json": '{"name": "@mono/y", "dependencies": {"@mono/x": "*"}}\n',
    "packages/y/tsconfig.json": '{"compilerOptions": {"composite": true, "strict": true, '
    '"rootDir": "src", "outDir": "dist", "paths": {"@mono/x": ["../x/src/index.ts"]}}, '
    '"include": ["src"], "references": [{"path": "../x"}]}\n',
    "packages/x/src/index.ts": "export function greet(name: string): string {\n"
    '  return "hello " + name;\n}\n\nexport const twice = (name: string): string => '
    "greet(name) + greet(name);\n",
    "packages/x/src/more.ts": 'import { greet } from "./index";\n\nexport const x = greet("a");\n',
    "packages/y/src/index.ts": 'import { greet } from "@mono/x";\n\nexport const y = greet("b");\n'
    'export const z = greet("c");\n',
    "packages/y/src/other.ts": 'import { greet } from "@mono/x";\n\nexport const w = greet("d");\n',
}
GO = {
    "go.work": "go 1.19\n\nuse (\n\t./app\n\t./lib\n)\n",
    "lib/go.mod": "module example.com/lib\n\ngo 1.19\n",
    "lib/lib.go": "package lib\n\n// Area is the area of a rectangle.\n"
    "func Area(width, height int) int {\n\treturn width * height\n}\n",
    "app/go.mod": "module example.com/app\n\ngo 1.19\n",
    "app/main.go": 'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/lib"\n)\n\n'
    "func main() {\n\tfmt.Println(lib.Area(2, 3))\n}\n",
}
TARGETS = {
    "python": "python/packages/a/src/alpha/__init__.py:1:5",
    "typescript": "web/packages/x/src/index.ts:1:17",
    "go": "go/lib/lib.go:4:6",
}


def make_tree(root: Path) -> Path:
    for prefix, files in (("python/", PYTHON), ("web/", TYPESCRIPT), ("go/", GO)):
        for name, text in files.items():
            path = root / prefix / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root.resolve()


def processes(ws: Any) -> tuple[list[tuple[str, str]], int]:
    """The server processes a workspace started (id and root) and their memory together."""
    started, rss = [], 0
    for status in ws.running:
        root = os.path.relpath(getattr(status, "root", None) or ws.root, ws.root)
        started.append((status.id, root))
        rss += status.rss_bytes or 0
    return sorted(started), rss


async def measure(root: Path, what: str) -> dict[str, Any]:
    from adecore_lsp import Workspace

    began = time.monotonic()
    async with Workspace(root, timeout=60) as ws:
        if what == "check":
            report = await ws.diagnostics(timeout=120)
            found: dict[str, Any] = {"complete": report.complete, "files": len(report.files)}
        else:
            uses = await ws.references(TARGETS[what])
            found = {
                "complete": uses.complete,
                "places": len(uses),
                "packages": sorted({"/".join(u.location.path.split("/")[:3]) for u in uses}),
            }
        took = time.monotonic() - began
        started, rss = processes(ws)
    return {**found, "seconds": round(took, 2), "processes": started, "rss_mib": rss >> 20}


def child(root: Path, what: str, source: str | None) -> dict[str, Any]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(BIN), str(NPM_BIN), env.get("PATH", "")])
    env["GOFLAGS"], env["GOPROXY"] = "", "off"
    if source is not None:
        env["PYTHONPATH"] = source
    done = subprocess.run(
        [sys.executable, str(HERE), "--child", str(root), what],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1:]}
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def show(label: str, result: dict[str, Any]) -> None:
    if "error" in result:
        print(f"  {label:7} failed: {result['error']}")
        return
    counts: dict[str, int] = {}
    for server, _root in result["processes"]:
        counts[server] = counts.get(server, 0) + 1
    servers = ", ".join(f"{server} x{count}" for server, count in sorted(counts.items()))
    found = (
        f"{result['places']} places in {', '.join(result['packages'])}"
        if "places" in result
        else f"{result['files']} files"
    )
    print(
        f"  {label:7} {result['seconds']:6.2f} s  {len(result['processes']):2} processes "
        f"{result['rss_mib']:5} MiB  complete={result['complete']}  {found}\n"
        f"          {servers}"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="the Python references alone")
    parser.add_argument("--before", help="a src folder of another version of the library")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(measure(Path(args.child[0]), args.child[1]))))
        return 0
    measures = ["python"] if args.quick else ["check", "python", "typescript", "go"]
    with tempfile.TemporaryDirectory() as folder:
        root = make_tree(Path(folder) / "repo")
        for what in measures:
            title = "check of the whole repository" if what == "check" else f"references ({what})"
            print(f"({measures.index(what) + 1}) {title}")
            if args.before:
                show("before", child(root, what, args.before))
            show("now", child(root, what, None))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
