"""Code over ``adecore_lsp.lsp_types`` that the project's mypy run checks.

Not a test module: ``tests/test_lsp_types.py`` calls these functions, and mypy (strict, over
``tests/``) checks that the generated types accept what a client writes and reject mistakes;
each ``type: ignore`` below must stay needed (``warn_unused_ignores``).
"""

from __future__ import annotations

import sys
from typing import Literal

from adecore_lsp import lsp_types as lsp

if sys.version_info >= (3, 11):
    from typing import assert_type
else:
    from typing_extensions import assert_type


def hover_text(hover: lsp.Hover) -> str:
    """The text of a hover result, whichever of its three shapes ``contents`` has."""
    contents = hover["contents"]
    if isinstance(contents, str):
        return contents
    if isinstance(contents, list):
        return "\n".join(item if isinstance(item, str) else item["value"] for item in contents)
    # MarkupContent and the deprecated MarkedString object both carry ``value``.
    return contents["value"]


def hover_range(hover: lsp.Hover) -> lsp.Range | None:
    """The optional range of a hover result."""
    return hover.get("range")


def markdown_hover(text: str, line: int) -> lsp.Hover:
    """A hover result built from the enumeration's constant and a range."""
    start: lsp.Position = {"line": line, "character": 0}
    end: lsp.Position = {"line": line, "character": len(text)}
    return {
        "contents": {"kind": lsp.MarkupKind.Markdown, "value": text},
        "range": {"start": start, "end": end},
    }


def error_diagnostic(message: str) -> lsp.Diagnostic:
    """A diagnostic with an integer enumeration constant and a plain literal tag."""
    position: lsp.Position = {"line": 0, "character": 0}
    return {
        "range": {"start": position, "end": position},
        "message": message,
        "severity": lsp.DiagnosticSeverity.Error,
        "tags": [2],
    }


def label_of(item: lsp.CompletionItem) -> str:
    """A completion item's required label."""
    return item["label"]


def settings() -> lsp.LSPAny:
    """The recursive LSPAny alias takes nested JSON."""
    return {"python": {"paths": ["src", 1, 2.5, True, None, {"deep": []}]}}


def incoming_caller(call: lsp.CallHierarchyIncomingCall) -> str:
    """A key that is a Python keyword, reached by subscription."""
    return call["from"]["name"]


def rejected() -> None:
    """Mistakes the types catch."""
    assert_type(lsp.MarkupKind.Markdown, Literal["markdown"])
    missing: lsp.Position = {"line": 1}  # type: ignore[typeddict-item]
    wrong_kind: lsp.MarkupContent = {"kind": "html", "value": ""}  # type: ignore[typeddict-item]
    bad_severity: lsp.DiagnosticSeverityValue = 7  # type: ignore[assignment]
    del missing, wrong_kind, bad_severity
