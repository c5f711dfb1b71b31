"""``check`` output in each format: text, json, jsonl (reviewdog), github annotations, SARIF.

Each format counts columns in its own unit: text and json in code points (1-based),
reviewdog's rdjsonl in UTF-8 bytes (1-based), GitHub's annotations in code points, SARIF
with ``columnKind: "unicodeCodePoints"``. Output holds no times and no absolute paths of the
root, so the same run gives the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..workspace.model import Diagnostic, DiagnosticsReport, FileStatus, cell_prefix
from .common import reasons_in_words
from .output import one_line, shown_path

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

RANK = {"error": 0, "warning": 1, "information": 2, "hint": 3}


def shown(items: Iterable[Diagnostic], min_severity: str) -> list[Diagnostic]:
    """The findings at or above ``min_severity``."""
    bound = RANK[min_severity]
    return [item for item in items if RANK[item.severity] <= bound]


def without_baseline(items: list[Diagnostic], baseline: Any) -> list[Diagnostic]:
    """The findings a saved ``--format json`` output lacks; lines that moved are forgiven
    (a finding matches one of the baseline with the same path, notebook cell, server, code,
    severity and message, one for one, wherever its line)."""
    if not isinstance(baseline, Mapping) or not isinstance(baseline.get("diagnostics"), list):
        raise ValueError("the baseline is not the output of `adecore-lsp check --format json`")
    counts: dict[tuple[Any, ...], int] = {}
    for old in baseline["diagnostics"]:
        if isinstance(old, Mapping):
            key = _key(
                old.get("path"),
                old.get("cell"),
                old.get("server"),
                old.get("code"),
                old.get("severity"),
                old.get("message"),
            )
            counts[key] = counts.get(key, 0) + 1
    fresh = []
    for item in items:
        key = _key(item.path, item.cell, item.server, item.code, item.severity, item.message)
        if counts.get(key, 0):
            counts[key] -= 1
        else:
            fresh.append(item)
    return fresh


def _key(*parts: Any) -> tuple[Any, ...]:
    return tuple(one_line(part) if isinstance(part, str) else part for part in parts)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


def text(
    items: Sequence[Diagnostic],
    report: DiagnosticsReport,
    servers: Sequence[tuple[str, str | None]],
) -> str:
    """``path:line:col: severity: message [source code]`` lines and a summary line."""
    errors = sum(1 for item in items if item.severity == "error")
    warnings = sum(1 for item in items if item.severity == "warning")
    return text_lines(items) + summary(errors, warnings, report.files, servers)


def text_lines(items: Sequence[Diagnostic]) -> str:
    """One ``path:line:col: severity: message [source code]`` line per finding."""
    lines = []
    for item in items:
        tag = " ".join(str(part) for part in (item.source, item.code) if part is not None)
        lines.append(
            f"{shown_path(item.path)}:{cell_prefix(item.cell)}{item.line}:{item.column}: "
            f"{item.severity}: "
            f"{one_line(item.message)}" + (f" [{tag}]" if tag else "") + "\n"
        )
    return "".join(lines)


def summary(
    errors: int,
    warnings: int,
    files: Mapping[str, FileStatus],
    servers: Sequence[tuple[str, str | None]],
) -> str:
    """``N errors, N warnings in N files (SERVER VERSION, ...)``, the files counted those
    whose diagnostics are final; when some are not, ``; incomplete: K of N files not final
    (why)`` follows, so that stdout alone never reads as a clean check of them."""
    names = ", ".join(f"{name} {version}" if version else name for name, version in servers)
    final = sum(1 for status in files.values() if status.complete)
    line = f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')} in {_plural(final, 'file')}"
    line += f" ({names})" if names else ""
    if final < len(files):
        why = reasons_in_words(
            sorted(str(status.reason) for status in files.values() if not status.complete)
        )
        line += f"; incomplete: {len(files) - final} of {_plural(len(files), 'file')} not final"
        line += f" ({why})"
    return line + "\n"


def json_items(items: Sequence[Diagnostic]) -> list[dict[str, Any]]:
    """Findings in the shape of ``check --format json``'s ``diagnostics``."""
    return [
        {
            "path": d.path,
            "line": d.line,
            "column": d.column,
            "end_line": d.end_line,
            "end_column": d.end_column,
            "severity": d.severity,
            "message": d.message,
            "source": d.source,
            "code": d.code,
            "server": d.server,
            "cell": d.cell,
        }
        for d in items
    ]


