"""``adecore-lsp check`` as a user runs it: every format, its columns, exit statuses, baselines.

The files hold non-ASCII text (``é``, ``😀``) in a comment above the findings and on the
finding's own line before it, so a column counted in the wrong unit shows: ruff speaks
UTF-8 offsets, basedpyright UTF-16, and the formats count code points (text, json, github,
SARIF) or UTF-8 bytes (jsonl).
"""

from __future__ import annotations

import importlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import (
    ANSI,
    Ran,
    column_of,
    need,
    no_traceback,
    run,
    run_all,
    snapshot,
    utf8_column,
    write,
)

pytestmark = pytest.mark.real_server

SCHEMA_FILE = Path(__file__).with_name("sarif-schema-2.1.0.json")

PYPROJECT = """\
[project]
name = "demo"
version = "0"

[tool.ruff.lint]
select = ["F"]

[tool.basedpyright]
typeCheckingMode = "standard"
"""

APP_LINES = [
    "# café 😀 — notes before the findings",
    "import os",
    'é = "😀😀"; import sys',
]
BAD_LINES = [
    "# ünïcode 😀 before the finding",
    'y = "😀é"; print(missing_name)',
]
FILES = {
    "pyproject.toml": PYPROJECT,
    "app.py": "\n".join(APP_LINES) + "\n",
    "bad.py": "\n".join(BAD_LINES) + "\n",
    "clean.py": '"""Nothing to report."""\n',
}

FORMATS = ("text", "json", "jsonl", "sarif", "github")
BOTH = ("--server", "ruff", "--server", "basedpyright")
PATHS = ("app.py", "bad.py", "clean.py")

# Where the findings are, in code points, 1-based.
SYS_LINE, SYS_COL = 3, column_of(APP_LINES[2], "sys")
OS_LINE, OS_COL = 2, column_of(APP_LINES[1], "os")
MISSING_LINE, MISSING_COL = 2, column_of(BAD_LINES[1], "missing_name")

SUMMARY = re.compile(
    r"^(\d+) errors?, (\d+) warnings? in (\d+) files?(?: \((?P<servers>[^()]*)\))?$"
)
GITHUB = re.compile(
    r"^::(?P<level>error|warning|notice) file=(?P<file>[^,]+),line=(?P<line>\d+),"
    r"col=(?P<col>\d+),endLine=(?P<end_line>\d+),endColumn=(?P<end_col>\d+)"
    r"(?:,title=(?P<title>[^:]*))?::(?P<message>.*)$"
)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    need("ruff")
    need("basedpyright")
    return write(tmp_path_factory.mktemp("check"), FILES)


@pytest.fixture(scope="module")
def formats(project: Path) -> dict[str, Ran]:
    """The runs most tests read, made at once: ``check`` of the three files with ruff and
    basedpyright in each format but github (SARIF twice), with ruff alone twice in each
    format, basedpyright's progress and hints, and ruff's severities and exit statuses
    (the second SARIF run with ``--quiet``)."""
    jobs: dict[str, tuple[str, ...]] = {
        name: ("check", *BOTH, "--format", name, *PATHS) for name in FORMATS if name != "github"
    }
    jobs["sarif#2"] = ("check", *BOTH, "--quiet", "--format", "sarif", *PATHS)
    for name in FORMATS:
        for attempt in (1, 2):
            jobs[f"ruff-{name}#{attempt}"] = ("check", "--server", "ruff", "--format", name, *PATHS)
    jobs["min-warning"] = ("check", *BOTH, "--format", "json", "--min-severity", "warning", *PATHS)
    jobs["progress"] = ("check", "--server", "basedpyright", "--fail-on", "hint", "app.py")
    jobs["no-progress"] = ("check", "--server", "basedpyright", "--no-progress", "app.py")
    ruff = ("check", "--server", "ruff")
    jobs["clean"] = (*ruff, "clean.py")
    jobs["warnings"] = (*ruff, "app.py")
    jobs["fail-on-warning"] = (*ruff, "--fail-on", "warning", "app.py")
    jobs["min-error-fail-on-warning"] = (
        *ruff,
        "--min-severity",
        "error",
        "--fail-on",
        "warning",
        "app.py",
    )
    jobs["min-error"] = (*ruff, "--min-severity", "error", "bad.py", "app.py")
    # One basedpyright at a time: on a busy machine it registers its pull diagnostics late,
    # and check then misses them (test_found_bugs.py).
    return run_all(jobs, cwd=project, workers=3, heavy_workers=1)


