"""The workspace-edit planner: every check, against a workspace held in memory."""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import PurePath, PurePosixPath
from typing import Any

import pytest

from adecore_lsp.protocol.documents.documents import TextDocument
from adecore_lsp.protocol.documents.uris import uri_to_path
from adecore_lsp.protocol.shapes.text_edits import apply_text_edits, text_edit_offsets
from adecore_lsp.protocol.shapes.workspace_edit import (
    CloseDocument,
    CreateFile,
    DeleteFile,
    EditPlan,
    Kind,
    OpenDocument,
    ParsedEdit,
    Refusal,
    RenameFile,
    WriteText,
    needs_confirmation,
    parse_edit,
    plan_edit,
)

P = PurePosixPath
W = "file:///w"


class MemoryView:
    """A workspace under /w: files, folders and symbolic links in dicts."""

    def __init__(
        self,
        files: dict[str, str] | None = None,
        folders: Collection[str] = (),
        links: dict[str, str] | None = None,
        unreadable: Collection[str] = (),
    ) -> None:
        self.files = {P(path): text for path, text in (files or {}).items()}
        self.folders = {P(path) for path in folders} | {P("/w")}
        for path in self.files:
            self.folders.update(path.parents)
        self.links = {P(link): P(target) for link, target in (links or {}).items()}
        self.unreadable = {P(path) for path in unreadable}
        self.reads: list[PurePath] = []

    def locate(self, uri: str, *, follow_links: bool) -> PurePath:
        found = uri_to_path(uri, windows=False)
        if found is None:
            raise ValueError(f"{uri} is not a file: URI")
        path = P(found)
        if follow_links:
            path = self.links.get(path, path)
        if P("/w") not in path.parents and path != P("/w"):
            raise ValueError(f"{uri} is outside the workspace")
        return path

    def kind(self, path: PurePath) -> Kind | None:
        if path in self.files or path in self.links:
            return "file"
        return "folder" if path in self.folders else None

    def read(self, path: PurePath) -> str:
        self.reads.append(path)
        if path in self.unreadable:
            raise ValueError("not UTF-8")
        return self.files[P(path)]

    def is_empty(self, path: PurePath) -> bool:
        everything = [*self.files, *self.folders, *self.links]
        return not any(path in other.parents for other in everything)

    def uri(self, path: PurePath) -> str:
        return f"file://{path}"


def doc(name: str, text: str, version: int = 3, encoding: str = "utf-16") -> TextDocument:
    return TextDocument(f"{W}/{name}", "python", version, text, encoding)


def plan(
    edit: Any,
    view: MemoryView | None = None,
    documents: Collection[TextDocument] = (),
    encoding: str = "utf-16",
    confirmed: Collection[str] | Callable[[str], bool] = (),
) -> EditPlan | Refusal:
    parsed = parse_edit(edit)
    if isinstance(parsed, Refusal):
        return parsed
    by_path: dict[PurePath, TextDocument] = {
        P(uri_to_path(d.uri, windows=False) or ""): d for d in documents
    }
    return plan_edit(parsed, view or MemoryView(), by_path, encoding, confirmed)


def applied(result: EditPlan | Refusal) -> EditPlan:
    assert isinstance(result, EditPlan), result
    return result


def refused(result: EditPlan | Refusal, words: str, change: int | None = 0) -> None:
    assert isinstance(result, Refusal), result
    assert words in result.reason
    assert result.failed_change == change


def pos(line: int, character: int) -> dict[str, int]:
    return {"line": line, "character": character}


def edit_(sl: int, sc: int, el: int, ec: int, new: str) -> dict[str, Any]:
    return {"range": {"start": pos(sl, sc), "end": pos(el, ec)}, "newText": new}


def text_edit(uri: str, edits: list[dict[str, Any]], version: int | None = None) -> Any:
    return {"textDocument": {"uri": uri, "version": version}, "edits": edits}


def written(result: EditPlan | Refusal) -> dict[PurePath, str]:
    return {op.path: op.text for op in applied(result).operations if isinstance(op, WriteText)}


# -- text edits ----------------------------------------------------------------------

TEXT = "alpha\nbeta\r\ngamma"


