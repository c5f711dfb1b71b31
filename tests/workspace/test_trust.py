"""Trust: an untrusted repository never runs what it names (``safety.md``).

A stranger's repository may name a server ``command`` or ``env`` in its configuration, or
ship an executable (``.venv/bin/ruff``) that a lookup would find first. Each test makes such
a repository whose programs, if run, leave a marker file, and checks what a user of the
library sees: the marker never appears unless the root is trusted, and the one warning says
what was ignored and how to allow it.
"""

from __future__ import annotations

import os
import stat
import sysconfig
from pathlib import Path

import pytest

from adecore_lsp import LspError, Registry, ServerNotFoundError, ServerSpec, Workspace
from adecore_lsp.workspace.servers import trust
from tests.workspace.conftest import write

SHIM = """#!/bin/sh
touch "{marker}"
exit 1
"""


def shim(path: Path, marker: Path) -> None:
    """An executable at ``path`` that, when run, leaves ``marker`` and exits."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SHIM.format(marker=marker))
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


@pytest.fixture
def stranger(tmp_path: Path) -> Path:
    """A repository whose configuration names a command and whose .venv ships a ruff."""
    root = write(tmp_path / "stranger", {"app.py": "import os\n"})
    marker = tmp_path / "ran"
    shim(root / ".venv" / "bin" / "ruff", marker)
    shim(root / "evil-lsp", marker)
    (root / "pyproject.toml").write_text(
        "[tool.adecore-lsp]\n"
        'servers = ["ruff", "mine"]\n'
        "[tool.adecore-lsp.server.ruff]\n"
        'env = { PYTHONSTARTUP = "evil.py" }\n'
        "settings = { lineLength = 100 }\n"
        "[tool.adecore-lsp.server.mine]\n"
        f'command = ["{root / "evil-lsp"}"]\n'
        'languages = { ".py" = "python" }\n'
    )
    return root


def marker_of(root: Path) -> Path:
    return root.parent / "ran"


async def test_an_untrusted_root_runs_nothing_it_names(stranger: Path) -> None:
    """The command, the env and the .venv shim are ignored; ruff from PATH checks the file,
    and the warning names each ignored item with the advice."""
    with pytest.warns(UserWarning, match="is not trusted") as warned:
        ws = Workspace(stranger)
    message = str(warned[0].message)
    assert "[tool.adecore-lsp.server.ruff] env" in message
    assert "the server mine ([tool.adecore-lsp.server.mine])" in message
    assert "mine in tool.adecore-lsp.servers" in message
    assert ".venv/bin/ruff" in message
    assert "adecore-lsp trust" in message
    assert len(warned) == 1
    async with ws:
        report = await ws.diagnostics(["app.py"], timeout=30)
    assert report.complete
    assert [item.code for item in report.items] == ["F401"]
    assert [handle.spec.id for handle in ws.started()] == ["ruff"]
    assert not ws.started()[0].executable.startswith(str(stranger))
    assert not marker_of(stranger).exists()


async def test_settings_of_registry_servers_still_apply(tmp_path: Path) -> None:
    """Settings that are data (the server's ``data_settings``) cannot start anything: an
    untrusted root keeps them, silently (``test_untrusted_settings.py`` has the others)."""
    root = write(tmp_path / "p", {"app.py": "x = 1\n"})
    (root / "pyproject.toml").write_text(
        '[tool.adecore-lsp]\nservers = ["ruff"]\n'
        "[tool.adecore-lsp.server.ruff]\nsettings = { lineLength = 100 }\n"
    )
    ws = Workspace(root)  # no warning: filterwarnings = error would fail this
    assert ws.untrusted_notice is None
    assert ws.registry.get("ruff").settings["lineLength"] == 100


async def test_trust_true_runs_what_the_root_names(stranger: Path) -> None:
    ws = Workspace(stranger, trust=True)
    assert ws.trusted
    assert ws.untrusted_notice is None
    async with ws:
        with pytest.raises(LspError, match="exited before its handshake"):
            await ws.diagnostics(["app.py"], timeout=10)
    assert marker_of(stranger).exists()  # the shim ran: the root was trusted


async def test_the_trust_store_trusts_until_the_configuration_changes(stranger: Path) -> None:
    recorded = trust.add(stranger)
    assert recorded == os.path.realpath(stranger)
    assert recorded in trust.listed()
    assert oct(trust.store_path().stat().st_mode & 0o777) == "0o600"
    assert Workspace(stranger).trusted
    with open(stranger / "pyproject.toml", "a") as file:
        file.write("# changed\n[tool.adecore-lsp.server.pyright]\nenv = { A = '1' }\n")
    with pytest.warns(UserWarning, match="is not trusted"):
        assert not Workspace(stranger).trusted
    trust.remove(stranger)
    assert recorded not in trust.listed()
    with pytest.raises(ValueError, match="is not trusted"):
        trust.remove(stranger)


def test_an_explicit_file_counts_by_its_bytes(tmp_path: Path) -> None:
    root = write(tmp_path / "p", {"adecore-lsp.toml": 'servers = ["ruff"]\n'})
    trust.add(root)
    assert trust.is_trusted(root)
    (root / "adecore-lsp.toml").write_text('servers = ["ruff"]  # changed\n')
    assert not trust.is_trusted(root)
    trust.remove(root)


def test_trust_false_never_trusts_and_the_environment_trusts(
    stranger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trust.add(stranger)
    try:
        with pytest.warns(UserWarning, match="is not trusted"):
            assert not Workspace(stranger, trust=False).trusted
    finally:
        trust.remove(stranger)
    monkeypatch.setenv("ADECORE_LSP_TRUST", "1")
    assert Workspace(stranger).trusted
    monkeypatch.setenv("ADECORE_LSP_TRUST", "0")
    with pytest.warns(UserWarning, match="is not trusted"):
        assert not Workspace(stranger).trusted


def test_which_skips_the_root_and_path_entries_inside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An untrusted root's own executables, also on PATH, are never the answer; the
    scripts folder of the running Python is, wherever it lies."""
    root = tmp_path / "r"
    marker = tmp_path / "ran"
    shim(root / "node_modules" / ".bin" / "typescript-language-server", marker)
    shim(root / "tools" / "ruff", marker)
    monkeypatch.setenv("PATH", os.pathsep.join([str(root / "tools"), "/usr/bin", "/bin"]))
    registry = Registry.default()
    tsls = registry.get("typescript-language-server")
    assert registry.which(tsls, root, trusted=True) == str(
        root / "node_modules" / ".bin" / "typescript-language-server"
    )
    assert registry.which(tsls, root, trusted=False) is None
    ruff = registry.get("ruff")
    scripts = sysconfig.get_path("scripts")
    found = registry.which(ruff, root, trusted=False)
    assert found == os.path.join(scripts, "ruff")
    assert registry.which(ruff, root, trusted=True) == str(root / "tools" / "ruff")


def test_a_server_found_only_inside_the_root_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write(tmp_path / "r", {"main.ts": "let x = 1\n"})
    shim(root / "node_modules" / ".bin" / "typescript-language-server", tmp_path / "ran")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    with pytest.warns(UserWarning, match=r"node_modules/\.bin/typescript-language-server"):
        ws = Workspace(root, servers=["typescript-language-server"])
    with pytest.raises(ServerNotFoundError) as caught:
        ws.handles_for(root / "main.ts")
    message = caught.value.message
    assert "node_modules/.bin/typescript-language-server" in message
    assert "not trusted" in message
    assert "adecore-lsp trust" in message


async def test_a_spec_the_caller_made_runs_as_given(tmp_path: Path) -> None:
    """A ServerSpec passed in (the caller's own choice) starts whatever the trust."""
    root = write(tmp_path / "r", {"a.txt": "text\n"})
    marker = tmp_path / "ran"
    shim(root / "bin" / "own-lsp", marker)
    spec = ServerSpec("own", ["bin/own-lsp"], languages={".txt": "text"})
    ws = Workspace(root, servers=[spec], trust=False)
    assert ws.which(spec) == str(root / "bin" / "own-lsp")
    [handle] = ws.handles_for(root / "a.txt")
    assert handle.executable == str(root / "bin" / "own-lsp")
    async with ws:
        with pytest.raises(LspError, match="exited before its handshake"):
            await ws.diagnostics(["a.txt"], timeout=10)
    assert marker.exists()