def _json(ran: Ran) -> Any:
    return json.loads(ran.out)


def _sarif_schema() -> Any:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def _sarif_errors(document: Any) -> list[str]:
    """What the vendored SARIF 2.1.0 schema (JSON Schema draft 4) finds wrong in
    ``document``, one line per error."""
    # jsonschema (the test extra) ships no type hints: load it untyped.
    jsonschema: Any = importlib.import_module("jsonschema")
    schema = _sarif_schema()
    jsonschema.Draft4Validator.check_schema(schema)
    validator = jsonschema.Draft4Validator(schema)
    return sorted(
        f"{'/'.join(str(part) for part in error.absolute_path)}: {error.message}"
        for error in validator.iter_errors(document)
    )


def _validate_sarif(document: Any) -> None:
    errors = _sarif_errors(document)
    assert not errors, "\n".join(errors)


def test_the_vendored_schema_is_sarif_2_1_0_and_rejects_a_broken_log() -> None:
    schema = _sarif_schema()
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    assert schema["properties"]["version"]["enum"] == ["2.1.0"]
    assert _sarif_errors({"version": "2.1.0", "runs": []}) == []
    broken = {
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {}}, "columnKind": "bytes", "results": [{"level": "bad"}]}],
    }
    errors = _sarif_errors(broken)
    assert any("'name' is a required property" in error for error in errors), errors
    assert any("columnKind" in error for error in errors), errors
    assert any("'message' is a required property" in error for error in errors), errors


def _by(items: list[dict[str, Any]], **wanted: Any) -> dict[str, Any]:
    found = [item for item in items if all(item.get(k) == v for k, v in wanted.items())]
    assert len(found) == 1, (wanted, items)
    return found[0]


# -- every format -----------------------------------------------------------------------------


def test_every_format_exits_1_for_the_errors_and_prints_only_results(
    formats: dict[str, Ran],
) -> None:
    for name in [*FORMATS, "sarif#2"]:
        alone = formats[f"ruff-{name.split('#')[0]}#1"]
        for ran in (formats.get(name, alone), alone):
            assert ran.status == 1, (name, ran)
            assert ran.out.strip(), name
            no_traceback(ran)
            assert not ANSI.search(ran.out + ran.err)
            # Progress and notes go to stderr: stdout is the result alone.
            assert "to analyze" not in ran.out
            assert "adecore-lsp:" not in ran.out


def test_the_same_run_gives_the_same_bytes_without_times_or_the_root(
    formats: dict[str, Ran], project: Path
) -> None:
    assert formats["sarif"].out == formats["sarif#2"].out
    for name in FORMATS:
        first, second = formats[f"ruff-{name}#1"], formats[f"ruff-{name}#2"]
        assert first.out == second.out, name
    roots = {str(project), str(project.resolve()), project.as_uri(), project.name}
    for name, ran in formats.items():
        for root in roots:
            assert root not in ran.out, (name, root)
        assert not re.search(r"\b\d{1,2}:\d{2}:\d{2}\b", ran.out), name


