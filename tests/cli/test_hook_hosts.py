"""Each host's documented hook input (``tests/fixtures/hooks``, sources in its README) read
into one event, and a verdict written back in the host's own protocol."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp.cli.codex_patch import Hunk, parse_patch, undo_hunks
from adecore_lsp.cli.hook_hosts import (
    HOSTS,
    HookInputError,
    Replacement,
    Verdict,
    patched_files,
    read_event,
    undo,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "hooks"
HELD = Verdict(text="adecore-lsp: this edit introduced 1 error:\napp.py:1:1: error: x", block=True)


def raw(name: str, **changes: Any) -> bytes:
    data = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    data.update(changes)
    return json.dumps(data).encode()


def test_claude_codes_documented_inputs() -> None:
    host = HOSTS["claude-code"]
    event = read_event(host, "PostToolUse", raw("claude-code__PostToolUse.json"))
    assert (event.kind, event.session, event.cwd) == ("edit", "abc123", "/project")
    assert event.files == ("/project/src/app.py",)
    assert event.replacements is None  # Write: the text before comes from elsewhere
    stop = read_event(host, "Stop", raw("claude-code__Stop.json"))
    assert (stop.kind, stop.repeated) == ("stop", True)


def test_claude_code_answers_in_its_json() -> None:
    host = HOSTS["claude-code"]
    edit = read_event(host, "PostToolUse", raw("claude-code__PostToolUse.json"))
    assert json.loads(host.answer(edit, HELD).stdout) == {"decision": "block", "reason": HELD.text}
    said = json.loads(host.answer(edit, Verdict(text="a warning")).stdout)
    assert said == {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "a warning"}
    }
    assert host.answer(edit, Verdict()).stdout == ""
    stop = read_event(host, "Stop", raw("claude-code__Stop.json"))
    assert json.loads(host.answer(stop, Verdict(notice="late")).stdout) == {"systemMessage": "late"}


def test_edit_and_multi_edit_give_their_replacements() -> None:
    host = HOSTS["claude-code"]
    edit = raw(
        "claude-code__PostToolUse.json",
        tool_name="Edit",
        tool_input={"file_path": "/p/a.py", "old_string": "x", "new_string": "y"},
    )
    assert read_event(host, "PostToolUse", edit).replacements == (Replacement("x", "y"),)
    multi = raw(
        "claude-code__PostToolUse.json",
        tool_name="MultiEdit",
        tool_input={
            "file_path": "/p/a.py",
            "edits": [
                {"old_string": "a", "new_string": "b"},
                {"old_string": "c", "new_string": "d", "replace_all": True},
            ],
        },
    )
    found = read_event(host, "PostToolUse", multi).replacements
    assert found == (Replacement("a", "b"), Replacement("c", "d", every=True))


def test_undo_gives_the_text_before_only_when_it_is_certain() -> None:
    assert undo("one TWO three", (Replacement("two", "TWO"),)) == "one two three"
    edits = (Replacement("a = 1", "a = 2"), Replacement("b = 1", "b = 2"))
    assert undo("a = 2\nb = 2\n", edits) == "a = 1\nb = 1\n"
    assert undo("x x", (Replacement("y", "x"),)) is None  # twice: which one?
    assert undo("gone", (Replacement("y", ""),)) is None  # a deletion leaves no trace
    assert undo("a b", (Replacement("b", "a", every=True),)) is None


def test_gemini_cli_reads_its_after_tool_input_and_answers_with_context() -> None:
    host = HOSTS["gemini-cli"]
    given = raw("derived/gemini-cli__AfterTool.json", session_id="s", tool_input={
        "file_path": "src/app.py", "old_string": "a", "new_string": "b"})  # fmt: skip
    event = read_event(host, "AfterTool", given)
    assert (event.kind, event.files, event.cwd) == ("edit", ("src/app.py",), "/project")
    assert event.replacements == (Replacement("a", "b"),)
    # Its block would replace the tool's result: the text goes as additionalContext.
    said = json.loads(host.answer(event, HELD).stdout)
    assert said == {
        "hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": HELD.text}
    }
    assert json.loads(host.answer(event, Verdict()).stdout) == {}  # stdout is JSON only
    stop = read_event(host, "AfterAgent", raw("derived/gemini-cli__AfterAgent.json"))
    assert (stop.kind, stop.repeated) == ("stop", False)
    assert json.loads(host.answer(stop, HELD).stdout) == {"decision": "block", "reason": HELD.text}
    # Its documented BeforeTool example is an event the hook does not take.
    with pytest.raises(HookInputError, match="no hook event 'BeforeTool'"):
        read_event(host, "BeforeTool", raw("gemini-cli__BeforeTool.json"))


def test_codex_reads_the_files_of_a_patch() -> None:
    host = HOSTS["codex"]
    event = read_event(host, "PostToolUse", raw("derived/codex__PostToolUse.json"))
    assert (event.kind, event.files, event.replacements) == ("edit", ("src/app.py",), None)
    patch = (
        "*** Begin Patch\n*** Add File: a.py\n+x\n*** Update File: b.py\n*** Move to: c.py\n"
        "@@\n-y\n+z\n*** Delete File: d.py\n*** End Patch\n"
    )
    assert patched_files(patch) == ("a.py", "c.py")
    moved = read_event(
        host, "PostToolUse", raw("derived/codex__PostToolUse.json", tool_input={"command": patch})
    )
    assert moved.files == ("a.py", "c.py")
    assert moved.deleted == ("b.py", "d.py")  # moved away from, deleted
    assert [(f.path, f.action, f.moved_to) for f in moved.patch] == [
        ("a.py", "add", None),
        ("b.py", "update", "c.py"),
        ("d.py", "delete", None),
    ]
    said = json.loads(host.answer(event, HELD).stdout)
    assert said["hookSpecificOutput"]["additionalContext"] == HELD.text
    stop = read_event(host, "Stop", raw("derived/codex__Stop.json"))
    assert json.loads(host.answer(stop, Verdict()).stdout) == {}  # JSON is mandatory


def test_cursor_remembers_edits_answers_after_its_tool_and_follows_up_at_the_stop() -> None:
    host = HOSTS["cursor"]
    event = read_event(host, "afterFileEdit", raw("cursor__afterFileEdit.json"))
    assert (event.kind, event.files, event.session) == ("note", ("/project/src/app.py",), "default")
    assert event.replacements == (Replacement("<search>", "<replace>"),)
    assert host.answer(event, HELD).stdout == ""  # afterFileEdit has no output
    derived = read_event(host, "afterFileEdit", raw("derived/cursor__afterFileEdit.json"))
    assert (derived.session, derived.cwd) == ("<conversation_id>", "/project")
    # postToolUse takes additional_context: what a write introduced goes to the agent there.
    shell = read_event(host, "postToolUse", raw("cursor__postToolUse.json"))
    assert shell.kind == "other"  # the documented example is a Shell call
    write = raw(
        "cursor__postToolUse.json",
        tool_name="Write",
        tool_input={"file_path": "/project/src/app.py", "contents": "x"},
    )
    wrote = read_event(host, "postToolUse", write)
    assert (wrote.kind, wrote.files) == ("edit", ("/project/src/app.py",))
    assert json.loads(host.answer(wrote, HELD).stdout) == {"additional_context": HELD.text}
    assert host.answer(wrote, Verdict()).stdout == ""  # nothing to say: silence
    stop = read_event(host, "stop", raw("cursor__stop.json"))
    assert (stop.kind, stop.repeated) == ("stop", False)
    assert json.loads(host.answer(stop, HELD).stdout) == {"followup_message": HELD.text}
    again = read_event(host, "stop", raw("cursor__stop.json", loop_count=1))
    assert again.repeated


def test_copilot_cli_reads_its_json_string_arguments() -> None:
    host = HOSTS["copilot-cli"]
    event = read_event(host, "postToolUse", raw("derived/copilot-cli__postToolUse.json"))
    assert (event.kind, event.files, event.session) == ("edit", ("src/app.py",), "<sessionId>")
    assert host.answer(event, HELD).stdout == ""  # postToolUse's output is ignored
    bash = read_event(host, "postToolUse", raw("copilot-cli__postToolUse.json"))
    assert bash.kind == "other"
    stop = read_event(host, "agentStop", raw("derived/copilot-cli__agentStop.json"))
    assert stop.repeated  # no loop guard documented: held once per set of errors
    assert json.loads(host.answer(stop, HELD).stdout) == {"decision": "block", "reason": HELD.text}
    # Copilot CLI 1.0.72 gives agentStop a stop_hook_active flag: its first stop is not a repeat.
    first = read_event(
        host, "agentStop", raw("derived/copilot-cli__agentStop.json", stop_hook_active=False)
    )
    assert not first.repeated
    broken = raw("derived/copilot-cli__postToolUse.json", toolArgs="{path")
    with pytest.raises(HookInputError, match="toolArgs is not JSON"):
        read_event(host, "postToolUse", broken)


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_every_host_refuses_what_is_not_its_input(host: str) -> None:
    chosen = HOSTS[host]
    event = next(iter(chosen.events))
    for bad, said in [
        (b"", "no hook input on stdin"),
        (b"{oops", "not JSON"),
        (b"[]", "not a JSON object"),
        (b"x" * (5 * 1024 * 1024), "over 4 MiB"),
    ]:
        with pytest.raises(HookInputError, match=said):
            read_event(chosen, event, bad)
    assert chosen.failure_status not in (0, 2)


def test_a_codex_patch_is_read_and_undone_for_certain_or_not_at_all() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n x = 1\n-y = 2\n+y = 3\n z = 4\n"
        "@@\n+tail\n*** End of File\n*** Delete File: gone.py\n+ignored\n*** End Patch\n"
        "*** Update File: stray.py\n"
    )
    [updated, deleted, stray] = parse_patch(patch)
    assert (updated.path, updated.action, updated.written) == ("a.py", "update", "a.py")
    assert updated.hunks == [
        Hunk(("x = 1", "y = 2", "z = 4"), ("x = 1", "y = 3", "z = 4")),
        Hunk((), ("tail",)),
    ]
    assert (deleted.written, deleted.hunks) == (None, [])
    assert stray.hunks == []
    after = "x = 1\ny = 3\nz = 4\ntail\n"
    assert undo_hunks(after, updated.hunks) == "x = 1\ny = 2\nz = 4\n"
    # Lines found twice, not at all, or a hunk that left none: not known for certain.
    assert undo_hunks(after + "x = 1\ny = 3\nz = 4\n", updated.hunks[:1]) is None
    assert undo_hunks("other\n", updated.hunks[:1]) is None
    assert undo_hunks(after, [Hunk(("removed",), ())]) is None
    # Whole lines only: a line that merely ends with the hunk's text is not it.
    assert undo_hunks("xx = 1\ny = 3\nz = 4\n", updated.hunks[:1]) is None
