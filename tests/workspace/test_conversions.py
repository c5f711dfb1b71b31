"""The edit loop converts a server's answer again only when it or the file's text changed
(``Conversions``): the findings are those a fresh conversion makes, in every case."""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from adecore_lsp import Diagnostic
from adecore_lsp.workspace.disk.units import (
    Conversions,
    Paths,
    Texts,
    diagnostics_of,
    people_range,
)


def item(line: int, character: int, message: str = "m") -> dict[str, object]:
    position = {"line": line, "character": character}
    return {"range": {"start": position, "end": position}, "message": message, "severity": 2}


def test_an_answer_is_converted_again_only_when_it_or_the_text_changed(tmp_path: Path) -> None:
    current = {"uri": "é = 1\nx = 2\n"}
    paths = Paths(tmp_path)
    uri = paths.uri(tmp_path / "a.py")
    texts = Texts(lambda asked: current["uri"] if asked == uri else None)
    conversions = Conversions()

    def both(items: list[object], stale: bool = False) -> list[Diagnostic]:
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


# -- the inline reading of ranges -------------------------------------------------------------

# Mostly the shape servers send (whole numbers about the text's lines), and the odd ones.
_any: st.SearchStrategy[object] = st.one_of(
    st.integers(min_value=-2, max_value=12), st.booleans(), st.floats(0, 3), st.none()
)
_good = st.fixed_dictionaries(
    {"line": st.integers(min_value=0, max_value=7), "character": st.integers(0, 12)}
)
_odd: st.SearchStrategy[object] = st.one_of(
    st.fixed_dictionaries({"line": _any, "character": _any}),
    st.fixed_dictionaries({"line": _any}),
    st.just("nowhere"),
)
_edge = st.fixed_dictionaries(
    {"line": st.integers(min_value=-2, max_value=9), "character": st.integers(-2, 14)}
)
_range: st.SearchStrategy[object] = st.one_of(
    *[st.fixed_dictionaries({"start": _good, "end": _good})] * 4,
    *[st.fixed_dictionaries({"start": _edge, "end": _edge})] * 2,
    st.fixed_dictionaries({"start": _odd, "end": _good}),
    st.fixed_dictionaries({"start": _good, "end": _odd}),
    st.fixed_dictionaries({"start": _good}),
    st.none(),
    st.just([]),
)
_lines = st.lists(st.sampled_from(["", "ascii line", "é😀 x", "tab\there"]), max_size=6)


@settings(max_examples=300, deadline=None)
@example(
    lines=["ab", "cd"],
    breaks="\n",
    ranges=[{"start": {"line": -1, "character": 0}, "end": {"line": 1, "character": 1}}],
    encoding="utf-16",
)
@given(
    lines=_lines,
    breaks=st.sampled_from(["\n", "\r\n"]),
    ranges=st.lists(_range, max_size=8),
    encoding=st.sampled_from(["utf-8", "utf-16", "utf-32"]),
)
def test_every_range_is_read_as_people_range_reads_it(
    lines: list[str], breaks: str, ranges: list[object], encoding: str
) -> None:
    text = breaks.join(lines)
    root = Path("/nowhere")
    paths = Paths(root)
    uri = paths.uri(root / "a.py")
    texts = Texts(lambda asked: text)
    items: list[object] = [{"range": lsp_range, "message": "m"} for lsp_range in ranges]
    found = diagnostics_of(paths, texts, uri, items, encoding, "srv")  # type: ignore[arg-type]
    index = texts.index(uri)
    expected = [
        people_range(index, r if isinstance(r, dict) else {}, encoding)  # type: ignore[arg-type]
        for r in ranges
    ]
    assert [(d.line, d.column, d.end_line, d.end_column) for d in found] == expected
