"""Check a project with a real language server and print its diagnostics, editor style.

    python examples/check_project.py [project folder] [-- server command ...]

By default it runs ``ruff server`` (from the ``servers`` extra) over every Python file of
``examples/sample_project``: it opens each file, waits for the server's diagnostics of that
text, and prints them as ``path:line:column: code message``, with columns counted in
characters whatever position encoding the server chose.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path
from typing import Any

from adecore_lsp import LspSession, TextDocument, path_to_uri, spawn_server, uri_to_path

SAMPLE = Path(__file__).resolve().parent / "sample_project"
WAIT = 15.0


def default_command() -> list[str]:
    """``ruff server``, preferring the ruff installed beside this Python."""
    beside = Path(sys.executable).parent / "ruff"
    ruff = str(beside) if beside.exists() else shutil.which("ruff")
    if ruff is None:
        raise SystemExit("ruff is not installed: pip install 'adecore-lsp[servers]'")
    return [ruff, "server"]


def describe(document: TextDocument, diagnostic: dict[str, Any], root: Path) -> str:
    """One diagnostic as ``path:line:column: code message``, 1-based, in characters."""
    offset = document.offset_at(diagnostic["range"]["start"])
    line = document.text.count("\n", 0, offset)
    column = offset - (document.text.rfind("\n", 0, offset) + 1)
    path = uri_to_path(document.uri).relative_to(root)
    code = diagnostic.get("code", "")
    message = diagnostic["message"].strip().splitlines()[0]
    return f"{path}:{line + 1}:{column + 1}: {code} {message}".replace("  ", " ")


async def check(root: Path, files: list[Path], command: list[str]) -> int:
    reports: dict[str, asyncio.Future[dict[str, Any]]] = {}

    def heard(report: dict[str, Any]) -> None:
        waiting = reports.get(report["uri"])
        if waiting is not None and not waiting.done():
            waiting.set_result(report)

    count = 0
    texts = {path_to_uri(path): path.read_text(encoding="utf-8") for path in files}
    async with (
        await spawn_server(command, cwd=root) as server,
        LspSession(server.transport, root_uri=path_to_uri(root)) as session,
    ):
        info = session.server_info or {}
        print(f"{info.get('name', command[0])} {info.get('version', '')}".rstrip())
        session.on_diagnostics(heard)
        loop = asyncio.get_running_loop()
        documents = []
        for uri, text in texts.items():
            reports[uri] = loop.create_future()
            documents.append(session.open_document(uri, "python", text))
        for document in documents:
            try:
                report = await asyncio.wait_for(reports[document.uri], WAIT)
            except asyncio.TimeoutError:
                print(f"{document.uri}: no diagnostics within {WAIT:g} s")
                continue
            ordered = sorted(
                report["diagnostics"], key=lambda d: document.offset_at(d["range"]["start"])
            )
            for diagnostic in ordered:
                print(describe(document, diagnostic, root))
                count += 1
    print(f"{count} diagnostics in {len(files)} files")
    return 0


def main(argv: list[str]) -> int:
    command = default_command()
    if "--" in argv:
        command = argv[argv.index("--") + 1 :]
        argv = argv[: argv.index("--")]
    root = Path(argv[0]).resolve() if argv else SAMPLE
    return asyncio.run(check(root, sorted(root.rglob("*.py")), command))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
