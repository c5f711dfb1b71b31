"""``check --format sarif``: SARIF 2.1.0, the format code-scanning services read.

One run per server; a rule per ``source`` and ``code`` (its ``ruleId`` is stable across
runs: ``source/code``); columns in code points (``columnKind: "unicodeCodePoints"``);
``artifactLocation.uri`` relative to the root (``uriBaseId`` ``%SRCROOT%``, no absolute path
in the output); ``partialFingerprints`` from the path, the rule, the message and the text of
the line (not its number), so a finding keeps its fingerprint when lines above it move.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import quote

from ..workspace.model import Diagnostic
from .output import one_line

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}


def rule_id(item: Diagnostic) -> str:
    """``source/code``, or whichever of them there is; ``diagnostic`` without either."""
    parts = [str(part) for part in (item.source, item.code) if part not in (None, "")]
    return "/".join(parts) or "diagnostic"


def _same_line(item: Diagnostic, end: bool = False) -> int:
    return item.end_line if end else item.line


def sarif(
    items: Sequence[Diagnostic],
    servers: Sequence[tuple[str, str | None]],
    line_of: Callable[..., str | None],
    raw_line: Callable[[Diagnostic, bool], int] = _same_line,
) -> str:
    """The SARIF log of ``items``, one run per server of ``servers`` (in that order); a
    notebook cell's finding on the ``.ipynb`` lines that hold its source lines, its message
    beginning ``cell N: ``, its fingerprint from the cell line's text."""
    runs = []
    for name, version in servers:
        mine = [item for item in items if item.server == name]
        rules: dict[str, int] = {}
        rule_objects: list[dict[str, Any]] = []
        results = []
        seen: dict[str, int] = {}
        for item in mine:
            rid = rule_id(item)
            if rid not in rules:
                rules[rid] = len(rule_objects)
                rule: dict[str, Any] = {"id": rid}
                if item.code is not None:
                    rule["name"] = str(item.code)
                rule_objects.append(rule)
            line_text = line_of(item.path, item.line, item.cell) or ""
            message = item.message if item.cell is None else f"cell {item.cell}: {item.message}"
            basis = "\0".join((item.path, rid, one_line(message), line_text.strip()))
            digest = hashlib.sha256(basis.encode("utf-8")).hexdigest()[:32]
            occurrence = seen.get(digest, 0)
            seen[digest] = occurrence + 1
            results.append(
                {
                    "ruleId": rid,
                    "ruleIndex": rules[rid],
                    "level": _LEVEL[item.severity],
                    "message": {"text": message},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {
                                    "uri": quote(item.path),
                                    "uriBaseId": "%SRCROOT%",
                                },
                                "region": {
                                    "startLine": raw_line(item, False),
                                    "startColumn": item.column,
                                    "endLine": raw_line(item, True),
                                    "endColumn": max(item.end_column, 1),
                                },
                            }
                        }
                    ],
                    "partialFingerprints": {"adecoreLsp/v1": f"{digest}:{occurrence}"},
                }
            )
        driver: dict[str, Any] = {"name": name, "rules": rule_objects}
        if version:
            driver["version"] = version
        runs.append(
            {
                "tool": {"driver": driver},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        )
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": runs}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
