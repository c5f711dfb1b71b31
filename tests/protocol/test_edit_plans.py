"""edit_plans: a WorkspaceEdit as the preview a person reads, against texts held in memory."""

from __future__ import annotations

from typing import Any

import pytest

from adecore_lsp.protocol.workspace.edit_plans import (
    PlannedEdit,
    PlannedFile,
    PlannedOperation,
    merge_edits,
    plan_edit,
    touched_uris,
)

W = "file:///w/"


def rel(uri: str) -> str:
    return uri.removeprefix(W)


def rng(a: int, b: int, c: int, d: int) -> dict[str, Any]:
    return {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}}


def edit(a: int, b: int, c: int, d: int, new: str) -> dict[str, Any]:
    return {"range": rng(a, b, c, d), "newText": new}


def text_edit(name: str, *edits: dict[str, Any], version: int | None = None) -> dict[str, Any]:
    return {"textDocument": {"uri": W + name, "version": version}, "edits": list(edits)}


def create(name: str, **options: bool) -> dict[str, Any]:
    change: dict[str, Any] = {"kind": "create", "uri": W + name}
    if options:
        change["options"] = options
    return change


def rename(old: str, new: str, **options: bool) -> dict[str, Any]:
    change: dict[str, Any] = {"kind": "rename", "oldUri": W + old, "newUri": W + new}
    if options:
        change["options"] = options
    return change


def delete(name: str, **options: bool) -> dict[str, Any]:
    change: dict[str, Any] = {"kind": "delete", "uri": W + name}
    if options:
        change["options"] = options
    return change


def plan(
    changes: list[dict[str, Any]],
    files: dict[str, str | None],
    encoding: str = "utf-16",
    **more: Any,
) -> PlannedEdit:
    texts = {W + name: text for name, text in files.items()}
    return plan_edit({"documentChanges": changes}, texts, encoding, rel, **more)


RENAME_SYMBOL = [
    text_edit("a.py", edit(0, 4, 0, 7, "bar"), edit(2, 0, 2, 3, "bar")),
    text_edit("b.py", edit(0, 14, 0, 17, "bar"), edit(1, 0, 1, 3, "bar")),
]
A = "def foo():\n    pass\nfoo()\n"
B = "from a import foo\nfoo()\n"


def test_a_rename_across_two_files() -> None:
    """Each file's texts, its edit count and diff; the whole diff is both, in order."""
    planned = plan(RENAME_SYMBOL, {"a.py": A, "b.py": B})
    a_diff = (
        "diff --git a/a.py b/a.py\n"
        "--- a/a.py\n"
        "+++ b/a.py\n"
        "@@ -1,3 +1,3 @@\n"
        "-def foo():\n"
        "+def bar():\n"
        "     pass\n"
        "-foo()\n"
        "+bar()\n"
    )
    b_diff = (
        "diff --git a/b.py b/b.py\n"
        "--- a/b.py\n"
        "+++ b/b.py\n"
        "@@ -1,2 +1,2 @@\n"
        "-from a import foo\n"
        "-foo()\n"
        "+from a import bar\n"
        "+bar()\n"
    )
    # The text edits as offsets of the old text (code points), for the rule of changes.py.
    a_edits = ((4, 7, "bar"), (20, 23, "bar"))
    b_edits = ((14, 17, "bar"), (18, 21, "bar"))
    assert planned.files == {
        "a.py": PlannedFile(
            "a.py", W + "a.py", "a.py", A, "def bar():\n    pass\nbar()\n", a_diff, 2, a_edits
        ),
        "b.py": PlannedFile(
            "b.py", W + "b.py", "b.py", B, "from a import bar\nbar()\n", b_diff, 2, b_edits
        ),
    }
    assert planned.operations == ()
    assert planned.diff == a_diff + b_diff
    assert not planned.is_empty