@pytest.mark.parametrize(
    ("edits", "expected"),
    [
        ([edit_(0, 0, 0, 5, "ALPHA")], "ALPHA\nbeta\r\ngamma"),
        # Inserts at one position appear in the order given.
        ([edit_(1, 0, 1, 0, "1"), edit_(1, 0, 1, 0, "2")], "alpha\n12beta\r\ngamma"),
        # Edits that touch are fine, in any order in the array.
        ([edit_(0, 2, 0, 5, "Y"), edit_(0, 0, 0, 2, "X")], "XY\nbeta\r\ngamma"),
        # An insert and a replace at one start: the insert comes first.
        ([edit_(2, 0, 2, 5, "G"), edit_(2, 0, 2, 0, ">")], "alpha\nbeta\r\n>G"),
        # A character past the end of its line means the line's end (before its break).
        ([edit_(1, 99, 1, 200, "!")], "alpha\nbeta!\r\ngamma"),
        ([edit_(2, 2, 2, 99, "")], "alpha\nbeta\r\nga"),
        # Each edit against the original: a sequential application would differ.
        ([edit_(0, 0, 1, 0, ""), edit_(1, 0, 1, 4, "B")], "B\r\ngamma"),
        ([], TEXT),
    ],
)
def test_text_edits_apply_against_the_original_text(
    edits: list[dict[str, Any]], expected: str
) -> None:
    view = MemoryView({"/w/a.txt": TEXT})
    result = plan({"changes": {f"{W}/a.txt": edits}}, view)
    assert written(result) == {P("/w/a.txt"): expected}


@pytest.mark.parametrize(
    ("edits", "words"),
    [
        ([edit_(0, 0, 0, 3, "x"), edit_(0, 2, 0, 4, "y")], "overlap"),
        ([edit_(0, 1, 0, 1, "x"), edit_(0, 0, 0, 3, "y")], "overlap"),
        ([edit_(3, 0, 3, 0, "x")], "reaches line 3; it has 3 lines"),
        ([edit_(2, 0, 5, 0, "x")], "reaches line 5"),
    ],
)
def test_overlapping_edits_and_lines_past_the_last_are_refused(
    edits: list[dict[str, Any]], words: str
) -> None:
    view = MemoryView({"/w/a.txt": TEXT})
    refused(plan({"changes": {f"{W}/a.txt": edits}}, view), words)


EMOJI = "x😀y\nz"


@pytest.mark.parametrize(
    ("encoding", "after_emoji"),
    [("utf-8", 5), ("utf-16", 3), ("utf-32", 2)],
)
def test_positions_are_in_the_negotiated_encoding(encoding: str, after_emoji: int) -> None:
    view = MemoryView({"/w/e.txt": EMOJI})
    edits = [edit_(0, after_emoji, 0, after_emoji + 1, "Y")]
    result = plan({"changes": {f"{W}/e.txt": edits}}, view, encoding=encoding)
    assert written(result) == {P("/w/e.txt"): "x😀Y\nz"}
    # And an open document uses the same encoding.
    document = doc("e.txt", EMOJI, encoding=encoding)
    result = plan({"changes": {f"{W}/e.txt": edits}}, view, [document], encoding)
    [operation] = applied(result).operations
    assert operation == WriteText(P("/w/e.txt"), "x😀Y\nz", document.uri, 0)


def test_apply_text_edits_directly() -> None:
    span = ((0, 1), (0, 3))
    assert apply_text_edits("abcd", [(span, "-")], "utf-16") == "a-d"
    assert apply_text_edits("abcd", [], "utf-16") == "abcd"


@pytest.mark.parametrize(
    ("encoding", "after_emoji"),
    [("utf-8", 5), ("utf-16", 3), ("utf-32", 2)],
)
def test_a_write_carries_its_edits_in_code_points(encoding: str, after_emoji: int) -> None:
    """What the rule of changes.py carries findings through: each edit as code points of the
    text before it, in the order they apply (inserts at one place as given)."""
    view = MemoryView({"/w/e.txt": EMOJI})
    edits = [
        edit_(1, 0, 1, 1, "Z"),
        edit_(0, after_emoji, 0, after_emoji + 1, "Y"),
        edit_(0, 0, 0, 0, "1"),
        edit_(0, 0, 0, 0, "2"),
    ]
    result = plan({"changes": {f"{W}/e.txt": edits}}, view, encoding=encoding)
    [operation] = applied(result).operations
    assert isinstance(operation, WriteText)
    assert operation.text == "12x😀Y\nZ"
    assert operation.edits == ((0, 0, "1"), (0, 0, "2"), (2, 3, "Y"), (4, 5, "Z"))
    assert text_edit_offsets(EMOJI, [], "utf-16") == ()