def test_text_lines_and_the_summary(formats: dict[str, Ran]) -> None:
    text = formats["text"].out
    document = _json(formats["json"])
    lines = text.splitlines()
    *findings, summary = lines
    assert len(findings) == len(document["diagnostics"])
    for line, item in zip(findings, document["diagnostics"], strict=True):
        tag = " ".join(str(p) for p in (item["source"], item["code"]) if p is not None)
        message = " ".join(item["message"].split())
        assert line == (
            f"{item['path']}:{item['line']}:{item['column']}: {item['severity']}: {message}"
            + (f" [{tag}]" if tag else "")
        )
    # The finding after the emoji and the accented letters, in code points.
    assert f"app.py:{SYS_LINE}:{SYS_COL}: warning: " in text
    assert f"app.py:{OS_LINE}:{OS_COL}: warning: " in text
    assert f"bad.py:{MISSING_LINE}:{MISSING_COL}: error: " in text
    sys_line = next(
        line for line in findings if line.startswith(f"app.py:{SYS_LINE}:{SYS_COL}: warning: ")
    )
    assert sys_line.endswith("[Ruff F401]")
    # A message of several lines (ruff adds a "help:" paragraph) is one line in text.
    assert "help: Remove unused import" in sys_line

    match = SUMMARY.match(summary)
    assert match, summary
    errors = sum(1 for item in document["diagnostics"] if item["severity"] == "error")
    warnings = sum(1 for item in document["diagnostics"] if item["severity"] == "warning")
    assert (int(match[1]), int(match[2]), int(match[3])) == (errors, warnings, 3)
    assert errors >= 2
    assert warnings >= 2
    versions = {server["id"]: server["version"] for server in document["servers"]}
    expected = ", ".join(
        f"{name} {version}" if version else name for name, version in sorted(versions.items())
    )
    assert match["servers"] == expected


def test_json_has_the_contract_shape(formats: dict[str, Ran]) -> None:
    document = _json(formats["json"])
    assert set(document) == {"complete", "reason", "diagnostics", "files", "servers"}
    assert document["complete"] is True
    assert document["reason"] is None
    keys = {
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "severity",
        "message",
        "source",
        "code",
        "server",
        "cell",  # notebooks.md: null for plain files
    }
    for item in document["diagnostics"]:
        assert set(item) == keys
        assert item["cell"] is None
        assert item["severity"] in ("error", "warning", "information", "hint")
        assert item["server"] in ("ruff", "basedpyright")
        for key in ("line", "column", "end_line", "end_column"):
            assert isinstance(item[key], int)
            assert item[key] >= 1
    assert document["files"] == {
        path: {"complete": True, "reason": None} for path in ("app.py", "bad.py", "clean.py")
    }
    assert [server["id"] for server in document["servers"]] == ["basedpyright", "ruff"]
    for server in document["servers"]:
        assert set(server) == {"id", "version"}
        assert isinstance(server["version"], str)

    items = document["diagnostics"]
    unused_sys = _by(items, server="ruff", code="F401", line=SYS_LINE)
    assert (unused_sys["column"], unused_sys["end_line"], unused_sys["end_column"]) == (
        SYS_COL,
        SYS_LINE,
        SYS_COL + len("sys"),
    )
    assert unused_sys["severity"] == "warning"
    assert unused_sys["path"] == "app.py"
    # json keeps a message of several lines whole.
    assert "\n" in unused_sys["message"]
    for server in ("ruff", "basedpyright"):
        missing = _by(items, server=server, path="bad.py", severity="error")
        assert (missing["line"], missing["column"], missing["end_column"]) == (
            MISSING_LINE,
            MISSING_COL,
            MISSING_COL + len("missing_name"),
        )
    # basedpyright (UTF-16 positions) agrees with ruff (UTF-8 positions) on the column.
    hint = _by(items, server="basedpyright", path="app.py", line=SYS_LINE)
    assert (hint["column"], hint["end_column"]) == (SYS_COL, SYS_COL + len("sys"))