def test_the_changes_form_gives_the_same_plan() -> None:
    """A ``changes`` map is read as documentChanges without versions."""
    changes = {change["textDocument"]["uri"]: change["edits"] for change in RENAME_SYMBOL}
    by_map = plan_edit({"changes": changes}, {W + "a.py": A, W + "b.py": B}, "utf-16", rel)
    assert by_map == plan(RENAME_SYMBOL, {"a.py": A, "b.py": B})


def test_create_rename_and_delete() -> None:
    """Creates from /dev/null, renames as git's rename lines, deletes to /dev/null."""
    changes = [
        create("new.py"),
        text_edit("new.py", edit(0, 0, 0, 0, "x = 1\n")),
        text_edit("old.py", edit(1, 0, 1, 1, "z")),
        rename("old.py", "moved.py", overwrite=False),
        delete("gone.py", ignoreIfNotExists=True),
        create("empty.py"),
        rename("same.py", "still.py"),
    ]
    files = {
        "new.py": None,
        "old.py": "x\ny\n",
        "moved.py": None,
        "gone.py": "bye\n",
        "empty.py": None,
        "same.py": "s\n",
        "still.py": None,
    }
    planned = plan(changes, files)
    assert list(planned.files) == ["moved.py", "new.py"]
    assert planned.files["new.py"].old_path is None
    assert planned.files["new.py"].old_text == ""
    assert planned.files["moved.py"].old_path == "old.py"
    assert planned.files["moved.py"].old_text == "x\ny\n"
    assert planned.files["moved.py"].new_text == "x\nz\n"
    assert planned.operations == (
        PlannedOperation("create", "new.py", None, {}, W + "new.py", None),
        PlannedOperation(
            "rename", "old.py", "moved.py", {"overwrite": False}, W + "old.py", W + "moved.py"
        ),
        PlannedOperation(
            "delete", "gone.py", None, {"ignoreIfNotExists": True}, W + "gone.py", None
        ),
        PlannedOperation("create", "empty.py", None, {}, W + "empty.py", None),
        PlannedOperation("rename", "same.py", "still.py", {}, W + "same.py", W + "still.py"),
    )
    # In path order, whatever order the edit named the files in.
    assert planned.diff == (
        "diff --git a/empty.py b/empty.py\n"
        "new file mode 100644\n"
        "diff --git a/gone.py b/gone.py\n"
        "deleted file mode 100644\n"
        "--- a/gone.py\n"
        "+++ /dev/null\n"
        "@@ -1 +0,0 @@\n"
        "-bye\n"
        "diff --git a/old.py b/moved.py\n"
        "rename from old.py\n"
        "rename to moved.py\n"
        "--- a/old.py\n"
        "+++ b/moved.py\n"
        "@@ -1,2 +1,2 @@\n"
        " x\n"
        "-y\n"
        "+z\n"
        "diff --git a/new.py b/new.py\n"
        "new file mode 100644\n"
        "--- /dev/null\n"
        "+++ b/new.py\n"
        "@@ -0,0 +1 @@\n"
        "+x = 1\n"
        "diff --git a/same.py b/still.py\n"
        "rename from same.py\n"
        "rename to still.py\n"
    )
    assert planned.files["moved.py"].diff in planned.diff


def test_a_file_without_a_final_newline() -> None:
    """Its last line is marked as git marks it, on either side of the diff."""
    planned = plan([text_edit("a.py", edit(1, 0, 1, 1, "z"))], {"a.py": "x\ny"})
    assert planned.files["a.py"].new_text == "x\nz"
    assert planned.diff == (
        "diff --git a/a.py b/a.py\n"
        "--- a/a.py\n"
        "+++ b/a.py\n"
        "@@ -1,2 +1,2 @@\n"
        " x\n"
        "-y\n"
        "\\ No newline at end of file\n"
        "+z\n"
        "\\ No newline at end of file\n"
    )
    added = plan([text_edit("a.py", edit(1, 1, 1, 1, "\n"))], {"a.py": "x\ny"})
    assert added.diff.endswith("-y\n\\ No newline at end of file\n+y\n")


