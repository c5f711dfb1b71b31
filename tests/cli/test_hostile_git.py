"""A stranger's repository whose git configuration names programs (``core.fsmonitor``,
filter drivers, hooks, an external diff, a textconv, a pager ...): ``check``, a ``rename``
preview and ``check --new-since`` run none of them, and still answer right."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile_repo import hostile_repository, markers

from .conftest import need, no_traceback, run

pytestmark = pytest.mark.real_server

RUFF = '[tool.adecore-lsp]\nservers = ["ruff"]\n'
LIB = "def area(width: int) -> int:\n    return width * width\n"
APP = "import os\n\nfrom lib import area\n\nprint(area(2))\n"
"""``import os`` is unused: one F401 at the revision already."""


@pytest.fixture
def stranger(tmp_path: Path) -> Path:
    need("ruff")
    files = {"pyproject.toml": RUFF, "lib.py": LIB, "app.py": APP}
    return hostile_repository(tmp_path / "repo", files, tmp_path / "markers")


def ran_programs(stranger: Path) -> list[str]:
    return markers(stranger.parent / "markers")


def test_check_runs_no_program_the_git_configuration_names(stranger: Path) -> None:
    ran = run("check", "--format", "json", "--no-progress", cwd=stranger)
    no_traceback(ran)
    assert ran.status == 0, ran
    found = [(d["path"], d["line"], d["code"]) for d in json.loads(ran.out)["diagnostics"]]
    assert found == [("app.py", 1, "F401")]
    assert ran_programs(stranger) == []


def test_a_rename_preview_runs_none(stranger: Path) -> None:
    need("jedi-language-server")
    ran = run("rename", "lib.py#area", "size", "--server", "jedi-language-server", cwd=stranger)
    no_traceback(ran)
    assert ran.status == 0, ran
    assert "+def size(width: int) -> int:" in ran.out
    assert "+print(size(2))" in ran.out
    assert ran_programs(stranger) == []
    assert (stranger / "lib.py").read_text(encoding="utf-8") == LIB  # a preview writes nothing


def test_new_since_runs_none_and_finds_what_the_change_introduced(stranger: Path) -> None:
    # A new unused import in a changed file, one in an untracked file, one in a renamed file;
    # the old one of app.py stays old.
    (stranger / "app.py").write_text(APP.replace("import os\n", "import os\nimport sys\n"))
    (stranger / "fresh.py").write_text("import json\n", encoding="utf-8")
    (stranger / "lib.py").rename(stranger / "geometry.py")
    (stranger / "app.py").write_text(
        (stranger / "app.py").read_text().replace("from lib", "from geometry")
    )
    ran = run("check", "--new-since", "HEAD", "--format", "json", "--no-progress", cwd=stranger)
    no_traceback(ran)
    assert ran.status == 0, ran  # warnings only
    document = json.loads(ran.out)
    found = [(d["path"], d["line"], d["code"]) for d in document["diagnostics"]]
    assert found == [("app.py", 2, "F401"), ("fresh.py", 1, "F401")]
    assert document["resolved"] == []
    assert document["complete"] is True
    assert ran_programs(stranger) == []


def test_new_since_sees_the_revision_as_committed(stranger: Path) -> None:
    """A smudge filter could make a checked-out revision say anything (here: one more unused
    import): the revision's side is its committed content, so the old finding is old and
    nothing is resolved."""
    smudge = stranger / ".git" / "programs" / "smudge"
    marker = stranger.parent / "markers" / "smudge"
    smudge.write_text(f'#!/bin/sh\ntouch "{marker}"\ncat\necho "import json"\n', encoding="utf-8")
    (stranger / "app.py").write_text(APP.replace("import os\n", "import os\nimport sys\n"))
    ran = run("check", "--new-since", "HEAD", "--no-progress", cwd=stranger)
    no_traceback(ran)
    assert ran.status == 0, ran
    lines = ran.out.splitlines()
    assert lines[0].startswith("app.py:2:8: warning: `sys` imported but unused"), ran.out
    assert lines[-1] == "0 new errors, 1 new warning (0 resolved) since HEAD"
    assert len(lines) == 2, ran.out
    assert ran_programs(stranger) == []
