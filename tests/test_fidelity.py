"""The LSP-Fidelity benchmark's own parts: the scorer (which knows nothing of subjects), the
truth's two witnesses and its checks, the questions it draws from a tree, the kill, the
peers' own "incomplete" fields, the docs table it renders, and CI's quick run of this
project's subjects and the negative controls on the scripted server."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

from fidelity import case as case_  # noqa: E402
from fidelity import (  # noqa: E402
    checker,
    processes,
    questions,
    report,
    scenarios,
    scorer,
    trees,
    truth,
)
from fidelity import run as run_  # noqa: E402
from fidelity.lsp_wire import Wire, uri  # noqa: E402
from fidelity.run import CONTROLS, chosen_subjects, verdict  # noqa: E402
from fidelity.servers import SCRIPTED_TREE, for_language, scripted, write_scripted_tree  # noqa: E402
from fidelity.subject import Question, Reply, Server, Subject, SubjectFailed, import_cycle  # noqa: E402
from fidelity.subjects import adecore_cli, agent_lsp, cli_lsp_client, serena  # noqa: E402
from fidelity.trees import own_tsconfig, source_files, workspace  # noqa: E402

ROOT = BENCHMARKS.parent
ASKED = Question("pkg/core.py", 0, 4, "helper")
TRUTH = frozenset({("pkg/core.py", 0), ("pkg/api.py", 3), ("pkg/cli.py", 5)})


# The scorer -----------------------------------------------------------------------------


def test_an_answer_equal_to_the_truth_is_right_with_or_without_the_declaration() -> None:
    without = Reply(places=TRUTH - {("pkg/core.py", 0)})
    assert scorer.references(Reply(places=TRUTH), TRUTH, ASKED) == scorer.RIGHT
    assert scorer.references(without, TRUTH, ASKED) == scorer.RIGHT


def test_a_partial_answer_is_wrong_unless_a_field_says_so_and_hedged_in_free_text() -> None:
    partial = frozenset({("pkg/api.py", 3)})
    assert scorer.references(Reply(places=partial), TRUTH, ASKED) == scorer.WRONG
    said = Reply(places=partial, flagged="complete: false")
    assert scorer.references(said, TRUTH, ASKED) == scorer.HONEST
    hedged = Reply(places=partial, hedged="results may be incomplete")
    assert scorer.references(hedged, TRUTH, ASKED) == scorer.HEDGED
    assert scorer.references(Reply(places=TRUTH, hedged="may be stale"), TRUTH, ASKED) == "right"


def test_an_empty_truth_is_refused_so_an_empty_answer_is_never_right_for_free() -> None:
    declaration_only = frozenset({("pkg/core.py", 0)})
    with pytest.raises(scorer.EmptyTruth, match="names no use"):
        scorer.references(Reply(places=frozenset()), declaration_only, ASKED)
    with pytest.raises(scorer.EmptyTruth, match="no error"):
        scorer.errors(Reply(errors=frozenset()), frozenset())
    errors = frozenset({("pkg/cli.py", 0, 17)})
    assert scorer.errors(Reply(errors=frozenset()), errors) == scorer.WRONG
    assert scorer.errors(Reply(), errors) == scorer.WRONG


def test_a_failed_call_is_never_right_and_no_answer_is_neither_right_nor_honest() -> None:
    failed = Reply(places=TRUTH, failed="MCPError: Connection closed")
    assert scorer.references(failed, TRUTH, ASKED) == scorer.HONEST
    expected = {"a.py": b"x = 1\n"}
    assert scorer.tree(Reply(failed="refused"), dict(expected), expected) == scorer.HONEST
    late = Reply(no_answer="no answer within 180 s")
    assert scorer.references(late, TRUTH, ASKED) == scorer.NO_ANSWER


def test_a_rename_is_scored_byte_for_byte() -> None:
    expected = {"a.py": b"x = 1\n", "b.py": b"y = 2\n"}
    assert scorer.tree(Reply(), dict(expected), expected) == scorer.RIGHT
    torn = {"a.py": b"x = 1\n", "b.py": b"y = 2"}
    assert scorer.tree(Reply(), torn, expected) == scorer.WRONG
    assert scorer.tree(Reply(flagged="applied: false"), torn, expected) == scorer.HONEST
    assert scorer.differences(torn, expected) == ["b.py"]


def test_a_tally_counts_every_kind_its_costs_and_what_was_not_asked() -> None:
    tally = scorer.Tally()
    for ms, size, score in [(10.0, 100, "right"), (30.0, 300, "honest"), (20.0, 200, "wrong")]:
        tally.add(score, Reply(ms=ms, size=size, failed="x" if score == "honest" else None))
    tally.add(scorer.HEDGED, Reply(ms=40.0, size=400, hedged="may be"), what="q")
    tally.add(scorer.NO_ANSWER, Reply(no_answer="late"), what="r")
    tally.skip(2)
    other = scorer.Tally()
    other.add(scorer.RIGHT, Reply(ms=50.0, size=500))
    tally.merge(other)
    assert tally.as_json() == {
        "asked": 6,
        "right": 2,
        "wrong": 1,
        "honest": 1,
        "hedged": 1,
        "no_answer": 1,
        "failed": 1,
        "not_asked": 2,
        "p50_ms": 30.0,
        "p95_ms": 48.0,
        "median_bytes": 300,
    }
    assert "hedged: q (hedged: may be)" in tally.notes
    assert "no answer: r (no answer: late)" in tally.notes


def test_percentiles_interpolate_between_the_nearest_values() -> None:
    assert scorer.percentile([], 50) == 0.0
    assert scorer.percentile([5.0], 95) == 5.0
    assert scorer.percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5
    assert scorer.percentile([float(n) for n in range(1, 101)], 95) == pytest.approx(95.05)


# The truth: two witnesses, on the scripted server's tree ---------------------------------


def _witnessed(root: Path, asked: list[Question]) -> tuple[dict[str, Any], list[Any]]:
    async def run() -> tuple[dict[str, Any], list[Any]]:
        session = await truth.Session.open(root, scripted())
        try:
            return await truth.witnessed(session, asked)
        finally:
            await session.close()

    return asyncio.run(run())


def _question(root: Path, path: str, name: str) -> Question:
    lines = (root / path).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        if line.startswith(("def ", "class ")) and f" {name}" in line:
            return Question(path, number, line.index(name), name)
    raise AssertionError(name)


def test_the_two_witnesses_agree_and_the_truth_sees_files_the_scope_leaves_out(
    tmp_path: Path,
) -> None:
    """The server's scope is ``pkg`` only; with every file open, the truth still names the
    test's use, and the definitions say the same."""
    root = write_scripted_tree(tmp_path / "tree")
    (root / "pyproject.toml").write_text('[tool.scripted]\ninclude = ["pkg"]\n', encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "test_core.py").write_text(
        "from pkg.core import helper\n\n\ndef test_helper():\n    assert helper(1) == 2\n",
        encoding="utf-8",
    )
    helper = _question(root, "pkg/core.py", "helper")
    agreed, dropped = _witnessed(root, [helper])
    assert dropped == []
    places = agreed[truth.key(helper)].places
    assert {("tests/test_core.py", 0), ("tests/test_core.py", 4)} <= places
    assert {("pkg/core.py", 0), ("pkg/api.py", 0), ("pkg/api.py", 5)} <= places
    assert len(_partial_truth(root, helper)) == len(places) - 2


