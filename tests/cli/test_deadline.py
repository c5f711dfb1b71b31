"""``check --timeout`` bounds each server's silence, not its work.

A server that keeps answering or moving its progress is waited for however long the tree
takes (a real basedpyright on a generated tree, a scripted server slower than the timeout);
one that says nothing new for the timeout is not (a silent server, one repeating the same
progress report), and one that keeps its progress moving without ever answering is stopped
at ten times the timeout. Either way the check exits 3, names the files, and says why.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.cli.conftest import SCRIPTED, need, no_traceback, run, write
from tests.cli.scripted_lsp import SLOW_PULL_DELAY
from tests.integration.conftest import VENV_BIN

pytestmark = pytest.mark.real_server

FILES = {f"mod{index:02}.py": f"VALUE_{index} = {index}\n" for index in range(12)}


def scripted(mode: str) -> str:
    """The ``--command`` of the scripted server in ``mode``, as one shell-like string."""
    return f"{sys.executable} {SCRIPTED} {mode}"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("deadline"), FILES)


def timed(*args: str, cwd: Path) -> tuple[float, int, str, str]:
    """Run the tool; the seconds it took, its status, stdout and stderr."""
    began = time.monotonic()
    ran = run(*args, cwd=cwd)
    no_traceback(ran)
    return time.monotonic() - began, ran.status, ran.out, ran.err


def test_a_server_that_answers_slowly_is_waited_for_past_the_timeout(project: Path) -> None:
    # Twelve pulls answered one at a time, a quarter second each: three seconds of work
    # under a one second timeout, and no gap between two answers as long as the timeout.
    took, status, out, err = timed(
        "check",
        "--command",
        scripted("slow-pull"),
        "--timeout",
        "1",
        "--format",
        "json",
        *FILES,
        cwd=project,
    )
    assert took > len(FILES) * SLOW_PULL_DELAY
    assert status == 1, err
    document = json.loads(out)
    assert document["complete"] is True
    assert document["files"] == {name: {"complete": True, "reason": None} for name in FILES}
    assert sorted(item["path"] for item in document["diagnostics"]) == sorted(FILES)
    assert "incomplete" not in err
    assert "stopped waiting" not in err


def test_a_silent_server_is_given_up_after_the_timeout_and_said_so(project: Path) -> None:
    took, status, out, err = timed(
        "check", "--command", scripted("silent"), "--timeout", "1", *FILES, cwd=project
    )
    assert status == 3, err
    assert 1 <= took < 10
    assert (
        "adecore-lsp: warning: python said nothing new for 1 s (no answer, no diagnostics, "
        "no progress that moved; --timeout 1): stopped waiting for it"
    ) in err.splitlines()
    assert (
        f"incomplete: diagnostics not final (timeout): {len(FILES)} files: "
        f"{', '.join(sorted(FILES)[:5])} and {len(FILES) - 5} more"
    ) in err
    assert out.splitlines()[-1].endswith(
        f"incomplete: {len(FILES)} of {len(FILES)} files not final (timeout)"
    )


def test_progress_that_repeats_itself_is_silence(project: Path) -> None:
    # The same report every 0.1 s: the server is there, but its work does not move, so the
    # check stops after the timeout, not after ten times it.
    took, status, _out, err = timed(
        "check", "--command", scripted("same-progress"), "--timeout", "1", *FILES, cwd=project
    )
    assert status == 3, err
    assert 1 <= took < 8
    assert "python said nothing new for 1 s" in err
    assert "incomplete: diagnostics not final (timeout)" in err


def test_progress_that_moves_for_ever_without_an_answer_is_bounded(project: Path) -> None:
    # A count that goes up every 0.1 s and never a diagnostic: waited for, but not for
    # ever: ten times the timeout without a first answer for any file.
    took, status, out, err = timed(
        "check",
        "--command",
        scripted("moving-progress"),
        "--timeout",
        "0.5",
        "--format",
        "json",
        *FILES,
        cwd=project,
    )
    assert status == 3, err
    assert 5 <= took < 30
    assert (
        "adecore-lsp: warning: python kept reporting progress for 5 s (10 times --timeout "
        "0.5) without diagnostics for any file: stopped waiting for it"
    ) in err.splitlines()
    document = json.loads(out)
    assert document["complete"] is False
    assert {status["reason"] for status in document["files"].values()} == {"timeout"}


def test_a_silent_server_costs_one_timeout_per_check_not_one_per_batch(
    tmp_path: Path,
) -> None:
    # 250 files are checked (and printed) 100 at a time: the server that said nothing in
    # the first batch is not waited for again in the next two.
    write(tmp_path, {f"m{index:03}.py": "X = 1\n" for index in range(250)})
    took, status, out, err = timed(
        "check", "--command", scripted("silent"), "--timeout", "2", ".", cwd=tmp_path
    )
    assert status == 3, err
    assert 2 <= took < 6
    assert out.splitlines()[-1].endswith("incomplete: 250 of 250 files not final (timeout)")


# -- a real server on a tree that takes longer than the timeout -------------------------------

MODULES = 1000  # 8 s for check on a quiet 2-core machine: longer than the timeout


def generated_tree(root: Path) -> Path:
    """A package of ``MODULES`` modules, each importing up to three earlier ones, with one
    type error each (and the warnings basedpyright's defaults find)."""
    files = {
        "pyproject.toml": '[project]\nname = "generated"\nversion = "0"\n',
        "pkg/__init__.py": "",
    }
    for index in range(MODULES):
        earlier = sorted({j for j in (index - 1, index // 2, index // 3) if 0 <= j < index})
        imports = "".join(f"from pkg.m{j} import C{j}, f{j}\n" for j in earlier)
        uses = "".join(
            f"\n\ndef use{j}() -> int:\n    return C{j}(1).method(C{j}(2)) + len(f{j}(4))\n"
            for j in earlier
        )
        files[f"pkg/m{index}.py"] = (
            f"{imports}\n\nclass C{index}:\n"
            "    def __init__(self, value: int) -> None:\n"
            "        self.value = value\n\n"
            f'    def method(self, other: "C{index}") -> int:\n'
            "        return self.value + other.value\n\n\n"
            f"def f{index}(x: int) -> str:\n"
            "    return str(x)\n\n\n"
            f"def g{index}() -> int:\n"
            f"    return f{index}(3)\n"
            f"{uses}"
        )
    return write(root, files)


def test_basedpyright_finishes_a_tree_that_takes_longer_than_the_timeout(
    tmp_path: Path,
) -> None:
    need("basedpyright")
    tree = generated_tree(tmp_path)
    own = subprocess.run(
        [str(VENV_BIN / "basedpyright"), "--outputjson"],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=600,
    )
    summary = json.loads(own.stdout)["summary"]
    took, status, out, err = timed(
        "check",
        "--server",
        "basedpyright",
        "--timeout",
        "5",
        "--format",
        "json",
        ".",
        cwd=tree,
    )
    # basedpyright says nothing while it checks its first file (builtins and all): 2.4 s on
    # this machine when quiet, 3 s at a load of 13 on its 2 cores; the timeout leaves room.
    assert took > 5
    assert status == 1, err
    document = json.loads(out)
    assert document["complete"] is True, err
    assert len(document["files"]) == summary["filesAnalyzed"] == MODULES + 1
    severities = Counter(item["severity"] for item in document["diagnostics"])
    assert severities["error"] == summary["errorCount"] >= MODULES
    assert severities["warning"] == summary["warningCount"]