def test_crlf_lines_are_kept() -> None:
    """The new text keeps \\r\\n, and so do the diff's lines."""
    planned = plan([text_edit("w.py", edit(1, 0, 1, 1, "b"))], {"w.py": "x\r\na\r\ny\r\n"})
    assert planned.files["w.py"].new_text == "x\r\nb\r\ny\r\n"
    assert planned.diff.endswith("@@ -1,3 +1,3 @@\n x\r\n-a\r\n+b\r\n y\r\n")


@pytest.mark.parametrize(("encoding", "column"), [("utf-16", 3), ("utf-8", 6), ("utf-32", 2)])
def test_non_ascii_columns_in_each_encoding(encoding: str, column: int) -> None:
    """The same place is counted in UTF-16 units, UTF-8 bytes or code points."""
    planned = plan(
        [text_edit("u.py", edit(0, column, 0, column + 1, "y"))], {"u.py": "é😀x = 1\n"}, encoding
    )
    assert planned.files["u.py"].new_text == "é😀y = 1\n"
    assert "-é😀x = 1\n+é😀y = 1\n" in planned.diff


def test_an_edit_that_changes_nothing_is_empty() -> None:
    """Text edits that leave the text as it was: no file, no diff, is_empty."""
    planned = plan(
        [text_edit("a.py", edit(0, 0, 0, 1, "x"), edit(1, 0, 1, 0, ""))], {"a.py": "x\ny\n"}
    )
    assert planned == PlannedEdit({}, (), "")
    assert planned.is_empty
    nothing = plan_edit({}, {}, "utf-16", rel)
    assert nothing.is_empty


def test_each_file_carries_the_text_edits_that_made_it_while_known() -> None:
    """A file's text edits, as code points of its text before the edit (of the file it was
    renamed from; of nothing for a file the edit creates), for the rule of changes.py; a
    file edited in two steps, or emptied by an overwrite first, carries none (the second
    step's edits are about the first one's text)."""
    planned = plan(
        [
            text_edit("a.py", edit(0, 0, 0, 0, "")),
            text_edit("a.py", edit(0, 1, 0, 2, "é😀")),
            rename("a.py", "b.py"),
            text_edit("b.py", edit(1, 0, 1, 1, "Y")),
            create("new.py"),
            text_edit("new.py", edit(0, 0, 0, 0, "n")),
            text_edit("twice.py", edit(0, 0, 0, 1, "X")),
            text_edit("twice.py", edit(0, 1, 0, 1, "!")),
            create("over.py", overwrite=True),
            text_edit("over.py", edit(0, 0, 0, 0, "o")),
        ],
        {"a.py": "xyz\ny\n", "b.py": None, "new.py": None, "twice.py": "x\n", "over.py": "o\n"},
    )
    assert planned.files["b.py"].new_text == "xé😀z\nY\n"
    assert planned.files["b.py"].text_edits is None  # two steps (the first a no-op) first
    assert planned.files["new.py"].text_edits == ((0, 0, "n"),)
    assert planned.files["twice.py"].new_text == "X!\n"
    assert planned.files["twice.py"].text_edits is None
    assert planned.files["over.py"].text_edits is None
    moved = plan(
        [rename("a.py", "b.py"), text_edit("b.py", edit(0, 1, 0, 2, "é😀"), edit(1, 0, 1, 1, "Y"))],
        {"a.py": "xyz\ny\n", "b.py": None},
    )
    assert moved.files["b.py"].old_text == "xyz\ny\n"
    assert moved.files["b.py"].text_edits == ((1, 2, "é😀"), (4, 5, "Y"))


def test_edits_that_change_nothing_still_count() -> None:
    """A file's edit count includes the edits that left their text alone."""
    planned = plan(
        [
            text_edit("a.py", edit(0, 0, 0, 1, "x"), edit(1, 0, 1, 1, "z")),
            text_edit("a.py", edit(0, 0, 0, 0, "")),
        ],
        {"a.py": "x\ny\n"},
    )
    assert planned.files["a.py"].edits == 3


