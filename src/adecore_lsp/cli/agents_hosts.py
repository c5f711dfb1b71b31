"""What ``agents setup`` writes for each host: its MCP server entry, its hook entries and a
skill (or rules) file, each a :class:`Piece` of one file, with how to add it and take it back.

Where each host reads them is in its documentation, cited in ``docs/agents.md``.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._version import __version__
from .hook_hosts import HOSTS
from .json_text import with_item, with_member, without_items, without_member
from .toml_text import with_table, without_table

# Internal to the library: nothing here is public API (the command line is).
__all__: list[str] = []

SERVER_NAME = "adecore-lsp"
MARK = "<!-- written by `adecore-lsp agents setup`; `--remove` takes it back -->"
"""The line that makes a whole file ours (a skill): one without it is never replaced."""
TIMEOUT = 60
"""The limit the hook entries give the host, in seconds: above ``hook``'s own deadline."""


def hook_command(command: str, host: str, event: str) -> str:
    """The shell line a host runs for a hook (``sh -c``): the program quoted, so that a path
    with a space or a quote is one word."""
    return f"{shlex.quote(command)} hook {host} {event}"


@dataclass(frozen=True)
class Piece:
    """One thing ``setup`` writes: a file, and how to add and remove its part."""

    name: str
    """``mcp``, ``hook`` or ``skill``."""
    file: str
    add: Callable[[str], str]
    remove: Callable[[str], str]
    whole: bool = False
    """The file is ours alone (a skill): written whole, removed whole."""
    empty: str = "{}\n"
    """The file's text with nothing in it: a file left so by ``--remove`` is deleted."""


def _json_hooks(file: str, marker: str, entries: dict[str, Any], base: list[str]) -> Piece:
    """Hook ``entries`` (by event) as items of the arrays at ``base + [event]``."""

    def add(text: str) -> str:
        for event, entry in entries.items():
            text = with_item(text, [*base, event], entry, marker)
        return text

    def remove(text: str) -> str:
        for event in entries:
            text = without_items(text, [*base, event], marker)
        return text

    return Piece("hook", file, add, remove)


def _json_server(file: str, key: str, server: dict[str, Any]) -> Piece:
    return Piece(
        "mcp",
        file,
        lambda text: with_member(text, [key], SERVER_NAME, server),
        lambda text: without_member(text, [key], SERVER_NAME),
    )


def _skill(file: str, command: str, front: dict[str, str] | None = None) -> Piece:
    text = skill_text(command, front)
    return Piece("skill", file, lambda _: text, lambda _: "", whole=True, empty="")


def _claude_code(command: str) -> list[Piece]:
    edits = "|".join(sorted(HOSTS["claude-code"].edit_tools))

    def entry(event: str) -> dict[str, Any]:
        hook = {"type": "command", "command": hook_command(command, "claude-code", event)}
        return {"hooks": [{**hook, "timeout": TIMEOUT}]}

    return [
        _json_server(".mcp.json", "mcpServers", {"command": command, "args": ["mcp"]}),
        _json_hooks(
            ".claude/settings.json",
            "hook claude-code",
            {"PostToolUse": {"matcher": edits, **entry("PostToolUse")}, "Stop": entry("Stop")},
            ["hooks"],
        ),
        _skill(".claude/skills/adecore-lsp/SKILL.md", command),
    ]


def _gemini_cli(command: str) -> list[Piece]:
    def entry(event: str) -> dict[str, Any]:
        hook: dict[str, Any] = {"name": SERVER_NAME, "type": "command"}
        # Gemini CLI counts a hook's timeout in milliseconds.
        hook |= {"command": hook_command(command, "gemini-cli", event), "timeout": TIMEOUT * 1000}
        return {"hooks": [hook]}

    return [
        _json_server(".gemini/settings.json", "mcpServers", {"command": command, "args": ["mcp"]}),
        _json_hooks(
            ".gemini/settings.json",
            "hook gemini-cli",
            {
                "AfterTool": {"matcher": "write_file|replace", **entry("AfterTool")},
                "AfterAgent": entry("AfterAgent"),
            },
            ["hooks"],
        ),
        _skill(".gemini/skills/adecore-lsp/SKILL.md", command),
    ]


def _codex(command: str) -> list[Piece]:
    def entry(event: str) -> dict[str, Any]:
        hook = {"type": "command", "command": hook_command(command, "codex", event)}
        return {"hooks": [{**hook, "timeout": TIMEOUT}]}

    server = {"command": command, "args": ["mcp"]}
    return [
        Piece(
            "mcp",
            ".codex/config.toml",
            lambda text: with_table(text, "mcp_servers", SERVER_NAME, server),
            lambda text: without_table(text, "mcp_servers", SERVER_NAME),
            empty="",
        ),
        _json_hooks(
            ".codex/hooks.json",
            "hook codex",
            {
                "PostToolUse": {"matcher": "apply_patch|Edit|Write", **entry("PostToolUse")},
                "Stop": entry("Stop"),
            },
            ["hooks"],
        ),
        _skill(".agents/skills/adecore-lsp/SKILL.md", command),
    ]


