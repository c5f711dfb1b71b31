"""The one write path: confined, written through links, all or nothing, also across a crash.

Every write of the library goes through ``WriteSet``; these tests hold it to ``safety.md``
with files on disk: what a reader of the files sees, and what is left in the project.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import EditConflictError, EditOutsideRootError, LspError
from adecore_lsp.write_path import (
    TEMP_SUFFIX,
    WriteSet,
    journal_folder,
    recover,
    state_folder,
)


def leftovers(folder: Path) -> list[str]:
    """Temporary files of the write path anywhere under ``folder``."""
    return sorted(str(p) for p in folder.rglob(f"*{TEMP_SUFFIX}"))


def journals(root: Path) -> list[Path]:
    folder = journal_folder(Path(os.path.realpath(root)))
    return sorted(folder.iterdir()) if folder.is_dir() else []


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "a.py").write_text("a = 1\n")
    (folder / "b.py").write_text("b = 2\n")
    return folder


def test_a_set_writes_every_file_and_leaves_nothing_behind(root: Path) -> None:
    """Both files get their new text; no temporary file and no journal remain."""
    writes = WriteSet(root)
    writes.expect(root / "a.py", b"a = 1\n")
    writes.write(root / "a.py", b"a = 10\n")
    writes.write(root / "b.py", b"b = 20\n")
    writes.commit()
    assert (root / "a.py").read_text() == "a = 10\n"
    assert (root / "b.py").read_text() == "b = 20\n"
    assert leftovers(root.parent) == []
    assert journals(root) == []


def test_the_journal_lives_in_the_users_state_folder(root: Path) -> None:
    """Nothing is added to the project: the journal folder is under XDG_STATE_HOME."""
    folder = journal_folder(root)
    assert state_folder() in folder.parents
    assert root not in folder.parents


def test_a_path_outside_the_root_refuses_the_whole_set(root: Path, tmp_path: Path) -> None:
    """One path outside the root, and nothing at all is written."""
    outside = tmp_path / "outside.py"
    outside.write_text("x = 1\n")
    writes = WriteSet(root)
    writes.write(root / "a.py", b"changed\n")
    with pytest.raises(EditOutsideRootError) as caught:
        writes.write(outside, b"owned\n")
    assert "outside the root" in str(caught.value)
    assert isinstance(caught.value, LspError)
    assert outside.read_text() == "x = 1\n"
    assert (root / "a.py").read_text() == "a = 1\n"


def test_a_link_to_a_folder_outside_is_not_followed(root: Path, tmp_path: Path) -> None:
    """``root/link/x.py`` where ``link`` points outside resolves outside: refused."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.py").write_text("secret\n")
    (root / "link").symlink_to(elsewhere, target_is_directory=True)
    writes = WriteSet(root)
    with pytest.raises(EditOutsideRootError) as caught:
        writes.write(root / "link" / "x.py", b"owned\n")
    assert "link/x.py" in str(caught.value)
    assert str(elsewhere) in str(caught.value)
    assert (elsewhere / "x.py").read_text() == "secret\n"


