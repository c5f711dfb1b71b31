"""``agents setup`` then ``--remove`` gives back every host file byte for byte, whatever it
held: strict JSON, JSON with comments, CRLF line ends, a byte order mark, 0 bytes, empty
containers the user had (``"mcpServers": {}``, ``"hooks": {}``, empty hook arrays), a
Cursor file of the user's own without ``"version"``, TOML; piece by piece too; host files
that are links to one file are one file. A file changed since setup, or set up elsewhere,
has the entries taken out by their shape. A settings file nested 100,000 deep is refused
naming it; and a command path with a space or a quote is written so that the host's
``sh -c`` runs it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomlkit

from adecore_lsp.cli import json_text
from tests.cli.conftest import no_traceback, run
from tests.cli.test_agents_setup import FILES, SETTINGS, tree

JSON_TEXTS = {
    "strict": '{"model": "x", "mcpServers": {"db": {"command": "db"}}}\n',
    "jsonc": SETTINGS,
    "crlf": '{\r\n  "model": "x",\r\n  // theirs\r\n  "hooks": {}\r\n}\r\n',
    "bom": '\ufeff{\n    "model": "x"\n}\n',
    "empty-file": "",
    "empty-containers": '{\n  "mcpServers": {},\n  "hooks": {}\n}\n',
    "empty-arrays": '{"hooks": {"Stop": [], "PostToolUse": [], "stop": [], "AfterAgent": []}}',
    "no-newline": '{"theirs": true}',
}
"""What a user's JSON host file may hold (Cursor's own keys, without its "version", too)."""

TOML_TEXTS = {
    "strict": 'model = "o4"\n\n[mcp_servers.other]\ncommand = "x"\n',
    "crlf": 'model = "o4"\r\n\r\n[tools]\r\nweb = true\r\n',
    "bom": '\ufeffmodel = "o4"\n',
    "empty-file": "",
    "empty-containers": "[mcp_servers]\n",
    "no-newline": 'model = "o4"',
    "comment-after": '[mcp_servers.other]\ncommand = "x"\n\n# tools\n[tools]\nweb = true\n',
}

CASES = [
    (host, kind)
    for host in sorted(FILES)
    for kind in sorted({*JSON_TEXTS, *(TOML_TEXTS if host == "codex" else ())})
]


def seed(root: Path, host: str, kind: str) -> dict[str, bytes]:
    """Each of ``host``'s settings files holding the ``kind`` of text (where that kind is
    one for the file's format); the tree's bytes."""
    for name in FILES[host]:
        if name.endswith((".md", ".mdc")):
            continue
        texts = TOML_TEXTS if name.endswith(".toml") else JSON_TEXTS
        if kind in texts:
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(texts[kind].encode("utf-8"))
    return tree(root)


def setup(root: Path, host: str, *args: str, env: dict[str, str] | None = None) -> str:
    done = run("agents", "setup", host, *args, cwd=root, env=env)
    no_traceback(done)
    assert done.status == 0, done
    return done.err


@pytest.mark.parametrize(("host", "kind"), CASES)
def test_setup_then_remove_gives_back_every_byte(tmp_path: Path, host: str, kind: str) -> None:
    original = seed(tmp_path, host, kind)
    setup(tmp_path, host)
    written = tree(tmp_path)
    assert written != original
    for name, data in written.items():
        if name.endswith(".json"):
            assert json_text.parse(data.decode("utf-8-sig")).kind == "object"
        elif name.endswith(".toml"):
            assert tomlkit.parse(data.decode("utf-8-sig"))["mcp_servers"]["adecore-lsp"]
    setup(tmp_path, host, "--remove")
    assert tree(tmp_path) == original


@pytest.mark.parametrize("host", sorted(FILES))
def test_piece_by_piece_and_back(tmp_path: Path, host: str) -> None:
    original = seed(tmp_path, host, "empty-containers")
    setup(tmp_path, host, "--mcp")
    setup(tmp_path, host, "--hook")
    setup(tmp_path, host, "--remove", "--mcp")
    only_hooks = tree(tmp_path)
    setup(tmp_path, host, "--remove", "--hook")
    assert tree(tmp_path) == original
    setup(tmp_path, host, "--hook")
    assert tree(tmp_path) == only_hooks


def test_a_file_changed_since_setup_loses_only_the_entries(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    seed(tmp_path, "claude-code", "strict")
    setup(tmp_path, "claude-code", "--hook")
    edited = settings.read_text().replace('"model": "x"', '"model": "y"')
    settings.write_text(edited)
    setup(tmp_path, "claude-code", "--remove", "--hook")
    assert settings.read_text() == JSON_TEXTS["strict"].replace('"model": "x"', '"model": "y"')


def test_set_up_elsewhere_the_entries_go_by_their_shape(tmp_path: Path) -> None:
    """No record of this file here (a team's settings set up on another machine)."""
    original = seed(tmp_path, "claude-code", "strict")
    setup(tmp_path, "claude-code")
    elsewhere = {"XDG_STATE_HOME": str(tmp_path.parent / f"{tmp_path.name}-other-state")}
    setup(tmp_path, "claude-code", "--remove", env=elsewhere)
    assert tree(tmp_path) == original


def test_host_files_that_are_one_file(tmp_path: Path) -> None:
    """``.claude/settings.json`` is a link to ``.mcp.json``: both pieces go into the one
    file, said once, and come out again; the link stays a link."""
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".mcp.json").write_text(JSON_TEXTS["strict"])
    (tmp_path / ".claude" / "settings.json").symlink_to(Path("..", ".mcp.json"))
    said = setup(tmp_path, "claude-code", "--mcp", "--hook")
    assert "written to .mcp.json (also .claude/settings.json: one file)" in said
    both = json.loads((tmp_path / ".mcp.json").read_text())
    assert "adecore-lsp" in both["mcpServers"]
    assert both["hooks"]["Stop"][0]["hooks"][0]["command"] == "adecore-lsp hook claude-code Stop"
    setup(tmp_path, "claude-code", "--remove")
    assert (tmp_path / ".mcp.json").read_text() == JSON_TEXTS["strict"]
    assert (tmp_path / ".claude" / "settings.json").is_symlink()