def test_the_merged_edits_of_two_names_are_not_carried() -> None:
    """A link and its target edited in one edit: the second write's text comes from both
    names' edits merged, not from the edits of its change alone, so it carries none."""
    view = MemoryView({"/w/real.txt": "one\ntwo\n"}, links={"/w/link.txt": "/w/real.txt"})
    both = {
        "documentChanges": [
            text_edit(f"{W}/real.txt", [edit_(0, 0, 0, 3, "ONE")]),
            text_edit(f"{W}/link.txt", [edit_(1, 0, 1, 3, "TWO")]),
        ]
    }
    first, second = applied(plan(both, view)).operations
    assert isinstance(first, WriteText)
    assert isinstance(second, WriteText)
    assert first.edits == ((0, 3, "ONE"),)
    assert second.text == "ONE\nTWO\n"
    assert second.edits is None


# -- versions and existence ----------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "open_", "words"),
    [
        (3, True, None),
        (None, True, None),
        (None, False, None),
        (2, True, "is at version 3, the edit is for version 2"),
        (3, False, "is not open: the edit is for version 3"),
    ],
)
def test_versions(version: int | None, open_: bool, words: str | None) -> None:
    view = MemoryView({"/w/a.py": "on disk\n"})
    documents = [doc("a.py", "in memory\n")] if open_ else []
    change = text_edit(f"{W}/a.py", [edit_(0, 0, 0, 2, "IN")], version)
    result = plan({"documentChanges": [change]}, view, documents)
    if words is not None:
        refused(result, words)
        return
    [operation] = applied(result).operations
    assert operation.text == ("IN memory\n" if open_ else "IN disk\n")  # type: ignore[union-attr]
    assert operation.document == (f"{W}/a.py" if open_ else None)  # type: ignore[union-attr]
    # An open document is never read from disk.
    assert view.reads == ([] if open_ else [P("/w/a.py")])


def test_files_to_edit_must_exist_or_be_created_earlier() -> None:
    view = MemoryView({"/w/a.txt": "a"}, folders=["/w/dir"])
    edit = [edit_(0, 0, 0, 0, "x")]
    refused(plan({"changes": {f"{W}/new.txt": edit}}, view), "does not exist")
    refused(plan({"changes": {f"{W}/dir": edit}}, view), "is a folder")
    created = plan(
        {
            "documentChanges": [
                {"kind": "create", "uri": f"{W}/new.txt"},
                text_edit(f"{W}/new.txt", edit),
            ]
        },
        view,
    )
    assert applied(created).operations == (
        CreateFile(P("/w/new.txt"), (), False, 0),
        WriteText(P("/w/new.txt"), "x", None, 1),
    )
    # The file that was created is never read: it is empty.
    assert view.reads == []


def test_an_unreadable_file_or_a_refused_uri_is_refused() -> None:
    view = MemoryView({"/w/bin": "?"}, unreadable=["/w/bin"])
    edit = [edit_(0, 0, 0, 0, "x")]
    refused(plan({"changes": {f"{W}/bin": edit}}, view), "cannot read /w/bin: not UTF-8")
    refused(plan({"changes": {"file:///etc/passwd": edit}}, view), "outside the workspace")
    refused(plan({"changes": {"untitled:1": edit}}, view), "not a file: URI")


def test_a_link_is_edited_through_but_renamed_itself() -> None:
    view = MemoryView({"/w/real.txt": "abc"}, links={"/w/link.txt": "/w/real.txt"})
    result = plan({"changes": {f"{W}/link.txt": [edit_(0, 0, 0, 1, "A")]}}, view)
    assert written(result) == {P("/w/real.txt"): "Abc"}
    rename = {"kind": "rename", "oldUri": f"{W}/link.txt", "newUri": f"{W}/moved.txt"}
    [operation] = applied(plan({"documentChanges": [rename]}, view)).operations
    assert operation == RenameFile(P("/w/link.txt"), P("/w/moved.txt"), (), False, 0)


