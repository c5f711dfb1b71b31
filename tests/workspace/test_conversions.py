"""The edit loop converts a server's answer again only when it or the file's text changed
(``Conversions``): the findings are those a fresh conversion makes, in every case."""

from __future__ import annotations

from pathlib import Path

from adecore_lsp.workspace.disk.units import Conversions, Paths, Texts, diagnostics_of


def item(line: int, character: int, message: str = "m") -> dict[str, object]:
    position = {"line": line, "character": character}
    return {"range": {"start": position, "end": position}, "message": message, "severity": 2}


def test_an_answer_is_converted_again_only_when_it_or_the_text_changed(tmp_path: Path) -> None:
    current = {"uri": "é = 1\nx = 2\n"}
    paths = Paths(tmp_path)
    uri = paths.uri(tmp_path / "a.py")
    texts = Texts(lambda asked: current["uri"] if asked == uri else None)
    conversions = Conversions()

    def both(items: list[object], stale: bool = False) -> list[object]:
        kept = conversions.diagnostics_of(paths, texts, uri, items, "utf-16", "srv", stale)
        fresh = diagnostics_of(paths, texts, uri, items, "utf-16", "srv", stale)
        assert kept == fresh  # whatever was reused, the findings of a fresh conversion
        return list(kept)

    first = both([item(0, 3), item(1, 0)])
    assert [(d.line, d.column) for d in first] == [(1, 4), (2, 1)]
    # The same answer (equal, not the same list) for the same text: the same findings.
    again = both([item(0, 3), item(1, 0)])
    assert [a is b for a, b in zip(again, first, strict=True)] == [True, True]
    # Another text: the same positions read again (a code point fewer before column 3).
    current["uri"] = "e = 1\nx = 2\n"
    assert [(d.line, d.column) for d in both([item(0, 3), item(1, 0)])] == [(1, 4), (2, 1)]
    current["uri"] = "😀é = 1\nx = 2\n"
    assert [(d.line, d.column) for d in both([item(0, 3), item(1, 0)])] == [(1, 3), (2, 1)]
    # Another answer, or the same one gone stale: converted again.
    assert [d.message for d in both([item(1, 0, "other")])] == ["other"]
    assert [d.stale for d in both([item(1, 0, "other")], stale=True)] == [True]
    # An answer changed in place after it was converted is not taken for the last one.
    answer: list[object] = [item(0, 0)]
    both(answer)
    answer.append(item(1, 1))
    assert len(both(answer)) == 2
