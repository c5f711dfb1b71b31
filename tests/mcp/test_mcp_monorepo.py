"""An agent's references and rename plan in a uv workspace of two packages (basedpyright, one
process per package): every package's uses, the same places the command line gives, and
``complete: false`` with ``other_roots`` when a package's server cannot be asked."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import run, write
from tests.cli.test_monorepo_python import FLAKY, USES, UV_TREE
from tests.integration.conftest import find_server

from .harness import Client, structured

pytestmark = pytest.mark.real_server

TARGET = "packages/a/src/alpha/__init__.py:1:5"


def test_references_and_rename_reach_every_package_as_on_the_command_line(tmp_path: Path) -> None:
    find_server("basedpyright-langserver")
    root = write(tmp_path / "repo", UV_TREE).resolve()
    client = Client.stdio("--root", root, "--server", "basedpyright")
    try:
        found = structured(client.call("references", {"target": TARGET}))
        plan = structured(client.call("rename", {"target": TARGET, "new_name": "salute"}))
    finally:
        client.close()
    assert found["complete"] is True, found
    assert [(i["path"], i["line"], i["column"]) for i in found["items"]] == USES
    line = run(
        "references", TARGET, "--server", "basedpyright", "--format", "json", "--no-progress",
        cwd=root,
    )  # fmt: skip
    assert [(p["path"], p["line"], p["column"]) for p in json.loads(line.out)] == USES
    assert plan["complete"] is True, plan
    assert sorted(plan["changed_files"]) == sorted({path for path, _line, _column in USES})


def test_a_package_whose_server_fails_is_said(tmp_path: Path) -> None:
    find_server("basedpyright-langserver")
    root = write(tmp_path / "repo", UV_TREE).resolve()
    write(
        root,
        {
            "flaky.py": FLAKY,
            "adecore-lsp.toml": (
                'servers = ["flaky"]\n[server.flaky]\n'
                f"command = [{json.dumps(sys.executable)}, {json.dumps(str(root / 'flaky.py'))}]\n"
                'languages = { ".py" = "python" }\n'
                'roots = "configuration"\n'
                'root_markers = ["pyproject.toml[tool.pyright]"]\n'
                "pull_diagnostics = true\n"
                'readiness = "registration"\n'
                'ready_registration = "textDocument/diagnostic"\n'
            ),
        },
    )
    client = Client.stdio("--root", root, "--trust")
    try:
        result = client.call("references", {"target": TARGET})
        plan = structured(client.call("rename", {"target": TARGET, "new_name": "salute"}))
    finally:
        client.close()
    found = structured(result)
    assert (found["complete"], found["reason"]) == (False, "other_roots")
    assert {item["path"] for item in found["items"]} == {
        "packages/a/src/alpha/__init__.py",
        "packages/a/src/alpha/more.py",
    }
    text = " ".join(getattr(part, "text", "") for part in result.content)
    assert "another package" in text
    assert (plan["complete"], plan["reason"]) == (False, "other_roots")