def _partial_truth(root: Path, question: Question) -> list[Any]:
    """The old truth: the question's file alone open, the server's scope as configured."""

    async def run() -> list[Any]:
        wire = await Wire.start(list(scripted().argv), root)
        try:
            wire.open(root / question.path, "python")
            answer: list[Any] = await wire.request(
                "textDocument/references",
                {
                    "textDocument": {"uri": uri(root / question.path)},
                    "position": {"line": question.line, "character": question.column},
                    "context": {"includeDeclaration": True},
                },
            )
            return answer
        finally:
            await wire.close()

    return asyncio.run(run())


def test_a_question_the_witnesses_disagree_on_is_dropped_with_both_answers(
    tmp_path: Path,
) -> None:
    """``scale`` defined twice: the server's word search names the other one's uses, the
    definitions do not; ``helper`` is unaffected."""
    root = write_scripted_tree(tmp_path / "tree")
    (root / "pkg" / "extra.py").write_text(
        "def scale(value):\n    return value * 3\n\n\ndef triple():\n    return scale(1)\n",
        encoding="utf-8",
    )
    helper = _question(root, "pkg/core.py", "helper")
    scale = _question(root, "pkg/core.py", "scale")
    agreed, dropped = _witnessed(root, [helper, scale])
    assert list(agreed) == [truth.key(helper)]
    assert [d.question.name for d in dropped] == ["scale"]
    said = dropped[0].describe()
    assert "the witnesses disagree" in said
    assert "only the server: pkg/extra.py:1:5, pkg/extra.py:6:12" in said
    assert "only the definitions: none" in said