@pytest.mark.parametrize(
    ("changes", "files", "reason"),
    [
        (
            [text_edit("a.py", edit(0, 0, 0, 2, "x"), edit(0, 1, 0, 3, "y"))],
            {"a.py": "abcd\n"},
            "change 0: edits of file:///w/a.py overlap at {'line': 0, 'character': 1}",
        ),
        (
            [text_edit("a.py", edit(5, 0, 5, 1, "x"))],
            {"a.py": "a\n"},
            "change 0: an edit of file:///w/a.py reaches line 5; it has 2 lines",
        ),
        (
            [text_edit("a.py", edit(0, 0, 0, 0, "x"))],
            {"a.py": None},
            "change 0: file:///w/a.py does not exist",
        ),
        (
            [create("a.py")],
            {"a.py": "a\n"},
            "change 0: file:///w/a.py exists (neither overwrite nor ignoreIfExists)",
        ),
        (
            [rename("a.py", "b.py")],
            {"a.py": "a\n", "b.py": "b\n"},
            "change 0: file:///w/b.py exists (neither overwrite nor ignoreIfExists)",
        ),
        (
            [delete("a.py")],
            {"a.py": None},
            "change 0: file:///w/a.py does not exist (and not ignoreIfNotExists)",
        ),
        (
            [text_edit("a.py", {"range": rng(0, 0, 0, 0)})],
            {"a.py": "a\n"},
            "change 0: a TextEdit needs a range and a string newText",
        ),
        (
            [text_edit("a.py", edit(0, 0, 0, 0, "x"), version=4)],
            {"a.py": "a\n"},
            "change 0: file:///w/a.py is not open: the edit is for version 4",
        ),
    ],
)
def test_what_cannot_be_applied_is_refused_with_the_reason(
    changes: list[dict[str, Any]], files: dict[str, str | None], reason: str
) -> None:
    """The planner's reason, as the caller shows it."""
    with pytest.raises(ValueError, match="change 0") as raised:
        plan(changes, files, versions={})
    assert str(raised.value).startswith(reason)


def test_versions_are_checked_when_given() -> None:
    """Against the open documents' versions; without them they are not checked."""
    changes = [text_edit("a.py", edit(0, 0, 0, 1, "b"), version=3)]
    with pytest.raises(ValueError, match="is at version 2, the edit is for version 3"):
        plan(changes, {"a.py": "a\n"}, versions={W + "a.py": 2})
    assert plan(changes, {"a.py": "a\n"}, versions={W + "a.py": 3}).files["a.py"].new_text == "b\n"
    assert plan(changes, {"a.py": "a\n"}).files["a.py"].new_text == "b\n"


def test_an_open_document_renamed_with_its_folder() -> None:
    """Closing and reopening documents is no part of the preview; the texts follow."""
    changes = [
        text_edit("pkg/m.py", edit(0, 0, 0, 1, "b"), version=1),
        rename("pkg", "lib"),
        text_edit("lib/m.py", edit(0, 1, 0, 1, "!")),
    ]
    planned = plan(
        changes,
        {"pkg/m.py": "a\n", "lib": None, "lib/m.py": None, "gone.py": None},
        folders=[W + "pkg"],
        versions={W + "pkg/m.py": 1, W + "gone.py": 7},
    )
    assert planned.files["lib/m.py"].old_path == "pkg/m.py"
    assert planned.files["lib/m.py"].new_text == "b!\n"
    assert planned.files["lib/m.py"].edits == 2
    assert [op.kind for op in planned.operations] == ["rename"]


