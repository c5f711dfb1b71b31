"""The hook protocols of coding agents' hosts: a host's hook input read into one
:class:`HookEvent`, and a :class:`Verdict` written back as that host's answer (what it
prints, on which stream, with which exit status). No I/O here: ``hook.py`` reads and writes.

Each host's documentation is cited in ``docs/agents.md``; the tests hold the documented
inputs as fixtures.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .codex_patch import PatchedFile, parse_patch

# Internal to the library: nothing here is public API (the command line is).
__all__: list[str] = []

MAX_INPUT = 4 * 1024 * 1024
"""The most a hook input may hold, in bytes (a host sends a few kilobytes)."""


class HookInputError(ValueError):
    """A hook input that is not what the host documents, said so a person can act on it."""


@dataclass(frozen=True)
class Replacement:
    """One text replacement an edit tool made (``old`` became ``new``)."""

    old: str
    new: str
    every: bool = False
    """Every occurrence was replaced (then the edit cannot be undone for certain)."""


@dataclass(frozen=True)
class HookEvent:
    """What a host's hook input says, in the host's own words mapped onto ours."""

    host: str
    event: str
    kind: Literal["edit", "note", "stop", "other"]
    """``edit``: check what the tool wrote; ``note``: only remember its text before (an
    event whose answer the host ignores, followed by one that checks); ``stop``."""
    session: str
    cwd: str | None = None
    files: tuple[str, ...] = ()
    """The files the tool wrote (as the host gives them: absolute, or relative to ``cwd``)."""
    replacements: tuple[Replacement, ...] | None = None
    """The replacements an edit tool made, in order; ``None`` when the tool wrote whole
    files (its earlier text then comes from elsewhere)."""
    repeated: bool = False
    """A stop hook already held the agent once in this stop (Claude Code's
    ``stop_hook_active``): hold it again only for something new."""
    patch: tuple[PatchedFile, ...] = ()
    """Codex's ``apply_patch``: each file of the patch, with its hunks."""
    deleted: tuple[str, ...] = ()
    """The files the tool deleted (or moved away from)."""


@dataclass(frozen=True)
class Verdict:
    """What the hook found, for any host: text for the model and whether to hold the agent."""

    text: str = ""
    """What to show the model; empty for silence."""
    block: bool = False
    """Hold the agent: it must look at ``text`` before it goes on (or stops)."""
    notice: str = ""
    """A line for the person, not the model (an incomplete check, a skipped file)."""
    warn: bool = False
    """The notice says nothing could be checked (an untrusted project): a host with no
    place to show a person a line gets it as its hook's failure, which it does show."""


@dataclass(frozen=True)
class Answer:
    """A verdict as one host wants it."""

    stdout: str = ""
    stderr: str = ""
    status: int = 0


@dataclass(frozen=True)
class Host:
    """One host's protocol: its events, its edit tools, how it reads an answer."""

    name: str
    events: Mapping[str, Literal["edit", "note", "stop"]]
    edit_tools: frozenset[str]
    read: Callable[[Host, str, Mapping[str, Any]], HookEvent]
    answer: Callable[[HookEvent, Verdict], Answer]
    failure_status: int
    """The exit status the host takes as a non-blocking error."""
    timeout_seconds: int
    """The host's own limit on a hook by default, in seconds."""


