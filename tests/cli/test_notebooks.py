"""``adecore-lsp check`` on Jupyter notebooks (notebooks.md, "What people see"): cells in
the text form ruff prints, ``cell`` in JSON, the raw file's lines in jsonl, SARIF and GitHub
annotations, and a file that is no notebook named with exit status 3."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import no_traceback, run, tool_env, write
from tests.integration.conftest import VENV_BIN
from tests.workspace.test_notebooks_real import ANALYSIS, notebook

pytestmark = pytest.mark.real_server

CONFIG = {
    "pyproject.toml": '[tool.adecore-lsp]\nservers = ["ruff"]\n',
    "ruff.toml": '[lint]\nselect = ["F"]\n',
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write(tmp_path / "project", {**CONFIG, "nb.ipynb": ANALYSIS, "plain.py": "import sys\n"})


def test_text_matches_ruffs_own_command_line(project: Path) -> None:
    ran = run("check", "--no-progress", cwd=project)
    assert ran.status == 1, ran
    no_traceback(ran)
    ours = [line.split(": ", 1)[0] for line in ran.out.splitlines()[:-1]]
    theirs = subprocess.run(
        [str(VENV_BIN / "ruff"), "check", "--no-cache", "--output-format", "concise", "."],
        cwd=project,
        capture_output=True,
        text=True,
        env=tool_env(),
        timeout=60,
        check=False,
    ).stdout
    expected = [
        line.split(": ", 1)[0]
        for line in theirs.splitlines()
        if line[:1].isalpha() and not line.startswith("Found")
    ]
    assert ours == expected == ["nb.ipynb:cell 2:1:8", "nb.ipynb:cell 4:3:1", "plain.py:1:8"]
    assert ran.out.splitlines()[-1].startswith("1 error, 2 warnings in 2 files")


def test_machine_formats_place_cells_on_the_raw_files_lines(project: Path) -> None:
    raw = (project / "nb.ipynb").read_text(encoding="utf-8").split("\n")
    import_line = next(n for n, text in enumerate(raw, 1) if '"import os\\n"' in text)
    missing_line = next(n for n, text in enumerate(raw, 1) if '"missing_name\\n"' in text)

    document = json.loads(run("check", "--format", "json", cwd=project).out)
    cells = [(d["path"], d["cell"], d["line"], d["column"]) for d in document["diagnostics"]]
    assert cells == [("nb.ipynb", 2, 1, 8), ("nb.ipynb", 4, 3, 1), ("plain.py", None, 1, 8)]

    lines = [
        json.loads(line) for line in run("check", "--format", "jsonl", cwd=project).out.splitlines()
    ]
    first = lines[0]
    assert first["location"]["range"]["start"] == {"line": import_line, "column": 8}
    assert first["message"].startswith("cell 2: ")
    assert lines[1]["location"]["range"]["start"]["line"] == missing_line

    github = run("check", "--format", "github", cwd=project).out.splitlines()
    assert github[0].startswith(f"::warning file=nb.ipynb,line={import_line},col=8,")
    assert "::cell 2: " in github[0]

    sarif = json.loads(run("check", "--format", "sarif", cwd=project).out)
    results = sarif["runs"][0]["results"]
    region = results[1]["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (missing_line, 1)
    assert results[1]["message"]["text"].startswith("cell 4: ")
    # The fingerprint comes from the cell line's text: the same after cells move in the file.
    moved = ANALYSIS.replace('"# Analysis\\n"', '"# Analysis\\n",\n    "more words\\n"')
    (project / "nb.ipynb").write_text(moved, encoding="utf-8")
    again = json.loads(run("check", "--format", "sarif", cwd=project).out)["runs"][0]["results"]
    assert [r["partialFingerprints"] for r in again] == [r["partialFingerprints"] for r in results]
    assert again[1]["locations"][0]["physicalLocation"]["region"]["startLine"] == missing_line + 1


def test_a_file_that_is_no_notebook_exits_3_and_the_rest_are_checked(project: Path) -> None:
    (project / "broken.ipynb").write_text("{not json", encoding="utf-8")
    ran = run("check", "--no-progress", cwd=project)
    assert ran.status == 3, ran
    no_traceback(ran)
    assert "nb.ipynb:cell 4:3:1: error: " in ran.out
    assert "invalid notebook" in ran.err
    assert "broken.ipynb" in ran.err
    document = json.loads(run("check", "--format", "json", cwd=project).out)
    assert document["files"]["broken.ipynb"]["reason"].startswith("invalid notebook: ")


EDITED = (
    json.dumps(
        {
            "cells": [
                {"cell_type": "markdown", "id": "m1", "metadata": {}, "source": ["# Title\n"]},
                {
                    "cell_type": "code",
                    "execution_count": 7,
                    "id": "c1",
                    "metadata": {"collapsed": False},
                    "outputs": [{"name": "stdout", "output_type": "stream", "text": ["Ä 6\n"]}],
                    "source": [
                        "import os\n",
                        "import sys\n",
                        "x=3*( 2 )\n",
                        "%time print(x,os.sep)",
                    ],
                },
                {
                    "cell_type": "code",
                    "execution_count": None,
                    "id": "c2",
                    "metadata": {},
                    "outputs": [],
                    "source": ["y = 1\n"],
                },
            ],
            "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
        ensure_ascii=False,
    )
    + "\n"
)


def _outside_sources(text: str) -> str:
    """The notebook's text with its cells' sources taken out: what must stay byte for byte."""
    from adecore_lsp.protocol.documents.notebooks import parse_notebook

    notebook = parse_notebook(text)
    pieces, at = [], 0
    for cell in notebook.cells:
        start, end = cell.source_span
        pieces.append(text[at:start])
        at = end
    return "".join(pieces) + text[at:]


def test_format_and_fix_write_only_the_cells_sources(tmp_path: Path) -> None:
    root = write(tmp_path / "p", {**CONFIG, "nb.ipynb": EDITED})
    preview = run("format", "nb.ipynb", cwd=root)
    assert preview.status == 0, preview
    assert "--- a/nb.ipynb (cell 2)\n+++ b/nb.ipynb (cell 2)\n" in preview.out
    assert "-x=3*( 2 )\n+\n+x = 3 * (2)\n" in preview.out
    assert "(cell 3)" not in preview.out  # formatted already: no diff, not written
    assert (root / "nb.ipynb").read_text(encoding="utf-8") == EDITED

    written = run("format", "--write", "nb.ipynb", cwd=root)
    assert written.status == 0, written
    after = (root / "nb.ipynb").read_text(encoding="utf-8")
    assert _outside_sources(after) == _outside_sources(EDITED)
    assert '    "x = 3 * (2)\\n",\n' in after
    assert '"%time print(x,os.sep)"' in after  # IPython's line is left as it was

    fixed = run("fix", "--write", "nb.ipynb", "--format", "json", cwd=root)
    assert fixed.status == 0, fixed
    document = json.loads(fixed.out)
    assert document["written"] == ["nb.ipynb"]
    assert "-import sys\n" in document["diff"]
    final = (root / "nb.ipynb").read_text(encoding="utf-8")
    assert '"import sys\\n"' not in final
    assert _outside_sources(final) == _outside_sources(EDITED)
    json.loads(final)


def test_a_command_server_takes_a_notebook_given_to_it(project: Path) -> None:
    ruff = VENV_BIN / "ruff"
    ran = run("--command", f"{ruff} server", "check", "nb.ipynb", "--no-progress", cwd=project)
    assert ran.status == 1, ran
    assert ran.out.splitlines()[:2] == [
        "nb.ipynb:cell 2:1:8: warning: `os` imported but unused help: Remove unused import: "
        "`os` [Ruff F401]",
        "nb.ipynb:cell 4:3:1: error: Undefined name `missing_name` [Ruff F821]",
    ]


def test_navigation_in_a_notebook_on_the_command_line(tmp_path: Path) -> None:
    from tests.integration.conftest import find_server
    from tests.workspace.test_notebooks_navigation import CALC, NOTEBOOK

    find_server("basedpyright-langserver")
    root = write(
        tmp_path / "nav",
        {
            "pyproject.toml": '[tool.adecore-lsp]\nservers = ["basedpyright"]\n',
            "calc.py": CALC,
            "nb.ipynb": NOTEBOOK,
        },
    )
    outline = run("symbols", "nb.ipynb", "--no-progress", cwd=root)
    assert outline.status == 0, outline
    assert outline.out == (
        "variable total  cell 2 line 3\nfunction shout  cell 3 line 1\n"
        "  variable text  cell 3 line 1\n"
    )
    uses = run("references", "calc.py#triple", "--no-progress", cwd=root)
    assert uses.out == (
        "nb.ipynb:cell 2:1:18: from calc import triple\nnb.ipynb:cell 2:3:9: total = triple(2)\n"
    )
    where = run("definition", "nb.ipynb:cell 4:1:7", "--format", "json", cwd=root)
    (place,) = json.loads(where.out)
    assert (place["cell"], place["line"], place["text"]) == (3, 1, "def shout(text: str) -> str:")
    shown = json.loads(run("symbols", "nb.ipynb", "--format", "json", cwd=root).out)
    assert [(s["name"], s["cell"], s["line"]) for s in shown] == [("total", 2, 3), ("shout", 3, 1)]


def test_a_crlf_notebook_keeps_its_line_endings_when_formatted(tmp_path: Path) -> None:
    crlf = EDITED.replace("\n", "\r\n")
    root = write(tmp_path / "crlf", {**CONFIG, "nb.ipynb": ""})
    (root / "nb.ipynb").write_bytes(crlf.encode("utf-8"))
    written = run("format", "--write", "nb.ipynb", cwd=root)
    assert written.status == 0, written
    after = (root / "nb.ipynb").read_bytes().decode("utf-8")
    assert "\r\n" in after
    assert "\n" not in after.replace("\r\n", "")  # no bare line feed was written
    assert _outside_sources(after) == _outside_sources(crlf)
    assert '"x = 3 * (2)\\n",\r\n' in after


def test_a_baseline_never_matches_a_finding_of_another_cell() -> None:
    from adecore_lsp.cli import reports
    from adecore_lsp.workspace.model import Diagnostic

    def finding(cell: int | None) -> Diagnostic:
        return Diagnostic(
            "nb.ipynb", 1, 8, 1, 10, "warning", "`os` unused", "Ruff", "F401", "ruff", cell=cell
        )

    saved = {"diagnostics": [json.loads(json.dumps(reports.json_items([finding(2)])[0]))]}
    assert reports.without_baseline([finding(2)], saved) == []
    assert reports.without_baseline([finding(3)], saved) == [finding(3)]
    # A baseline saved before cells were reported holds no "cell": plain files still match.
    old = {"diagnostics": [{k: v for k, v in saved["diagnostics"][0].items() if k != "cell"}]}
    assert reports.without_baseline([finding(None)], old) == []


def test_a_cell_line_after_a_form_feed_is_the_line_lsp_counts(tmp_path: Path) -> None:
    """A form feed ends no line for LSP (only \\n, \\r\\n and \\r do): the text jsonl
    measures its UTF-8 columns on is the finding's own line, not the one before it."""
    cell = "a = 1\x0c\né = 1; import os\n"
    project = write(tmp_path / "project", {**CONFIG, "nb.ipynb": notebook(("code", cell))})
    (record,) = [
        json.loads(line) for line in run("check", "--format", "jsonl", cwd=project).out.splitlines()
    ]
    assert record["code"] == {"value": "F401"}
    assert record["message"].startswith("cell 1: ")
    # `os` starts at code point 15 of "é = 1; import os", which is byte 16 in UTF-8.
    assert record["location"]["range"]["start"]["column"] == 16
