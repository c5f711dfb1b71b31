"""One file reached under two names (a symbolic link and its target) in one write set is one
file: the write path keys its steps by the real path (the same text under both names is one
write, two texts are refused naming both names), a plan merges the two names' edits when
they do not overlap and refuses them, naming both, when they do; never "2 files changed"
with one edit kept. With ruff's own formatting and fixes of a root holding a link, and a
scripted server's rename for what no real server sends on demand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import Workspace
from adecore_lsp.write_path import WriteError, WriteSet
from tests.cli.conftest import need, no_traceback, run
from tests.workspace.test_scripted import scripted

UNFORMATTED = "import os\nx  =  'a'\ny=2\n"


def linked(root: Path, text: str) -> Path:
    root.mkdir()
    (root / "a.py").write_text(text, encoding="utf-8")
    (root / "b.py").symlink_to("a.py")
    return root.resolve()


def test_the_write_path_keys_steps_by_the_real_path(tmp_path: Path) -> None:
    root = linked(tmp_path / "r", "one\n")
    writes = WriteSet(root)
    writes.write(root / "b.py", b"two\n")
    with pytest.raises(WriteError, match=r"^nothing was written: b\.py and a\.py are one file"):
        writes.write(root / "a.py", b"three\n")
    same = WriteSet(root)
    same.write(root / "b.py", b"two\n")
    same.write(root / "a.py", b"two\n")
    assert same.targets == [root / "a.py"]
    same.commit()
    assert (root / "a.py").read_text() == "two\n"
    assert (root / "b.py").is_symlink()


@pytest.mark.real_server
@pytest.mark.parametrize("command", ["format", "fix"])
def test_formatting_a_root_with_a_link_changes_one_file_with_every_edit(
    tmp_path: Path, command: str
) -> None:
    need("ruff")
    root = linked(tmp_path / "r", UNFORMATTED)
    (root / "ruff.toml").write_text("[lint]\nselect = ['F401']\n", encoding="utf-8")
    ran = run(command, "--server", "ruff", "--root", root, "--write", cwd=root)
    no_traceback(ran)
    assert ran.status == 0, ran
    assert "1 file changed" in ran.err, ran
    assert ran.out.count("diff --git") == 1, ran.out
    expected = {"format": 'import os\n\nx = "a"\ny = 2\n', "fix": "x  =  'a'\ny=2\n"}
    assert (root / "a.py").read_text() == expected[command]
    assert (root / "b.py").is_symlink()


@pytest.mark.real_server
def test_two_names_given_edits_that_overlap_are_refused_naming_both(tmp_path: Path) -> None:
    """``sub/c.py`` is ``a.py`` under a folder whose ruff configuration quotes otherwise:
    ruff formats the one file two ways, and neither may win silently."""
    need("ruff")
    root = tmp_path / "r"
    (root / "sub").mkdir(parents=True)
    (root / "a.py").write_text("x  =  'a'\n", encoding="utf-8")
    (root / "sub" / "c.py").symlink_to(Path("..", "a.py"))
    (root / "sub" / "ruff.toml").write_text("[format]\nquote-style = 'single'\n")
    ran = run("format", "--server", "ruff", "--root", root, "--write", cwd=root)
    no_traceback(ran)
    assert ran.status == 2, ran
    assert "a.py and" in ran.err, ran
    assert "sub/c.py are one file (a symbolic link and its target)" in ran.err, ran
    assert (root / "a.py").read_text() == "x  =  'a'\n"


def edits_of(root_uri: str, second: tuple[int, str]) -> dict[str, Any]:
    """An edit of ``a.txt``'s first line, and one of ``b.txt`` (a link to it) at ``second``."""

    def one(name: str, line: int, new: str) -> dict[str, Any]:
        where = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 5}}
        return {
            "textDocument": {"uri": f"{root_uri}/{name}", "version": None},
            "edits": [{"range": where, "newText": new}],
        }

    return {"documentChanges": [one("a.txt", 0, "RENAMED"), one("b.txt", *second)]}


@pytest.mark.parametrize(
    ("second", "merged"),
    [((1, "RENAMED"), True), ((0, "RENAMED"), True), ((0, "OTHER"), False)],
    ids=["apart", "the-same-edit", "overlapping"],
)
async def test_a_rename_that_names_a_link_and_its_target(
    tmp_path: Path, second: tuple[int, str], merged: bool
) -> None:
    root = linked(tmp_path / "r", "")
    (root / "b.py").unlink()
    (root / "a.txt").write_text("first\nsecnd\n", encoding="utf-8")
    (root / "b.txt").symlink_to("a.txt")
    spec = scripted({"rename": edits_of("$ROOT", second)})
    async with Workspace(root, servers=[spec]) as ws:
        if not merged:
            with pytest.raises(ValueError, match=r"a\.txt and .*b\.txt are one file"):
                await ws.rename("a.txt:1:1", "RENAMED")
            assert (root / "a.txt").read_text() == "first\nsecnd\n"
            return
        plan = await ws.rename("a.txt:1:1", "RENAMED")
        assert plan.changed_files == ["a.txt"]
        expected = "RENAMED\nRENAMED\n" if second[0] == 1 else "RENAMED\nsecnd\n"
        assert plan.files["a.txt"].new_text == expected
        await ws.apply(plan)
    assert (root / "a.txt").read_text() == expected
    assert (root / "b.txt").is_symlink()