def test_several_changes_to_one_file_build_on_each_other() -> None:
    view = MemoryView({"/w/a.txt": "one"})
    first = text_edit(f"{W}/a.txt", [edit_(0, 0, 0, 0, ">")])
    second = text_edit(f"{W}/a.txt", [edit_(0, 4, 0, 4, "<")])
    result = applied(plan({"documentChanges": [first, second]}, view))
    assert [op.text for op in result.operations] == [">one", ">one<"]  # type: ignore[union-attr]
    assert view.reads == [P("/w/a.txt")]


def test_two_names_of_one_file_are_merged_against_the_text_both_saw() -> None:
    """A link and its target edited in one edit: the second name's edits are about the text
    before the first name's (a sequential application would shift them), an edit both give
    counts once, and the file gets every edit."""
    view = MemoryView({"/w/real.txt": "one\ntwo\n"}, links={"/w/link.txt": "/w/real.txt"})
    both = {
        "documentChanges": [
            text_edit(f"{W}/real.txt", [edit_(0, 0, 1, 0, ""), edit_(1, 3, 1, 3, "!")]),
            text_edit(f"{W}/link.txt", [edit_(1, 3, 1, 3, "!"), edit_(1, 0, 1, 0, ">")]),
        ]
    }
    result = applied(plan(both, view))
    assert [op.text for op in result.operations] == ["two!\n", ">two!\n"]  # type: ignore[union-attr]
    assert view.reads == [P("/w/real.txt")]


@pytest.mark.parametrize(
    ("changes", "words", "failed"),
    [
        # The two names' edits overlap: neither may be dropped.
        (
            [("real", [edit_(0, 0, 0, 3, "ONE")]), ("link", [edit_(0, 1, 0, 2, "N")])],
            "and their edits cannot be put together: edits of",
            1,
        ),
        # One name in two steps, then the other: which text the other's are about is lost.
        (
            [
                ("real", [edit_(0, 0, 0, 0, ">")]),
                ("real", [edit_(0, 0, 0, 0, ">")]),
                ("link", [edit_(1, 0, 1, 0, "<")]),
            ],
            "edited in several steps",
            2,
        ),
        # Merged, then edited again under either name.
        (
            [
                ("real", [edit_(0, 0, 0, 0, ">")]),
                ("link", [edit_(1, 0, 1, 0, "<")]),
                ("link", [edit_(0, 0, 0, 0, "+")]),
            ],
            "edited in several steps",
            2,
        ),
    ],
)
def test_two_names_whose_edits_cannot_be_merged_are_refused_naming_both(
    changes: list[tuple[str, list[dict[str, Any]]]], words: str, failed: int
) -> None:
    view = MemoryView({"/w/real.txt": "one\ntwo\n"}, links={"/w/link.txt": "/w/real.txt"})
    edit = {"documentChanges": [text_edit(f"{W}/{name}.txt", e) for name, e in changes]}
    result = plan(edit, view)
    refused(result, f"{W}/real.txt and {W}/link.txt are one file", failed)
    refused(result, words, failed)


def test_a_name_renamed_away_starts_afresh() -> None:
    """What a path's names did is forgotten when it is renamed: a later edit at the new
    path, through a link to it, is of the file moved there, not a second name's."""
    view = MemoryView({"/w/a.txt": "one\n", "/w/b.txt": "two\n"}, links={"/w/l.txt": "/w/a.txt"})
    edit = {
        "documentChanges": [
            text_edit(f"{W}/a.txt", [edit_(0, 0, 0, 0, ">")]),
            {"kind": "rename", "oldUri": f"{W}/a.txt", "newUri": f"{W}/c.txt"},
            {"kind": "rename", "oldUri": f"{W}/b.txt", "newUri": f"{W}/a.txt"},
            text_edit(f"{W}/l.txt", [edit_(0, 0, 0, 0, "<")]),
        ]
    }
    assert written(plan(edit, view)) == {P("/w/a.txt"): "<two\n"}