def test_a_rename_that_leaves_a_use_behind_fails_its_own_check(tmp_path: Path) -> None:
    root = write_scripted_tree(tmp_path / "tree")
    helper = _question(root, "pkg/core.py", "helper")
    agreed, _ = _witnessed(root, [helper])
    whole = agreed[truth.key(helper)]
    texts = {p: (root / p).read_text(encoding="utf-8") for p in SCRIPTED_TREE}
    changes = truth.renamed(texts, whole, "helperRenamed")
    assert sorted(changes) == ["pkg/api.py", "pkg/core.py"]
    truth.check_rename(root, scripted(), whole, "helperRenamed", changes)
    short = truth.References(helper, frozenset(s for s in whole.spans if s[0] != "pkg/api.py"))
    partial = truth.renamed(texts, short, "helperRenamed")
    with pytest.raises(checker.NoTruth, match=r"changes the tree's errors.*unknown import"):
        truth.check_rename(root, scripted(), short, "helperRenamed", partial)
    assert (root / "pkg" / "core.py").read_text(encoding="utf-8") == texts["pkg/core.py"]


def test_the_truth_keeps_each_files_line_ends(tmp_path: Path) -> None:
    """A file written with ``\\r\\n`` (reduxjs-toolkit ships 94 of them): the rename truth, the
    break committed as ``broken`` and a write from outside change the name, not the line ends."""
    root = write_scripted_tree(tmp_path / "tree")
    for path in ("pkg/core.py", "pkg/api.py"):
        (root / path).write_bytes(SCRIPTED_TREE[path].replace("\n", "\r\n").encode())
    case = asyncio.run(case_.settle("scripted", root, scripted(), 1, 3, tmp_path / "scratch"))
    assert case.renames, case.dropped
    for changes in case.rename_truths.values():
        for path, text in changes.items():
            if path in ("pkg/core.py", "pkg/api.py"):
                assert text.count(b"\r\n") == text.count(b"\n") > 0, path
    workspace_ = case.make_workspace(tmp_path / "copy")
    first = case.breaks[0]
    trees.git(workspace_, "checkout", "-q", "broken")
    broken = (workspace_ / first.path).read_bytes()
    original = (root / first.path).read_bytes()
    assert broken == original.replace(first.old.encode(), first.new.encode(), 1) != original


# The truth of diagnostics -------------------------------------------------------------------


