"""The LSP-Fidelity benchmark's own parts: the scorer (which knows nothing of subjects), the
questions it draws from a tree, the workspace edits its truth applies, the docs table it
renders, and a quick run of this project's subjects on the scripted server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

from fidelity import questions, report, scorer, truth  # noqa: E402
from fidelity.run import chosen_subjects  # noqa: E402
from fidelity.servers import SCRIPTED_TREE, write_scripted_tree  # noqa: E402
from fidelity.subject import Question, Reply  # noqa: E402
from fidelity.trees import source_files  # noqa: E402

ROOT = BENCHMARKS.parent
ASKED = Question("pkg/core.py", 0, 4, "helper")
TRUTH = frozenset({("pkg/core.py", 0), ("pkg/api.py", 3), ("pkg/cli.py", 5)})


# The scorer -----------------------------------------------------------------------------


def test_an_answer_equal_to_the_truth_is_right_with_or_without_the_declaration() -> None:
    without = Reply(places=TRUTH - {("pkg/core.py", 0)})
    assert scorer.references(Reply(places=TRUTH), TRUTH, ASKED) == scorer.RIGHT
    assert scorer.references(without, TRUTH, ASKED) == scorer.RIGHT


def test_a_partial_answer_is_wrong_unless_it_says_so() -> None:
    partial = frozenset({("pkg/api.py", 3)})
    assert scorer.references(Reply(places=partial), TRUTH, ASKED) == scorer.WRONG
    said = Reply(places=partial, flagged="incomplete: 1 of 2 servers answered")
    assert scorer.references(said, TRUTH, ASKED) == scorer.HONEST


def test_an_empty_answer_is_wrong_when_the_truth_is_not_empty() -> None:
    assert scorer.references(Reply(places=frozenset()), TRUTH, ASKED) == scorer.WRONG
    assert scorer.references(Reply(), TRUTH, ASKED) == scorer.WRONG
    errors = frozenset({("pkg/cli.py", 0, 17)})
    assert scorer.errors(Reply(errors=frozenset()), errors) == scorer.WRONG
    assert scorer.errors(Reply(), frozenset()) == scorer.RIGHT
    assert scorer.errors(Reply(errors=errors, flagged="stale"), errors) == scorer.RIGHT


def test_a_rename_is_scored_byte_for_byte() -> None:
    expected = {"a.py": b"x = 1\n", "b.py": b"y = 2\n"}
    assert scorer.tree(Reply(), dict(expected), expected) == scorer.RIGHT
    torn = {"a.py": b"x = 1\n", "b.py": b"y = 2"}
    assert scorer.tree(Reply(), torn, expected) == scorer.WRONG
    assert scorer.tree(Reply(flagged="failed: refused"), torn, expected) == scorer.HONEST
    assert scorer.differences(torn, expected) == ["b.py"]


def test_a_tally_reports_the_contracts_fields() -> None:
    tally = scorer.Tally()
    for ms, size, score in [(10.0, 100, "right"), (30.0, 300, "honest"), (20.0, 200, "wrong")]:
        tally.add(score, Reply(ms=ms, size=size), what=f"answer of {ms}")
    other = scorer.Tally()
    other.add(scorer.RIGHT, Reply(ms=40.0, size=400))
    tally.merge(other)
    assert tally.as_json() == {
        "asked": 4,
        "right": 2,
        "honest": 1,
        "wrong": 1,
        "p50_ms": 25.0,
        "p95_ms": 38.5,
        "median_bytes": 250,
    }
    assert tally.wrongs == ["answer of 20.0"]
    assert scorer.Tally().as_json()["p50_ms"] == 0.0


def test_percentiles_interpolate_between_the_nearest_values() -> None:
    assert scorer.percentile([], 50) == 0.0
    assert scorer.percentile([5.0], 95) == 5.0
    assert scorer.percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5
    assert scorer.percentile([float(n) for n in range(1, 101)], 95) == pytest.approx(95.05)


# The questions ----------------------------------------------------------------------------


def test_questions_are_seeded_and_used_from_another_file(tmp_path: Path) -> None:
    root = write_scripted_tree(tmp_path / "tree")
    files = source_files(root, "python")
    assert sorted(files) == sorted(p for p in SCRIPTED_TREE if p.endswith(".py"))
    first = questions.symbols(root, files, "python", 3, seed=1)
    assert first == questions.symbols(root, files, "python", 3, seed=1)
    assert len(first) == 3
    for question in first:
        line = (root / question.path).read_text(encoding="utf-8").splitlines()[question.line]
        assert line[question.column :].startswith(question.name)
        others = [p for p in files if p != question.path]
        assert any(question.name in (root / p).read_text(encoding="utf-8") for p in others)
    drawn = {
        q.name for seed in range(12) for q in questions.symbols(root, files, "python", 1, seed)
    }
    assert len(drawn) > 1


def test_the_break_renames_a_definition_another_file_imports(tmp_path: Path) -> None:
    root = write_scripted_tree(tmp_path / "tree")
    change = questions.break_of(root, source_files(root, "python"), "python", seed=3)
    assert change is not None
    assert change.new == change.old.replace(change.name, change.name + "Changed", 1)
    assert change.name in (root / change.dependent).read_text(encoding="utf-8")
    created, text = questions.new_file("python", change)
    assert created == "pkg/fidelity_created.py"
    assert f"value: int = {change.name}" in text


def test_typescript_definitions_are_the_exported_ones(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.ts").write_text(
        "export function produce() {}\nfunction local() {}\nexport const nothing = 1\n",
        encoding="utf-8",
    )
    (tmp_path / "src" / "b.ts").write_text(
        'import { produce } from "./a"\nproduce()\n', encoding="utf-8"
    )
    found = questions.definitions(tmp_path, ["src/a.ts", "src/b.ts"], "typescript")
    assert [(q.name, q.line, q.column) for q in found] == [("produce", 0, 16), ("nothing", 2, 13)]
    picked = questions.symbols(tmp_path, ["src/a.ts", "src/b.ts"], "typescript", 5, 1)
    assert [q.name for q in picked] == ["produce"]


# The truth's edits ------------------------------------------------------------------------


def _edit(line: int, start: int, end: int, text: str) -> dict[str, Any]:
    span = {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}
    return {"range": span, "newText": text}


def test_a_workspace_edit_applies_its_changes_and_renames_in_order(tmp_path: Path) -> None:
    files = {"a.py": b"def f():\n    pass\n", "b.py": "x = '\U0001f600' + f\n".encode()}
    uri = (tmp_path / "b.py").as_uri()
    edit = {
        "changes": {(tmp_path / "a.py").as_uri(): [_edit(0, 4, 5, "g")]},
        "documentChanges": [
            {"textDocument": {"uri": uri, "version": 1}, "edits": [_edit(0, 11, 12, "g")]},
            {"kind": "rename", "oldUri": uri, "newUri": (tmp_path / "c.py").as_uri()},
            {
                "textDocument": {"uri": (tmp_path / "c.py").as_uri(), "version": 1},
                "edits": [_edit(0, 0, 1, "y")],
            },
        ],
    }
    after = truth.apply_workspace_edit(tmp_path, files, edit)
    assert after == {"a.py": b"def g():\n    pass\n", "c.py": "y = '\U0001f600' + g\n".encode()}


# The report -------------------------------------------------------------------------------


def _result() -> dict[str, Any]:
    scores = {"asked": 3, "right": 2, "honest": 1, "wrong": 0}
    costs = {"p50_ms": 12.0, "p95_ms": 40.0, "median_bytes": 900}
    return {
        "trees": ["tomli 2.0.1"],
        "quick": True,
        "seed": 1,
        "subjects": {
            "adecore-lsp-mcp": {
                "version": "1.0",
                "status": "measured",
                "notes": ["tomli: a | b"],
                "scenarios": {s: {**scores, **costs} for s in report.SCENARIO_NAMES},
            },
            "peer": {"version": "2.0", "status": "not run: it downloads its server", "notes": []},
        },
    }


def test_the_table_shows_scores_costs_reasons_and_notes() -> None:
    text = report.table(_result())
    assert "| adecore-lsp-mcp | 1.0 | 2 / 1 / 0 | 2 / 1 / 0 | 2 / 1 / 0 | 2 / 1 / 0 |" in text
    assert "| adecore-lsp-mcp | 1.0 | 12 / 40 ms, 900 B |" in text
    assert "| peer | 2.0 | not run: it downloads its server |" in text
    assert "- adecore-lsp-mcp: tomli: a | b" in text
    assert "(the quick run)" in text


def test_render_replaces_only_the_text_between_the_markers(tmp_path: Path) -> None:
    page = tmp_path / "fidelity.md"
    page.write_text(
        f"# Title\n\n{report.BEGIN}\nstale table\n{report.END}\n\nAfter.\n", encoding="utf-8"
    )
    report.render(_result(), page)
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Title\n\n" + report.BEGIN + "\n\n")
    assert "stale table" not in text
    assert text.endswith(report.END + "\n\nAfter.\n")
    page.write_text("no markers\n", encoding="utf-8")
    with pytest.raises(ValueError, match="markers"):
        report.render(_result(), page)


def test_the_docs_table_is_the_committed_runs_table() -> None:
    """docs/fidelity.md's table is generated from the committed JSON, never typed."""
    result = json.loads((BENCHMARKS / "fidelity" / "last_run.json").read_text(encoding="utf-8"))
    page = (ROOT / "docs" / "fidelity.md").read_text(encoding="utf-8")
    between = page.split(report.BEGIN, 1)[1].split(report.END, 1)[0]
    assert between.strip() == report.table(result).strip()
    assert not result["quick"]