def test_a_moved_folder_carries_the_files_edited_in_it() -> None:
    """Edited before or after the move, a file in a moved folder shows as a rename."""
    changes = [
        text_edit("src/a.py", edit(0, 0, 0, 1, "A")),
        rename("src", "lib"),
        text_edit("lib/b.py", edit(0, 0, 0, 1, "B")),
        text_edit("top.py", edit(0, 0, 0, 1, "T")),
    ]
    assert touched_uris({"documentChanges": changes}) == [
        W + "src/a.py",
        W + "src",
        W + "lib",
        W + "lib/b.py",
        W + "top.py",
        W + "src/b.py",
    ]
    files = {
        "src/a.py": "a\n",
        "lib": None,
        "lib/b.py": None,
        "src/b.py": "b\n",
        "top.py": "t\n",
    }
    planned = plan(changes, files, folders=[W + "src"])
    assert {path: file.old_path for path, file in planned.files.items()} == {
        "lib/a.py": "src/a.py",
        "lib/b.py": "src/b.py",
        "top.py": "top.py",
    }
    assert planned.files["lib/a.py"].uri == W + "lib/a.py"
    assert "diff --git a/src/a.py b/lib/a.py\nrename from src/a.py\nrename to lib/a.py\n" in (
        planned.diff
    )
    assert planned.operations == (
        PlannedOperation("rename", "src", "lib", {}, W + "src", W + "lib"),
    )


def test_folders_deleted_and_replaced() -> None:
    """A recursive delete loses the files edited in it; an empty folder needs no recursive."""
    changes = [
        text_edit("old/a.py", edit(0, 0, 0, 1, "A")),
        create("old/new.py"),
        delete("old", recursive=True),
        delete("empty"),
    ]
    planned = plan(
        changes, {"old/a.py": "a\n", "old/new.py": None}, folders=[W + "old", W + "empty"]
    )
    assert planned.files == {}
    assert planned.diff == (
        "diff --git a/old/a.py b/old/a.py\n"
        "deleted file mode 100644\n"
        "--- a/old/a.py\n"
        "+++ /dev/null\n"
        "@@ -1 +0,0 @@\n"
        "-a\n"
    )
    assert [op.kind for op in planned.operations] == ["create", "delete", "delete"]
    with pytest.raises(ValueError, match="is a folder that is not empty"):
        plan([delete("old")], {"old/a.py": "a\n"}, folders=[W + "old"])
    replaced = plan(
        [text_edit("b/x.py", edit(0, 0, 0, 1, "X")), rename("a", "b", overwrite=True)],
        {"a/y.py": "y\n", "b/x.py": "x\n"},
        folders=[W + "a", W + "b"],
    )
    assert replaced.files == {}
    assert replaced.diff.startswith("diff --git a/b/x.py b/b/x.py\ndeleted file mode 100644\n")


def test_overwrites_show_what_is_lost() -> None:
    """A create over a file empties it; a rename over one deletes it first."""
    emptied = plan([create("a.py", overwrite=True)], {"a.py": "a\n"})
    assert emptied.files["a.py"].new_text == ""
    assert emptied.diff.endswith("@@ -1 +0,0 @@\n-a\n")
    assert emptied.operations[0].options == {"overwrite": True}
    skipped = plan([create("a.py", ignoreIfExists=True)], {"a.py": "a\n"})
    assert skipped.is_empty
    moved = plan([rename("a.py", "b.py", overwrite=True)], {"a.py": "a\n", "b.py": "b\n"})
    assert moved.files == {}
    assert moved.diff == (
        "diff --git a/a.py b/b.py\n"
        "rename from a.py\n"
        "rename to b.py\n"
        "diff --git a/b.py b/b.py\n"
        "deleted file mode 100644\n"
        "--- a/b.py\n"
        "+++ /dev/null\n"
        "@@ -1 +0,0 @@\n"
        "-b\n"
    )


