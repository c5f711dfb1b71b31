"""The MCP server's parts that need no server: shapes, sizing, words, options, path checks."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import TypeAdapter

from adecore_lsp import AmbiguousTargetError, Location, Workspace
from adecore_lsp.cli.mcp_command import options_from, parse_http
from adecore_lsp.mcp import render, shapes
from adecore_lsp.mcp.state import Options, ambiguous, check_target, inside, progress_text
from adecore_lsp.mcp.text_edits import Replacement, file_diff, replace_all, replace_lines
from adecore_lsp.workspace.model import FileStatus

LIST_SHAPES = [
    shapes.DiagnosticList,
    shapes.LocationList,
    shapes.ReferenceList,
    shapes.SymbolList,
    shapes.FoundSymbolList,
    shapes.StatusList,
]


@pytest.mark.parametrize("shape", LIST_SHAPES, ids=lambda shape: shape.__name__)
def test_every_list_shape_has_the_five_keys(shape: Any) -> None:
    schema = TypeAdapter(shape).json_schema()
    assert set(schema["required"]) == {"items", "total", "truncated", "complete", "reason"}
    reasons = schema["properties"]["reason"]["anyOf"][0]["enum"]
    assert set(reasons) == {
        "timeout",
        "server_crashed",
        "unsupported",
        "not_ready",
        "too_many_files",
        "other_roots",
        "left_out",
    }


def test_a_long_diff_is_cut_saying_so() -> None:
    diff = "".join(f"+line {n}\n" for n in range(2500))
    cut, lines = shapes.cut_diff(diff)
    assert lines == 2500
    kept = cut.splitlines()
    assert len(kept) == 2001
    assert kept[1999] == "+line 1999"
    assert kept[-1].startswith("... diff cut here: 2,000 of 2,500 lines shown")
    assert shapes.cut_diff("+a\n") == ("+a\n", 1)


def test_long_texts_are_cut_saying_so() -> None:
    assert shapes.clip("x" * 401) == "x" * 400 + "…"
    assert shapes.clip("short") == "short"
    assert shapes.clip(None) is None
    hover = shapes.cut_hover("y" * 9000)
    assert hover is not None
    assert hover.endswith("(hover text cut: 8,000 of 9,000 characters shown)")
    assert shapes.cut_hover(None) is None


def test_an_unknown_reason_never_reads_as_complete() -> None:
    assert shapes.reason(None) is None
    assert shapes.reason("not_ready") == "not_ready"
    assert shapes.reason("something new") == "timeout"


def _diagnostics(complete: bool, total: int) -> shapes.DiagnosticList:
    return {
        "items": [],
        "total": total,
        "truncated": False,
        "complete": complete,
        "reason": None if complete else "timeout",
    }


def test_diagnostics_given_up_on_say_what_each_server_did() -> None:
    files = {"a.py": FileStatus(False, "timeout"), "b.py": FileStatus(False, "unsupported")}
    stopped = ["pyright said nothing new for 30 s", "ty was still working"]
    shown = render.diagnostics(_diagnostics(False, 0), files, "hint", 30.0, stopped)
    assert (
        "INCOMPLETE: diagnostics of a.py are not final: pyright said nothing new for 30 s; "
        "ty was still working; ask again."
    ) in shown
    assert "b.py could not be checked" in shown
    assert "within 30 s" not in shown


def test_incomplete_diagnostics_say_which_files_and_why() -> None:
    files = {
        "a.py": FileStatus(False, "timeout"),
        "b.py": FileStatus(True),
        "notes.txt": FileStatus(False, "unsupported"),
    }
    shown = render.diagnostics(_diagnostics(False, 0), files, "hint", 30.0)
    assert "No diagnostics known for 3 files: the answer is not whole" in shown
    assert "INCOMPLETE: diagnostics of a.py did not finish within 30 s; ask again." in shown
    assert (
        "INCOMPLETE: diagnostics of notes.txt could not be checked: no installed language "
        "server takes them." in shown
    )
    assert "last ones known, maybe out of date" in shown
    clean = render.diagnostics(_diagnostics(True, 0), {"a.py": FileStatus(True)}, "error", 30.0)
    assert clean.splitlines() == [
        "No diagnostics of severity error or above in 1 file.",
        "Final for the files' current text.",
    ]


def test_many_files_are_named_up_to_ten() -> None:
    assert render.names([f"f{n}.py" for n in range(12)]).endswith("f9.py and 2 more")


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("timeout", "did not finish within 5 s; ask again"),
        ("not_ready", "still getting ready"),
        ("too_many_files", "more files than the workspace opens at once"),
        ("server_crashed", "a language server crashed"),
        ("unsupported", "no installed language server takes them"),
    ],
)
def test_each_reason_in_words(reason: str, words: str) -> None:
    assert words in render.why(reason, 5.0)
    assert render.incomplete("the answer", True, reason, 5.0) == []
    [line] = render.incomplete("the answer", False, reason, 5.0)
    assert line.startswith("INCOMPLETE: the answer ")


def test_a_plan_written_with_diagnostics_not_final_says_so() -> None:
    plan: shapes.PlanShape = {
        "diff": "".join(f"+{n}\n" for n in range(3)),
        "changed_files": ["a.py", "b.py"],
        "edits": {"a.py": 2, "b.py": 1},
        "applied": True,
        "introduced": [],
        "resolved": [],
        "complete": False,
        "reason": "timeout",
        "checked": ["a.py"],
        "not_reached": ["b.py"],
    }
    shown = render.plan(
        plan,
        2600,
        tool="rename",
        plan_complete=True,
        plan_reason=None,
        delta_complete=False,
        delta_reason="timeout",
        timeout=30.0,
    )
    assert "Wrote 2 files (3 edits): a.py, b.py." in shown
    assert (
        "INCOMPLETE: the write succeeded and stands (do not write it again), but the check of "
        "the diagnostics after it did not finish within 30 s" in shown
    )
    assert "ask again" not in shown
    assert "(The diff has 2,600 lines; it was cut.)" in shown
    assert "It introduced no diagnostics." not in shown
    assert "not reached in time: b.py (what the edit did there is not known)" in shown


@pytest.mark.parametrize(
    "reason", ["timeout", "server_crashed", "not_ready", "unsupported", "not_utf8", None]
)
def test_a_write_whose_check_did_not_finish_never_says_ask_again(reason: str | None) -> None:
    said = render.written_but(reason, 5.0)
    assert said.startswith("INCOMPLETE: the write succeeded and stands")
    assert "ask again" not in said


def test_a_preview_of_a_plan_that_may_miss_files_says_so() -> None:
    plan: shapes.PlanShape = {
        "diff": "+x\n",
        "changed_files": ["a.py"],
        "edits": {"a.py": 1},
        "applied": False,
        "introduced": [],
        "resolved": [],
        "complete": False,
        "reason": "too_many_files",
        "checked": [],
        "not_reached": [],
    }
    shown = render.plan(
        plan,
        1,
        tool="format",
        plan_complete=False,
        plan_reason="too_many_files",
        delta_complete=True,
        delta_reason=None,
        timeout=30.0,
    )
    assert "Nothing was written; call format again with write: true to write it." in shown
    assert "INCOMPLETE: the plan may be partial: the root has more files" in shown


def test_replacements_in_order_become_edits_of_the_old_text() -> None:
    text = "alpha\nbeta\ngamma\n"
    pairs: list[Replacement] = [
        {"old": "gamma", "new": "GAMMA!"},
        {"old": "alpha", "new": "A"},
    ]
    new, offsets = replace_all(text, pairs, "f.py")
    assert new == "A\nbeta\nGAMMA!\n"
    assert offsets == [(0, 5, "A"), (11, 16, "GAMMA!")]


def test_a_replacement_of_text_an_earlier_one_put_in_leaves_the_texts_to_tell() -> None:
    text = "one two three\n"
    pairs: list[Replacement] = [
        {"old": "two", "new": "deux"},
        {"old": "deux three", "new": "zwei drei"},
    ]
    new, offsets = replace_all(text, pairs, "f.py")
    assert new == "one zwei drei\n"
    assert offsets is None
    # Touching what an earlier one put in counts too: the order of two insertions at one
    # place is the texts' to tell.
    touching: list[Replacement] = [{"old": "two", "new": "2"}, {"old": " three", "new": "3"}]
    assert replace_all(text, touching, "f.py") == ("one 23\n", None)


@pytest.mark.parametrize(
    ("text", "old", "said"),
    [
        ("x = 1\ny = 1\nx = 1\n", "x = 1", "occurs 2 times in f.py (at lines 1, 3)"),
        ("aaa\n", "aa", "occurs 2 times in f.py (at lines 1, 1)"),
        ("x = 1\n", "x = 2", "does not occur in f.py; nothing was changed"),
    ],
)
def test_an_old_text_found_zero_or_several_times_is_an_error(
    text: str, old: str, said: str
) -> None:
    with pytest.raises(ToolError) as raised:
        replace_all(text, [{"old": old, "new": "z"}], "f.py")
    assert said in str(raised.value)
    assert "nothing was changed" in str(raised.value)


def test_the_second_replacement_is_looked_for_in_the_text_the_first_left() -> None:
    with pytest.raises(ToolError) as raised:
        replace_all("a = 1\n", [{"old": "a = 1", "new": "b = 1"}, {"old": "a", "new": "c"}], "f")
    assert "edits[1]: the old text 'a' does not occur in f (as the edits before it left it)" in (
        str(raised.value)
    )


def test_a_symbols_lines_are_replaced_whole_with_a_final_break() -> None:
    text = "import os\r\n\r\ndef f():\r\n    return 1\r\n\r\nx = 1"
    new, offsets = replace_lines(text, (3, 4), "def f():\r\n    return 2")
    assert new == "import os\r\n\r\ndef f():\r\n    return 2\r\n\r\nx = 1"
    assert offsets == [(13, 37, "def f():\r\n    return 2\r\n")]
    last, _ = replace_lines("a\nb", (2, 2), "c")
    assert last == "a\nc\n"


def test_the_diff_of_an_edit_is_a_git_diff() -> None:
    diff = file_diff("src/f.py", "a\nb", "a\nc\n")
    assert diff == (
        "diff --git a/src/f.py b/src/f.py\n--- a/src/f.py\n+++ b/src/f.py\n@@ -1,2 +1,2 @@\n"
        " a\n-b\n\\ No newline at end of file\n+c\n"
    )
    assert file_diff("f.py", "same\n", "same\n") == ""


def test_no_server_to_restart_is_said() -> None:
    empty: shapes.StatusList = {
        "items": [],
        "total": 0,
        "truncated": False,
        "complete": True,
        "reason": None,
    }
    assert "nothing to restart" in render.statuses(empty)


def test_progress_reports_read_as_one_line_each() -> None:
    titles: dict[tuple[str, object], str] = {}
    begin = {"token": 1, "value": {"kind": "begin", "title": "Indexing", "percentage": 0}}
    report = {"token": 1, "value": {"kind": "report", "message": "3/4 files", "percentage": 75}}
    end = {"token": 1, "value": {"kind": "end"}}
    assert progress_text("pyrefly", begin, titles) == "pyrefly: Indexing (0%)"
    assert progress_text("pyrefly", report, titles) == "pyrefly: Indexing 3/4 files (75%)"
    assert progress_text("pyrefly", end, titles) == "pyrefly: Indexing done"
    assert titles == {}
    assert progress_text("pyrefly", {"token": 2}, titles) == ""
    assert progress_text("pyrefly", None, titles) == ""


def test_an_ambiguous_target_lists_targets_to_retry_with() -> None:
    where = Location("a.py", 3, 9, 3, 14)
    candidates = [("method", "a.py#A/run", where), ("method", "a.py#B/run", where)]
    error = AmbiguousTargetError("run", candidates)
    message = ambiguous(error)
    assert message.splitlines() == [
        "'run' matches 2 symbols; nothing was picked. Call again with one of these targets:",
        "  a.py#A/run  (method at a.py:3:9)",
        "  a.py#B/run  (method at a.py:3:9)",
    ]


async def test_paths_and_targets_outside_the_root_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "src").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (root / "inside").symlink_to(tmp_path / "outside")
    async with Workspace(root, servers=["ruff"]) as ws:
        assert inside(ws, "src/a.py") == ws.root / "src" / "a.py"
        assert inside(ws, str(ws.root / "src")) == ws.root / "src"
        assert inside(ws, ".") == ws.root
        with pytest.raises(ValueError, match="is outside the workspace root"):
            inside(ws, "../outside/a.py")
        with pytest.raises(ValueError, match="is outside the workspace root"):
            check_target(ws, f"{tmp_path}/outside/a.py:1:1")
        with pytest.raises(ValueError, match="is outside the workspace root"):
            check_target(ws, "../x.py#Name")
        assert check_target(ws, "Class/method") == "Class/method"
        assert check_target(ws, "src/a.py#f") == "src/a.py#f"
        with pytest.raises(ValueError, match="bad target"):
            check_target(ws, "a.py")


def _args(**given: Any) -> argparse.Namespace:
    fields: dict[str, Any] = {
        "root": None,
        "servers": None,
        "command": None,
        "timeout": 30.0,
        "trace": None,
        "replay": None,
        "quiet": False,
        "debug": False,
        "http": None,
    }
    fields.update(given)
    return argparse.Namespace(**fields)


def test_options_from_the_command_line(tmp_path: Path) -> None:
    options = options_from(
        _args(root=str(tmp_path), servers=["ruff"], timeout=5.0, http="[::1]:8080", debug=True)
    )
    assert options == Options(
        root=tmp_path.resolve(),
        servers=["ruff"],
        timeout=5.0,
        http=("::1", 8080),
        log_level="DEBUG",
    )
    assert options.bound == 10.0
    assert options_from(_args(quiet=True)).log_level == "ERROR"


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"root": "/no/such/folder"}, "not a folder"),
        ({"command": "my-lsp --stdio"}, "adecore-lsp.toml"),
        ({"replay": "trace.jsonl"}, "--replay"),
        ({"http": "8080"}, "give HOST:PORT"),
        ({"root": ".", "servers": ["no-such-server"]}, "no-such-server"),
    ],
)
def test_bad_options_are_said(given: dict[str, Any], said: str) -> None:
    with pytest.raises(ValueError, match=said):
        options_from(_args(**given))


@pytest.mark.parametrize("text", ["localhost:0", "host:70000", ":80", "host:http"])
def test_bad_http_addresses(text: str) -> None:
    with pytest.raises(ValueError, match="HOST:PORT"):
        parse_http(text)


def test_a_text_over_its_budget_is_cut_saying_so() -> None:
    text = "".join(f"line {n}\n" for n in range(5000))
    cut = render.budget(text, 2000)
    assert len(cut) <= 2000
    assert cut.endswith("or a larger max_chars)")
    assert "cut here: 2,000 of " in cut
    assert render.budget("short", 2000) == "short"


def test_a_symbol_tree_is_cut_depth_first_to_its_limit() -> None:
    from adecore_lsp import Location, Symbol

    def sym(name: str, *children: Symbol) -> Symbol:
        where = Location("a.py", 1, 1, 1, 2)
        return Symbol(name, name, "class", where, (1, 1), None, list(children))

    tree = [sym("A", sym("a1"), sym("a2")), sym("B", sym("b1"))]
    shown, total = shapes.symbol_tree(tree, 3)
    assert total == 5
    assert [(s["name"], [c["name"] for c in s["children"]]) for s in shown] == [("A", ["a1", "a2"])]
    everything, _ = shapes.symbol_tree(tree, 200)
    assert [s["name"] for s in everything] == ["A", "B"]