def test_outside_is_allowed_only_when_asked(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("x = 1\n")
    writes = WriteSet(root, allow_outside=True)
    writes.write(outside, b"x = 2\n")
    writes.commit()
    assert outside.read_text() == "x = 2\n"


def test_a_link_inside_is_written_through(root: Path) -> None:
    """The link stays a link; its target gets the new text."""
    (root / "real.py").write_text("old\n")
    (root / "alias.py").symlink_to("real.py")
    writes = WriteSet(root)
    writes.write(root / "alias.py", b"new\n")
    writes.commit()
    assert (root / "alias.py").is_symlink()
    assert os.readlink(root / "alias.py") == "real.py"
    assert (root / "real.py").read_text() == "new\n"


def test_mode_and_owner_are_kept(root: Path) -> None:
    path = root / "a.py"
    os.chmod(path, 0o751)
    before = path.stat()
    writes = WriteSet(root)
    writes.write(path, b"a = 2\n")
    writes.commit()
    after = path.stat()
    assert stat.S_IMODE(after.st_mode) == 0o751
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may give a file to another user")
def test_another_users_file_keeps_its_owner(root: Path) -> None:
    path = root / "a.py"
    os.chown(path, 1234, 4321)
    writes = WriteSet(root)
    writes.write(path, b"a = 9\n")
    writes.commit()
    assert (path.stat().st_uid, path.stat().st_gid) == (1234, 4321)
    assert path.read_text() == "a = 9\n"


def test_a_hard_linked_file_is_refused_with_its_link_count(root: Path) -> None:
    os.link(root / "a.py", root / "twin.py")
    writes = WriteSet(root)
    writes.write(root / "b.py", b"b = 3\n")
    writes.write(root / "a.py", b"a = 3\n")
    with pytest.raises(LspError) as caught:
        writes.commit()
    assert "a.py has 2 hard links" in str(caught.value)
    assert (root / "a.py").read_text() == "a = 1\n"
    assert (root / "b.py").read_text() == "b = 2\n"
    assert os.stat(root / "a.py").st_nlink == 2


def test_a_read_only_file_is_refused_even_for_root(root: Path) -> None:
    """No write permission bit: refused, whoever runs (root's access() would allow it)."""
    os.chmod(root / "a.py", 0o444)
    writes = WriteSet(root)
    writes.write(root / "a.py", b"a = 4\n")
    with pytest.raises(LspError) as caught:
        writes.commit()
    assert "a.py is read-only" in str(caught.value)
    assert (root / "a.py").read_text() == "a = 1\n"


def test_a_foreign_change_is_a_conflict_and_nothing_is_written(root: Path) -> None:
    writes = WriteSet(root)
    writes.expect(root / "a.py", b"a = 1\n")
    writes.expect(root / "b.py", b"b = 2\n")
    writes.write(root / "a.py", b"a = 5\n")
    writes.write(root / "b.py", b"b = 5\n")
    (root / "b.py").write_text("b = 2  # an editor's change\n")
    with pytest.raises(EditConflictError) as caught:
        writes.commit()
    assert caught.value.paths == ["b.py"]
    assert (root / "a.py").read_text() == "a = 1\n"
    assert (root / "b.py").read_text() == "b = 2  # an editor's change\n"
    assert leftovers(root) == []


def test_a_change_made_while_the_set_is_prepared_is_seen(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last comparison is made after the temporary files are written: a change that
    lands meanwhile is a conflict too."""
    from adecore_lsp import write_path

    real = write_path._sync_folder
    changed: list[bool] = []

    def sync_and_meddle(folder: Path) -> None:
        real(folder)
        if not changed and folder == root:
            changed.append(True)
            (root / "a.py").write_text("a = 1  # meanwhile\n")

    monkeypatch.setattr(write_path, "_sync_folder", sync_and_meddle)
    writes = WriteSet(root)
    writes.expect(root / "a.py", b"a = 1\n")
    writes.write(root / "a.py", b"a = 6\n")
    with pytest.raises(EditConflictError):
        writes.commit()
    assert (root / "a.py").read_text() == "a = 1  # meanwhile\n"
    assert leftovers(root) == []


def test_a_full_disk_names_the_file_the_user_knows(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adecore_lsp import write_path

    def full(path: Any, data: bytes, *args: Any) -> None:
        Path(path).touch()  # made, then the disk filled up
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(write_path, "_write_new", full)
    writes = WriteSet(root)
    writes.write(root / "a.py", b"a = 7\n")
    with pytest.raises(LspError) as caught:
        writes.commit()
    message = caught.value.message
    assert message == "nothing was written: writing a.py failed: No space left on device"
    assert "None" not in message
    assert TEMP_SUFFIX not in message
    monkeypatch.undo()
    assert leftovers(root) == []
    assert (root / "a.py").read_text() == "a = 1\n"


def test_a_failed_replacement_puts_back_what_was_replaced(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.replace

    def failing(source: Any, target: Any) -> None:
        if str(target).endswith("b.py"):
            raise OSError(5, "Input/output error")
        real(source, target)

    monkeypatch.setattr(os, "replace", failing)
    writes = WriteSet(root)
    writes.write(root / "a.py", b"a = 8\n")
    writes.write(root / "b.py", b"b = 8\n")
    with pytest.raises(LspError) as caught:
        writes.commit()
    assert "writing b.py failed: Input/output error" in str(caught.value)
    monkeypatch.undo()
    assert (root / "a.py").read_text() == "a = 1\n"
    assert (root / "b.py").read_text() == "b = 2\n"
    assert leftovers(root) == []
    assert journals(root) == []


def test_folders_renames_and_deletes_in_one_set(root: Path) -> None:
    (root / "old").mkdir()
    (root / "old" / "m.py").write_text("m = 1\n")
    writes = WriteSet(root)
    writes.make_folder(root / "pkg")
    writes.write(root / "pkg" / "new.py", b"new = 1\n")
    writes.rename(root / "old", root / "moved", overwrite=False)
    writes.delete(root / "b.py", recursive=False)
    writes.commit()
    assert (root / "pkg" / "new.py").read_text() == "new = 1\n"
    assert (root / "moved" / "m.py").read_text() == "m = 1\n"
    assert not (root / "old").exists()
    assert not (root / "b.py").exists()
    assert leftovers(root) == []


# -- recovery ------------------------------------------------------------------------------


CRASHING = """
import os, sys
from pathlib import Path
from adecore_lsp import write_path

root = Path(sys.argv[1])
stage = sys.argv[2]
real_mark = write_path._Journal.mark_complete
real_make = write_path.WriteSet._make
made = []

def mark(self):
    if stage == "prepared":
        os._exit(9)
    real_mark(self)

def make(self, step):
    undo = real_make(self, step)
    made.append(step)
    if stage == "halfway" and len(made) == 2:
        os._exit(9)
    return undo

write_path._Journal.mark_complete = mark
write_path.WriteSet._make = make
writes = write_path.WriteSet(root)
for name in ("a.py", "b.py", "c.py", "d.py"):
    writes.write(root / name, f"{name} new\\n".encode())
writes.commit()
"""


def crash(root: Path, stage: str) -> None:
    """A process that dies (as by kill -9) at ``stage`` of a four-file set."""
    for name in ("c.py", "d.py"):
        (root / name).write_text(f"{name} old\n")
    (root / "a.py").write_text("a.py old\n")
    (root / "b.py").write_text("b.py old\n")
    done = subprocess.run([sys.executable, "-c", CRASHING, str(root), stage], timeout=60)
    assert done.returncode == 9


def texts(root: Path) -> list[str]:
    return [(root / name).read_text() for name in ("a.py", "b.py", "c.py", "d.py")]


def test_a_crash_before_the_set_is_complete_is_undone(root: Path) -> None:
    crash(root, "prepared")
    assert leftovers(root) != []  # the dead process left its temporary files
    assert recover(root) == []
    assert texts(root) == ["a.py old\n", "b.py old\n", "c.py old\n", "d.py old\n"]
    assert leftovers(root) == []
    assert journals(root) == []


def test_a_crash_halfway_through_the_replacements_is_finished(root: Path) -> None:
    crash(root, "halfway")
    assert texts(root)[:2] == ["a.py new\n", "b.py new\n"]
    assert texts(root)[2:] == ["c.py old\n", "d.py old\n"]  # torn, until recovered
    assert recover(root) == []
    assert texts(root) == ["a.py new\n", "b.py new\n", "c.py new\n", "d.py new\n"]
    assert leftovers(root) == []
    assert journals(root) == []


def test_recovery_never_replaces_a_file_changed_since(root: Path) -> None:
    crash(root, "halfway")
    (root / "d.py").write_text("d.py edited by hand\n")
    problems = recover(root)
    assert len(problems) == 1
    assert "d.py changed since" in problems[0]
    assert texts(root) == ["a.py new\n", "b.py new\n", "c.py new\n", "d.py edited by hand\n"]
    assert leftovers(root) == []


def test_the_next_workspace_recovers_in_its_constructor(root: Path) -> None:
    from adecore_lsp import Workspace

    crash(root, "halfway")
    Workspace(root)
    assert texts(root) == ["a.py new\n", "b.py new\n", "c.py new\n", "d.py new\n"]
    assert leftovers(root) == []


def test_a_journal_held_by_a_live_writer_is_left_alone(root: Path) -> None:
    """Recovery replays only journals no live process holds (flock)."""
    from adecore_lsp import write_path

    journal = write_path._Journal.create(journal_folder(Path(os.path.realpath(root))))
    try:
        journal.write_body({"version": 1, "root": str(root), "steps": []})
        assert recover(root) == []
        assert journal.path.exists()
    finally:
        journal.finish()
    assert not journal.path.exists()
