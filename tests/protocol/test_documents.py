"""TextDocument, apply_changes, minimal_change and DocumentStore."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adecore_lsp.protocol.documents import documents, textdiff
from adecore_lsp.protocol.documents.documents import (
    DocumentStore,
    TextDocument,
    apply_changes,
    did_change_params,
    did_close_params,
    did_open_params,
    did_save_params,
    minimal_change,
    will_save_params,
)
from adecore_lsp.protocol.documents.positions import KNOWN_ENCODINGS, LineIndex

from .test_positions import PIECES, naive_offset, naive_position

ENCODINGS = list(KNOWN_ENCODINGS)
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
encodings = st.sampled_from(ENCODINGS)


def pos(line: int, character: int) -> dict[str, int]:
    """An LSP position."""
    return {"line": line, "character": character}


def rng(start: tuple[int, int], end: tuple[int, int]) -> dict[str, Any]:
    """An LSP range from two (line, character) pairs."""
    return {"start": pos(*start), "end": pos(*end)}


def naive_apply(text: str, changes: list[dict[str, Any]], encoding: str) -> str:
    """Apply change events with the reference position conversion, one after another."""
    for change in changes:
        if "range" not in change:
            text = change["text"]
            continue
        start = change["range"]["start"]
        end = change["range"]["end"]
        a = naive_offset(text, start["line"], start["character"], encoding)
        b = naive_offset(text, end["line"], end["character"], encoding)
        text = text[:a] + change["text"] + text[b:]
    return text


def common_affixes(old: str, new: str) -> tuple[int, int]:
    """The longest common prefix, then the longest common suffix not overlapping it."""
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < min(len(old), len(new)) - prefix
        and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]
    ):
        suffix += 1
    return prefix, suffix


# -- TextDocument ----------------------------------------------------------------------------


def test_text_document_attributes_are_read_only() -> None:
    """A document shows uri, language_id, version, text and encoding, and none can be set."""
    document = TextDocument("file:///a.py", "python", 3, "x = 1\n", "utf-8")
    assert (document.uri, document.language_id, document.version) == ("file:///a.py", "python", 3)
    assert (document.text, document.encoding) == ("x = 1\n", "utf-8")
    for name in ("uri", "language_id", "version", "text", "encoding"):
        with pytest.raises(AttributeError):
            setattr(document, name, None)
    assert "file:///a.py" in repr(document)
    assert "v3" in repr(document)


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((1, "python", 1, ""), TypeError),
        (("u", None, 1, ""), TypeError),
        (("u", "python", "1", ""), TypeError),
        (("u", "python", True, ""), TypeError),
        (("u", "python", 1, b""), TypeError),
        (("u", "python", 1, "", "utf-7"), ValueError),
    ],
)
def test_text_document_checks_its_arguments(args: tuple[Any, ...], error: type[Exception]) -> None:
    """A document refuses values of the wrong type and unknown encodings."""
    with pytest.raises(error):
        TextDocument(*args)


@pytest.mark.parametrize(("encoding", "column"), [("utf-16", 3), ("utf-8", 5), ("utf-32", 2)])
def test_text_document_converts_in_its_encoding(encoding: str, column: int) -> None:
    """offset_at and position_at use the document's encoding."""
    document = TextDocument("u", "text", 1, "\na😀b", encoding)
    assert document.position_at(3) == pos(1, column)
    assert document.offset_at(pos(1, column)) == 3
    assert document.range_at(1, 3) == rng((1, 0), (1, column))
    assert document.offsets_of(rng((1, 0), (1, column))) == (1, 3)


def test_replace_invalidates_the_line_index() -> None:
    """After the text is replaced, positions describe the new text, not a cached index."""
    document = TextDocument("u", "text", 1, "abc\ndef")
    assert document.position_at(5) == pos(1, 1)
    document._replace("\n\nabcdef", 2)
    assert document.position_at(5) == pos(2, 3)
    assert document.version == 2


# -- apply_changes ---------------------------------------------------------------------------


def test_full_text_event_replaces_everything() -> None:
    """An event with text alone replaces the whole document."""
    assert apply_changes("old\ntext", [{"text": "new"}]) == "new"


