"""The settled truth every answer is scored against, computed by the harness itself.

- References: the same server, through the harness's own client (:mod:`fidelity.lsp_wire`),
  asked again once its progress has ended until two answers two seconds apart agree.
- Diagnostics: the server's own command line on the state of the disk
  (``basedpyright --outputjson``, ``tsc --noEmit``), errors only.
- Rename: the server's own rename on a settled copy of the tree, applied by the harness,
  as the bytes of every file.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from fidelity.lsp_wire import Wire, WireError, uri
from fidelity.subject import Error, Place, Question, Server
from fidelity.trees import copy_tree

SETTLE_LIMIT = 240.0
"""How long the truth waits for a server to settle before it gives the question up."""

IGNORED_PARTS = {".git", "__pycache__", "node_modules", ".mypy_cache", ".ruff_cache"}


class NoTruth(Exception):
    """The truth could not be settled (the server never agreed with itself, or failed)."""


def relative(root: Path, address: str) -> str:
    """A location's URI as a path relative to ``root`` (absolute when outside it)."""
    path = Path(unquote(urlparse(address).path)).resolve()
    try:
        return path.relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _places(root: Path, answer: Any) -> frozenset[Place]:
    return frozenset(
        (relative(root, item["uri"]), int(item["range"]["start"]["line"])) for item in answer or []
    )


async def _settle(wire: Wire, ask: Any) -> Any:
    """Ask ``ask()`` until its progress has ended and two answers agree."""
    began = time.monotonic()
    previous: Any = object()
    while time.monotonic() - began < SETTLE_LIMIT:
        await asyncio.sleep(2.0)
        if wire.progress:
            continue
        try:
            answer = await ask()
        except WireError:
            continue
        if answer == previous:
            return answer
        previous = answer
    raise NoTruth(f"the server did not agree with itself within {SETTLE_LIMIT:.0f} s")


async def references(
    root: Path, server: Server, questions: list[Question]
) -> dict[str, frozenset[Place]]:
    """Each question's settled references (keyed by :func:`key`), the declaration left out.

    Raises:
        NoTruth: the server never settled.
    """
    wire = await Wire.start(list(server.argv), root)
    try:
        for path in sorted({q.path for q in questions}):
            wire.open(root / path, _language_id(server, path))

        async def ask() -> dict[str, frozenset[Place]]:
            answers = {}
            for question in questions:
                answer = await wire.request(
                    "textDocument/references",
                    {
                        "textDocument": {"uri": uri(root / question.path)},
                        "position": {"line": question.line, "character": question.column},
                        "context": {"includeDeclaration": False},
                    },
                )
                answers[key(question)] = _places(root, answer)
            return answers

        settled: dict[str, frozenset[Place]] = await _settle(wire, ask)
        return settled
    finally:
        await wire.close()


def key(question: Question) -> str:
    """A question's name in the truth's tables: ``path:line:column``."""
    return f"{question.path}:{question.line}:{question.column}"


def _language_id(server: Server, path: str) -> str:
    if path.endswith((".ts", ".tsx")):
        return "typescriptreact" if path.endswith(".tsx") else "typescript"
    return "python"


_TSC_LINE = re.compile(r"^(?P<file>.+?)\((?P<line>\d+),(?P<column>\d+)\): error ")