def test_a_path_deleted_and_made_again() -> None:
    """Old text removed, new text added: two blocks; a file made and deleted leaves none."""
    planned = plan(
        [
            text_edit("a.py", edit(0, 0, 0, 1, "edited")),
            delete("a.py"),
            create("a.py"),
            text_edit("a.py", edit(0, 0, 0, 0, "new\n")),
            create("tmp.py"),
            rename("tmp.py", "tmp2.py"),
            delete("tmp2.py"),
        ],
        {"a.py": "old\n", "tmp.py": None, "tmp2.py": None},
    )
    assert planned.files["a.py"].old_path is None
    assert planned.files["a.py"].new_text == "new\n"
    assert planned.diff == (
        "diff --git a/a.py b/a.py\n"
        "deleted file mode 100644\n"
        "--- a/a.py\n"
        "+++ /dev/null\n"
        "@@ -1 +0,0 @@\n"
        "-old\n"
        "diff --git a/a.py b/a.py\n"
        "new file mode 100644\n"
        "--- /dev/null\n"
        "+++ b/a.py\n"
        "@@ -0,0 +1 @@\n"
        "+new\n"
    )
    assert [op.kind for op in planned.operations] == [
        "delete",
        "create",
        "create",
        "rename",
        "delete",
    ]


def test_annotations_count_as_confirmed() -> None:
    """A preview shows the changes that would ask for confirmation."""
    change = text_edit("a.py", edit(0, 0, 0, 1, "b"))
    change["edits"][0]["annotationId"] = "risky"
    wrapped = {
        "documentChanges": [change],
        "changeAnnotations": {"risky": {"label": "Risky", "needsConfirmation": True}},
    }
    planned = plan_edit(wrapped, {W + "a.py": "a\n"}, "utf-16", rel)
    assert planned.files["a.py"].new_text == "b\n"


def test_touched_uris_lists_each_uri_once_in_order() -> None:
    """Edited, created, renamed from and to, deleted: what to read before planning."""
    changes = [
        text_edit("a.py", edit(0, 0, 0, 0, "x")),
        create("n.py"),
        rename("a.py", "b.py"),
        delete("d.py"),
        text_edit("b.py", edit(0, 0, 0, 0, "y")),
    ]
    assert touched_uris({"documentChanges": changes}) == [
        W + "a.py",
        W + "n.py",
        W + "b.py",
        W + "d.py",
    ]
    assert touched_uris({"changes": {W + "z.py": []}}) == [W + "z.py"]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ([], "the edit is not a WorkspaceEdit object"),
        ({"documentChanges": {}}, "documentChanges must be a list"),
        ({"documentChanges": [{"kind": "move"}]}, "unknown resource operation kind 'move'"),
    ],
)
def test_malformed_edits_are_refused(bad: object, message: str) -> None:
    """The parser's reason, from both entry points."""
    with pytest.raises(ValueError, match=message):
        touched_uris(bad)
    with pytest.raises(ValueError, match=message):
        plan_edit(bad, {}, "utf-16", rel)


@pytest.mark.parametrize(
    ("edit_", "texts", "message"),
    [
        (
            {"documentChanges": [text_edit("a.py", edit(0, 0, 0, 0, "x"))]},
            {},
            "no current text was given for file:///w/a.py: read every touched URI",
        ),
        ({"changes": {"untitled:1": []}}, {}, "untitled:1 is not a file: URI"),
        ({"changes": {"file:a.py": []}}, {}, "file:a.py does not name an absolute path"),
    ],
)
def test_what_the_caller_must_give(
    edit_: dict[str, Any], texts: dict[str, str | None], message: str
) -> None:
    """Every touched URI's text, and file URIs only."""
    with pytest.raises(ValueError, match=message):
        plan_edit(edit_, texts, "utf-16", rel)


def test_an_unknown_encoding_is_refused() -> None:
    """Positions need an encoding the planner knows."""
    with pytest.raises(ValueError, match="unknown position encoding 'utf-7'"):
        plan(RENAME_SYMBOL, {"a.py": A, "b.py": B}, "utf-7")


def test_differently_spelled_uris_meet() -> None:
    """A server's %-escapes name the same file as the client's spelling."""
    planned = plan_edit(
        {"changes": {"file:///w/my%20file.py": [edit(0, 0, 0, 1, "b")]}},
        {"file:///w/my file.py": "a\n"},
        "utf-16",
        rel,
    )
    assert list(planned.files) == ["my%20file.py"]