def test_events_apply_in_order_each_against_the_previous_text() -> None:
    """The second event's range refers to the text the first one left."""
    changes = [
        {"range": rng((0, 0), (0, 0)), "text": "line0\n"},  # "line0\nabc\ndef"
        {"range": rng((1, 1), (1, 2)), "text": "B"},  # line 1 is now "abc"
        {"range": rng((2, 0), (2, 3)), "text": "D"},
    ]
    assert apply_changes("abc\ndef", changes) == "line0\naBc\nD"


def test_full_then_range_events() -> None:
    """A range event after a full-text event applies to that new text."""
    changes: list[dict[str, Any]] = [
        {"text": "one\ntwo"},
        {"range": rng((1, 0), (1, 3)), "text": "2"},
    ]
    assert apply_changes("zzz", changes) == "one\n2"


@pytest.mark.parametrize(
    ("encoding", "expected"), [("utf-16", "a😀X"), ("utf-8", "aXb"), ("utf-32", "a😀bX")]
)
def test_apply_uses_the_encoding(encoding: str, expected: str) -> None:
    """The same range means different characters in different encodings."""
    change = {"range": rng((0, 3), (0, 5)), "text": "X"}
    assert apply_changes("a😀b", [change], encoding) == expected


def test_range_length_is_ignored() -> None:
    """The deprecated rangeLength does not change what is replaced."""
    change = {"range": rng((0, 1), (0, 2)), "rangeLength": 99, "text": "X"}
    assert apply_changes("abc", [change]) == "aXc"


def test_apply_clamps_positions() -> None:
    """Positions past the line end or past the last line clamp as LSP says."""
    changes = [
        {"range": rng((0, 99), (0, 120)), "text": "!"},
        {"range": rng((7, 0), (9, 9)), "text": "?"},
    ]
    assert apply_changes("ab\r\ncd", changes) == "ab!\r\ncd?"


def test_apply_does_not_change_the_document() -> None:
    """apply_changes on a document returns a new text and leaves the document alone."""
    document = TextDocument("u", "text", 1, "a\nb\nc")
    assert document.position_at(4) == pos(2, 0)  # build the index
    changes = [
        {"range": rng((0, 0), (1, 0)), "text": ""},
        {"range": rng((0, 0), (0, 0)), "text": "x\n\n"},
    ]
    assert apply_changes(document, changes) == "x\n\nb\nc"
    assert document.text == "a\nb\nc"
    assert document.position_at(4) == pos(2, 0)
    assert apply_changes(document, [changes[0]]) == "b\nc"
    assert document.position_at(2) == pos(1, 0)


def test_apply_takes_the_document_encoding() -> None:
    """Without an encoding, a document's own encoding is used; a str's is utf-16."""
    change = {"range": rng((0, 3), (0, 4)), "text": "X"}
    # utf-8: both ends fall inside the 4 bytes of 😀 and round to its start.
    assert apply_changes(TextDocument("u", "t", 1, "é😀b", "utf-8"), [change]) == "éX😀b"
    assert apply_changes("é😀b", [change]) == "é😀X"


@pytest.mark.parametrize(
    "changes",
    [
        "text",
        {"text": "x"},
        [None],
        [{}],
        [{"text": None}],
        [{"text": 1}],
        [{"range": None, "text": "x"}],
        [{"range": {"start": pos(0, 0)}, "text": "x"}],
        [{"range": rng((0, 2), (0, 1)), "text": "x"}],
        [{"range": rng((1, 0), (0, 9)), "text": "x"}],
        [{"range": {"start": pos(0, 0), "end": {"line": 0, "character": 1.5}}, "text": "x"}],
        [{"range": rng((0, 0), (0, 1)), "text": "ok"}, {"range": rng((0, 1), (0, 0)), "text": ""}],
    ],
)
def test_malformed_changes_raise_value_error(changes: Any) -> None:
    """Malformed events and reversed ranges raise ValueError naming the problem."""
    with pytest.raises(ValueError, match=r"change|range"):
        apply_changes("abc", changes)


def test_apply_rejects_other_targets() -> None:
    """apply_changes takes a TextDocument or a str."""
    with pytest.raises(TypeError, match="TextDocument or a str"):
        apply_changes(b"abc", [])  # type: ignore[arg-type]


