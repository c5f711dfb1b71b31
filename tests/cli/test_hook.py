"""``adecore-lsp hook HOST EVENT`` with each host's documented hook input (the fixtures under
``tests/fixtures/hooks``, each with the documentation it comes from), against basedpyright
and ruff through the daemon: what an edit introduced given back to the model in the host's
own way, silence otherwise, an incomplete check said as incomplete within the deadline, a
malformed input refused with the host's non-blocking status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import SCRIPTED, need, run, tool_env

pytestmark = pytest.mark.real_server

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "hooks"

PROJECT = {
    "pyproject.toml": '[tool.adecore-lsp]\nservers = ["basedpyright", "ruff"]\n\n'
    '[tool.basedpyright]\ntypeCheckingMode = "standard"\n',
    "lib.py": "def area(width: int, height: int) -> int:\n    return width * height\n",
    "app.py": "from lib import area\n\nsize: int = area(2, 3)\n",
    "old.py": 'broken: int = "old"\n',
    "README.md": "# A project\n",
}


def fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return data


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.fixture
def project(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A committed project, a daemon and a hook state of its own (stopped afterwards)."""
    need("basedpyright")
    need("ruff")
    root = tmp_path / "project"
    root.mkdir()
    for name, text in PROJECT.items():
        (root / name).write_text(text, encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    (tmp_path / "runtime").mkdir(mode=0o700)
    env = {
        "ADECORE_LSP_RUNTIME_DIR": str(tmp_path / "runtime"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    yield root, env
    run("daemon", "stop", cwd=root, env=env)


def hook(
    root: Path,
    env: dict[str, str],
    event: str,
    given: dict[str, Any] | bytes,
    *extra: str,
    host: str = "claude-code",
) -> subprocess.CompletedProcess[str]:
    """Run the hook as the host does: its input on stdin, in the project's folder."""
    raw = given if isinstance(given, bytes) else json.dumps(given).encode()
    return subprocess.run(
        [sys.executable, "-m", "adecore_lsp", "hook", host, event, *extra],
        cwd=root,
        env=tool_env(env),
        input=raw.decode("utf-8", "replace"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def edited(root: Path, name: str, old: str, new: str, session: str = "one") -> dict[str, Any]:
    """Claude Code's documented PostToolUse input for an Edit of ``name`` (made on disk)."""
    path = root / name
    path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    data = fixture("claude-code__PostToolUse.json")
    data.update(session_id=session, cwd=str(root), tool_name="Edit")
    data["tool_input"] = {"file_path": str(path), "old_string": old, "new_string": new}
    return data


def stop(root: Path, active: bool = False, session: str = "one") -> dict[str, Any]:
    data = fixture("claude-code__Stop.json")
    data.update(session_id=session, cwd=str(root), stop_hook_active=active)
    return data


def answer(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), f"silent, stderr: {done.stderr}"
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def test_an_edit_that_introduces_an_error_is_given_back_to_the_model(
    project: tuple[Path, dict[str, str]],
) -> None:
    root, env = project
    done = hook(root, env, "PostToolUse", edited(root, "lib.py", "-> int:", "-> str:"))
    said = answer(done)
    assert said["decision"] == "block"
    reason = said["reason"]
    # The edited file's own error, and the caller it broke in a file no one opened.
    assert reason.startswith("adecore-lsp: this edit introduced 2 errors")
    assert "lib.py:2:" in reason
    assert "app.py:3:" in reason
    assert "basedpyright" in reason
    # The old error of old.py, in no file the edit touched, is never named.
    assert "old.py" not in reason


@pytest.mark.parametrize("daemon", ["on", "off"])
def test_each_edit_names_only_what_it_introduced(
    project: tuple[Path, dict[str, str]], daemon: str
) -> None:
    """The second edit's text before is the first's after: its findings, kept by the first
    call (in the daemon's workspace, or in the session's file without a daemon), are the
    side before (no second look at the old text), and only its own error is named."""
    root, env = project
    env = {**env, "ADECORE_LSP_DAEMON": daemon}
    first = answer(hook(root, env, "PostToolUse", edited(root, "lib.py", "-> int:", "-> str:")))
    assert "lib.py:2:" in first["reason"]
    second = edited(root, "app.py", "area(2, 3)\n", 'area(2, 3)\nother: int = "x"\n')
    said = answer(hook(root, env, "PostToolUse", second))
    assert said["reason"].startswith("adecore-lsp: this edit introduced 1 error")
    assert "app.py:4:" in said["reason"]
    assert "app.py:3:" not in said["reason"]  # the first edit's break of app.py: said then
    assert "lib.py" not in said["reason"]


def test_an_edit_over_an_old_error_is_silent_and_one_that_resolves_it_too(
    project: tuple[Path, dict[str, str]],
) -> None:
    root, env = project
    done = hook(root, env, "PostToolUse", edited(root, "old.py", "broken", "still_broken"))
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    done = hook(root, env, "PostToolUse", edited(root, "old.py", '"old"', "1"))
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    # Nothing introduced in the turn: the agent may stop.
    done = hook(root, env, "Stop", stop(root))
    assert (done.returncode, done.stdout) == (0, ""), done.stderr


def test_an_edit_of_a_file_no_server_takes_is_silent(
    project: tuple[Path, dict[str, str]],
) -> None:
    root, env = project
    done = hook(root, env, "PostToolUse", edited(root, "README.md", "A project", "Ours"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_another_tool_is_not_an_edit(project: tuple[Path, dict[str, str]]) -> None:
    root, env = project
    data = fixture("claude-code__PostToolUse.json")
    data.update(cwd=str(root), tool_name="Bash", tool_input={"command": "ls"})
    done = hook(root, env, "PostToolUse", data)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_stop_holds_the_agent_once_for_the_errors_of_its_turn(
    project: tuple[Path, dict[str, str]],
) -> None:
    root, env = project
    hook(root, env, "PostToolUse", edited(root, "lib.py", "-> int:", "-> str:"))
    said = answer(hook(root, env, "Stop", stop(root)))
    assert said["decision"] == "block"
    # The edited file's error and its caller's, in a file the agent never opened.
    assert "the edits of this turn introduced 2 errors" in said["reason"]
    assert "app.py:3:" in said["reason"]
    # Held again for the same errors, the agent is let go (the person is told).
    said = answer(hook(root, env, "Stop", stop(root, active=True)))
    assert "decision" not in said
    assert "introduced 2 errors" in said["systemMessage"]
    # A new turn starts clean.
    done = hook(root, env, "Stop", stop(root))
    assert (done.returncode, done.stdout) == (0, ""), done.stderr


def test_a_checkout_between_edits_is_seen(project: tuple[Path, dict[str, str]]) -> None:
    """The disk is the truth: an edit undone by git before the stop is no error of the turn,
    and a file deleted from the shell is passed over."""
    root, env = project
    hook(root, env, "PostToolUse", edited(root, "lib.py", "-> int:", "-> str:"))
    git(root, "checkout", "--", "lib.py")
    (root / "app.py").unlink()
    done = hook(root, env, "Stop", stop(root))
    assert (done.returncode, done.stdout) == (0, ""), done.stderr


def test_later_calls_are_warm_in_the_daemon(project: tuple[Path, dict[str, str]]) -> None:
    root, env = project
    hook(root, env, "PostToolUse", edited(root, "lib.py", "width * height", "height * width"))
    first = json.loads(run("daemon", "status", "--format", "json", cwd=root, env=env).out)
    began = time.monotonic()
    done = hook(root, env, "PostToolUse", edited(root, "lib.py", "height * width", "width * 1"))
    took = time.monotonic() - began
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    second = json.loads(run("daemon", "status", "--format", "json", cwd=root, env=env).out)
    assert first["pid"] == second["pid"]
    servers = [
        {server["id"]: server["pid"] for server in workspace["servers"]}
        for workspace in (first["workspaces"][0], second["workspaces"][0])
    ]
    assert servers[0] == servers[1]
    assert "ruff" in servers[0]
    assert took < 30  # bounded here; the warm figure is in benchmarks/bench_hook.py


def test_a_server_that_does_not_finish_is_said_incomplete_within_the_deadline(
    project: tuple[Path, dict[str, str]],
) -> None:
    root, env = project
    command = f"{sys.executable} {SCRIPTED} silent"
    began = time.monotonic()
    done = hook(
        root,
        env,
        "PostToolUse",
        edited(root, "lib.py", "-> int:", "-> str:"),
        "--command",
        command,
        "--deadline",
        "4",
    )
    took = time.monotonic() - began
    said = answer(done)
    assert "decision" not in said  # never held for what is not known
    context = said["hookSpecificOutput"]["additionalContext"]
    assert "did not finish" in context
    assert said["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    assert took < 4 + 15


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (b"{not json", "the hook input is not JSON"),
        (b"", "no hook input on stdin"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"session_id": "s", "tool_name": "Edit"}', "'tool_input' is missing"),
        (b'{"hook_event_name": "Stop", "session_id": "s"}', "it is a 'Stop' input"),
    ],
)
def test_a_malformed_input_is_refused_without_blocking(
    project: tuple[Path, dict[str, str]], raw: bytes, said: str
) -> None:
    root, env = project
    done = hook(root, env, "PostToolUse", raw)
    assert done.returncode == 1  # Claude Code: neither 0 nor 2 is a non-blocking error
    assert said in done.stderr
    assert done.stdout == ""
    assert "Traceback" not in done.stderr


def test_an_unknown_host_or_event_is_refused(project: tuple[Path, dict[str, str]]) -> None:
    root, env = project
    done = hook(root, env, "Nope", stop(root))
    assert done.returncode == 1
    assert "claude-code has no hook event 'Nope'" in done.stderr
    # Exit 2 would block the agent: a mistake in the hook's command line is never that.
    ran = run("hook", "vim", "Stop", cwd=root, env=env)
    assert ran.status == 1
    assert "invalid choice: 'vim'" in ran.err


def test_the_hook_runs_without_the_daemon_too(project: tuple[Path, dict[str, str]]) -> None:
    root, env = project
    data = edited(root, "lib.py", "-> int:", "-> str:")
    done = hook(root, {**env, "ADECORE_LSP_DAEMON": "off"}, "PostToolUse", data)
    assert answer(done)["decision"] == "block"
    assert not any(Path(env["ADECORE_LSP_RUNTIME_DIR"]).iterdir())
    assert os.path.isdir(Path(env["XDG_STATE_HOME"]) / "adecore-lsp" / "hooks")


def change(root: Path, name: str, old: str, new: str) -> None:
    path = root / name
    path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")


def test_gemini_cli_hears_of_the_error_as_context_and_at_the_end_of_its_turn(
    project: tuple[Path, dict[str, str]],
) -> None:
    root, env = project
    change(root, "lib.py", "-> int:", "-> str:")
    data = fixture("derived/gemini-cli__AfterTool.json")
    data.update(session_id="g", cwd=str(root))
    data["tool_input"] = {"file_path": "lib.py", "old_string": "-> int:", "new_string": "-> str:"}
    said = answer(hook(root, env, "AfterTool", data, host="gemini-cli"))
    context = said["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("adecore-lsp: this edit introduced 2 errors")
    assert "decision" not in said  # Gemini's block would replace the tool's result
    stop = fixture("derived/gemini-cli__AfterAgent.json")
    stop.update(session_id="g", cwd=str(root))
    said = answer(hook(root, env, "AfterAgent", stop, host="gemini-cli"))
    assert said["decision"] == "block"


def test_codex_reads_the_patched_file(project: tuple[Path, dict[str, str]]) -> None:
    root, env = project
    change(root, "lib.py", "-> int:", "-> str:")
    data = fixture("derived/codex__PostToolUse.json")
    data.update(session_id="c", cwd=str(root))
    data["tool_input"] = {"command": "*** Begin Patch\n*** Update File: lib.py\n*** End Patch\n"}
    said = answer(hook(root, env, "PostToolUse", data, host="codex"))
    assert "lib.py:2:" in said["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize(
    ("host", "edit", "stop", "key"),
    [
        ("cursor", "afterFileEdit", "stop", "followup_message"),
        ("copilot-cli", "postToolUse", "agentStop", "reason"),
    ],
)
def test_hosts_without_an_answer_after_an_edit_hear_at_the_stop(
    project: tuple[Path, dict[str, str]], host: str, edit: str, stop: str, key: str
) -> None:
    root, env = project
    change(root, "lib.py", "-> int:", "-> str:")
    data = fixture(f"derived/{host}__{edit}.json")
    if host == "cursor":
        data.update(file_path=str(root / "lib.py"), workspace_roots=[str(root)])
        data["edits"] = [{"old_string": "-> int:", "new_string": "-> str:"}]
    else:
        data.update(cwd=str(root), toolArgs=json.dumps({"path": "lib.py"}))
    done = hook(root, env, edit, data, host=host)
    assert (done.returncode, done.stdout) == (0, ""), done.stderr  # no channel to the model
    ended = fixture(f"derived/{host}__{stop}.json")
    ended.update(cwd=str(root), workspace_roots=[str(root)])
    said = answer(hook(root, env, stop, ended, host=host))
    assert "the edits of this turn introduced 2 errors" in said[key]
    # The same errors at the next stop: let go (Copilot CLI documents no loop guard).
    if host == "cursor":
        ended["loop_count"] = 1
    done = hook(root, env, stop, ended, host=host)
    assert (done.returncode, done.stdout) == (0, ""), done.stderr


def test_a_state_that_cannot_be_kept_still_answers(project: tuple[Path, dict[str, str]]) -> None:
    """The answer stands when the session's state cannot be written; the person is told."""
    root, env = project
    blocked = root.parent / "not-a-folder"
    blocked.write_text("a file where the state folder would go\n", encoding="utf-8")
    env = {**env, "XDG_STATE_HOME": str(blocked)}
    said = answer(hook(root, env, "PostToolUse", edited(root, "lib.py", "-> int:", "-> str:")))
    assert said["decision"] == "block"
    assert "the session's state could not be kept" in said["systemMessage"]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["hook", "nohost", "PostToolUse"], "invalid choice: 'nohost'"),
        (["hook", "claude-code"], "the following arguments are required: EVENT"),
        (["hook"], "the following arguments are required: HOST, EVENT"),
        (["hook", "claude-code", "PostToolUse", "--deadline", "-3"], "positive number"),
        (["hook", "claude-code", "PostToolUse", "--deadline", "soon"], "not a number"),
        (["hook", "claude-code", "Nope"], "no hook event 'Nope'"),
        (["hook", "claude-code", "PostToolUse", "--daemon", "maybe"], "invalid choice"),
    ],
)
def test_a_mistake_in_the_hooks_command_line_never_blocks_the_agent(
    tmp_path: Path, argv: list[str], said: str
) -> None:
    """Exit status 2 blocks in every host's protocol: a mistake in the hook's own command
    line exits 1, each host's non-blocking failure, and says what is wrong."""
    data = fixture("claude-code__PostToolUse.json")
    data["cwd"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "adecore_lsp", *argv],
        cwd=tmp_path,
        env=tool_env({"XDG_STATE_HOME": str(tmp_path / "state")}),
        input=json.dumps(data),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert said in done.stderr
    assert done.stdout == ""


UNTRUSTED = {
    "adecore-lsp.toml": 'servers = ["mine"]\n\n[server.mine]\ncommand = ["./bin/mine"]\n'
    'languages = { ".mine" = "mine" }\n',
    "x.mine": "anything\n",
}


def host_input(host: str, event: str, root: Path) -> dict[str, Any]:
    """Each host's documented edit input for ``x.mine``."""
    path = str(root / "x.mine")
    if host == "claude-code":
        data = fixture("claude-code__PostToolUse.json")
        data.update(cwd=str(root), tool_name="Write", tool_input={"file_path": path})
    elif host == "gemini-cli":
        data = fixture("derived/gemini-cli__AfterTool.json")
        data.update(cwd=str(root), tool_name="write_file", tool_input={"file_path": path})
    elif host == "codex":
        data = fixture("derived/codex__PostToolUse.json")
        patch = "*** Begin Patch\n*** Add File: x.mine\n+anything\n*** End Patch\n"
        data.update(cwd=str(root), tool_input={"command": patch})
    elif host == "cursor":
        data = fixture("cursor__postToolUse.json")
        data.update(cwd=str(root), tool_name="Write", tool_input={"file_path": path})
        data["workspace_roots"] = [str(root)]
    else:
        data = fixture("derived/copilot-cli__postToolUse.json")
        data.update(cwd=str(root), toolArgs=json.dumps({"path": "x.mine"}))
    return data


@pytest.mark.parametrize(
    ("host", "event"),
    [
        ("claude-code", "PostToolUse"),
        ("gemini-cli", "AfterTool"),
        ("codex", "PostToolUse"),
        ("cursor", "postToolUse"),
        ("copilot-cli", "postToolUse"),
    ],
)
def test_an_untrusted_project_that_nothing_could_check_is_said_where_the_host_shows_it(
    tmp_path: Path, host: str, event: str
) -> None:
    root = tmp_path / "stranger"
    root.mkdir()
    for name, text in UNTRUSTED.items():
        (root / name).write_text(text, encoding="utf-8")
    env = {
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "ADECORE_LSP_DAEMON": "off",
    }
    done = hook(root, env, event, host_input(host, event, root), host=host)
    if host == "copilot-cli":
        # Its postToolUse output is ignored: the hook's failure is what the CLI shows.
        assert done.returncode == 1
        assert "not trusted" in done.stderr
        return
    said = answer(done)
    if host == "cursor":
        shown = said["additional_context"]  # Cursor shows a person no hook's words
    else:
        shown = said["systemMessage"]
        assert "decision" not in said
    assert "nothing was checked" in shown
    assert "is not trusted" in shown
    assert "adecore-lsp trust" in shown


def test_codex_patch_is_undone_so_a_persons_own_error_is_not_blamed_on_the_agent(
    project: tuple[Path, dict[str, str]],
) -> None:
    """The patch's hunks give app.py's text before it, the person's uncommitted error in it
    included: that error is old, only what the patch itself broke is named (from HEAD's
    text, both would be)."""
    root, env = project
    change(root, "app.py", "size: int = area(2, 3)\n", "size: int = area(2, 3)\nmine: str = 1\n")
    patch = (
        "*** Begin Patch\n*** Update File: app.py\n@@\n size: int = area(2, 3)\n"
        '+extra: int = "patched"\n mine: str = 1\n*** End Patch\n'
    )
    change(root, "app.py", "mine: str = 1\n", 'extra: int = "patched"\nmine: str = 1\n')
    data = fixture("derived/codex__PostToolUse.json")
    data.update(session_id="p", cwd=str(root), tool_input={"command": patch})
    said = answer(hook(root, env, "PostToolUse", data, host="codex"))
    context = said["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("adecore-lsp: this edit introduced 1 error")
    assert "app.py:4:" in context
    assert "app.py:5:" not in context  # the person's own error, there before the patch
    # A second patch of the same file: its text before is the first patch's result.
    again = (
        "*** Begin Patch\n*** Update File: app.py\n@@\n-size: int = area(2, 3)\n"
        '+size: int = area(2, 4)\n extra: int = "patched"\n*** End Patch\n'
    )
    change(root, "app.py", "area(2, 3)", "area(2, 4)")
    data["tool_input"] = {"command": again}
    done = hook(root, env, "PostToolUse", data, host="codex")
    assert json.loads(done.stdout) == {}  # nothing new