def test_jsonl_is_reviewdog_rdjsonl_with_utf8_byte_columns(formats: dict[str, Ran]) -> None:
    records = [json.loads(line) for line in formats["jsonl"].out.splitlines()]
    document = _json(formats["json"])
    assert len(records) == len(document["diagnostics"])
    severities = {"error": "ERROR", "warning": "WARNING", "information": "INFO", "hint": "INFO"}
    sources = {"app.py": APP_LINES, "bad.py": BAD_LINES}
    for record, item in zip(records, document["diagnostics"], strict=True):
        assert set(record) <= {"message", "location", "severity", "source", "code"}
        assert {"message", "location", "severity", "source"} <= set(record)
        assert record["message"] == item["message"]
        assert record["severity"] == severities[item["severity"]]
        assert set(record["source"]) == {"name"}
        if item["code"] is not None:
            assert record["code"] == {"value": str(item["code"])}
        location = record["location"]
        assert location["path"] == item["path"]
        start, end = location["range"]["start"], location["range"]["end"]
        lines = sources[item["path"]]
        assert start == {
            "line": item["line"],
            "column": utf8_column(lines[item["line"] - 1], item["column"]),
        }
        assert end == {
            "line": item["end_line"],
            "column": utf8_column(lines[item["end_line"] - 1], item["end_column"]),
        }
    unused_sys = next(
        r
        for r in records
        if r["location"]["range"]["start"]["line"] == SYS_LINE
        and r["location"]["path"] == "app.py"
        and r.get("code") == {"value": "F401"}
    )
    line = APP_LINES[SYS_LINE - 1]
    byte_column = len(line[: line.index("sys")].encode("utf-8")) + 1
    assert byte_column != SYS_COL  # the line's text makes the units differ
    assert unused_sys["location"]["range"]["start"]["column"] == byte_column
    assert unused_sys["location"]["range"]["end"]["column"] == byte_column + 3
    assert unused_sys["severity"] == "WARNING"


def test_github_annotations(formats: dict[str, Ran]) -> None:
    lines = formats["ruff-github#1"].out.splitlines()
    document = _json(formats["ruff-json#1"])
    assert len(lines) == len(document["diagnostics"])
    levels = {"error": "error", "warning": "warning", "information": "notice", "hint": "notice"}
    for line, item in zip(lines, document["diagnostics"], strict=True):
        match = GITHUB.match(line)
        assert match, line
        assert match["level"] == levels[item["severity"]]
        assert match["file"] == item["path"]
        assert (int(match["line"]), int(match["col"])) == (item["line"], item["column"])
        assert (int(match["end_line"]), int(match["end_col"])) == (
            item["end_line"],
            item["end_column"],
        )
        assert match["message"] == item["message"].replace("%", "%25").replace("\r", "%0D").replace(
            "\n", "%0A"
        )
    assert any(
        line.startswith(f"::warning file=app.py,line={SYS_LINE},col={SYS_COL},") for line in lines
    )
    assert any(
        line.startswith(f"::error file=bad.py,line={MISSING_LINE},col={MISSING_COL},")
        for line in lines
    )
    # Several lines of a message are %0A-encoded on the annotation's one line.
    assert any("%0A" in line for line in lines)


def test_sarif_is_valid_2_1_0_with_code_point_columns(formats: dict[str, Ran]) -> None:
    log = _json(formats["sarif"])
    _validate_sarif(log)
    assert log["version"] == "2.1.0"
    assert "sarif" in log["$schema"]
    assert "2.1.0" in log["$schema"]
    runs = log["runs"]
    assert [run["tool"]["driver"]["name"] for run in runs] == ["basedpyright", "ruff"]
    document = _json(formats["json"])
    assert sum(len(run["results"]) for run in runs) == len(document["diagnostics"])
    for each in runs:
        assert each["columnKind"] == "unicodeCodePoints"
        rules = each["tool"]["driver"]["rules"]
        rule_ids = [rule["id"] for rule in rules]
        assert len(rule_ids) == len(set(rule_ids))
        for result in each["results"]:
            assert result["ruleId"] in rule_ids
            if "ruleIndex" in result:
                assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
            assert result["partialFingerprints"]
            [location] = result["locations"]
            artifact = location["physicalLocation"]["artifactLocation"]
            assert artifact["uri"] in ("app.py", "bad.py", "clean.py")
            assert not artifact["uri"].startswith(("/", "file:"))
    ruff = runs[1]
    unused_sys = next(
        result
        for result in ruff["results"]
        if result["locations"][0]["physicalLocation"]["region"]["startLine"] == SYS_LINE
        and result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "app.py"
    )
    region = unused_sys["locations"][0]["physicalLocation"]["region"]
    assert (region["startColumn"], region["endLine"], region["endColumn"]) == (
        SYS_COL,
        SYS_LINE,
        SYS_COL + 3,
    )
    assert unused_sys["level"] == "warning"
    # The rule comes from the source and the code.
    assert "F401" in unused_sys["ruleId"]
    missing = next(r for r in ruff["results"] if "F821" in r["ruleId"])
    assert missing["level"] == "error"
    assert missing["locations"][0]["physicalLocation"]["region"]["startColumn"] == MISSING_COL