def _string(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise HookInputError(f"{where}: {key!r} is missing or not a string")
    return value


def _object(data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise HookInputError(f"{where}: {key!r} is missing or not an object")
    return value


def _replacement(item: Any, where: str) -> Replacement:
    if not isinstance(item, dict):
        raise HookInputError(f"{where}: an edit is not an object")
    old, new = item.get("old_string"), item.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str):
        raise HookInputError(f"{where}: an edit lacks old_string or new_string")
    return Replacement(old, new, bool(item.get("replace_all")))


# -- reading the inputs --------------------------------------------------------------------


def _cwd(data: Mapping[str, Any]) -> str | None:
    value = data.get("cwd")
    if isinstance(value, str) and value:
        return value
    roots = data.get("workspace_roots")  # Cursor
    if isinstance(roots, list) and roots and isinstance(roots[0], str):
        return str(roots[0])
    return None


def _check_name(host: Host, event: str, data: Mapping[str, Any]) -> str:
    where = f"{host.name} {event} input"
    named = data.get("hook_event_name")
    if isinstance(named, str) and named != event:
        raise HookInputError(f"{where}: it is a {named!r} input, not {event!r}")
    return where


def _session(data: Mapping[str, Any], keys: tuple[str, ...], where: str, needed: bool) -> str:
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    if needed:
        raise HookInputError(f"{where}: {keys[0]!r} is missing or not a string")
    return "default"  # a host whose input names no session: one per folder


def _claude_like(host: Host, event: str, data: Mapping[str, Any]) -> HookEvent:
    """Claude Code, Gemini CLI and Codex: ``session_id``, ``cwd``, ``tool_name`` and
    ``tool_input``; a stop's ``stop_hook_active``."""
    where = _check_name(host, event, data)
    session = _session(data, ("session_id",), where, needed=True)
    cwd = _cwd(data)
    if host.events[event] == "stop":
        repeated = data.get("stop_hook_active") is True
        return HookEvent(host.name, event, "stop", session, cwd, repeated=repeated)
    tool = _string(data, "tool_name", where)
    if tool not in host.edit_tools:
        return HookEvent(host.name, event, "other", session, cwd)
    tool_input = _object(data, "tool_input", where)
    if tool == "apply_patch":
        patch = tuple(parse_patch(_string(tool_input, "command", f"{where}: tool_input")))
        written = tuple(dict.fromkeys(f.written for f in patch if f.written is not None))
        gone = tuple(dict.fromkeys(f.path for f in patch if f.action == "delete" or f.moved_to))
        return HookEvent(host.name, event, "edit", session, cwd, written, patch=patch, deleted=gone)
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"
    path = _string(tool_input, key, f"{where}: tool_input")
    replacements: tuple[Replacement, ...] | None = None
    if "old_string" in tool_input:  # Edit, Gemini's replace
        replacements = (_replacement(tool_input, where),)
    elif isinstance(tool_input.get("edits"), list):  # MultiEdit
        replacements = tuple(_replacement(item, where) for item in tool_input["edits"])
    return HookEvent(host.name, event, "edit", session, cwd, (path,), replacements)


def patched_files(patch: str) -> tuple[str, ...]:
    """The files an ``apply_patch`` envelope leaves written: added, updated, or the new
    name of one it moved."""
    return tuple(dict.fromkeys(f.written for f in parse_patch(patch) if f.written is not None))


CURSOR_PATH_KEYS = ("file_path", "path", "target_file", "filePath")
"""Where a Cursor edit tool's ``tool_input`` may name its file (the docs show none)."""


def _cursor(host: Host, event: str, data: Mapping[str, Any]) -> HookEvent:
    """``afterFileEdit`` (the file and its edits: remembered), ``postToolUse`` (an edit
    tool's file: checked, its answer ``additional_context``), ``stop``."""
    where = _check_name(host, event, data)
    session = _session(data, ("conversation_id",), where, needed=False)
    cwd = _cwd(data)
    kind = host.events[event]
    if kind == "stop":
        loops = data.get("loop_count")
        repeated = isinstance(loops, int) and loops > 0
        return HookEvent(host.name, event, "stop", session, cwd, repeated=repeated)
    if kind == "edit":
        tool = _string(data, "tool_name", where)
        tool_input = data.get("tool_input")
        given = next(
            (
                value
                for key in CURSOR_PATH_KEYS
                if isinstance(tool_input, dict) and isinstance(value := tool_input.get(key), str)
            ),
            None,
        )
        if tool not in host.edit_tools or not given:
            return HookEvent(host.name, event, "other", session, cwd)
        return HookEvent(host.name, event, "edit", session, cwd, (given,))
    path = _string(data, "file_path", where)
    edits = data.get("edits")
    replacements = None
    if isinstance(edits, list) and edits:
        replacements = tuple(_replacement(item, where) for item in edits)
    return HookEvent(host.name, event, "note", session, cwd, (path,), replacements)


def _copilot(host: Host, event: str, data: Mapping[str, Any]) -> HookEvent:
    where = f"{host.name} {event} input"
    session = _session(data, ("sessionId", "session_id"), where, needed=False)
    cwd = _cwd(data)
    if host.events[event] == "stop":
        # Copilot CLI 1.0.72 gives agentStop ``stop_hook_active``; before it no loop guard
        # is documented, and every stop counts as a repeat: the agent is held once for a
        # set of errors and let go when the same set comes back.
        active = data.get("stop_hook_active", data.get("stopHookActive"))
        repeated = active is not False
        return HookEvent(host.name, event, "stop", session, cwd, repeated=repeated)
    tool = data.get("toolName", data.get("tool_name"))
    if not isinstance(tool, str):
        raise HookInputError(f"{where}: 'toolName' is missing or not a string")
    if tool not in host.edit_tools:
        return HookEvent(host.name, event, "other", session, cwd)
    raw = data.get("toolArgs", data.get("tool_input"))
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        raise HookInputError(f"{where}: toolArgs is not JSON") from None
    if not isinstance(arguments, dict):
        raise HookInputError(f"{where}: toolArgs is not a JSON object")
    path = _string(arguments, "path", f"{where}: toolArgs")
    return HookEvent(host.name, event, "edit", session, cwd, (path,))


# -- writing the answers --------------------------------------------------------------------


def _decide(event: HookEvent, verdict: Verdict, context: bool) -> dict[str, Any]:
    """The JSON Claude Code, Gemini CLI and Codex read: a stop held with ``decision:
    "block"`` and a ``reason``; after an edit, the text as ``additionalContext`` (with
    ``context``) or, held, as a block's ``reason``; a notice for the person as a
    ``systemMessage``."""
    body: dict[str, Any] = {}
    if verdict.text and verdict.block and (event.kind == "stop" or not context):
        body = {"decision": "block", "reason": verdict.text}
    elif verdict.text and event.kind == "edit":
        body = {
            "hookSpecificOutput": {"hookEventName": event.event, "additionalContext": verdict.text}
        }
    if verdict.notice:
        body["systemMessage"] = verdict.notice
    return body


def _claude_answer(event: HookEvent, verdict: Verdict) -> Answer:
    """After an edit that introduced an error, ``decision: "block"`` shows the reason to
    Claude at once; anything else is context."""
    body = _decide(event, verdict, context=False)
    return Answer(stdout=json.dumps(body) + "\n" if body else "")


def _context_answer(event: HookEvent, verdict: Verdict) -> Answer:
    """Gemini CLI and Codex: after a tool, ``additionalContext`` only (their ``block``
    replaces the tool's result); stdout is JSON and nothing else, ``{}`` for silence."""
    return Answer(stdout=json.dumps(_decide(event, verdict, context=True)) + "\n")


def _cursor_answer(event: HookEvent, verdict: Verdict) -> Answer:
    """``postToolUse``: what the edit introduced as ``additional_context`` (Cursor shows a
    person no hook's words there, so a notice goes to the agent with it);
    ``afterFileEdit`` has no output; at ``stop`` the errors go back as a
    ``followup_message`` (the agent's next prompt)."""
    if event.kind == "stop" and verdict.text and verdict.block:
        return Answer(stdout=json.dumps({"followup_message": verdict.text}) + "\n")
    if event.kind == "edit":
        said = "\n".join(part for part in (verdict.text, verdict.notice) if part)
        if said:
            return Answer(stdout=json.dumps({"additional_context": said}) + "\n")
    return Answer()


def _copilot_answer(event: HookEvent, verdict: Verdict) -> Answer:
    """``postToolUse``'s output is ignored: the edit is remembered; at ``agentStop`` a
    ``decision: "block"`` with a ``reason`` gives the agent another turn. A notice that
    nothing could be checked is the hook's failure (its stderr, status 1), which the CLI
    shows as a hook warning: it documents no other place for a person to read it."""
    if event.kind == "stop" and verdict.text and verdict.block:
        return Answer(stdout=json.dumps({"decision": "block", "reason": verdict.text}) + "\n")
    if verdict.warn and verdict.notice:
        return Answer(stderr=verdict.notice + "\n", status=1)
    return Answer()


CLAUDE_CODE = Host(
    name="claude-code",
    events={"PostToolUse": "edit", "Stop": "stop", "SubagentStop": "stop"},
    edit_tools=frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"}),
    read=_claude_like,
    answer=_claude_answer,
    failure_status=1,
    timeout_seconds=600,
)
GEMINI_CLI = Host(
    name="gemini-cli",
    events={"AfterTool": "edit", "AfterAgent": "stop"},
    edit_tools=frozenset({"write_file", "replace"}),
    read=_claude_like,
    answer=_context_answer,
    failure_status=1,
    timeout_seconds=60,
)
CODEX = Host(
    name="codex",
    events={"PostToolUse": "edit", "Stop": "stop"},
    edit_tools=frozenset({"apply_patch", "Edit", "Write"}),
    read=_claude_like,
    answer=_context_answer,
    failure_status=1,
    timeout_seconds=600,
)
CURSOR = Host(
    name="cursor",
    events={"afterFileEdit": "note", "postToolUse": "edit", "stop": "stop"},
    edit_tools=frozenset({"Write", "Edit", "MultiEdit", "StrReplace"}),
    read=_cursor,
    answer=_cursor_answer,
    failure_status=1,
    timeout_seconds=60,
)
COPILOT_CLI = Host(
    name="copilot-cli",
    events={"postToolUse": "edit", "agentStop": "stop"},
    edit_tools=frozenset({"edit", "create"}),
    read=_copilot,
    answer=_copilot_answer,
    failure_status=1,
    timeout_seconds=30,
)

HOSTS: dict[str, Host] = {
    host.name: host for host in (CLAUDE_CODE, GEMINI_CLI, CODEX, CURSOR, COPILOT_CLI)
}
"""Every host whose hook protocol is documented, by the name ``hook`` takes."""


def host_named(name: str) -> Host:
    """The host called ``name``.

    Raises:
        HookInputError: no such host, naming those there are.
    """
    try:
        return HOSTS[name]
    except KeyError:
        raise HookInputError(f"unknown host {name!r}: one of {', '.join(HOSTS)}") from None


def read_event(host: Host, event: str, raw: bytes) -> HookEvent:
    """The hook input ``raw`` (the host's stdin) for ``event``.

    Raises:
        HookInputError: an unknown event, input that is not a JSON object, or one that
            lacks what the host documents.
    """
    if event not in host.events:
        events = ", ".join(host.events)
        raise HookInputError(f"{host.name} has no hook event {event!r} here: one of {events}")
    if len(raw) > MAX_INPUT:
        raise HookInputError(f"the hook input is over {MAX_INPUT // 1024 // 1024} MiB")
    if not raw.strip():
        raise HookInputError(f"no hook input on stdin: {host.name} writes a JSON object there")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise HookInputError(f"the hook input is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise HookInputError("the hook input is not a JSON object")
    return host.read(host, event, data)


def undo(text: str, replacements: tuple[Replacement, ...]) -> str | None:
    """The text before ``replacements`` were made, when each one's new text is found
    exactly once, last edit first; ``None`` when that cannot be known for certain."""
    for item in reversed(replacements):
        if item.every or not item.new or text.count(item.new) != 1:
            return None
        text = text.replace(item.new, item.old, 1)
    return text


def incomplete_verdict(event: HookEvent, deadline: float) -> Verdict:
    """The answer when the deadline passed: said as incomplete, never holding the agent."""
    said = (
        f"adecore-lsp: the check did not finish within {deadline:.0f} s; what the "
        "edits introduced is not known yet"
    )
    return Verdict(text=said if event.kind == "edit" else "", notice=said)