def test_another_hosts_link_to_the_same_file_keeps_the_first_hosts_entry(tmp_path: Path) -> None:
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".mcp.json").write_text(JSON_TEXTS["jsonc"])
    (tmp_path / ".cursor" / "mcp.json").symlink_to(Path("..", ".mcp.json"))
    setup(tmp_path, "claude-code", "--mcp")
    with_claude = (tmp_path / ".mcp.json").read_text()
    setup(tmp_path, "cursor", "--mcp")
    setup(tmp_path, "cursor", "--remove", "--mcp")
    assert (tmp_path / ".mcp.json").read_text() == with_claude
    setup(tmp_path, "claude-code", "--remove", "--mcp")
    assert (tmp_path / ".mcp.json").read_text() == JSON_TEXTS["jsonc"]


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        (".claude/settings.json", "[" * 100_000 + "]" * 100_000, "nested more than 200 deep"),
        (".codex/config.toml", "a = " + "[" * 100_000 + "]" * 100_000 + "\n", "nested more"),
    ],
)
def test_a_deeply_nested_settings_file_is_refused_naming_it(
    tmp_path: Path, name: str, text: str, words: str
) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True)
    path.write_text(text)
    host = "codex" if name.endswith(".toml") else "claude-code"
    done = run("agents", "setup", host, "--mcp", "--hook", cwd=tmp_path)
    no_traceback(done)
    assert done.status == 2, done
    assert name in done.err
    assert words in done.err
    assert path.read_text() == text


@pytest.mark.parametrize("host", sorted(FILES))
def test_a_command_path_with_a_space_and_a_quote_runs_through_sh(tmp_path: Path, host: str) -> None:
    """adecore-lsp run from ``tools/it's "here"/adecore-lsp``, not on ``PATH``: each hook
    entry's command runs through ``sh -c`` (as the hosts run them) and reaches adecore-lsp
    (never 127, the shell's "not found"): the stop event answers with 0, an edit event with
    adecore-lsp's own words about the payload this test gives it; the MCP entries name the
    program as it is."""
    folder = tmp_path / "tools" / 'it\'s "here"'
    folder.mkdir(parents=True)
    program = folder / "adecore-lsp"
    shutil.copy2(Path(sys.executable).parent / "adecore-lsp", program)
    project = tmp_path / "project"
    project.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "s")}
    done = subprocess.run(
        [str(program), "agents", "setup", host, "--mcp", "--hook"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    commands = _hook_commands(project)
    assert len(commands) >= 2, commands
    for command in commands:
        assert command.startswith("'"), command
        event = command.rsplit(" ", 1)[1]
        payload = {"session_id": "s", "cwd": str(project), "hook_event_name": event}
        ran = subprocess.run(
            ["sh", "-c", command],
            cwd=project,
            env=env,
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert ran.returncode not in (126, 127), (command, ran.stderr)
        assert "Traceback" not in ran.stderr
        if event.lower().endswith(("stop", "afteragent")):
            assert ran.returncode == 0, (command, ran.stderr)
        else:
            assert ran.stderr.startswith(f"adecore-lsp hook: {host} {event} input:"), ran.stderr
    for path in project.rglob("*"):
        if path.name == "config.toml":
            server = tomlkit.parse(path.read_text())["mcp_servers"]["adecore-lsp"]
            assert server["command"] == str(program)
        elif path.name.endswith("mcp.json"):
            server = json.loads(path.read_text())["mcpServers"]["adecore-lsp"]
            assert server["command"] == str(program)


def _hook_commands(project: Path) -> list[str]:
    """Every hook command the host files of ``project`` hold."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                if key in ("command", "bash") and isinstance(inner, str) and " hook " in inner:
                    found.append(inner)
                else:
                    walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    for path in project.rglob("*.json"):
        walk(json.loads(path.read_text()))
    return found


def test_a_host_file_that_leads_out_of_the_project_is_refused(tmp_path: Path) -> None:
    """``.mcp.json`` a link to a file outside the project: neither read nor written."""
    project = tmp_path / "project"
    project.mkdir()
    outside = tmp_path / "elsewhere.json"
    outside.write_text('{"mine": 1}\n')
    (project / ".mcp.json").symlink_to(outside)
    done = run("agents", "setup", "claude-code", "--mcp", "--dry-run", cwd=project)
    no_traceback(done)
    assert done.status == 2, done
    assert ".mcp.json leads out of the root" in done.err
    assert '"mine"' not in done.out + done.err
    assert outside.read_text() == '{"mine": 1}\n'
