"""This project's MCP server as a subject (``adecore-lsp-mcp``): ``adecore-lsp mcp --root ROOT``
on stdio, driven through the official MCP SDK's client as a coding agent's host would.

The answers are read from each tool's structured content (the JSON its ``outputSchema``
declares); the text rendering counts toward the size only. No ``--trust`` for a registry server:
the servers are the project's own installs outside the tree, found on ``PATH`` (see
:mod:`.adecore_cli`). The MCP server takes no ``--command``: a server outside the registry (the
scripted one) is declared as its documentation says, in the root's ``adecore-lsp.toml``, and
that needs ``--trust``, since a project's own ``command`` runs only in a trusted root. The file
is removed again by ``stop``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fidelity.subject import NotSupported, Question, Reply, Server, Subject, SubjectFailed
from fidelity.subjects.adecore_cli import (
    CALL_LIMIT,
    environment,
    errors_of,
    executable,
    incomplete,
    installed_version,
    server_options,
    target,
)
from fidelity.subjects.mcp_client import Answer, McpServer

LIMIT = 1000
"""The ``limit`` of list tools: the largest their schemas allow; an answer with more says
``truncated`` and is flagged."""
HANDSHAKE_LIMIT = 60.0
CONFIG = "adecore-lsp.toml"
EXTENSIONS = {"python": [".py"], "typescript": [".ts", ".tsx"]}


def declare(root: Path, server: Server) -> list[str]:
    """Declare ``server`` (not in the registry) in ``root``'s ``adecore-lsp.toml``; the options
    that choose it.

    Raises:
        SubjectFailed: the tree has a configuration of its own, which this would replace.
    """
    config = root / CONFIG
    if config.exists():
        raise SubjectFailed(f"not run: the tree has its own {CONFIG}")
    languages = ", ".join(
        f"{json.dumps(extension)} = {json.dumps(server.language)}"
        for extension in EXTENSIONS.get(server.language, [])
    )
    config.write_text(
        f"[server.{server.id}]\ncommand = {json.dumps(list(server.argv))}\n"
        f"languages = {{ {languages} }}\n",
        encoding="utf-8",
    )
    return ["--server", server.id, "--trust", *server_options(server)[2:]]


def flagged(data: Any) -> str | None:
    """A list result's own words that it is not whole: ``complete: false`` with its reason,
    or fewer items than its ``total`` (``truncated``)."""
    if not isinstance(data, dict):
        return "no structured content"
    said = incomplete(data)
    if said:
        return said
    items, total = data.get("items"), data.get("total")
    if data.get("truncated") or (
        isinstance(items, list) and isinstance(total, int) and total > len(items)
    ):
        shown = len(items) if isinstance(items, list) else "?"
        return f"truncated: {shown} of {total} items"
    return None


class AdecoreMcp(Subject):
    """``adecore-lsp mcp``: one session for the subject's life, the language server started
    lazily by the first call that needs it."""

    name = "adecore-lsp-mcp"

    def __init__(self) -> None:
        self.session: McpServer | None = None
        self.schemas: dict[str, Any] = {}
        self.config: Path | None = None

    async def start(self, root: Path, server: Server) -> None:
        """Start ``adecore-lsp mcp`` on ``root`` and finish the MCP handshake."""
        root = root.resolve()
        chosen = server_options(server)
        if server.id == "scripted":
            chosen = declare(root, server)
            self.config = root / CONFIG
        argv = [executable(), "mcp", "--root", str(root), *chosen]
        self.session = McpServer(argv, root, env=environment(server))
        await self.session.open(HANDSHAKE_LIMIT)
        self.schemas = await self.session.schemas()

    async def _call(self, tool: str, arguments: dict[str, Any]) -> Answer:
        if self.session is None:
            raise SubjectFailed("not started")
        return await self.session.call(tool, arguments, CALL_LIMIT)

    async def references(self, question: Question) -> Reply:
        """The ``references`` tool at ``path:LINE:COL``, the declaration left out."""
        arguments = {"target": target(question), "limit": LIMIT, "include_declaration": False}
        answer = await self._call("references", arguments)
        items = answer.structured.get("items", []) if isinstance(answer.structured, dict) else []
        places = frozenset((str(item["path"]), int(item["line"]) - 1) for item in items)
        return Reply(places=places, flagged=flagged(answer.structured), size=answer.size)

    async def diagnostics(self, paths: list[str]) -> Reply:
        """The ``diagnostics`` tool on ``paths``, errors only."""
        arguments = {"paths": paths, "min_severity": "error", "limit": LIMIT}
        answer = await self._call("diagnostics", arguments)
        data = answer.structured if isinstance(answer.structured, dict) else {}
        errors = errors_of(data.get("items", []))
        return Reply(errors=errors, flagged=flagged(answer.structured), size=answer.size)

    async def edit(self, path: str, old: str, new: str) -> Reply:
        """The ``edit`` tool with one replacement (``old`` found exactly once), written."""
        schema = self.schemas.get("edit", {}).get("properties", {})
        if "edits" not in schema:
            raise NotSupported("the server lists no edit tool that replaces text")
        arguments = {"path": path, "edits": [{"old": old, "new": new}], "write": True}
        answer = await self._call("edit", arguments)
        return self._written(answer)

    async def rename(self, question: Question, new_name: str) -> Reply:
        """The ``apply_rename`` tool: the server's rename, written atomically."""
        arguments = {"target": target(question), "new_name": new_name}
        return self._written(await self._call("apply_rename", arguments))

    @staticmethod
    def _written(answer: Answer) -> Reply:
        """A write's answer: flagged when it says ``complete: false`` or that nothing was
        written."""
        data = answer.structured if isinstance(answer.structured, dict) else {}
        said = incomplete(data)
        if data.get("applied") is False:
            said = "applied: false" + (f"; {said}" if said else "")
        return Reply(flagged=said, size=answer.size)

    def pids(self) -> list[int]:
        """The MCP server's pid (its language servers are its children)."""
        return [self.session.pid] if self.session and self.session.pid else []

    async def stop(self) -> None:
        """Close the session (the server shuts its language servers down and exits) and remove
        the configuration ``start`` wrote."""
        if self.session is not None:
            await self.session.close()
            self.session = None
        if self.config is not None:
            self.config.unlink(missing_ok=True)
            self.config = None

    async def version(self) -> str:
        """The installed ``adecore-lsp``'s version."""
        return await installed_version()