def test_subjects_and_groups_are_named_as_the_contract_names_them() -> None:
    assert chosen_subjects(["adecore-lsp"]) == ["adecore-lsp-mcp", "adecore-lsp-cli"]
    assert {"serena", "agent-lsp", "cli-lsp-client", "multilspy", "lsp-client"} <= set(
        chosen_subjects(None)
    )
    with pytest.raises(SystemExit, match="unknown subject 'nope'"):
        chosen_subjects(["nope"])


# A run ------------------------------------------------------------------------------------


def _fidelity(*arguments: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / "fidelity"), *arguments],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_bad_arguments_are_refused_with_a_reason(tmp_path: Path) -> None:
    done = _fidelity("--tree", str(tmp_path))
    assert done.returncode == 2
    assert "--tree needs --language python|typescript" in done.stderr
    done = _fidelity("--tree", str(tmp_path / "missing"), "--language", "python")
    assert done.returncode == 2
    assert "not a folder" in done.stderr
    done = _fidelity("--tree", str(tmp_path), "--language", "python", "--subjects", "nope")
    assert done.returncode != 0
    assert "unknown subject 'nope'" in done.stderr


def test_a_quick_scripted_run_of_this_project_scores_no_wrong_answer(tmp_path: Path) -> None:
    """CI's run: this project's MCP server and command line on the scripted server, every
    scenario asked, every answer right or honest, the JSON in the contract's shape."""
    out = tmp_path / "run.json"
    done = _fidelity("--scripted", "--quick", "--subjects", "adecore-lsp", "--json", str(out))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    assert set(result["subjects"]) == {"adecore-lsp-mcp", "adecore-lsp-cli"}
    for name, entry in result["subjects"].items():
        assert entry["status"] == "measured", (name, entry)
        assert isinstance(entry["version"], str)
        assert set(entry["scenarios"]) == set(report.SCENARIO_NAMES)
        for scenario, scores in entry["scenarios"].items():
            assert set(scores) == {
                "asked",
                "right",
                "honest",
                "wrong",
                "p50_ms",
                "p95_ms",
                "median_bytes",
            }
            assert scores["wrong"] == 0, (name, scenario, entry["notes"])
            assert scores["right"] > 0, (name, scenario, entry["notes"])
            assert scores["asked"] == scores["right"] + scores["honest"]
            assert 0 < scores["p50_ms"] <= scores["p95_ms"]
            assert scores["median_bytes"] > 0
    assert "| adecore-lsp-cli |" in done.stdout


def test_a_tree_with_nothing_to_ask_is_refused_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "alone.py").write_text("def lonely():\n    return 1\n", encoding="utf-8")
    done = _fidelity("--tree", str(tmp_path), "--language", "python", "--subjects", "adecore-lsp")
    assert done.returncode == 2
    assert "no python definition used from another file among its 1 source files" in done.stderr