def _cursor(command: str) -> list[Piece]:
    def entry(event: str) -> dict[str, Any]:
        return {"command": hook_command(command, "cursor", event), "timeout": TIMEOUT}

    hooks = _json_hooks(
        ".cursor/hooks.json",
        "hook cursor",
        {
            "afterFileEdit": entry("afterFileEdit"),
            # postToolUse takes additional_context: what a write broke reaches the agent at
            # once (afterFileEdit, which has no output, gives the edit's text before).
            "postToolUse": {**entry("postToolUse"), "matcher": "Write"},
            "stop": entry("stop"),
        },
        ["hooks"],
    )

    def add(text: str) -> str:
        # Cursor's file starts with its version; one that has it keeps its own.
        return hooks.add(with_member(text, [], "version", 1))

    rules = {
        "description": "Which adecore-lsp command answers which question about this code",
        "alwaysApply": "false",
    }
    return [
        _json_server(".cursor/mcp.json", "mcpServers", {"command": command, "args": ["mcp"]}),
        Piece("hook", ".cursor/hooks.json", add, hooks.remove, empty='{\n  "version": 1\n}\n'),
        _skill(".cursor/rules/adecore-lsp.mdc", command, rules),
    ]


def _copilot_cli(command: str) -> list[Piece]:
    def entry(event: str) -> dict[str, Any]:
        return {
            "type": "command",
            "bash": hook_command(command, "copilot-cli", event),
            "timeoutSec": TIMEOUT,
        }

    hooks = _json_hooks(
        ".github/hooks/adecore-lsp.json",
        "hook copilot-cli",
        {"postToolUse": entry("postToolUse"), "agentStop": entry("agentStop")},
        ["hooks"],
    )

    def add(text: str) -> str:
        return hooks.add(with_member(text, [], "version", 1))

    return [
        _json_server(".github/mcp.json", "mcpServers", {"command": command, "args": ["mcp"]}),
        Piece(
            "hook",
            ".github/hooks/adecore-lsp.json",
            add,
            hooks.remove,
            empty='{\n  "version": 1\n}\n',
        ),
        _skill(".github/skills/adecore-lsp/SKILL.md", command),
    ]


PIECES_OF: dict[str, Callable[[str], list[Piece]]] = {
    "claude-code": _claude_code,
    "gemini-cli": _gemini_cli,
    "codex": _codex,
    "cursor": _cursor,
    "copilot-cli": _copilot_cli,
}


def skill_text(command: str, front: dict[str, str] | None = None) -> str:
    """The skill: which command answers which question, from the command line's own help."""
    from .parser import build_parser

    parser = build_parser()
    head = front or {
        "name": SERVER_NAME,
        "description": "Answers from this project's language servers (type errors, "
        "definitions, references, renames, formatting) through the adecore-lsp command line. "
        "Use it to see what an edit broke, where a name is defined or used, or to rename "
        "across files.",
    }
    lines = ["---", *(f"{key}: {value}" for key, value in head.items()), "---", "", MARK, ""]
    lines += [
        "# adecore-lsp",
        "",
        f"`{command}` (version {__version__}) asks the project's language servers and answers"
        " with what they say once they have finished: a check that could not finish says so"
        ' (exit 3), never "no errors". Targets are `path:LINE:COL` (1-based) or `path:NAME`.'
        " Add `--format json` for JSON.",
        "",
        "| question | command |",
        "| --- | --- |",
    ]
    for name, sub, about in _commands(parser):
        if name not in {"hook", "agents", "daemon", "mcp", "trust"}:
            lines.append(f"| {about} | `{command} {_usage(name, sub)}` |")
    lines += [
        "",
        "After an edit, `check --new-since HEAD PATH` prints only the findings the working tree"
        " introduced since the last commit. Exit status: 0 clean, 1 findings, 2 a usage error"
        " or failure, 3 incomplete.",
        "",
    ]
    return "\n".join(lines)


def _commands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser, str]]:
    """Each subcommand: its name, its parser and its one-line help."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: str(choice.help) for choice in action._choices_actions}
            return [(name, sub, helps.get(name, "")) for name, sub in action.choices.items()]
    return []


def _usage(name: str, sub: argparse.ArgumentParser) -> str:
    """``NAME ARGS`` of a subcommand: its positional arguments only."""
    words = [name]
    for argument in sub._actions:
        if not argument.option_strings and argument.dest != "help":
            metavar = str(argument.metavar or argument.dest.upper())
            optional = {"*": f"[{metavar}...]", "?": f"[{metavar}]"}
            words.append(optional.get(str(argument.nargs), metavar))
    return " ".join(words)
