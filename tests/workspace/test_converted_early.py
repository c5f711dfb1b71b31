"""A check converts each document's findings when the wait first sees it final (while the
servers work on the others), and takes that conversion at the end only when the document
then holds the same items, equally final."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from adecore_lsp.protocol.workspace.finality import FinalityStatus
from adecore_lsp.workspace.checks.checking import _Converted
from adecore_lsp.workspace.disk.units import Paths, Texts


def item(line: int, message: str) -> dict[str, Any]:
    place = {"line": line, "character": 0}
    return {"range": {"start": place, "end": place}, "message": message, "severity": 2}


def test_a_document_converted_early_is_converted_again_only_when_it_changed(
    tmp_path: Path,
) -> None:
    uri = (tmp_path / "a.py").as_uri()
    ws: Any = SimpleNamespace(paths=Paths(tmp_path), texts=Texts(lambda _uri: "x = 1\ny = 2\n"))
    handle: Any = SimpleNamespace(live=None, spec=SimpleNamespace(id="srv"))
    converted = _Converted(ws)
    first = [item(0, "one"), item(1, "two")]
    early = converted.convert(handle, uri, FinalityStatus(True, first, False, None))
    assert [(d.path, d.line, d.message, d.stale) for d in early] == [
        ("a.py", 1, "one", False),
        ("a.py", 2, "two", False),
    ]
    # The same items (a new list of the same objects, as each status gives): taken as made.
    again = converted.convert(handle, uri, FinalityStatus(True, list(first), False, None))
    assert again is early
    # Equal items that are other objects (a new report), or no longer final: made again.
    other = converted.convert(
        handle, uri, FinalityStatus(True, [item(0, "one"), item(1, "two")], False, None)
    )
    assert other is not early
    assert other == early
    stale = converted.convert(handle, uri, FinalityStatus(False, list(first), True, None))
    assert [d.stale for d in stale] == [True, True]
    fewer = converted.convert(handle, uri, FinalityStatus(False, first[:1], True, None))
    assert [d.message for d in fewer] == ["one"]
