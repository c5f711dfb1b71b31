"""agent-lsp (PyPI ``agent-lsp`` 0.23.5, a Go MCP server on stdio) driven through its own tools.

It runs exactly the server it is given (``agent-lsp python:/abs/basedpyright-langserver,--stdio``,
``typescript:/abs/typescript-language-server,--stdio``) as its child; ``start`` also calls its
``start_lsp`` on the root, as its tool descriptions ask. Nothing is downloaded at run time.
Answers are in its default "GCF" text format (a header ``## [N]{Col,...}`` and ``|``-separated
rows); positions in are 1-based, references out 1-based, diagnostics out raw LSP (0-based).
Tools used: ``find_references``, ``get_diagnostics`` (per file), ``apply_edit`` (text match),
``rename_symbol`` (writes to disk unless ``dry_run``).
Measured (click 8.1.7 with basedpyright 1.40; immer 10.1.1 src with typescript-language-server):
handshake 0.05 s, ``start_lsp`` 0.3 s. The first ``find_references`` takes 2-8 s and is sometimes
empty or partial: flagged ``indexed=false (...may be incomplete)`` in some runs, in others empty
with ``indexed=true`` (unflagged). Later ones < 0.5 s. ``get_diagnostics`` 0.5-3 s; right after
start, and in one run of two 1 s after an edit, it said "No errors" (unflagged) for a file with
19 errors; in the other run it saw the edit's new error.
``rename_symbol`` 2.3-2.7 s, all places written. When the language server is killed it does not
restart it: every later call fails ("LSP process has exited").

What an answer says of itself: the ``indexed=true|false`` line a references answer ends with is
its own field (``false``: flagged); any other line outside its tables that hedges ("No
references found. This may be dead code, or the language server could not resolve references")
is free text (hedged). Its process tree is ``agent-lsp`` (a Python launcher) above the Go
server above the language server: the kill ends only the last.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from fidelity import peers
from fidelity.subject import (
    Error,
    Place,
    Question,
    Reply,
    Server,
    Subject,
    SubjectFailed,
    import_cycle,
)
from fidelity.subjects.mcp_client import Answer, McpServer

VERSION = "0.23.5"
CALL_TIMEOUT = 180.0
_CELL = {sep: re.compile(rf'"(?:[^"\\]|\\.)*"|[^{sep}]*') for sep in "|,"}
_HEADER = re.compile(
    r"^##\s*(?P<key>\"(?:[^\"\\]|\\.)*\"\s*)?\[(?P<count>\d+)\]\{(?P<cols>.*)\}\s*$"
)
_INDEXED = re.compile(r"^indexed=(true|false)\b")
"""agent-lsp's own field on a references answer: ``indexed=false (...)`` when the language
server had not finished indexing."""
_HEDGE = re.compile(
    r"incomplete|partial|stale|may be|might|timed? ?out|still indexing|not ready|truncat",
    re.IGNORECASE,
)


def _cells(row: str, sep: str = "|") -> list[str]:
    """The cells of one GCF row (``|``) or header (``,``), a quoted cell JSON-escaped."""
    cells: list[str] = []
    at = 0
    while at <= len(row):
        match = _CELL[sep].match(row, at)
        cell = match.group(0) if match else ""
        cells.append(json.loads(cell) if cell.startswith('"') else cell)
        at += len(cell) + 1
    return cells


def gcf_tables(text: str) -> tuple[list[dict[str, str]], list[str]]:
    """The rows of every table in a GCF answer (with a ``#key`` cell for a section's key) and
    the lines that are not tables (the answer's own words)."""
    rows: list[dict[str, str]] = []
    words: list[str] = []
    columns: list[str] = []
    key = ""
    left = 0
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header:
            columns = _cells(header.group("cols"), ",")
            key = json.loads(header.group("key")) if header.group("key") else ""
            left = int(header.group("count"))
        elif left > 0:
            rows.append({"#key": key, **dict(zip(columns, _cells(line), strict=False))})
            left -= 1
        elif line.strip() and not line.startswith("GCF "):
            words.append(line.strip())
    return rows, words


def said(words: list[str]) -> tuple[str | None, str | None]:
    """What an answer's lines outside its tables say of it: its ``indexed=false`` field
    (flagged), and any other line that hedges in free text (hedged)."""
    flagged: list[str] = []
    hedged: list[str] = []
    for line in words:
        field = _INDEXED.match(line)
        if field:
            if field.group(1) == "false":
                flagged.append(line)
        elif _HEDGE.search(line):
            hedged.append(line)
    return (" / ".join(flagged) or None), (" / ".join(hedged) or None)


class AgentLsp(Subject):
    """agent-lsp's MCP server, given the harness's language server."""

    name = "agent-lsp"
    languages: ClassVar[dict[str, str]] = {"python": "python", "typescript": "typescript"}

    def __init__(self) -> None:
        self.root = Path()
        self.note = ""
        self.python = peers.PEERS / "agent-lsp" / "bin" / "python"
        self.mcp: McpServer | None = None

    async def start(self, root: Path, server: Server) -> None:
        """Install the peer, start it on ``root`` with ``server``, and tell it the root."""
        try:
            self.python = peers.venv("agent-lsp", [f"agent-lsp=={VERSION}"])
        except peers.InstallFailed as error:
            raise SubjectFailed(f"not run: {error}") from error
        self.root = root.resolve()
        spec = f"{self.languages[server.language]}:{','.join(server.argv)}"
        log = peers.PEERS / "agent-lsp" / "stderr.log"
        self.mcp = McpServer([str(self.python.parent / "agent-lsp"), spec], self.root, log)
        await self.mcp.open(60)
        await self._call("start_lsp", {"root_dir": str(self.root)})
        self.note = f"agent-lsp runs {server.argv[0]} as given"

    async def _call(self, tool: str, arguments: Mapping[str, object]) -> Answer:
        if self.mcp is None:
            raise SubjectFailed("not started")
        return await self.mcp.call(tool, arguments, CALL_TIMEOUT)

    def _relative(self, path: str) -> str:
        path = path.removeprefix("file://")
        try:
            return Path(path).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return path

    async def references(self, question: Question) -> Reply:
        """``find_references`` at the question's position (1-based for agent-lsp)."""
        answer = await self._call(
            "find_references",
            {
                "file_path": str(self.root / question.path),
                "line": question.line + 1,
                "column": question.column + 1,
            },
        )
        rows, words = gcf_tables(answer.text)
        places: set[Place] = set()
        for row in rows:
            if "FilePath" in row and "StartLine" in row:
                places.add((self._relative(row["FilePath"]), int(row["StartLine"]) - 1))
        places.discard((question.path, question.line))
        flagged, hedged = said(words)
        return Reply(places=frozenset(places), flagged=flagged, hedged=hedged, size=answer.size)

    async def diagnostics(self, paths: list[str]) -> Reply:
        """``get_diagnostics`` of each file, the errors (severity 1) kept."""
        errors: set[Error] = set()
        lines: list[str] = []
        size = 0
        for path in paths:
            answer = await self._call("get_diagnostics", {"file_path": str(self.root / path)})
            size += answer.size
            rows, words = gcf_tables(answer.text)
            lines += words
            for row in rows:
                if row.get("Severity") == "1" and not import_cycle(
                    row.get("Code"), row.get("Message")
                ):
                    where = self._relative(row["#key"]) if row["#key"] else path
                    start = (int(row["Range>Start>Line"]), int(row["Range>Start>Character"]))
                    errors.add((where, *start))
        flagged, hedged = said(lines)
        return Reply(errors=frozenset(errors), flagged=flagged, hedged=hedged, size=size)

    async def edit(self, path: str, old: str, new: str) -> Reply:
        """``apply_edit`` in its text-match mode."""
        arguments = {"file_path": str(self.root / path), "old_text": old, "new_text": new}
        answer = await self._call("apply_edit", arguments)
        return Reply(size=answer.size)

    async def rename(self, question: Question, new_name: str) -> Reply:
        """``rename_symbol``, which applies the edit itself unless asked for a dry run."""
        answer = await self._call(
            "rename_symbol",
            {
                "file_path": str(self.root / question.path),
                "line": question.line + 1,
                "column": question.column + 1,
                "new_name": new_name,
            },
        )
        if not answer.text.startswith("Renamed"):
            raise SubjectFailed(f"rename_symbol: {answer.text[:300]}")
        return Reply(size=answer.size)

    def pids(self) -> list[int]:
        """agent-lsp's own process (its Python launcher; the Go server and the language
        server are below it)."""
        return [self.mcp.pid] if self.mcp is not None and self.mcp.pid else []

    async def stop(self) -> None:
        """Close the MCP session and end every process of it."""
        if self.mcp is not None:
            await self.mcp.close()
            self.mcp = None

    async def version(self) -> str:
        """agent-lsp's own ``--version``."""
        try:
            done = subprocess.run(
                [str(self.python.parent / "agent-lsp"), "--version"],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return VERSION
        return done.stdout.strip() or VERSION