# -- resource operations -------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "exists", "expected"),
    [
        ({}, False, CreateFile(P("/w/n.txt"), (), False, 0)),
        ({}, True, "exists (neither overwrite nor ignoreIfExists)"),
        ({"ignoreIfExists": True}, True, None),
        ({"overwrite": True}, True, CreateFile(P("/w/n.txt"), (), True, 0)),
        ({"overwrite": True, "ignoreIfExists": True}, True, CreateFile(P("/w/n.txt"), (), True, 0)),
        ({"overwrite": True}, False, CreateFile(P("/w/n.txt"), (), False, 0)),
    ],
)
def test_create_options(options: dict[str, bool], exists: bool, expected: Any) -> None:
    view = MemoryView({"/w/n.txt": "old"} if exists else {})
    result = plan(
        {"documentChanges": [{"kind": "create", "uri": f"{W}/n.txt", "options": options}]}, view
    )
    if isinstance(expected, str):
        refused(result, expected)
    else:
        assert applied(result).operations == (() if expected is None else (expected,))


def test_create_makes_parent_folders_and_never_replaces_a_folder() -> None:
    view = MemoryView({"/w/file": "x"}, folders=["/w/dir"])
    result = plan({"documentChanges": [{"kind": "create", "uri": f"{W}/a/b/c.txt"}]}, view)
    assert applied(result).operations == (
        CreateFile(P("/w/a/b/c.txt"), (P("/w/a"), P("/w/a/b")), False, 0),
    )
    # The folders created exist for what comes next, and what is in them is only the file.
    again = plan(
        {
            "documentChanges": [
                {"kind": "create", "uri": f"{W}/a/b/c.txt"},
                {"kind": "create", "uri": f"{W}/a/b/d.txt"},
                text_edit(f"{W}/a/e.txt", []),
            ]
        },
        view,
    )
    refused(again, "/w/a/e.txt does not exist", 2)
    refused(
        plan({"documentChanges": [{"kind": "create", "uri": f"{W}/file/x"}]}, view),
        "/w/file is a file, not a folder",
    )
    for options in ({}, {"overwrite": True}):
        create = {"kind": "create", "uri": f"{W}/dir", "options": options}
        refused(plan({"documentChanges": [create]}, view), "is a folder")
    create = {"kind": "create", "uri": f"{W}/dir", "options": {"ignoreIfExists": True}}
    assert applied(plan({"documentChanges": [create]}, view)).operations == ()


def test_create_over_an_open_document_empties_it() -> None:
    view = MemoryView({"/w/a.py": "disk"})
    document = doc("a.py", "memory")
    create = {"kind": "create", "uri": f"{W}/a.py", "options": {"overwrite": True}}
    change = text_edit(f"{W}/a.py", [edit_(0, 0, 0, 0, "new")])
    result = applied(plan({"documentChanges": [create, change]}, view, [document]))
    assert result.operations == (
        CreateFile(P("/w/a.py"), (), True, 0),
        WriteText(P("/w/a.py"), "", document.uri, 0),
        WriteText(P("/w/a.py"), "new", document.uri, 1),
    )


def rename(old: str, new: str, **options: bool) -> dict[str, Any]:
    return {"kind": "rename", "oldUri": f"{W}/{old}", "newUri": f"{W}/{new}", "options": options}


@pytest.mark.parametrize(
    ("options", "target", "expected"),
    [
        ({}, False, RenameFile(P("/w/a.txt"), P("/w/b.txt"), (), False, 0)),
        ({}, True, "exists (neither overwrite nor ignoreIfExists)"),
        ({"ignoreIfExists": True}, True, None),
        ({"overwrite": True}, True, RenameFile(P("/w/a.txt"), P("/w/b.txt"), (), True, 0)),
        (
            {"overwrite": True, "ignoreIfExists": True},
            True,
            RenameFile(P("/w/a.txt"), P("/w/b.txt"), (), True, 0),
        ),
    ],
)
def test_rename_options(options: dict[str, bool], target: bool, expected: Any) -> None:
    files = {"/w/a.txt": "a", **({"/w/b.txt": "b"} if target else {})}
    result = plan({"documentChanges": [rename("a.txt", "b.txt", **options)]}, MemoryView(files))
    if isinstance(expected, str):
        refused(result, expected)
    else:
        assert applied(result).operations == (() if expected is None else (expected,))