def errors(root: Path, server: Server, paths: Iterable[str]) -> frozenset[Error]:
    """The errors the server's own command line reports in ``paths`` on the disk now.

    Raises:
        NoTruth: the command line failed to run.
    """
    wanted = set(paths)
    argv = list(server.check)
    if server.language == "python":
        argv += sorted(p for p in wanted if (root / p).is_file())
    try:
        done = subprocess.run(
            argv, cwd=root, capture_output=True, text=True, timeout=600, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise NoTruth(f"{argv[0]}: {error}") from error
    found: set[Error] = set()
    if server.id == "typescript-language-server":
        for line in done.stdout.splitlines():
            matched = _TSC_LINE.match(line)
            if matched:
                path = Path(matched["file"])
                name = (path if path.is_absolute() else root / path).resolve()
                where = name.relative_to(root.resolve()).as_posix()
                found.add((where, int(matched["line"]) - 1, int(matched["column"]) - 1))
    else:
        try:
            report = json.loads(done.stdout)
        except ValueError as error:
            raise NoTruth(f"{argv[0]}: no JSON report: {done.stderr.strip()[-200:]}") from error
        for item in report.get("generalDiagnostics", []):
            if item.get("severity") == "error":
                # A report with no range (an import cycle) sits at the file's start, where
                # the server publishes it.
                start = (item.get("range") or {}).get("start") or {"line": 0, "character": 0}
                where = relative(root, Path(item["file"]).as_uri())
                found.add((where, int(start["line"]), int(start["character"])))
    return frozenset(e for e in found if e[0] in wanted)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the tree and its bytes (repository and tool folders left out)."""
    files = {}
    for path in root.rglob("*"):
        relative_path = path.relative_to(root)
        parts = relative_path.parts
        if not path.is_file() or IGNORED_PARTS & set(parts):
            continue
        if any(part.startswith(".") for part in parts[:-1]):
            continue
        files[relative_path.as_posix()] = path.read_bytes()
    return files


def _offset(text: str, position: dict[str, int]) -> int:
    """The index in ``text`` of an LSP position (UTF-16 code units in the line)."""
    lines = text.splitlines(keepends=True)
    line = position["line"]
    if line >= len(lines):
        return len(text)
    start = sum(len(x) for x in lines[:line])
    units = 0
    for index, char in enumerate(lines[line]):
        if units >= position["character"]:
            return start + index
        units += 2 if ord(char) > 0xFFFF else 1
    return start + len(lines[line].rstrip("\r\n"))


def _apply(text: str, edits: list[dict[str, Any]]) -> str:
    spans = [
        (_offset(text, e["range"]["start"]), _offset(text, e["range"]["end"]), e["newText"])
        for e in edits
    ]
    for start, end, new in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        text = text[:start] + new + text[end:]
    return text


def apply_workspace_edit(root: Path, files: dict[str, bytes], edit: Any) -> dict[str, bytes]:
    """``files`` with a WorkspaceEdit applied: its ``changes``, then its ``documentChanges``
    in their order (a text edit names its file as it is at that point of the list)."""
    result = dict(files)

    def write(path: str, edits: list[dict[str, Any]]) -> None:
        result[path] = _apply(result[path].decode("utf-8"), edits).encode("utf-8")

    for address, edits in (edit.get("changes") or {}).items():
        write(relative(root, address), edits)
    for change in edit.get("documentChanges") or []:
        kind = change.get("kind")
        if kind == "rename":
            old, new = relative(root, change["oldUri"]), relative(root, change["newUri"])
            result[new] = result.pop(old)
        elif kind is None:
            write(relative(root, change["textDocument"]["uri"]), change["edits"])
    return result


def _lines(found: frozenset[Error]) -> list[int]:
    return sorted(line for _, line, _ in found)


async def rename(root: Path, server: Server, question: Question, new_name: str) -> dict[str, bytes]:
    """The tree after the server's own rename of ``question`` to ``new_name``, settled,
    on a copy of ``root`` as it is now.

    Raises:
        NoTruth: the server never settled or refused the rename.
    """
    with tempfile.TemporaryDirectory() as name:
        copy = Path(name) / "tree"
        copy_tree(root, copy)
        before = snapshot(copy)
        wire = await Wire.start(list(server.argv), copy)
        try:
            wire.open(copy / question.path, _language_id(server, question.path))
            place = {
                "textDocument": {"uri": uri(copy / question.path)},
                "position": {"line": question.line, "character": question.column},
            }

            async def ask() -> Any:
                return await wire.request(
                    "textDocument/references",
                    {**place, "context": {"includeDeclaration": True}},
                )

            await _settle(wire, ask)
            try:
                edit = await wire.request("textDocument/rename", {**place, "newName": new_name})
            except WireError as error:
                raise NoTruth(f"the server refused the rename: {error}") from error
        finally:
            await wire.close()
        if not edit:
            raise NoTruth("the server's rename changed nothing")
        after = apply_workspace_edit(copy, before, edit)
        # The second half of the truth: the command line's errors in the files the rename
        # touched are the same lines before and after (a rename changes no type).
        old = [p for p in before if after.get(p) != before[p]]
        new = [p for p in after if after[p] != before.get(p)]
        errors_before = errors(copy, server, old)
        for path in old:
            (copy / path).unlink()
        for path in new:
            (copy / path).parent.mkdir(parents=True, exist_ok=True)
            (copy / path).write_bytes(after[path])
        errors_after = errors(copy, server, new)
        if _lines(errors_before) != _lines(errors_after):
            raise NoTruth(
                f"the server's own rename changes the command line's errors in {new}:"
                f" lines {_lines(errors_before)} before, {_lines(errors_after)} after"
            )
        return after
