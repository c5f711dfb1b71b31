"""Settings that name programs (issue 35): an untrusted root's ``settings`` reach a registry
server only where its ``data_settings`` say they are data; every other one is named in the
one message of what was ignored, and a trusted root's all reach the server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import Registry, ServerSpec, Workspace
from adecore_lsp.workspace.servers.project_config import split_settings
from tests.workspace.conftest import write

PROGRAMS = """\
[tool.adecore-lsp.server.basedpyright.settings.python]
pythonPath = "./evil.sh"
[tool.adecore-lsp.server.basedpyright.settings.python.analysis]
typeCheckingMode = "strict"
extraPaths = ["/home"]
diagnosticSeverityOverrides = { reportMissingImports = "none" }
[tool.adecore-lsp.server.pyright.settings.python]
venvPath = "/outside"
pythonPath = "./evil.sh"
[tool.adecore-lsp.server.typescript-language-server.settings]
typescript = { tsdk = "./evil-tsdk", format = { semicolons = "remove" } }
tsserver = { path = "./evil-tsdk/tsserver.js" }
[tool.adecore-lsp.server.esbonio.settings.esbonio.sphinx]
pythonCommand = ["./evil.sh"]
[tool.adecore-lsp.server.rust-analyzer.settings.rust-analyzer]
check = { overrideCommand = ["./evil.sh"] }
cargo = { buildScripts = { overrideCommand = ["./evil.sh"] }, features = ["x"] }
rustfmt = { overrideCommand = ["./evil.sh"] }
[tool.adecore-lsp.server.bash-language-server.settings.bashIde]
shellcheckPath = "./evil.sh"
logLevel = "info"
[tool.adecore-lsp.server.ruff.settings]
lineLength = 100
logFile = "/tmp/x"
format = { backend = "uv" }
[tool.adecore-lsp.server.tsc.settings."js/ts"]
"tsdk.path" = "./evil-tsdk"
"""

NAMED = [
    "[tool.adecore-lsp.server.basedpyright.settings.python] pythonPath",
    "[tool.adecore-lsp.server.basedpyright.settings.python.analysis] extraPaths",
    "[tool.adecore-lsp.server.pyright.settings.python] venvPath",
    "[tool.adecore-lsp.server.pyright.settings.python] pythonPath",
    "[tool.adecore-lsp.server.typescript-language-server.settings.typescript] tsdk",
    "[tool.adecore-lsp.server.typescript-language-server.settings.tsserver] path",
    "[tool.adecore-lsp.server.esbonio.settings.esbonio.sphinx] pythonCommand",
    "[tool.adecore-lsp.server.rust-analyzer.settings.rust-analyzer.check] overrideCommand",
    "[tool.adecore-lsp.server.rust-analyzer.settings.rust-analyzer.cargo.buildScripts]"
    " overrideCommand",
    "[tool.adecore-lsp.server.rust-analyzer.settings.rust-analyzer.rustfmt] overrideCommand",
    "[tool.adecore-lsp.server.bash-language-server.settings.bashIde] shellcheckPath",
    "[tool.adecore-lsp.server.ruff.settings] logFile",
    "[tool.adecore-lsp.server.ruff.settings.format] backend",
    '[tool.adecore-lsp.server.tsc.settings."js/ts"] "tsdk.path"',
]


def settings(ws: Workspace, server: str) -> dict[str, Any]:
    return ws.registry.get(server).settings


def test_only_the_settings_that_are_data_reach_an_untrusted_roots_servers(
    tmp_path: Path,
) -> None:
    root = write(tmp_path / "stranger", {"app.py": "x = 1\n", "pyproject.toml": PROGRAMS})
    with pytest.warns(UserWarning, match="is not trusted") as warned:
        ws = Workspace(root)
    assert len(warned) == 1
    message = str(warned[0].message)
    for key in NAMED:
        assert key in message
    # The data is kept, merged into the registry's own settings as a trusted root's is.
    assert settings(ws, "basedpyright") == {
        "python": {
            "analysis": {
                "typeCheckingMode": "strict",
                "diagnosticSeverityOverrides": {"reportMissingImports": "none"},
            }
        }
    }
    assert settings(ws, "pyright") == {}
    assert settings(ws, "typescript-language-server") == {
        "typescript": {"format": {"semicolons": "remove"}}
    }
    assert settings(ws, "esbonio") == {}
    assert settings(ws, "rust-analyzer") == {"rust-analyzer": {"cargo": {"features": ["x"]}}}
    assert settings(ws, "bash-language-server") == {"bashIde": {"logLevel": "info"}}
    assert settings(ws, "ruff") == {"lineLength": 100}
    assert settings(ws, "tsc") == Registry.default().get("tsc").settings  # the registry's own
    # Nothing data was named.
    for kept in ("typeCheckingMode", "diagnosticSeverityOverrides", "features", "lineLength"):
        assert f"] {kept}" not in message


def test_a_trusted_root_gives_every_setting(tmp_path: Path) -> None:
    root = write(tmp_path / "owned", {"app.py": "x = 1\n", "pyproject.toml": PROGRAMS})
    ws = Workspace(root, trust=True)
    assert ws.untrusted_notice is None
    assert settings(ws, "basedpyright")["python"]["pythonPath"] == "./evil.sh"
    assert settings(ws, "pyright")["python"]["venvPath"] == "/outside"
    assert settings(ws, "typescript-language-server")["tsserver"] == {
        "path": "./evil-tsdk/tsserver.js"
    }
    assert settings(ws, "esbonio") == {"esbonio": {"sphinx": {"pythonCommand": ["./evil.sh"]}}}
    assert settings(ws, "rust-analyzer")["rust-analyzer"]["check"] == {
        "overrideCommand": ["./evil.sh"]
    }
    assert settings(ws, "bash-language-server")["bashIde"]["shellcheckPath"] == "./evil.sh"
    assert settings(ws, "tsc")["js/ts"]["tsdk.path"] == "./evil-tsdk"


def test_a_server_with_no_data_settings_takes_none_from_an_untrusted_root(
    tmp_path: Path,
) -> None:
    root = write(
        tmp_path / "stranger",
        {
            "a.f90": "program a\nend program a\n",
            "pyproject.toml": "[tool.adecore-lsp.server.fortls.settings]\nnthreads = 4\n",
        },
    )
    named = r"\[tool\.adecore-lsp\.server\.fortls\.settings\] nthreads"
    with pytest.warns(UserWarning, match=named):
        ws = Workspace(root)
    assert settings(ws, "fortls") == {}


def test_split_settings_admits_keys_and_tables_below_a_star() -> None:
    admitted = ["a.b", "a.c.*", "d"]
    given = {"a": {"b": 1, "c": {"x": {"y": 2}}, "e": 3, "f": {}}, "d": [4], "g": {"h": 5}}
    kept, left_out = split_settings(given, admitted)
    assert kept == {"a": {"b": 1, "c": {"x": {"y": 2}}}, "d": [4]}
    assert left_out == [("a", "e"), ("a", "f"), ("g", "h")]
    # A value where a table is admitted below it is not the table: it is left out.
    assert split_settings({"a": {"c": 1}}, admitted) == ({}, [("a", "c")])


@pytest.mark.parametrize("key", ["", "a.*.b", "*", ".a", "a.", "a..b"])
def test_data_settings_are_dotted_keys(key: str) -> None:
    with pytest.raises(ValueError, match="data_settings"):
        ServerSpec(id="x", command=["x"], data_settings=[key])