def test_rename_checks() -> None:
    view = MemoryView({"/w/a.txt": "a", "/w/d/x.txt": "x"}, folders=["/w/e"])
    refused(plan({"documentChanges": [rename("none", "b")]}, view), "does not exist")
    assert applied(plan({"documentChanges": [rename("a.txt", "a.txt")]}, view)).operations == ()
    refused(plan({"documentChanges": [rename("d", "d/sub")]}, view), "cannot move inside itself")
    refused(
        plan({"documentChanges": [rename("d", "a.txt", overwrite=True)]}, view),
        "cannot be replaced by a folder",
    )
    refused(
        plan({"documentChanges": [rename("a.txt", "e", overwrite=True)]}, view),
        "cannot be replaced by a file",
    )
    # Into a folder that does not exist yet: it is created.
    [operation] = applied(plan({"documentChanges": [rename("a.txt", "n/a.txt")]}, view)).operations
    assert operation == RenameFile(P("/w/a.txt"), P("/w/n/a.txt"), (P("/w/n"),), False, 0)


def test_a_renamed_folder_takes_its_files_along() -> None:
    view = MemoryView({"/w/d/x.txt": "x", "/w/d/y.txt": "y"})
    changes = [
        text_edit(f"{W}/d/x.txt", [edit_(0, 0, 0, 0, "1")]),
        rename("d", "e"),
        text_edit(f"{W}/e/x.txt", [edit_(0, 0, 0, 0, "2")]),
        text_edit(f"{W}/e/y.txt", [edit_(0, 0, 0, 0, "3")]),
        text_edit(f"{W}/d/y.txt", []),
    ]
    refused(plan({"documentChanges": changes}, view), "/w/d/y.txt does not exist", 4)
    result = applied(plan({"documentChanges": changes[:4]}, view))
    assert [op.text for op in result.operations if isinstance(op, WriteText)] == ["1x", "21x", "3y"]
    # A folder created in the edit and renamed has only what the edit put in it.
    created = [
        {"kind": "create", "uri": f"{W}/n/f.txt"},
        rename("n", "m"),
        text_edit(f"{W}/m/f.txt", [edit_(0, 0, 0, 0, "f")]),
        text_edit(f"{W}/m/g.txt", []),
    ]
    refused(plan({"documentChanges": created}, view), "/w/m/g.txt does not exist", 3)


def test_renaming_an_open_document_closes_it_and_opens_it_at_the_new_uri() -> None:
    view = MemoryView({"/w/a.py": "disk", "/w/b.py": "other"})
    document, target = doc("a.py", "memory"), doc("b.py", "other")
    changes = [
        rename("a.py", "b.py", overwrite=True),
        text_edit(f"{W}/b.py", [edit_(0, 0, 0, 0, ">")]),
    ]
    result = applied(plan({"documentChanges": changes}, view, [document, target]))
    assert result.operations == (
        CloseDocument(target.uri, 0),
        CloseDocument(document.uri, 0),
        RenameFile(P("/w/a.py"), P("/w/b.py"), (), True, 0),
        OpenDocument(f"{W}/b.py", P("/w/b.py"), "python", "memory", 0),
        WriteText(P("/w/b.py"), ">memory", f"{W}/b.py", 1),
    )
    # A document opened again has no version the server could know.
    changes[1] = text_edit(f"{W}/b.py", [], version=3)
    refused(plan({"documentChanges": changes}, view, [document]), "opened again", 1)


def test_a_renamed_folder_reopens_its_documents_under_their_new_paths() -> None:
    view = MemoryView({"/w/d/x.py": "x"})
    document = doc("d/x.py", "open x")
    result = applied(plan({"documentChanges": [rename("d", "e")]}, view, [document]))
    assert result.operations == (
        CloseDocument(document.uri, 0),
        RenameFile(P("/w/d"), P("/w/e"), (), False, 0),
        OpenDocument("file:///w/e/x.py", P("/w/e/x.py"), "python", "open x", 0),
    )


def delete(name: str, **options: bool) -> dict[str, Any]:
    return {"kind": "delete", "uri": f"{W}/{name}", "options": options}