def test_edits_of_one_file_merged_give_it_every_change() -> None:
    """Edits asked one at a time (a notebook's cells, one file's formatting and the edit its
    server sent meanwhile) become one edit per encoding: the file gets all of them, in
    order, each change on the text the ones before it left."""
    first = {"changes": {W + "a.py": [edit(0, 0, 0, 1, "b")]}}
    second = {"documentChanges": [text_edit("a.py", edit(0, 0, 0, 1, "c"))]}
    other = {"changes": {W + "b.py": [edit(0, 0, 0, 0, "#")]}}
    merged = merge_edits([(first, "utf-16"), (other, "utf-8"), (second, "utf-16")])
    assert [encoding for _edit, encoding in merged] == ["utf-16", "utf-8"]
    one, _enc = merged[0]
    planned = plan_edit(one, {W + "a.py": "a = 1\n"}, "utf-16", rel)
    assert planned.files["a.py"].new_text == "c = 1\n"
    assert planned.files["a.py"].edits == 2
    assert planned.diff.count("--- a/a.py") == 1
    assert merged[1][0] == {"documentChanges": [text_edit("b.py", edit(0, 0, 0, 0, "#"))]}
    # Each edit planned alone would have given a.py only the last one's text.
    alone = plan_edit(second, {W + "a.py": "a = 1\n"}, "utf-16", rel)
    assert alone.files["a.py"].new_text == "c = 1\n"
    assert plan_edit(first, {W + "a.py": "a = 1\n"}, "utf-16", rel).files["a.py"].new_text == (
        "b = 1\n"
    )


def test_merged_annotations_and_what_is_not_merged() -> None:
    """Annotations come along; an edit of a shape not read here, or whose annotation ids
    name other annotations, stays an edit of its own in its place (the planner refuses
    what is malformed, naming it)."""
    risky = {"risky": {"label": "Risky", "needsConfirmation": True}}
    annotated = {
        "documentChanges": [text_edit("a.py", edit(0, 0, 0, 1, "b"))],
        "changeAnnotations": risky,
    }
    clash = {"changes": {}, "changeAnnotations": {"risky": {"label": "Other"}}}
    odd: list[object] = [
        None,
        {"documentChanges": 5},
        {"changes": 5},
        {"changes": {}, "changeAnnotations": 5},
        clash,
    ]
    given = [(annotated, "utf-16"), *((item, "utf-16") for item in odd), ({}, "utf-16")]
    merged = merge_edits(given)
    assert merged[0] == (
        {"documentChanges": annotated["documentChanges"], "changeAnnotations": risky},
        "utf-16",
    )
    assert [item for item, _encoding in merged[1:]] == odd
    assert merge_edits([({}, "utf-8")]) == [({"documentChanges": []}, "utf-8")]
    assert merge_edits([]) == []


def test_two_names_of_one_file_are_one_file_under_its_real_name() -> None:
    """``aliases`` names a link's target: the edits of both names go into the target's one
    text (an edit both give, once), and the plan shows one file, by the target's name."""
    formatted = [edit(0, 0, 0, 5, "x = 1")]
    planned = plan(
        [text_edit("link.py", *formatted), text_edit("a.py", *formatted, edit(1, 0, 1, 3, "y"))],
        {"link.py": "x  =1\nyyy\n", "a.py": "x  =1\nyyy\n"},
        aliases={W + "link.py": W + "a.py"},
    )
    assert list(planned.files) == ["a.py"]
    assert planned.files["a.py"].new_text == "x = 1\ny\n"
    assert "link.py" not in planned.diff
    with pytest.raises(ValueError, match=r"link\.py and file:///w/a\.py are one file"):
        plan(
            [text_edit("link.py", edit(0, 0, 0, 5, "z")), text_edit("a.py", *formatted)],
            {"link.py": "x  =1\n", "a.py": "x  =1\n"},
            aliases={W + "link.py": W + "a.py"},
        )