def _fingerprints(log: Any) -> list[tuple[str, str, str]]:
    return [
        (run["tool"]["driver"]["name"], result["ruleId"], json.dumps(result["partialFingerprints"]))
        for run in log["runs"]
        for result in run["results"]
    ]


def test_sarif_rule_ids_and_fingerprints_are_stable_across_runs(formats: dict[str, Ran]) -> None:
    first, second = _json(formats["sarif"]), _json(formats["sarif#2"])
    assert _fingerprints(first) == _fingerprints(second)
    prints = [entry[2] for entry in _fingerprints(first)]
    assert len(prints) == len(set(prints)), "two findings share a fingerprint"


@pytest.fixture
def own_project(project: Path, tmp_path: Path) -> Path:
    """A copy of the project this test may change."""
    copy = tmp_path / "project"
    shutil.copytree(project, copy)
    return copy


def test_a_sarif_fingerprint_survives_a_line_inserted_above(own_project: Path) -> None:
    before = run("check", "--server", "ruff", "--format", "sarif", "app.py", cwd=own_project)
    assert before.status == 0, before
    lines = [*APP_LINES]
    lines.insert(1, "# a line inserted above the findings, ☃")
    (own_project / "app.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    after = run("check", "--server", "ruff", "--format", "sarif", "app.py", cwd=own_project)
    assert after.status == 0, after
    old, new = _json(before), _json(after)
    _validate_sarif(new)

    def unused_sys(log: Any) -> dict[str, Any]:
        [result] = [r for r in log["runs"][0]["results"] if "`sys`" in r["message"]["text"]]
        assert isinstance(result, dict)
        return result

    was, now = unused_sys(old), unused_sys(new)
    assert now["locations"][0]["physicalLocation"]["region"]["startLine"] == SYS_LINE + 1
    assert now["ruleId"] == was["ruleId"]
    assert now["partialFingerprints"] == was["partialFingerprints"]


# -- severities and exit statuses ----------------------------------------------------------------


def test_a_clean_file_exits_0(formats: dict[str, Ran]) -> None:
    ran = formats["clean"]
    assert ran.status == 0, ran
    [summary] = ran.out.splitlines()
    match = SUMMARY.match(summary)
    assert match, summary
    assert match.group(1, 2, 3) == ("0", "0", "1"), summary
    assert match["servers"] is not None
    assert match["servers"].startswith("ruff")


def test_warnings_exit_0_unless_fail_on_warning(formats: dict[str, Ran]) -> None:
    default = formats["warnings"]
    assert default.status == 0, default
    assert default.out.count(": warning: ") == 2
    failing = formats["fail-on-warning"]
    assert failing.status == 1, failing
    assert failing.out == default.out


def test_findings_below_min_severity_are_neither_shown_nor_counted(
    formats: dict[str, Ran],
) -> None:
    ran = formats["min-error-fail-on-warning"]
    assert ran.status == 0, ran
    [summary] = ran.out.splitlines()
    assert summary.startswith("0 errors, 0 warnings in 1 file")


def test_errors_exit_1_and_min_severity_error_keeps_them(formats: dict[str, Ran]) -> None:
    ran = formats["min-error"]
    assert ran.status == 1, ran
    *findings, summary = ran.out.splitlines()
    assert findings
    assert all(": error: " in line for line in findings)
    assert findings[0].startswith(f"bad.py:{MISSING_LINE}:{MISSING_COL}: error: ")
    assert summary.startswith("1 error, 0 warnings in 2 files")


def test_min_severity_warning_hides_hints(formats: dict[str, Ran]) -> None:
    everything = _json(formats["json"])["diagnostics"]
    assert any(item["severity"] == "hint" for item in everything)
    ran = formats["min-warning"]
    assert ran.status == 1, ran
    shown = _json(ran)["diagnostics"]
    assert shown == [item for item in everything if item["severity"] in ("error", "warning")]


def test_fail_on_hint_counts_hints(formats: dict[str, Ran]) -> None:
    # basedpyright reports the unused imports of app.py as hints only.
    hinted = formats["progress"]
    assert hinted.status == 1, hinted
    assert ": hint: " in hinted.out
    assert ": warning: " not in hinted.out
    shown = formats["no-progress"]
    assert shown.status == 0, shown
    assert shown.out == hinted.out


# -- baselines -----------------------------------------------------------------------------------


def test_a_baseline_reports_only_new_findings_and_forgives_line_moves(own_project: Path) -> None:
    saved = run(
        "check", "--server", "ruff", "--format", "json", "app.py", "bad.py", cwd=own_project
    )
    assert saved.status == 1, saved
    (own_project / "baseline.json").write_text(saved.out, encoding="utf-8")

    same = run(
        "check",
        "--server",
        "ruff",
        "--baseline",
        "baseline.json",
        "app.py",
        "bad.py",
        cwd=own_project,
    )
    assert same.status == 0, same
    assert same.out.splitlines()[:-1] == []

    # Two lines above every finding, and two new findings below them.
    lines = ["# moved down ✓", "# and again", *APP_LINES, "import json", "print(undefined_too)"]
    (own_project / "app.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    text = run(
        "check",
        "--server",
        "ruff",
        "--baseline",
        "baseline.json",
        "app.py",
        "bad.py",
        cwd=own_project,
    )
    assert text.status == 1, text
    *findings, summary = text.out.splitlines()
    assert len(findings) == 2, text.out
    assert findings[0].startswith("app.py:6:8: warning: `json` imported but unused")
    assert findings[1].startswith("app.py:7:7: error: Undefined name `undefined_too`")
    assert summary.startswith("1 error, 1 warning in 2 files")

    as_json = run(
        "check",
        "--server",
        "ruff",
        "--baseline",
        "baseline.json",
        "--format",
        "json",
        "app.py",
        "bad.py",
        cwd=own_project,
    )
    assert as_json.status == 1, as_json
    assert [(d["line"], d["code"]) for d in _json(as_json)["diagnostics"]] == [
        (6, "F401"),
        (7, "F821"),
    ]


def test_a_baseline_that_is_not_check_json_is_a_usage_error(own_project: Path) -> None:
    (own_project / "baseline.json").write_text('{"something": "else"}', encoding="utf-8")
    ran = run("check", "--server", "ruff", "--baseline", "baseline.json", "app.py", cwd=own_project)
    assert ran.status == 2, ran
    assert "baseline" in ran.err
    assert ran.out == ""
    no_traceback(ran)


def test_check_writes_nothing_into_the_project(own_project: Path) -> None:
    before = snapshot(own_project)
    ran = run("check", "--server", "ruff", "--format", "sarif", cwd=own_project)
    assert ran.status == 1, ran
    assert snapshot(own_project) == before


# -- progress --------------------------------------------------------------------------------


def test_progress_goes_to_stderr_as_plain_lines(formats: dict[str, Ran]) -> None:
    ran = formats["progress"]
    assert ran.status == 1, ran  # --fail-on hint
    progress = [line for line in ran.err.splitlines() if line.startswith("basedpyright: ")]
    assert any(re.search(r"\d+ files? to analyze", line) for line in progress), ran.err
    assert "to analyze" not in ran.out
    assert not any(line.startswith("basedpyright: ") for line in ran.out.splitlines())
    assert not ANSI.search(ran.err)


def test_no_progress_with_quiet_or_no_progress(formats: dict[str, Ran]) -> None:
    quiet = formats["sarif#2"]
    assert quiet.status == 1, quiet
    assert quiet.err == ""
    assert quiet.out == formats["sarif"].out
    silent = formats["no-progress"]
    assert silent.status == 0, silent
    assert "to analyze" not in silent.err
    assert not any(line.startswith("basedpyright: ") for line in silent.err.splitlines())
    assert silent.out == formats["progress"].out