@pytest.mark.parametrize(
    ("name", "options", "expected"),
    [
        ("a.txt", {}, DeleteFile(P("/w/a.txt"), False, 0)),
        ("none", {}, "does not exist (and not ignoreIfNotExists)"),
        ("none", {"ignoreIfNotExists": True}, None),
        ("full", {}, "is a folder that is not empty (and not recursive)"),
        ("full", {"recursive": True}, DeleteFile(P("/w/full"), True, 0)),
        ("empty", {}, DeleteFile(P("/w/empty"), False, 0)),
        ("empty", {"recursive": True}, DeleteFile(P("/w/empty"), True, 0)),
    ],
)
def test_delete_options(name: str, options: dict[str, bool], expected: Any) -> None:
    view = MemoryView({"/w/a.txt": "a", "/w/full/x": "x"}, folders=["/w/empty"])
    result = plan({"documentChanges": [delete(name, **options)]}, view)
    if isinstance(expected, str):
        refused(result, expected)
    else:
        assert applied(result).operations == (() if expected is None else (expected,))


def test_delete_closes_the_documents_in_it_and_sees_earlier_changes() -> None:
    view = MemoryView({"/w/d/x.py": "x"}, folders=["/w/empty"])
    document = doc("d/x.py", "x")
    result = applied(plan({"documentChanges": [delete("d", recursive=True)]}, view, [document]))
    assert result.operations == (CloseDocument(document.uri, 0), DeleteFile(P("/w/d"), True, 0))
    # A file created in an empty folder makes it a folder that is not empty.
    changes = [{"kind": "create", "uri": f"{W}/empty/f"}, delete("empty")]
    refused(plan({"documentChanges": changes}, view), "not empty", 1)
    # What was inside a deleted folder is gone.
    changes = [delete("d", recursive=True), text_edit(f"{W}/d/x.py", [])]
    refused(plan({"documentChanges": changes}, view), "does not exist", 1)
    changes = [delete("d", recursive=True), delete("d/x.py")]
    refused(plan({"documentChanges": changes}, view), "does not exist", 1)


# -- annotations ---------------------------------------------------------------------

ANNOTATIONS = {
    "risky": {"label": "Rename files", "needsConfirmation": True},
    "plain": {"label": "Edits", "needsConfirmation": False},
}


def annotated(annotation: str) -> dict[str, Any]:
    create = {"kind": "create", "uri": f"{W}/n.txt", "annotationId": annotation}
    edit = {**edit_(0, 0, 0, 0, "x"), "annotationId": "plain"}
    return {
        "documentChanges": [text_edit(f"{W}/a.txt", [edit]), create],
        "changeAnnotations": ANNOTATIONS,
    }


@pytest.mark.parametrize(
    ("annotation", "confirmed", "words"),
    [
        ("risky", (), "'Rename files' needs confirmation, and was not confirmed"),
        ("risky", {"other"}, "needs confirmation"),
        ("risky", lambda _id: False, "needs confirmation"),
        ("risky", {"risky"}, None),
        ("risky", lambda annotation: annotation == "risky", None),
        ("plain", (), None),
        ("missing", (), "the annotation 'missing' is not in changeAnnotations"),
    ],
)
def test_annotations_that_need_confirmation(
    annotation: str, confirmed: Any, words: str | None
) -> None:
    view = MemoryView({"/w/a.txt": "a"})
    result = plan(annotated(annotation), view, confirmed=confirmed)
    if words is None:
        assert len(applied(result).operations) == 2
    else:
        refused(result, words, 1)


def test_needs_confirmation_lists_the_annotations_used() -> None:
    parsed = parse_edit(annotated("risky"))
    assert isinstance(parsed, ParsedEdit)
    assert needs_confirmation(parsed) == {"risky": ANNOTATIONS["risky"]}
    parsed = parse_edit(annotated("missing"))
    assert isinstance(parsed, ParsedEdit)
    assert needs_confirmation(parsed) == {}


# -- shapes --------------------------------------------------------------------------

GOOD = text_edit(f"{W}/a.txt", [])


