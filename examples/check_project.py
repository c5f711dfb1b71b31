"""Check a project with a real language server and print its diagnostics, editor style.

    python examples/check_project.py [project folder] [-- server command ...]

By default it runs ruff over every Python file of ``examples/sample_project`` through the
workspace layer, which waits until each file's diagnostics are final (a server's first,
empty report does not count), and prints them as ``path:line:column: code message`` with
columns in characters. A timeout is said, never printed as a clean file. The command line
tool does the same job: ``adecore-lsp check``.
"""

from __future__ import annotations

import dataclasses
import shutil
import sys
from pathlib import Path

from adecore_lsp import Registry, ServerSpec
from adecore_lsp.sync import Workspace

SAMPLE = Path(__file__).resolve().parent / "sample_project"


def default_server() -> ServerSpec:
    """The registry's ruff, preferring the one installed beside this Python."""
    ruff = Registry.default().get("ruff")
    beside = Path(sys.executable).parent / "ruff"
    found = str(beside) if beside.exists() else shutil.which("ruff")
    if found is None:
        raise SystemExit(f"ruff is not installed: {ruff.install}")
    return dataclasses.replace(ruff, command=[found, *ruff.command[1:]])


def main(argv: list[str]) -> int:
    server = default_server()
    if "--" in argv:
        command = argv[argv.index("--") + 1 :]
        argv = argv[: argv.index("--")]
        server = ServerSpec(Path(command[0]).name, command, languages={".py": "python"})
    root = Path(argv[0]).resolve() if argv else SAMPLE
    with Workspace(root, servers=[server]) as ws:
        report = ws.diagnostics()
        if not report.files:
            raise SystemExit(f"no file of {root} is one that {server.id} checks")
        info = ws.session_for(next(iter(report.files))).server_info or {}
        print(f"{info.get('name', server.id)} {info.get('version', '')}".rstrip())
        for item in report.items:
            message = item.message.strip().splitlines()[0]
            print(f"{item.path}:{item.line}:{item.column}: {item.code} {message}")
        for path, file in report.files.items():
            if not file.complete:
                print(f"{path}: diagnostics not final ({file.reason})")
    print(f"{len(report.items)} diagnostics in {len(report.files)} files")
    return 0 if report.complete else 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