def as_json(
    items: Sequence[Diagnostic],
    report: DiagnosticsReport,
    servers: Sequence[tuple[str, str | None]],
    *,
    extra: Mapping[str, Any] | None = None,
) -> str:
    """``check --format json``; ``extra`` keys (``--new-since``'s ``since`` and
    ``resolved``) follow ``diagnostics``."""
    document: dict[str, Any] = {
        "complete": report.complete,
        "reason": report.reason,
        "diagnostics": json_items(items),
        **(extra or {}),
        "files": {
            path: {"complete": status.complete, "reason": status.reason}
            for path, status in sorted(report.files.items())
        },
        **({"left_out": dict(sorted(report.left_out.items()))} if report.left_out else {}),
        "servers": [{"id": name, "version": version} for name, version in servers],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


_RDJSON_SEVERITY = {"error": "ERROR", "warning": "WARNING", "information": "INFO", "hint": "INFO"}


def utf8_column(line_text: str | None, column: int) -> int:
    """The 1-based UTF-8 byte column of a 1-based code-point column of ``line_text``."""
    if line_text is None:
        return column
    return len(line_text[: column - 1].encode("utf-8")) + 1


def in_cell(d: Diagnostic) -> str:
    """``cell N: `` before a notebook cell's message in the formats that place findings on
    the raw file's lines."""
    return "" if d.cell is None else f"cell {d.cell}: "


def _same_line(d: Diagnostic, end: bool = False) -> int:
    return d.end_line if end else d.line


def jsonl(items: Sequence[Diagnostic], line_of: Any, raw_line: Any = _same_line) -> str:
    """reviewdog's rdjsonl: one object a line, columns in UTF-8 bytes; a notebook cell's
    finding on the ``.ipynb`` lines that hold its source lines (``raw_line``)."""
    out = []
    for d in items:
        start_text = line_of(d.path, d.line, d.cell)
        end_text = line_of(d.path, d.end_line, d.cell)
        record: dict[str, Any] = {
            "message": in_cell(d) + d.message,
            "location": {
                "path": d.path,
                "range": {
                    "start": {"line": raw_line(d), "column": utf8_column(start_text, d.column)},
                    "end": {
                        "line": raw_line(d, True),
                        "column": utf8_column(end_text, d.end_column),
                    },
                },
            },
            "severity": _RDJSON_SEVERITY[d.severity],
            "source": {"name": d.server or d.source or "adecore-lsp"},
        }
        if d.code is not None:
            record["code"] = {"value": str(d.code)}
        out.append(json.dumps(record, ensure_ascii=False) + "\n")
    return "".join(out)


_GITHUB_LEVEL = {"error": "error", "warning": "warning", "information": "notice", "hint": "notice"}


def _github_escape(text: str, *, property: bool) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def github(items: Sequence[Diagnostic], raw_line: Any = _same_line) -> str:
    """GitHub Actions workflow commands: ``::error file=,line=,col=,...::message``; a
    notebook cell's finding on the ``.ipynb`` lines that hold its source lines."""
    out = []
    for d in items:
        title = " ".join(str(part) for part in (d.server, d.code) if part)
        fields = (
            f"file={_github_escape(d.path, property=True)},line={raw_line(d)},col={d.column},"
            f"endLine={raw_line(d, True)},endColumn={d.end_column}"
            + (f",title={_github_escape(title, property=True)}" if title else "")
        )
        out.append(
            f"::{_GITHUB_LEVEL[d.severity]} {fields}::"
            f"{_github_escape(in_cell(d) + d.message, property=False)}\n"
        )
    return "".join(out)