def test_a_checker_that_cannot_run_is_no_truth(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")

    def checking(code: str) -> Server:
        return Server("fake", "python", ("x",), (sys.executable, "-c", code))

    with pytest.raises(checker.NoTruth, match="no JSON report: config unreadable"):
        checker.errors(tmp_path, checking("import sys; sys.exit('config unreadable')"), ["a.py"])
    with pytest.raises(checker.NoTruth, match="exited 3"):
        checker.errors(tmp_path, checking("raise SystemExit(3)"), ["a.py"])
    empty = 'print(\'{"generalDiagnostics": [], "summary": {"filesAnalyzed": 0}}\')'
    with pytest.raises(checker.NoTruth, match="analyzed none of the 1 files"):
        checker.errors(tmp_path, checking(empty), ["a.py"])
    with pytest.raises(checker.NoTruth, match="no command line"):
        checker.errors(tmp_path, Server("none", "python", ("x",)), ["a.py"])


def test_tsc_without_a_tsconfig_is_no_truth_and_a_tree_gets_the_harnesss_own(
    tmp_path: Path,
) -> None:
    source = tmp_path / "mine"
    (source / "src").mkdir(parents=True)
    (source / "src" / "a.ts").write_text("export const a: number = 'no'\n", encoding="utf-8")
    server = for_language("typescript")
    with pytest.raises(checker.NoTruth, match="TS5057"):
        checker.errors(source, server, ["src/a.ts"])
    root = workspace(source, tmp_path / "copy", "typescript")
    assert not (source / "tsconfig.json").exists()
    assert json.loads((root / "tsconfig.json").read_text())["compilerOptions"]["strict"]
    assert checker.errors(root, server, ["src/a.ts"]) == {("src/a.ts", 0, 13)}
    assert own_tsconfig(root, "typescript") is None
    assert "the harness wrote one" in str(own_tsconfig(source, "typescript"))


def test_import_cycles_are_left_out_of_both_sides(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import b\n", encoding="utf-8")
    report_ = {
        "generalDiagnostics": [
            {"file": str(tmp_path / "a.py"), "severity": "error", "rule": "reportImportCycles",
             "message": "Cycle detected in import chain\n  a.py\n  b.py"},
            {"file": str(tmp_path / "a.py"), "severity": "error", "rule": "reportMissing",
             "message": "nope", "range": {"start": {"line": 0, "character": 7}}},
        ],
        "summary": {"filesAnalyzed": 1},
    }  # fmt: skip
    code = f"import json; print(json.dumps({report_!r})); raise SystemExit(1)"
    server = Server("fake", "python", ("x",), (sys.executable, "-c", code))
    assert checker.errors(tmp_path, server, ["a.py"]) == {("a.py", 0, 7)}
    assert import_cycle(code="reportImportCycles")
    assert import_cycle(message="Cycle detected in import chain\n  src/a.py")
    assert not import_cycle("reportMissingImports", "Import could not be resolved")
    cycle = {"path": "a.py", "line": 1, "column": 1, "severity": "error"}
    items = [{**cycle, "code": "reportImportCycles"}, {**cycle, "line": 2, "code": "x"}]
    assert adecore_cli.errors_of(items) == {("a.py", 1, 0)}
    printed = (
        "[basedpyright] ERROR at line 1, column 1: Cycle detected in import chain\n  a.py\n"
        "[basedpyright] ERROR at line 3, column 2: nope\n"
    )
    assert cli_lsp_client.errors_of("a.py", printed) == {("a.py", 2, 1)}


# The peers' own fields ----------------------------------------------------------------------


def test_agent_lsp_indexed_false_is_its_field_and_other_words_a_hedge() -> None:
    answer = (
        "GCF profile=generic\n## [1]{EndCol,EndLine,FilePath,StartCol,StartLine}\n"
        "28|121|/t/src/p.py|19|121\n\nNext step: Use blast_radius.\n"
        "indexed=false (the language server has not finished indexing the workspace, so this"
        " result may be incomplete)"
    )
    rows, words = agent_lsp.gcf_tables(answer)
    assert rows[0]["StartLine"] == "121"
    flagged, hedged = agent_lsp.said(words)
    assert flagged is not None
    assert flagged.startswith("indexed=false")
    assert hedged is None
    assert agent_lsp.said(["indexed=true", "results might be stale"]) == (
        None,
        "results might be stale",
    )


def test_serenas_too_long_marker_is_its_field_and_code_snippets_are_never_read() -> None:
    snippet = json.dumps({"a.py": {"Function": [{"content_around_reference": "> 3: incomplete"}]}})
    assert serena.said(snippet) == (None, None)
    shortened = "The answer is too long (91234 characters). You can adjust your query.\n{}"
    flagged, hedged = serena.said(shortened)
    assert flagged is not None
    assert flagged.startswith("The answer is too long")
    assert hedged is None
    assert serena.said("Results may be incomplete:\n[]") == (None, "Results may be incomplete:")


def test_cli_lsp_client_hedges_only_before_its_findings() -> None:
    printed = (
        "[basedpyright] WARNING at line 3, column 1: Type is partially unknown\n"
        'Type of "frozen" is "partial[...]"\n'
    )
    assert cli_lsp_client.hedges_of(printed) == []
    assert cli_lsp_client.hedges_of("Timed out waiting for diagnostics\n") == [
        "Timed out waiting for diagnostics"
    ]


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
    found = questions.breaks(root, source_files(root, "python"), "python", seed=3)
    assert len({b.name for b in found}) == len(found) >= 2
    change = found[0]
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


# The kill -----------------------------------------------------------------------------------

FAKE_PEER = """
import subprocess, sys
# A peer whose own arguments name the server (as agent-lsp's: python:/path/server,--stdio).
child = subprocess.Popen([sys.executable, sys.argv[1]], stdin=subprocess.PIPE)
print(child.pid, flush=True)
sys.stdin.read()
"""


def test_the_kill_ends_only_the_server_and_leaves_a_peer_whose_arguments_name_it_alive(
    tmp_path: Path,
) -> None:
    server = scripted()
    (tmp_path / "peer.py").write_text(FAKE_PEER, encoding="utf-8")
    argv = [sys.executable, str(tmp_path / "peer.py"), server.argv[1]]
    with subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as peer:
        try:
            assert peer.stdout is not None
            child = int(peer.stdout.readline())
            assert server.argv[1].encode() in Path(f"/proc/{peer.pid}/cmdline").read_bytes()
            killed = processes.kill_server([peer.pid], server)
            assert [p.pid for p in killed] == [child]
            for _ in range(100):
                if not processes.alive(child):
                    break
                time.sleep(0.05)
            assert not processes.alive(child)
            assert processes.alive(peer.pid)
            with pytest.raises(processes.NothingToKill, match="no process running"):
                processes.kill_server([peer.pid], server)
        finally:
            peer.kill()


def test_a_subject_process_that_does_not_outlive_the_kill_is_the_harnesss_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = scripted()
    (tmp_path / "peer.py").write_text(FAKE_PEER, encoding="utf-8")
    argv = [sys.executable, str(tmp_path / "peer.py"), server.argv[1]]
    with subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as peer:
        try:
            assert peer.stdout is not None
            peer.stdout.readline()
            monkeypatch.setattr(processes, "alive", lambda pid: pid != peer.pid)
            with pytest.raises(processes.KillFailed, match="did not outlive its server's kill"):
                processes.kill_server([peer.pid], server)
        finally:
            peer.kill()


# A harness failure is never a score --------------------------------------------------------


class _Broken(Subject):
    """An adapter with a bug in its references and a subject whose diagnostics fail."""

    name = "broken"

    async def start(self, root: Path, server: Server) -> None:
        """Nothing to start."""

    async def references(self, question: Question) -> Reply:
        raise KeyError("the adapter's own bug")

    async def diagnostics(self, paths: list[str]) -> Reply:
        raise SubjectFailed("its server crashed")

    def pids(self) -> list[int]:
        return []

    async def stop(self) -> None:
        """Nothing to stop."""


class _Empty(_Broken):
    """Answers nothing, as if the disk held no error."""

    async def diagnostics(self, paths: list[str]) -> Reply:
        return Reply(errors=frozenset())


def _scripted_case(tmp_path: Path) -> case_.Case:
    root = write_scripted_tree(tmp_path / "tree")
    return asyncio.run(case_.settle("scripted", root, scripted(), 1, 3, tmp_path / "scratch"))


def test_an_adapters_bug_is_the_harnesss_failure_and_a_failed_call_honest_never_right(
    tmp_path: Path,
) -> None:
    case = _scripted_case(tmp_path)
    row = run_.Row("1.0")
    asyncio.run(run_._run_case("broken", _Broken, case, row, tmp_path))
    entry = row.finish()
    [failure] = entry["failures"]
    assert failure.startswith('scripted: cold_references: KeyError: "the adapter\'s own bug"')
    assert entry["scenarios"]["cold_references"]["asked"] == 0
    after = entry["scenarios"]["after_edit"]
    assert (after["asked"], after["honest"], after["failed"], after["right"]) == (4, 4, 4, 0)
    assert after["not_asked"] == 1
    assert entry["scenarios"]["rename"]["not_asked"] == len(case.renames)
    status, why = verdict({"subjects": {"broken": entry}})
    assert status == 2
    assert why == [f"broken: harness failure: {failure}"]


def test_a_question_whose_checker_cannot_run_is_named_and_never_scored(tmp_path: Path) -> None:
    case = _scripted_case(tmp_path)
    unreadable = (sys.executable, "-c", "import sys; sys.exit('config unreadable')")
    blind = replace(case, server=replace(case.server, id="blind", check=unreadable))
    outcome = asyncio.run(scenarios.after_edit(_Empty, blind, tmp_path / "after"))
    assert outcome.tallies["after_edit"].asked == 0
    steps = ["(a) after the harness's write", "(b) a write from", "(c) git", "(d) a file from"]
    assert len(outcome.failures) == 4
    for failure, step in zip(outcome.failures, steps, strict=True):
        assert failure.startswith(f"scripted: {step}")
        assert "errors of pkg/" in failure
        assert failure.endswith(": no truth: python: no JSON report: config unreadable")
    counted = asyncio.run(scenarios.after_edit(_Empty, case, tmp_path / "counted"))
    assert counted.failures == []
    assert counted.tallies["after_edit"].counts["wrong"] == 4


# The report and the exit status -------------------------------------------------------------


def _scores(right: int, asked: int, **other: int) -> dict[str, Any]:
    base = dict.fromkeys(["wrong", "honest", "hedged", "no_answer", "failed", "not_asked"], 0)
    return {**base, "asked": asked, "right": right, **other}


def _result() -> dict[str, Any]:
    costs = {"p50_ms": 12.0, "p95_ms": 40.0, "median_bytes": 900}
    scores = {**_scores(2, 3, honest=1), **costs}
    return {
        "trees": ["tomli 2.0.1"],
        "quick": True,
        "seed": 1,
        "questions": {"tomli 2.0.1": dict.fromkeys(report.SCENARIO_NAMES, 3)},
        "truth_seconds": {"tomli 2.0.1": 9.0},
        "dropped": {"tomli 2.0.1": ["load: the witnesses disagree"]},
        "tree_notes": [],
        "subjects": {
            "adecore-lsp-mcp": {
                "version": "1.0",
                "status": "measured",
                "notes": ["tomli: a | b"],
                "not_run": [],
                "scenarios": dict.fromkeys(report.SCENARIO_NAMES, scores),
            },
            "peer": {"version": "2.0", "status": "not run: it downloads its server", "notes": []},
        },
    }


def test_the_tables_lead_with_right_of_asked_and_list_what_was_dropped() -> None:
    text = report.table(_result())
    assert "| adecore-lsp-mcp | 1.0 | 10 of 15 | 0 | 5 | 0 | 0 | 0 |" in text
    assert "| adecore-lsp-mcp | 2 of 3 (1 honest) | 2 of 3 (1 honest) |" in text
    assert "| adecore-lsp-mcp | 10 of 15 | 12 / 40 ms, 900 B |" in text
    assert "| peer | 2.0 | not run: it downloads its server |" in text
    assert "| tomli 2.0.1 (9 s) | 3 | 3 | 3 | 3 | 3 |" in text
    assert "- tomli 2.0.1: load: the witnesses disagree" in text
    assert "- adecore-lsp-mcp: tomli: a | b" in text
    assert "(the quick run)" in text


def test_the_exit_status_leads_with_right_of_asked_and_a_control_right_fails_the_run() -> None:
    def entry(right: int, asked: int) -> dict[str, Any]:
        scores = {s: _scores(right, asked, wrong=asked - right) for s in report.SCENARIO_NAMES}
        return {"status": "measured", "not_run": [], "failures": [], "scenarios": scores}

    result: dict[str, Any] = {
        "subjects": {"adecore-lsp-mcp": entry(2, 2), **{c: entry(0, 2) for c in CONTROLS}}
    }
    assert verdict(result) == (0, [])
    result["subjects"]["adecore-lsp-mcp"] = entry(1, 2)
    status, why = verdict(result)
    assert status == 1
    assert why == ["adecore-lsp-mcp: 5 right of 10 asked"]
    result["subjects"]["control-honest"] = entry(1, 2)
    assert verdict(result)[0] == 2
    result["subjects"]["control-honest"] = entry(0, 2)
    result["subjects"]["peer"] = {**entry(2, 2), "failures": ["tomli: no truth: tsc"]}
    assert verdict(result) == (2, ["peer: harness failure: tomli: no truth: tsc"])


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
    assert set(CONTROLS) <= set(result["subjects"])


def test_subjects_and_groups_are_named_as_the_contract_names_them() -> None:
    assert chosen_subjects(["adecore-lsp"]) == ["adecore-lsp-mcp", "adecore-lsp-cli", *CONTROLS]
    assert {"serena", "agent-lsp", "cli-lsp-client", "multilspy", "lsp-client"} <= set(
        chosen_subjects(None)
    )
    assert {"lsp-client-settled", *CONTROLS} <= set(chosen_subjects(None))
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


FIELDS = {"asked", "right", "wrong", "honest", "hedged", "no_answer", "failed", "not_asked"}


@pytest.mark.timeout(600)
def test_ci_quick_scripted_run_this_project_all_right_and_both_controls_none(
    tmp_path: Path,
) -> None:
    """CI's run: this project's MCP server and command line on the scripted server, with the
    two negative controls: every question of ours right, not one of the controls'."""
    out = tmp_path / "run.json"
    done = _fidelity("--scripted", "--quick", "--subjects", "adecore-lsp", "--json", str(out))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    assert set(result["subjects"]) == {"adecore-lsp-mcp", "adecore-lsp-cli", *CONTROLS}
    assert result["questions"]["scripted"] == {
        "cold_references": 3,
        "after_edit": 5,
        "rename_first": 1,
        "rename_after_checkout": 1,
        "server_dies": 2,
    }
    for name, entry in result["subjects"].items():
        assert entry["status"] == "measured", (name, entry)
        assert entry["failures"] == [], (name, entry["failures"])
        assert set(entry["scenarios"]) == {*report.SCENARIO_NAMES, "rename"}
        for scenario, scores in entry["scenarios"].items():
            assert FIELDS | {"p50_ms", "p95_ms", "median_bytes"} == set(scores)
            if name in CONTROLS:
                assert scores["right"] == 0, (name, scenario, entry["notes"])
                assert scores["asked"] > 0, (name, scenario)
            else:
                assert scores["right"] == scores["asked"] > 0, (name, scenario, entry["notes"])
    assert result["subjects"]["control-empty"]["scenarios"]["after_edit"]["wrong"] == 5
    assert result["subjects"]["control-honest"]["scenarios"]["rename"]["failed"] == 2
    assert "| control-empty | - | 0 of 12 | 12 |" in done.stdout


def test_a_tree_with_nothing_to_ask_is_refused_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "alone.py").write_text("def lonely():\n    return 1\n", encoding="utf-8")
    done = _fidelity("--tree", str(tmp_path), "--language", "python", "--subjects", "adecore-lsp")
    assert done.returncode == 2
    assert "no python definition used from another file among its 1 source files" in done.stderr