def change_events(text_count: int) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Range events with arbitrary (also out-of-range) positions, and some full-text ones."""
    position = st.builds(pos, st.integers(-1, 6), st.integers(-1, 12))
    ranged = st.tuples(position, position, texts).map(
        lambda t: {
            "range": {
                "start": min(t[0], t[1], key=lambda p: (p["line"], p["character"])),
                "end": max(t[0], t[1], key=lambda p: (p["line"], p["character"])),
            },
            "text": t[2],
        }
    )
    full = texts.map(lambda t: {"text": t})
    return st.lists(st.one_of(ranged, ranged, ranged, full), max_size=text_count)


@given(texts, change_events(6), encodings)
def test_apply_matches_the_reference(
    text: str, changes: list[dict[str, Any]], encoding: str
) -> None:
    """Sequences of events give the text the reference conversion gives, in every encoding."""
    assert apply_changes(text, changes, encoding) == naive_apply(text, changes, encoding)
    document = TextDocument("u", "t", 1, text, encoding)
    document.position_at(0)
    assert apply_changes(document, changes) == naive_apply(text, changes, encoding)
    assert document.text == text


# -- minimal_change --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "range_", "text"),
    [
        ("hello world", "hello big world", ((0, 6), (0, 6)), "big "),
        ("hello big world", "hello world", ((0, 6), (0, 10)), ""),
        ("abc\ndef", "abc\ndXf", ((1, 1), (1, 2)), "X"),
        ("same", "same", ((0, 4), (0, 4)), ""),
        ("", "new\n", ((0, 0), (0, 0)), "new\n"),
        ("a😀b", "a😀cb", ((0, 3), (0, 3)), "c"),  # utf-16: after the pair
        # An insertion between "\r" and "\n" takes both in.
        ("a\r\nb", "a\rX\nb", ((0, 1), (1, 0)), "\rX\n"),
        # Deleting the "\n" of "\r\n": the start would fall between them; take the "\r" in.
        ("a\r\nb", "a\rb", ((0, 1), (1, 0)), "\r"),
        # Deleting the "\r" of "\r\n": the end would fall between them; take the "\n" in.
        ("a\r\nb", "a\nb", ((0, 1), (1, 0)), "\n"),
        # Adding "\n" after a lone "\r" is fine: the start is the start of line 1.
        ("a\rb", "a\r\nb", ((1, 0), (1, 0)), "\n"),
        ("a\nb", "a\r\nb", ((0, 1), (0, 1)), "\r"),
    ],
)
def test_minimal_change_cases(
    old: str, new: str, range_: tuple[tuple[int, int], tuple[int, int]], text: str
) -> None:
    """The change covers just the differing span, widened only to keep \\r\\n whole."""
    change = minimal_change(old, new)
    assert change == {"range": rng(*range_), "text": text}
    assert apply_changes(old, [change]) == new


@pytest.mark.parametrize(("encoding", "column"), [("utf-16", 3), ("utf-8", 5), ("utf-32", 2)])
def test_minimal_change_uses_the_encoding(encoding: str, column: int) -> None:
    """The range is expressed in the requested encoding, against the old text."""
    change = minimal_change("a😀b", "a😀Xb", None, encoding)
    assert change["range"] == rng((0, column), (0, column))
    index = LineIndex("a😀b", encoding)
    assert minimal_change("a😀b", "a😀Xb", index) == change


def test_minimal_change_checks_the_index() -> None:
    """An index of another text is refused, as its positions would be wrong."""
    with pytest.raises(ValueError, match="old text"):
        minimal_change("abc", "abd", LineIndex("xyz"))


def test_minimal_change_in_long_texts() -> None:
    """Texts longer than one comparison block find the exact difference at any distance."""
    old = "".join(f"line {n} é\n" for n in range(20_000))
    for where in (0, 1, 32_767, 32_768, 65_537, len(old) // 2, len(old) - 1, len(old)):
        new = old[:where] + "X" + old[where:]
        change = minimal_change(old, new)
        assert change["text"] == "X"
        assert change["range"]["start"] == change["range"]["end"]
        assert LineIndex(old).offset_at(change["range"]["start"]) == where
        assert apply_changes(old, [change]) == new


@st.composite
def text_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """An old text, and a new one: unrelated, or edited near any point (\\r\\n included)."""
    old = draw(texts)
    if draw(st.booleans()):
        return old, draw(texts)
    new = old
    for _ in range(draw(st.integers(1, 3))):
        start = draw(st.integers(0, len(new)))
        end = draw(st.integers(start, min(len(new), start + 3)))
        new = new[:start] + draw(texts) + new[end:]
    return old, new


@given(text_pairs(), encodings)
def test_minimal_change_applies_and_is_minimal(pair: tuple[str, str], encoding: str) -> None:
    """Applying the change to the old text gives the new; its span is the differing one."""
    old, new = pair
    change = minimal_change(old, new, None, encoding)
    assert naive_apply(old, [change], encoding) == new
    start = naive_offset(
        old, change["range"]["start"]["line"], change["range"]["start"]["character"], encoding
    )
    end = naive_offset(
        old, change["range"]["end"]["line"], change["range"]["end"]["character"], encoding
    )
    prefix, suffix = common_affixes(old, new)
    # The only widening allowed: one character at an end that would split "\r\n".
    widened_start = prefix - start
    widened_end = end - (len(old) - suffix)
    assert widened_start in (0, 1)
    assert widened_end in (0, 1)
    if widened_start:
        assert old[prefix - 1 : prefix + 1] == "\r\n"
    if widened_end:
        assert old[end - 2 : end] == "\r\n"
    assert change["text"] == new[start : len(new) - (len(old) - end)]


# -- DocumentStore ---------------------------------------------------------------------------


def edit(start: tuple[int, int], end: tuple[int, int], text: str) -> dict[str, Any]:
    """A range change event."""
    return {"range": rng(start, end), "text": text}


def test_open_gives_version_one_and_stores_the_document() -> None:
    """A new URI opens at version 1 and is found by URI."""
    store = DocumentStore()
    document = store.open("file:///a.py", "python", "x = 1\n", "utf-8")
    assert document.version == 1
    assert document.encoding == "utf-8"
    assert store["file:///a.py"] is document
    assert store.get("file:///a.py") is document
    assert store.get("file:///b.py") is None
    assert "file:///a.py" in store
    assert "file:///b.py" not in store
    assert len(store) == 1
    assert list(store) == ["file:///a.py"]
    assert dict(store.items()) == {"file:///a.py": document}
    assert "1 open" in repr(store)


def test_versions_grow_across_close_and_reopen() -> None:
    """Versions strictly increase per URI for the whole session, also after a reopen."""
    store = DocumentStore()
    seen = [store.open("u", "t", "a").version]
    seen.append(store.change("u", "ab")[0].version)
    seen.append(store.change("u", edits=[edit((0, 0), (0, 0), "x")])[0].version)
    closed = store.close("u")
    assert closed.version == seen[-1]
    assert store.last_version("u") == seen[-1]
    assert "u" not in store
    seen.append(store.open("u", "t", "again").version)
    seen.append(store.change("u", "again!", sync_kind=0)[0].version)
    seen.append(store.change("u", "again!?", sync_kind=1)[0].version)
    assert seen == sorted(set(seen))
    assert seen[0] == 1
    assert store.last_version("never") is None


def test_explicit_versions_must_grow() -> None:
    """A version given by the caller is used only if it is past the last one."""
    store = DocumentStore()
    assert store.open("u", "t", "a", version=10).version == 10
    assert store.change("u", "b", version=12)[0].version == 12
    with pytest.raises(ValueError, match="must grow"):
        store.change("u", "c", version=12)
    store.close("u")
    with pytest.raises(ValueError, match="must grow"):
        store.open("u", "t", "a", version=3)
    assert "u" not in store
    with pytest.raises(TypeError, match="version"):
        store.open("u", "t", "a", version=13.0)  # type: ignore[arg-type]
    assert store.open("u", "t", "a").version == 13


def test_double_open_and_unknown_documents_raise() -> None:
    """Opening twice, or changing or closing a document that is not open, raises."""
    store = DocumentStore()
    store.open("u", "t", "a")
    with pytest.raises(ValueError, match="already open"):
        store.open("u", "t", "b")
    assert store["u"].text == "a"
    store.close("u")
    with pytest.raises(ValueError, match="not open"):
        store.change("u", "x")
    with pytest.raises(ValueError, match="not open"):
        store.close("u")
    with pytest.raises(ValueError, match="not open"):
        store.change("other", edits=[])


def test_change_needs_exactly_one_of_text_and_edits() -> None:
    """change() with both or neither of text and edits is a TypeError."""
    store = DocumentStore()
    store.open("u", "t", "a")
    with pytest.raises(TypeError, match="not both or neither"):
        store.change("u")
    with pytest.raises(TypeError, match="not both or neither"):
        store.change("u", "b", edits=[])
    with pytest.raises(TypeError, match="str"):
        store.change("u", b"b")  # type: ignore[arg-type]
    assert store["u"].version == 1


@pytest.mark.parametrize("kind", [3, -1, True, None, "2"])
def test_unknown_sync_kind(kind: Any) -> None:
    """A sync kind other than 0, 1 or 2 raises before anything changes."""
    store = DocumentStore()
    store.open("u", "t", "a")
    with pytest.raises(ValueError, match="sync_kind"):
        store.change("u", "b", sync_kind=kind)
    assert (store["u"].text, store["u"].version) == ("a", 1)


def test_incremental_text_change_sends_the_minimal_edit() -> None:
    """Sync kind 2 with a new text sends the smallest single edit against the old text."""
    store = DocumentStore()
    store.open("u", "python", "def f():\n    return 1\n")
    document, changes = store.change("u", "def f():\n    return 42\n")
    assert changes == [edit((1, 11), (1, 12), "42")]
    assert document.text == "def f():\n    return 42\n"
    assert document.version == 2


def test_full_sync_sends_the_text() -> None:
    """Sync kind 1 sends the whole new text, for text and for edits alike."""
    store = DocumentStore()
    store.open("u", "t", "abc")
    assert store.change("u", "abd", sync_kind=1)[1] == [{"text": "abd"}]
    assert store.change("u", edits=[edit((0, 0), (0, 1), "X")], sync_kind=1)[1] == [{"text": "Xbd"}]
    store["u"].position_at(0)  # with an index built, the text path keeps it current
    assert store.change("u", "Xbd\nnew", sync_kind=1)[1] == [{"text": "Xbd\nnew"}]
    assert store["u"].position_at(5) == pos(1, 1)


def test_no_sync_sends_nothing_but_updates() -> None:
    """Sync kind 0 sends nothing, yet the text and version change."""
    store = DocumentStore()
    store.open("u", "t", "abc")
    document, changes = store.change("u", "xyz", sync_kind=0)
    assert changes == []
    assert (document.text, document.version) == ("xyz", 2)
    document, changes = store.change("u", edits=[edit((0, 0), (0, 1), "")], sync_kind=0)
    assert changes == []
    assert (document.text, document.version) == ("yz", 3)


@pytest.mark.parametrize("kind", [0, 1, 2])
def test_unchanged_text_sends_nothing_and_keeps_the_version(kind: int) -> None:
    """The same text, or an empty list of edits, is no change: no new version, nothing sent."""
    store = DocumentStore()
    store.open("u", "t", "abc")
    assert store.change("u", "abc", sync_kind=kind) == (store["u"], [])
    assert store.change("u", edits=[], sync_kind=kind) == (store["u"], [])
    assert store["u"].version == 1


def test_edits_are_sent_with_clamped_ranges() -> None:
    """Edits are applied in order and sent with ranges written from the offsets applied."""
    store = DocumentStore()
    store.open("u", "t", "ab\ncd", "utf-16")
    edits: list[dict[str, Any]] = [
        {"range": rng((0, 9), (1, 0)), "rangeLength": 1, "text": " "},  # join the lines
        {"range": rng((0, -3), (0, 1)), "text": "A"},
        {"text": "fresh\n"},
        {"range": rng((5, 5), (5, 5)), "text": "end"},
    ]
    document, changes = store.change("u", edits=edits)
    assert document.text == "fresh\nend"
    assert changes == [
        edit((0, 2), (1, 0), " "),
        edit((0, 0), (0, 1), "A"),
        {"text": "fresh\n"},
        edit((1, 0), (1, 0), "end"),
    ]
    assert changes[0] is not edits[0]


def test_malformed_edits_change_nothing() -> None:
    """A bad event anywhere in the list raises before any event is applied."""
    store = DocumentStore()
    store.open("u", "t", "abc")
    store["u"].position_at(1)
    with pytest.raises(ValueError, match="change 1"):
        store.change("u", edits=[edit((0, 0), (0, 1), "X"), {"range": "bad", "text": ""}])
    assert (store["u"].text, store["u"].version) == ("abc", 1)
    assert store["u"].position_at(3) == pos(0, 3)


def test_notification_params() -> None:
    """The params of didOpen, didChange, willSave, didSave and didClose."""
    store = DocumentStore()
    document = store.open("file:///a.py", "python", "x")
    assert did_open_params(document) == {
        "textDocument": {"uri": "file:///a.py", "languageId": "python", "version": 1, "text": "x"}
    }
    document, changes = store.change("file:///a.py", "xy")
    assert did_change_params(document, changes) == {
        "textDocument": {"uri": "file:///a.py", "version": 2},
        "contentChanges": [edit((0, 1), (0, 1), "y")],
    }
    assert will_save_params(document) == {"textDocument": {"uri": "file:///a.py"}, "reason": 1}
    assert did_save_params(document) == {"textDocument": {"uri": "file:///a.py"}}
    assert did_save_params(document, include_text=True) == {
        "textDocument": {"uri": "file:///a.py"},
        "text": "xy",
    }
    assert did_close_params(document) == {"textDocument": {"uri": "file:///a.py"}}


@st.composite
def store_steps(draw: st.DrawFn) -> list[tuple[str, Any]]:
    """A run of changes: new texts (often small edits of the last) and lists of edits."""
    steps: list[tuple[str, Any]] = []
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.booleans()):
            steps.append(("edits", draw(change_events(3))))
        else:
            steps.append(("text", draw(text_pairs())[1] if draw(st.booleans()) else None))
    return steps


@pytest.mark.parametrize("block", [None, 1, 3])
@given(texts, store_steps(), encodings, st.data())
def test_a_server_mirror_stays_in_step(
    block: int | None, text: str, steps: list[tuple[str, Any]], encoding: str, data: st.DataObject
) -> None:
    """A server applying what the store sends keeps the same text, at every step and kind.

    With ``block`` set, every text is large enough to be compared through blocks that small.
    """
    with pytest.MonkeyPatch.context() as patch:
        if block is not None:
            patch.setattr(textdiff, "_BLOCK", block)
            patch.setattr(documents, "BLOCKS_FROM", 0)
        mirror_run(text, steps, encoding, data)


def mirror_run(text: str, steps: list[tuple[str, Any]], encoding: str, data: st.DataObject) -> None:
    """Open ``text``, run the steps, and check the mirror and positions after each."""
    store = DocumentStore()
    document = store.open("u", "t", text, encoding)
    mirror = text
    version = document.version
    for kind, value in steps:
        if kind == "edits":
            expected = naive_apply(document.text, value, encoding)
            document, changes = store.change("u", edits=value)
        else:
            if value is None:  # type at a random spot, next to "\r\n" or not
                where = data.draw(st.integers(0, len(document.text)))
                value = (
                    document.text[:where]
                    + data.draw(st.sampled_from(PIECES))
                    + document.text[where:]
                )
            expected = value
            document, changes = store.change("u", value)
        mirror = naive_apply(mirror, changes, encoding)
        assert document.text == expected
        assert mirror == expected
        assert document.version > version or not changes
        version = document.version
        # The index kept up to date through the edits answers like the reference.
        for offset in range(len(expected) + 1):
            assert document.position_at(offset) == naive_position(expected, offset, encoding)


@given(text_pairs(), st.integers(1, 6))
def test_blocks_find_the_same_change(pair: tuple[str, str], block: int) -> None:
    """Comparing through blocks gives the same span as slicing, and blocks follow the edit."""
    old, new = pair
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(textdiff, "_BLOCK", block)
        blocks = textdiff.Blocks(old)
        assert "".join(blocks.blocks) == old
        span = textdiff.diff(old, new, blocks)
        assert span == textdiff.diff(old, new)
        blocks.replace(*span[:2], new, span[2])
        assert "".join(blocks.blocks) == new
        assert all(0 < len(part) <= 2 * block for part in blocks.blocks)


@pytest.mark.parametrize("tail", ["", "é", "😀"])
def test_typing_into_a_large_document(tail: str) -> None:
    """In a text of many blocks (ASCII ones among wider ones too) each keystroke is found."""
    text = "".join(f"    value_{n} = compute({n})\r\n" for n in range(6_000)) + tail
    store = DocumentStore()
    store.open("u", "python", text)
    mirror = text
    for where in (0, 17, len(text) // 3, len(text) // 3 + 1, len(text) - 1, len(text) + 1):
        new = text[:where] + "x" + text[where:]
        document, changes = store.change("u", new)
        assert document._blocks is not None
        assert len(changes) == 1
        assert changes[0]["text"] == "x"
        mirror = apply_changes(mirror, changes)
        assert mirror == new
        text = new
    document, changes = store.change("u", text[:100] + text[50_000:])
    assert apply_changes(mirror, changes) == document.text
    assert "".join(document._blocks.blocks) == document.text  # type: ignore[union-attr]
