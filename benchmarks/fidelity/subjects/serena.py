"""serena (PyPI ``serena-agent`` 2.1.0, an MCP server on stdio) driven through its own tools.

Configured through a throwaway ``SERENA_HOME``: the "tools" agent interface (its default is one
``serena_repl`` tool), no dashboard, every project trusted, its per-project folder kept out of the
tree, and the language server given by ``ls_path``/``ls_args`` (``python_basedpyright`` for
basedpyright, ``typescript`` for typescript-language-server), so it runs the harness's server as
its child and downloads nothing (its usage report to its vendor fails here, harmlessly).
Its tools take symbol name paths, not positions: ``references`` first asks ``find_symbol`` for the
name path whose body holds the question's line, then ``find_referencing_symbols``, and maps each
referencing symbol to the line its snippet marks with ``>`` (0-based). ``get_diagnostics_for_file``
(``min_severity=1``), ``replace_content`` (literal), ``rename_symbol`` (writes to disk).
Measured (click 8.1.7 with basedpyright 1.40; immer 10.1.1 src with typescript-language-server):
handshake 1.5 s Python, 5 s TypeScript (the language server starts in the background);
find_symbol + find_referencing_symbols 5-10 s on the first call (complete in every run seen),
0.3-2 s later; diagnostics 0.5-5 s, saw an edit's new error; rename 0.5 s, all places written;
replace_content 0.1 s. When the language server is killed, serena starts a new one on the next
call (5 s) and answers in full.

What an answer says of itself: serena's own marker, an answer that starts "The answer is too
long (N characters)" (``limit_length``: it was shortened or left out), is read as its field
(flagged); free text before an answer's JSON that hedges is hedged. Code snippets inside the
JSON are never read as words about the answer.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

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

VERSION = "2.1.0"
CALL_TIMEOUT = 240.0
_MARKED = re.compile(r"^\s*>\s*(\d+):", re.MULTILINE)
TOO_LONG = "The answer is too long ("
"""serena's own marker (``TextOutputUtils.limit_length``): an answer that starts with it was
shortened or left out."""
_HEDGE = re.compile(r"incomplete|partial|stale|may be|might|timed? ?out|not ready|truncat", re.I)


def _json(text: str) -> Any:
    """The JSON value in a serena answer (after a "too long" line, if any), else None."""
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        return None
    try:
        return json.loads(text[start:])
    except ValueError:
        return None


def said(text: str) -> tuple[str | None, str | None]:
    """What an answer says of itself: serena's "too long" marker at its start (flagged), or
    free text before its JSON that hedges (hedged); code snippets inside the JSON are never
    read."""
    if text.startswith(TOO_LONG):
        return text.split("\n", 1)[0][:200], None
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=len(text))
    hedge = _HEDGE.search(text[:start])
    return None, (text[:start].strip()[:200] if hedge else None)


class Serena(Subject):
    """serena's MCP server on one project, given the harness's language server."""

    name = "serena"
    languages: ClassVar[dict[str, str]] = {
        "basedpyright": "python_basedpyright",
        "typescript-language-server": "typescript",
    }

    def __init__(self) -> None:
        self.root = Path()
        self.home: Path | None = None
        self.note = ""
        self.mcp: McpServer | None = None

    async def start(self, root: Path, server: Server) -> None:
        """Install serena, write its configuration, start its MCP server on ``root``."""
        language = self.languages.get(server.id)
        if language is None:
            raise SubjectFailed(f"not run: serena has no setting for a server {server.id}")
        try:
            python = peers.venv("serena", [f"serena-agent=={VERSION}"])
        except peers.InstallFailed as error:
            raise SubjectFailed(f"not run: {error}") from error
        self.root = root.resolve()
        self.home = Path(tempfile.mkdtemp(prefix="fidelity-serena-"))
        config = {
            "language_backend": "LSP",
            "agent_interface": "tools",
            "gui_log_window": False,
            "web_dashboard": False,
            "web_dashboard_open_on_launch": False,
            "project_serena_folder_location": f"{self.home}/projects/$projectFolderName",
            "trusted_project_path_patterns": ["**"],
            "projects": [],
            "ls_specific_settings": {
                language: {"ls_path": server.argv[0], "ls_args": list(server.argv[1:])}
            },
        }
        # YAML reads JSON.
        (self.home / "serena_config.yml").write_text(json.dumps(config), encoding="utf-8")
        project = self.home / "projects" / self.root.name
        project.mkdir(parents=True)
        (project / "project.yml").write_text(
            json.dumps({"project_name": self.root.name, "language_servers": [language]}),
            encoding="utf-8",
        )
        argv = [str(python.parent / "serena"), "start-mcp-server", "--project", str(self.root)]
        argv += ["--context", "agent", "--transport", "stdio"]
        self.mcp = McpServer(
            argv, self.root, self.home / "stderr.log", {"SERENA_HOME": str(self.home)}
        )
        await self.mcp.open(120)
        self.note = f"serena runs {server.argv[0]} as its {language} server (ls_path)"

    async def _call(self, tool: str, arguments: Mapping[str, object]) -> Answer:
        if self.mcp is None:
            raise SubjectFailed("not started")
        answer = await self.mcp.call(tool, arguments, CALL_TIMEOUT)
        if answer.text.startswith("Error"):
            raise SubjectFailed(f"{tool}: {answer.text[:500]}")
        return answer

    async def _name_path(self, question: Question) -> str:
        """The name path of the innermost symbol named like the question whose body holds its
        line (serena's tools take name paths, not positions)."""
        answer = await self._call(
            "find_symbol", {"name_path_pattern": question.name, "relative_path": question.path}
        )
        found = _json(answer.text) or []
        holding = [
            (s["body_location"]["end_line"] - s["body_location"]["start_line"], s["name_path"])
            for s in found
            if isinstance(s, dict)
            and s.get("body_location", {}).get("start_line", -1)
            <= question.line
            <= s.get("body_location", {}).get("end_line", -1)
        ]
        if not holding:
            raise SubjectFailed(f"find_symbol found no {question.name} at line {question.line}")
        return str(min(holding)[1])

    async def references(self, question: Question) -> Reply:
        """``find_referencing_symbols`` of the question's symbol, one place per marked line."""
        name_path = await self._name_path(question)
        answer = await self._call(
            "find_referencing_symbols", {"name_path": name_path, "relative_path": question.path}
        )
        places: set[Place] = set()
        by_file = _json(answer.text)
        for path, kinds in (by_file if isinstance(by_file, dict) else {}).items():
            for symbols in kinds.values() if isinstance(kinds, dict) else []:
                for symbol in symbols if isinstance(symbols, list) else []:
                    marked = _MARKED.findall(str(symbol.get("content_around_reference", "")))
                    if marked:
                        places.update((path, int(line)) for line in marked)
                    elif "body_location" in symbol:
                        places.add((path, int(symbol["body_location"]["start_line"])))
        places.discard((question.path, question.line))
        flagged, hedged = said(answer.text)
        return Reply(places=frozenset(places), flagged=flagged, hedged=hedged, size=answer.size)

    async def diagnostics(self, paths: list[str]) -> Reply:
        """``get_diagnostics_for_file`` of each file, errors only."""
        errors: set[Error] = set()
        flags: list[str] = []
        hedges: list[str] = []
        size = 0
        for path in paths:
            answer = await self._call(
                "get_diagnostics_for_file", {"relative_path": path, "min_severity": 1}
            )
            size += answer.size
            flagged, hedged = said(answer.text)
            flags += [flagged] if flagged else []
            hedges += [hedged] if hedged else []
            by_file = _json(answer.text)
            for where, severities in (by_file if isinstance(by_file, dict) else {}).items():
                for symbol in (severities.get("Error") or {}).values():
                    for item in symbol:
                        if import_cycle(item.get("code"), item.get("message")):
                            continue
                        start = item["range"]["start"]
                        errors.add((where, int(start["line"]), int(start["character"])))
        return Reply(
            errors=frozenset(errors),
            flagged=" / ".join(flags) or None,
            hedged=" / ".join(hedges) or None,
            size=size,
        )

    async def edit(self, path: str, old: str, new: str) -> Reply:
        """``replace_content``, the needle taken literally."""
        arguments = {"relative_path": path, "needle": old, "repl": new, "mode": "literal"}
        return Reply(size=(await self._call("replace_content", arguments)).size)

    async def rename(self, question: Question, new_name: str) -> Reply:
        """``rename_symbol`` of the question's name path (serena writes the edit itself)."""
        name_path = await self._name_path(question)
        arguments = {"name_path": name_path, "relative_path": question.path, "new_name": new_name}
        return Reply(size=(await self._call("rename_symbol", arguments)).size)

    def pids(self) -> list[int]:
        """serena's own process (the language server is below it)."""
        return [self.mcp.pid] if self.mcp is not None and self.mcp.pid else []

    async def stop(self) -> None:
        """Close the MCP session, end every process of it, remove its home."""
        if self.mcp is not None:
            await self.mcp.close()
            self.mcp = None
        if self.home is not None:
            shutil.rmtree(self.home, ignore_errors=True)
            self.home = None

    async def version(self) -> str:
        """serena-agent's version as installed (the pin when it cannot be read)."""
        python = peers.PEERS / "serena" / "bin" / "python"
        code = "import importlib.metadata as m; print(m.version('serena-agent'))"
        try:
            done = subprocess.run(
                [str(python), "-c", code], capture_output=True, text=True, timeout=30, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            return VERSION
        return done.stdout.strip() or VERSION
