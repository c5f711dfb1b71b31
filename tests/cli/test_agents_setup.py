"""``adecore-lsp agents setup HOST``: the host's files written, merged into what is there
(every other key, comment and space kept), unchanged by a second run, and given back byte
for byte by ``--remove``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adecore_lsp.cli import json_text
from adecore_lsp.cli.hook_hosts import HOSTS
from tests.cli.conftest import run

SETTINGS = """{
    // the team's settings: kept as they are
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
        ],
        /* one of theirs after an edit */
        "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "fmt"}]}]
    },
    "someFutureKey": {"nested": [1, 2, 3]},
}
"""

FILES = {
    "claude-code": [".mcp.json", ".claude/settings.json", ".claude/skills/adecore-lsp/SKILL.md"],
    "gemini-cli": [".gemini/settings.json", ".gemini/skills/adecore-lsp/SKILL.md"],
    "codex": [".codex/config.toml", ".codex/hooks.json", ".agents/skills/adecore-lsp/SKILL.md"],
    "cursor": [".cursor/mcp.json", ".cursor/hooks.json", ".cursor/rules/adecore-lsp.mdc"],
    "copilot-cli": [
        ".github/mcp.json",
        ".github/hooks/adecore-lsp.json",
        ".github/skills/adecore-lsp/SKILL.md",
    ],
}


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_every_host_has_its_files() -> None:
    assert set(FILES) == set(HOSTS)


def test_claude_code_settings_with_hooks_comments_and_unknown_keys_round_trip(
    tmp_path: Path,
) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(SETTINGS, encoding="utf-8")
    (tmp_path / ".mcp.json").write_text('{"mcpServers": {"db": {"command": "db-mcp"}}}\n')
    original = tree(tmp_path)

    done = run("agents", "setup", "claude-code", cwd=tmp_path)
    assert done.status == 0, done.err
    text = (tmp_path / ".claude" / "settings.json").read_text(encoding="utf-8")
    assert text.startswith(SETTINGS.split('"PostToolUse"')[0])  # theirs, byte for byte
    assert "// the team's settings" in text
    assert "/* one of theirs after an edit */" in text
    settings = json_text.parse(text).plain()
    assert settings["someFutureKey"] == {"nested": [1, 2, 3]}
    post = settings["hooks"]["PostToolUse"]
    assert post[0]["hooks"][0]["command"] == "fmt"
    assert post[1]["matcher"] == "Edit|MultiEdit|NotebookEdit|Write"
    assert post[1]["hooks"][0]["command"] == "adecore-lsp hook claude-code PostToolUse"
    assert settings["hooks"]["Stop"][0]["hooks"][0]["command"].endswith("hook claude-code Stop")
    servers = json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]
    assert servers == {
        "db": {"command": "db-mcp"},
        "adecore-lsp": {"command": "adecore-lsp", "args": ["mcp"]},
    }
    skill = (tmp_path / ".claude" / "skills" / "adecore-lsp" / "SKILL.md").read_text()
    assert skill.startswith("---\nname: adecore-lsp\ndescription: ")
    assert "| where a target is used | `adecore-lsp references TARGET` |" in skill

    written = tree(tmp_path)
    again = run("agents", "setup", "claude-code", cwd=tmp_path)
    assert again.status == 0
    assert "nothing to change" in again.err
    assert tree(tmp_path) == written

    removed = run("agents", "setup", "claude-code", "--remove", cwd=tmp_path)
    assert removed.status == 0, removed.err
    assert tree(tmp_path) == original
    assert not (tmp_path / ".claude" / "skills").exists()


@pytest.mark.parametrize("host", sorted(FILES))
def test_each_host_from_nothing_and_back(tmp_path: Path, host: str) -> None:
    done = run("agents", "setup", host, cwd=tmp_path)
    assert done.status == 0, done.err
    assert sorted(tree(tmp_path)) == sorted(FILES[host])
    commands = "".join(p.read_text() for p in tmp_path.rglob("*") if p.is_file())
    for event in HOSTS[host].events:
        if event != "SubagentStop":
            assert f"adecore-lsp hook {host} {event}" in commands
    assert run("agents", "setup", host, cwd=tmp_path).err.strip().endswith("nothing to change")
    assert run("agents", "setup", host, "--remove", cwd=tmp_path).status == 0
    assert list(tmp_path.iterdir()) == []


def test_a_dry_run_prints_the_diff_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(SETTINGS, encoding="utf-8")
    before = tree(tmp_path)
    done = run("agents", "setup", "claude-code", "--hook", "--dry-run", cwd=tmp_path)
    assert done.status == 0, done.err
    assert done.out.startswith("--- a/.claude/settings.json\n+++ b/.claude/settings.json\n")
    assert "+" + " " * 24 + '"command": "adecore-lsp hook claude-code Stop",' in done.out
    assert ".mcp.json" not in done.out  # --hook alone
    assert tree(tmp_path) == before


def test_only_the_pieces_named_are_written(tmp_path: Path) -> None:
    assert run("agents", "setup", "gemini-cli", "--mcp", cwd=tmp_path).status == 0
    settings = json.loads((tmp_path / ".gemini" / "settings.json").read_text())
    assert list(settings) == ["mcpServers"]
    assert run("agents", "setup", "gemini-cli", "--hook", cwd=tmp_path).status == 0
    settings = json.loads((tmp_path / ".gemini" / "settings.json").read_text())
    assert list(settings) == ["mcpServers", "hooks"]
    assert settings["hooks"]["AfterTool"][0]["hooks"][0]["timeout"] == 60000  # milliseconds
    assert run("agents", "setup", "gemini-cli", "--remove", "--mcp", cwd=tmp_path).status == 0
    assert list(json.loads((tmp_path / ".gemini" / "settings.json").read_text())) == ["hooks"]


def test_a_file_that_is_not_json_is_refused_and_left(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("{ not json", encoding="utf-8")
    done = run("agents", "setup", "claude-code", cwd=tmp_path)
    assert done.status == 2
    assert ".claude/settings.json: not JSON" in done.err
    assert "line 1" in done.err
    assert (tmp_path / ".claude" / "settings.json").read_text() == "{ not json"
    assert not (tmp_path / ".mcp.json").exists()  # all files or none


def test_a_skill_of_someone_else_is_never_replaced(tmp_path: Path) -> None:
    skill = tmp_path / ".claude" / "skills" / "adecore-lsp" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("my own notes\n")
    done = run("agents", "setup", "claude-code", "--skill", cwd=tmp_path)
    assert done.status == 2
    assert "is not one adecore-lsp wrote" in done.err
    assert skill.read_text() == "my own notes\n"


def test_an_existing_codex_config_keeps_its_tables(tmp_path: Path) -> None:
    config = tmp_path / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "o4"\n\n[mcp_servers.other]\ncommand = "x"\n')
    original = config.read_bytes()
    assert run("agents", "setup", "codex", "--mcp", cwd=tmp_path).status == 0
    assert config.read_text().endswith('\n\n[mcp_servers.adecore-lsp]\ncommand = "adecore-lsp"\n'
                                       'args = ["mcp"]\n')  # fmt: skip
    assert run("agents", "setup", "codex", "--mcp", "--remove", cwd=tmp_path).status == 0
    assert config.read_bytes() == original


def test_the_docs_one_commands_write_the_files_they_name(tmp_path: Path) -> None:
    """docs/agents.md's setup block, run as written: each line's files are the ones listed."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "agents.md").read_text()
    block = page.split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line.strip()]
    assert len(lines) == len(HOSTS)
    for number, line in enumerate(lines):
        command, _, listed = line.partition("#")
        words = command.split()
        assert words[:3] == ["adecore-lsp", "agents", "setup"]
        folder = tmp_path / str(number)
        folder.mkdir()
        assert run(*words[1:], cwd=folder).status == 0
        assert sorted(tree(folder)) == sorted(name.strip() for name in listed.split(","))
