"""``format --write`` and ``fix --write`` on notebooks (notebooks.md, "Writing a notebook"),
against ruff: every cell the diff shows is written, as ``ruff format`` itself writes it; a
file that is no notebook is named and left alone while the others are written (exit 3); and
fixing many notebooks ends final (exit 0).

``ADECORE_LSP_NOTEBOOK_ROUNDS`` sets how many times the many-notebook write runs (1 by
default; 5 or more for the long form)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp.protocol.documents.notebooks import parse_notebook
from tests.cli.conftest import need, no_traceback, run, tool_env, write
from tests.integration.conftest import VENV_BIN

pytestmark = pytest.mark.real_server

CONFIG = {
    "pyproject.toml": '[tool.adecore-lsp]\nservers = ["ruff"]\n',
    "ruff.toml": '[lint]\nselect = ["F"]\n',
}


def _cell(kind: str, source: str | list[str], **more: Any) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": kind, "metadata": {}}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    cell.update(more, source=source)
    return cell


def _with_ids(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cells, each with an ``id`` of its own (nbformat 4.5)."""
    return [{"id": f"cell-{index}", **cell} for index, cell in enumerate(cells)]


UNFORMATTED = (
    json.dumps(
        {
            "cells": _with_ids(
                [
                    _cell(
                        "markdown", ["# Title\n", "x=1 is prose here\n"], metadata={"tags": ["a"]}
                    ),
                    _cell(
                        "code",
                        ["import os\n", "x=3*( 2 )\n", "print(x,os.sep)"],
                        execution_count=3,
                        metadata={"scrolled": True},
                        outputs=[{"name": "stdout", "output_type": "stream", "text": ["Ä 6\n"]}],
                    ),
                    _cell("code", "def f( a,b ):\n  return {'a':a,'b':b}"),
                    _cell("raw", ["x=1\n"]),
                    _cell("code", ["y = 1"]),
                    _cell(
                        "code",
                        ["%matplotlib inline\n", "z = [1,\n", "  2]\n", "z"],
                        execution_count=4,
                        outputs=[
                            {
                                "data": {"text/plain": ["[1, 2]"]},
                                "execution_count": 4,
                                "metadata": {},
                                "output_type": "execute_result",
                            }
                        ],
                    ),
                    _cell("code", ["class  A :\n", "    pass\n", "\n", "\n", "\n", "a=A( )\n"]),
                ]
            ),
            "metadata": {
                "kernelspec": {"display_name": "Python 3", "language": "python", "name": "py3"},
                "language_info": {"name": "python"},
            },
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
        ensure_ascii=False,
    )
    + "\n"
)
"""Four code cells ruff formats (a string source among lists, a magic, outputs, metadata), one
formatted already, markdown and raw cells that look like code."""


def _sources(text: str) -> dict[int, str]:
    """Each code cell's source, by its number among all cells."""
    notebook = parse_notebook(text)
    return {cell.number: cell.source for cell in notebook.code_cells}


def _outside_sources(text: str) -> str:
    """The notebook's text without its cells' sources: what must stay byte for byte."""
    notebook = parse_notebook(text)
    pieces, at = [], 0
    for cell in notebook.cells:
        start, end = cell.source_span
        pieces.append(text[at:start])
        at = end
    return "".join(pieces) + text[at:]


def _ruff(*args: str, cwd: Path) -> None:
    subprocess.run(
        [str(VENV_BIN / "ruff"), *args],
        cwd=cwd,
        env=tool_env(),
        capture_output=True,
        timeout=60,
        check=False,
    )


def test_format_writes_every_cell_it_shows_as_ruff_format_does(tmp_path: Path) -> None:
    need("ruff")
    crlf = UNFORMATTED.replace("\n", "\r\n")
    root = write(tmp_path / "p", {**CONFIG, "nb.ipynb": UNFORMATTED})
    (root / "crlf.ipynb").write_bytes(crlf.encode("utf-8"))
    reference = tmp_path / "ruff"
    reference.mkdir()
    for name in ("nb.ipynb", "crlf.ipynb"):
        shutil.copy(root / name, reference / name)
    _ruff("format", "--no-cache", "--isolated", ".", cwd=reference)

    preview = run("format", "--no-progress", cwd=root)
    written = run("format", "--write", "--no-progress", cwd=root)
    assert written.status == 0, written
    no_traceback(written)
    assert written.out == preview.out
    for name, original in (("nb.ipynb", UNFORMATTED), ("crlf.ipynb", crlf)):
        after = (root / name).read_bytes().decode("utf-8")
        ours, theirs, before = (
            _sources(after),
            _sources(reference.joinpath(name).read_text()),
            _sources(original),
        )
        changed = [n for n in before if theirs[n] != before[n]]
        assert changed == [2, 3, 6, 7]
        # Every cell ruff format changes is written, and shown, and no other.
        assert [n for n in before if ours[n] != before[n]] == changed
        shown = [
            n
            for n in before
            if f"--- a/{name} (cell {n})\n+++ b/{name} (cell {n})\n" in preview.out
        ]
        assert shown == changed
        for number in before:
            # ruff format drops a cell's last line break, which ruff's server keeps.
            trailing = "\n" if before[number].endswith("\n") else ""
            assert ours[number] == theirs[number] + trailing, (name, number)
        assert _outside_sources(after) == _outside_sources(original)
    assert (root / "crlf.ipynb").read_bytes().count(b"\n") == (
        root / "crlf.ipynb"
    ).read_bytes().count(b"\r\n")
    again = run("format", "--check", "--no-progress", cwd=root)
    assert again.status == 0, again  # nothing left to format


BROKEN = {"broken.ipynb": "{not json", "old.ipynb": '{"nbformat": 3, "worksheets": []}'}


@pytest.mark.parametrize("command", ["format", "fix"])
def test_a_file_that_is_no_notebook_is_named_and_the_others_are_written(
    tmp_path: Path, command: str
) -> None:
    need("ruff")
    untidy = UNFORMATTED.replace('"import os\\n",', '"import os\\n", "import sys\\n",')
    root = write(
        tmp_path / "p",
        {**CONFIG, **BROKEN, "nb.ipynb": untidy, "sub/plain.py": "import sys\nx  =  1\n"},
    )
    ran = run(command, "--write", "--no-progress", cwd=root)
    assert ran.status == 3, ran
    no_traceback(ran)
    assert "incomplete: left as they are (invalid notebook: not JSON: " in ran.err
    assert "): broken.ipynb\n" in ran.err
    assert (
        "incomplete: left as they are (invalid notebook: nbformat 3 is not supported (only 4 "
        "is)): old.ipynb\n"
    ) in ran.err
    assert "2 files changed" in ran.err
    for name, text in BROKEN.items():
        assert (root / name).read_text(encoding="utf-8") == text
    plain = (root / "sub" / "plain.py").read_text(encoding="utf-8")
    notebook = (root / "nb.ipynb").read_text(encoding="utf-8")
    parse_notebook(notebook)
    if command == "format":
        assert plain == "import sys\n\nx = 1\n"
        assert '"x = 3 * (2)\\n",' in notebook
    else:
        assert plain == "x  =  1\n"
        assert '"import sys\\n"' not in notebook
    # From a folder below, paths as the current folder sees them; JSON names them too.
    (root / "nb.ipynb").write_text(untidy, encoding="utf-8")
    (root / "sub" / "plain.py").write_text("import sys\nx  =  1\n", encoding="utf-8")
    below = run(command, "--format", "json", cwd=root / "sub")
    assert below.status == 0, below  # sub/ holds no broken file
    document = json.loads(run(command, "--format", "json", cwd=root).out)
    assert document["complete"] is False
    assert document["reason"].startswith("invalid notebook: not JSON: ")
    assert sorted(document["skipped"]) == ["broken.ipynb", "old.ipynb"]
    assert document["skipped"]["old.ipynb"] == {
        "complete": False,
        "reason": "invalid notebook: nbformat 3 is not supported (only 4 is)",
    }
    assert sorted(document["changed_files"]) == ["nb.ipynb", "sub/plain.py"]
    named = run(command, "../broken.ipynb", "--no-progress", cwd=root / "sub")
    assert named.status == 3, named
    assert "old.ipynb" not in named.err  # not asked about
    assert "): ../broken.ipynb\n" in named.err


def _many(root: Path, count: int) -> None:
    """``count`` notebooks, each with an unused import in two of its four code cells, a cell
    with a finding no fix removes, and cells to keep; and an R notebook no server takes."""
    for number in range(count):
        cells = [
            _cell("markdown", [f"# Notebook {number}\n"]),
            _cell("code", ["import os\n", "import sys\n", "args = sys.argv\n"]),
            _cell("code", ["%matplotlib inline\n", f"value = {number}\n"]),
            _cell("code", ["import json\n", "print(value, args)\n"]),
            _cell("code", ["print(undefined_name)\n"]),
        ]
        document = {
            "cells": _with_ids(cells),
            "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        (root / f"nb{number:03}.ipynb").write_text(json.dumps(document, indent=1) + "\n")
    r_notebook = {
        "cells": [_cell("code", ["x <- 1\n"])],
        "metadata": {"kernelspec": {"language": "R", "name": "ir"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (root / "r.ipynb").write_text(json.dumps(r_notebook, indent=1) + "\n")


FIXED = {
    2: "import sys\nargs = sys.argv\n",
    3: "%matplotlib inline\nvalue = {n}\n",
    4: "print(value, args)\n",
    5: "print(undefined_name)\n",
}


def check_many_fixed(root: Path, count: int, ran: Any) -> None:
    """Exit 0 (the check after the write final), each notebook fixed cell for cell."""
    assert ran.status == 0, ran
    no_traceback(ran)
    assert f"{count} files changed" in ran.err
    assert f"0 findings introduced, {2 * count} resolved" in ran.err
    for number in range(count):
        text = (root / f"nb{number:03}.ipynb").read_text(encoding="utf-8")
        expected = {cell: source.format(n=number) for cell, source in FIXED.items()}
        assert _sources(text) == expected, number


def test_fix_write_over_many_notebooks_ends_final(tmp_path: Path) -> None:
    need("ruff")
    count = 100
    for _round in range(int(os.environ.get("ADECORE_LSP_NOTEBOOK_ROUNDS", "1"))):
        root = tmp_path / f"round{_round}"
        write(root, CONFIG)
        _many(root, count)
        check_many_fixed(root, count, run("fix", "--write", "--no-progress", cwd=root))
        shutil.rmtree(root)
