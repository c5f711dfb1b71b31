"""Between two commands through the daemon the files change; the next command sees the disk
as it is: files edited (a same-size rewrite in the same second, its times put back, too),
created and deleted, for ruff and for basedpyright (which watches files), and a server that
watches nothing is started again when files come and go."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cli.conftest import need, run, write
from tests.daemon.conftest import Daemon

pytestmark = pytest.mark.real_server


def same_answer(daemon: Daemon, project: Path, *args: str) -> str:
    """Run ``args`` through the daemon and in its own process; the two must be the same."""
    through = daemon.run(*args, "--no-progress", cwd=project)
    own = run("--daemon", "off", *args, "--no-progress", cwd=project)
    assert through == own, f"through the daemon:\n{through}\nin its own process:\n{own}"
    return through.out


def test_edits_between_commands_with_ruff(daemon: Daemon, tmp_path: Path) -> None:
    need("ruff")
    config = '[tool.adecore-lsp]\nservers = ["ruff"]\n'
    project = write(tmp_path / "p", {"pyproject.toml": config, "a.py": "import os\n"})
    a = project / "a.py"
    assert "`os` imported" in same_answer(daemon, project, "check")
    # The same size, in the same second, with the times put back: only the content moved.
    before = os.stat(a)
    a.write_text("import re\n")
    os.utime(a, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(a).st_size == before.st_size
    out = same_answer(daemon, project, "check")
    assert "`re` imported" in out
    assert "`os`" not in out
    # A file made, then gone.
    (project / "b.py").write_text("print(nowhere)\n")
    assert "b.py:1:7" in same_answer(daemon, project, "check")
    (project / "b.py").unlink()
    out = same_answer(daemon, project, "check")
    assert "b.py" not in out
    assert "in 1 file" in out
    # A folder's files, then none.
    a.unlink()
    ran = daemon.run("check", "--no-progress", cwd=project)
    assert ran.status == 2
    assert "nothing to check" in ran.err


def test_basedpyright_sees_modules_made_and_deleted(daemon: Daemon, tmp_path: Path) -> None:
    need("basedpyright")
    config = '[tool.adecore-lsp]\nservers = ["basedpyright"]\n'
    project = write(
        tmp_path / "p",
        {
            "pyproject.toml": config,
            "app.py": "import helper\n\nvalue: int = helper.answer()\n",
            "helper.py": "def answer() -> int:\n    return 42\n",
        },
    )
    args = ("check", "app.py", "--format", "json")
    assert '"diagnostics": []' in same_answer(daemon, project, *args)
    (project / "helper.py").unlink()
    gone = same_answer(daemon, project, *args)
    assert "helper" in gone
    assert "could not be resolved" in gone
    (project / "helper.py").write_text("def answer() -> str:\n    return 'x'\n")
    back = same_answer(daemon, project, *args)
    assert "could not be resolved" not in back
    assert '"str"' in back or "str" in back  # now the wrong type
    assert '"diagnostics": []' not in back
    # The other file's text moved, this one's did not: its findings follow.
    (project / "helper.py").write_text("def answer() -> int:\n    return 1\n")
    assert '"diagnostics": []' in same_answer(daemon, project, *args)


@pytest.mark.parametrize(
    ("server", "restarted"), [("tsc", False), ("typescript-language-server", True)]
)
def test_a_server_that_watches_nothing_is_started_again(
    daemon: Daemon, tmp_path: Path, server: str, restarted: bool
) -> None:
    """typescript-language-server registers no file watchers: a module made or deleted
    between two commands is seen only by a server started again. TypeScript 7's own server
    watches the root, and is told instead."""
    need(server)
    project = write(
        tmp_path / "p",
        {
            "tsconfig.json": '{"compilerOptions": {"strict": true}}',
            "app.ts": 'import { x } from "./helper";\nexport const y: number = x;\n',
        },
    )
    args = ("check", "app.ts", "--server", server, "--format", "json")
    assert "Cannot find module" in same_answer(daemon, project, *args)
    [before] = daemon.server_pids()
    assert "Cannot find module" in same_answer(daemon, project, *args)
    assert daemon.server_pids() == [before]  # nothing came or went: the same server
    (project / "helper.ts").write_text("export const x = 1;\n")
    assert '"diagnostics": []' in same_answer(daemon, project, *args)
    [after] = daemon.server_pids()
    assert (after != before) is restarted
    assert daemon.status()["workspaces"][0]["servers"][0]["restarts"] == int(restarted)
    (project / "helper.ts").unlink()
    assert "Cannot find module" in same_answer(daemon, project, *args)


def test_writes_through_the_daemon(daemon: Daemon, tmp_path: Path) -> None:
    """``fix --write`` and ``rename --write`` through the daemon write what they write in
    their own process, and the next command through the daemon sees the files written."""
    need("ruff")
    need("basedpyright")
    files = {
        "pyproject.toml": '[tool.adecore-lsp]\nservers = ["ruff"]\n',
        "a.py": "import os\nimport sys\n\n\ndef greet() -> str:\n    return 'hi'\n",
        "b.py": "from a import greet\n\nprint(greet())\n",
    }
    ours, theirs = write(tmp_path / "ours", files), write(tmp_path / "theirs", files)
    rename = ("rename", "a.py#greet", "welcome", "--server", "basedpyright", "--write")
    for args in (("fix", "a.py", "--write"), rename):
        through = daemon.run(*args, "--no-progress", cwd=ours)
        own = run("--daemon", "off", *args, "--no-progress", cwd=theirs)
        assert through == own
        assert through.status == 0, through
    for name in ("a.py", "b.py"):
        assert (ours / name).read_bytes() == (theirs / name).read_bytes()
    assert "import os" not in (ours / "a.py").read_text()
    assert "welcome()" in (ours / "b.py").read_text()
    after = daemon.run("check", "--format", "json", cwd=ours)
    assert after.status == 0, after
    assert '"diagnostics": []' in after.out


def test_a_notebook_edited_between_commands(daemon: Daemon, tmp_path: Path) -> None:
    """A warm server has the notebook cell by cell: an edit on disk (a cell changed, a cell
    added) is seen by the next command, the same as in a process of its own."""
    from tests.workspace.test_notebooks_real import notebook

    need("ruff")
    config = '[tool.adecore-lsp]\nservers = ["ruff"]\n'
    first = notebook(("markdown", "# T\n"), ("code", "import os\n"))
    project = write(
        tmp_path / "nb",
        {"pyproject.toml": config, "ruff.toml": '[lint]\nselect = ["F"]\n', "nb.ipynb": first},
    )
    assert "nb.ipynb:cell 2:1:8: warning: `os` imported but unused" in same_answer(
        daemon, project, "check"
    )
    (project / "nb.ipynb").write_text(
        notebook(("markdown", "# T\n"), ("code", "import os\nos.sep\n"), ("code", "nowhere\n")),
        encoding="utf-8",
    )
    out = same_answer(daemon, project, "check")
    assert "cell 2" not in out
    assert "nb.ipynb:cell 3:1:1: error: Undefined name `nowhere`" in out
