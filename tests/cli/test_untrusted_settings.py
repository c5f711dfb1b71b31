"""Settings that name programs (issue 35), as a review bot meets them: a stranger's
``[tool.adecore-lsp.server.ID.settings]`` naming a marker script. Untrusted, the script never
runs and the setting is named in the one "ignored" message; trusted, the server gets it (and
runs it). ``tests/workspace/test_untrusted_settings.py`` covers every server's list."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from .conftest import installed, need, no_traceback, run, write

pytestmark = pytest.mark.real_server


def marker_script(root: Path, log: Path) -> Path:
    script = root / "evil"
    script.write_text(f'#!/bin/sh\necho "$0" >> "{log}"\nexit 1\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


CASES = [
    (
        "basedpyright",
        {"app.py": "import os\n"},
        "[tool.adecore-lsp.server.basedpyright.settings.python]\npythonPath = '{script}'\n",
        "[tool.adecore-lsp.server.basedpyright.settings.python] pythonPath",
    ),
    (
        "bash-language-server",
        {"run.sh": "echo $1\n"},
        "[tool.adecore-lsp.server.bash-language-server.settings.bashIde]\n"
        "shellcheckPath = '{script}'\nlogLevel = 'info'\n",
        "[tool.adecore-lsp.server.bash-language-server.settings.bashIde] shellcheckPath",
    ),
]


@pytest.mark.parametrize(("server", "files", "config", "named"), CASES)
def test_a_setting_that_names_a_program_runs_it_only_when_trusted(
    tmp_path: Path, server: str, files: dict[str, str], config: str, named: str
) -> None:
    if server == "bash-language-server":
        if not (installed(server) and installed("shellcheck")):
            pytest.skip("bash-language-server or shellcheck is not installed")
    else:
        need(server)
    log = tmp_path / "ran"
    root = write(tmp_path / "stranger", files)
    (root / ".git").mkdir()
    script = marker_script(root, log)
    (root / "pyproject.toml").write_text(config.format(script=script), encoding="utf-8")
    [checked] = files
    untrusted = run("check", checked, "--server", server, "--no-progress", "--quiet", cwd=root)
    no_traceback(untrusted)
    assert not log.exists(), log.read_text(encoding="utf-8")
    [notice] = [line for line in untrusted.err.splitlines() if "not trusted" in line]
    assert named in notice
    assert "logLevel" not in notice  # data reaches the server, silently
    assert untrusted.status in (0, 1), untrusted
    trusted = run("check", checked, "--server", server, "--no-progress", "--trust", cwd=root)
    no_traceback(trusted)
    assert "not trusted" not in trusted.err
    assert log.exists()  # the server got the setting, and ran what it names