@pytest.mark.parametrize(
    ("edit", "words", "change"),
    [
        ([], "not a WorkspaceEdit object", None),
        ({"changeAnnotations": []}, "changeAnnotations must map", None),
        ({"changeAnnotations": {"x": {"needsConfirmation": True}}}, "changeAnnotations", None),
        ({"documentChanges": {}}, "documentChanges must be a list", None),
        ({"changes": []}, "changes must map URIs", None),
        ({"documentChanges": [GOOD, 3]}, "a change must be an object", 1),
        ({"documentChanges": [{"edits": []}]}, "needs a textDocument", 0),
        ({"documentChanges": [text_edit(f"{W}/a", [], True)]}, "integer or null", 0),
        ({"documentChanges": [{"kind": "move"}]}, "unknown resource operation kind", 0),
        ({"documentChanges": [{"kind": "create"}]}, "a URI must be a string", 0),
        ({"documentChanges": [{"kind": "rename", "oldUri": "file:///w/a"}]}, "a URI", 0),
        (
            {"documentChanges": [{"kind": "delete", "uri": f"{W}/a", "options": 1}]},
            "the options must be an object",
            0,
        ),
        (
            {"documentChanges": [{"kind": "delete", "uri": f"{W}/a", "options": {"recursive": 1}}]},
            "the option recursive must be a boolean",
            0,
        ),
        ({"documentChanges": [{"kind": "delete", "uri": f"{W}/a", "annotationId": 1}]}, "str", 0),
        ({"changes": {f"{W}/a": [], f"{W}/b": {}}}, "must be a list of TextEdits", 1),
        ({"changes": {f"{W}/a": [{"range": None}]}}, "needs a range and a string newText", 0),
        ({"changes": {f"{W}/a": [{"range": None, "newText": ""}]}}, "a TextEdit of", 0),
        ({"changes": {f"{W}/a": [edit_(0, -1, 0, 0, "")]}}, "negative position", 0),
        ({"changes": {f"{W}/a": [edit_(0, 2, 0, 1, "")]}}, "ends before it starts", 0),
    ],
)
def test_malformed_edits_are_refused(edit: Any, words: str, change: int | None) -> None:
    refused(plan(edit), words, change)


def test_forms_of_an_edit() -> None:
    view = MemoryView({"/w/a.txt": "a", "/w/b.txt": "b"})
    # documentChanges win over changes; neither, or null, is an edit with nothing to do.
    both = {
        "changes": {f"{W}/a.txt": [edit_(0, 0, 0, 0, "c")]},
        "documentChanges": [text_edit(f"{W}/b.txt", [edit_(0, 0, 0, 0, "d")])],
    }
    assert written(plan(both, view)) == {P("/w/b.txt"): "db"}
    assert applied(plan({}, view)).operations == ()
    nulls = {"changes": None, "documentChanges": None, "changeAnnotations": None}
    assert applied(plan(nulls, view)).operations == ()
    # A resource operation's options may be null or left out.
    create = {"kind": "create", "uri": f"{W}/c.txt", "options": None}
    assert len(applied(plan({"documentChanges": [create]}, view)).operations) == 1


def test_a_refusal_as_a_result() -> None:
    assert Refusal("no", 2).result() == {"applied": False, "failureReason": "no", "failedChange": 2}
    assert Refusal("no").result() == {"applied": False, "failureReason": "no"}


def test_create_in_a_workspace_with_no_folder_at_all() -> None:
    view = MemoryView()
    view.folders.clear()
    [operation] = applied(
        plan({"documentChanges": [{"kind": "create", "uri": f"{W}/x"}]}, view)
    ).operations
    assert operation == CreateFile(P("/w/x"), (P("/"), P("/w")), False, 0)


@pytest.mark.parametrize("uri", [f"{W}/nb.ipynb#2", f"{W}/nb.ipynb?cell=2"])
def test_a_uri_that_names_a_part_of_a_file_is_refused(uri: str) -> None:
    """basedpyright names notebook cells ``file:///r/nb.ipynb#K``: never the file itself."""
    edit = {"changes": {uri: [{"range": _range(0, 0, 0, 0), "newText": "triple"}]}}
    parsed = parse_edit(edit)
    assert isinstance(parsed, Refusal)
    assert (
        parsed.reason
        == f"change 0: {uri} names a part of a file, not a file: it cannot be edited as one"
    )
    moved = {"documentChanges": [{"kind": "rename", "oldUri": f"{W}/a.py", "newUri": uri}]}
    assert isinstance(parse_edit(moved), Refusal)


def _range(a: int, b: int, c: int, d: int) -> dict[str, Any]:
    return {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}}
