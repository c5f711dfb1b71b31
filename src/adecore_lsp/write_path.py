"""The one write path: every file the library changes is changed here, all or nothing.

A :class:`WriteSet` gathers the steps of one change to the files of a root (write a file's
new bytes, make a folder, rename, delete), each path resolved with its symbolic links and
kept inside the root, and the contents the files must still hold (what the change was made
from). :meth:`WriteSet.commit` then:

1. checks every target: inside the root (``EditOutsideRootError``), a single hard link, a
   write permission bit, writable by this process, a notebook's new text a notebook; a
   symbolic link is written through;
2. records the set in a journal in the user's state folder (never in the project), locked
   with ``flock`` while its writer lives, before the first temporary file is written: each
   write with the text it replaces (what the set's earlier steps leave there: a file
   renamed and then edited replaces the renamed file's text) and its new one;
3. writes each new text to a temporary file beside its target, with the old file's mode,
   owner and group, and fsyncs the files and their folders;
4. compares every file with the content the change was made from (a foreign edit is an
   :class:`EditConflictError`, nothing written) and marks the journal complete;
5. replaces the targets in order, comparing each file with the text it must hold at the
   moment it is replaced, and afterwards each replaced file with what it held then (a
   program that had it open may have written to it meanwhile): any difference undoes the
   set, keeps the foreign edit and is an :class:`EditConflictError`; then fsyncs the
   folders and removes the journal. (An edit made to a target after it was replaced is
   made on top of the new text, and kept with it.)

A failure before step 5 removes the temporary files; one during it puts back what was
replaced. A process killed anywhere in between leaves a journal that no live process holds:
:func:`recover` (called by every new ``Workspace`` on that root) finishes a complete set,
never replacing a file whose content is neither the old nor the new one, and removes the
temporary files of an incomplete one. A reader sees every file old or every file new.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .errors import EditConflictError, EditOutsideRootError, ErrorCodes, LspError
from .protocol.documents.notebooks import InvalidNotebookError, parse_notebook
from .write_journal import TEMP_SUFFIX as TEMP_SUFFIX
from .write_journal import (
    WRITING,
    Journal,
    content,
    describe,
    digest,
    put_back,
    read,
    read_all,
    remove_tree,
    sync_folder,
    temp_name,
    write_new,
)
from .write_journal import journal_folder as journal_folder
from .write_journal import recover as recover
from .write_journal import state_folder as state_folder
from .write_steps import Delete, MakeFolder, Rename, Step, Timeline, Write

# Internal to the library: Workspace.apply and LspSession.apply_edit are the public faces.
__all__: list[str] = []

# The journal's parts under the names the write path has always given them.
_Journal = Journal
_digest = digest
_sync_folder = sync_folder
_write_new = write_new

WRITERS = 16
"""Threads that write and sync the temporary files of a large set."""

PARALLEL_FROM = 8
"""Sets of this many files or more are written by several threads."""

HELD = 256
"""Replaced files held open at most, to be compared after their replacement: a larger set
compares them a batch at a time."""


class _Expectation:
    __slots__ = ("content", "path")

    def __init__(self, path: Path, content: bytes | None) -> None:
        self.path = path
        self.content = content


class _Replaced:
    """A file the set replaced, held open (the replaced file itself, no longer under its
    name) until it is compared with what it held when it was replaced."""

    __slots__ = ("descriptor", "step")

    def __init__(self, step: Write, descriptor: int) -> None:
        self.step = step
        self.descriptor: int | None = descriptor

    def text(self) -> bytes:
        """What the replaced file holds now (``step.before`` once it has been compared)."""
        if self.descriptor is None:
            return self.step.before or b""
        return read_all(self.descriptor)

    def close(self) -> None:
        if self.descriptor is not None:
            os.close(self.descriptor)
            self.descriptor = None


class _Conflict(Exception):
    """A file changed by someone else while the set was made (the paths people know)."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(names)
        self.names = names


class WriteSet:
    """One all-or-nothing change to files under ``root`` (see the module's docstring).

    ``name`` turns an absolute path into the one to show people (``src/app.py``); by
    default the path relative to the root. With ``allow_outside`` a path outside the root
    is allowed (``Workspace.apply(plan, allow_outside_workspace=True)``).
    """

    def __init__(
        self,
        root: Path | Sequence[Path],
        *,
        allow_outside: bool = False,
        name: Callable[[Path], str] | None = None,
        journal_root: Path | None = None,
    ) -> None:
        roots = [root] if isinstance(root, Path) else list(root)
        self._roots = [Path(os.path.realpath(r)) for r in roots]
        self._allow_outside = allow_outside
        self._name = name or self._default_name
        self._journal_root = (
            Path(os.path.realpath(journal_root))
            if journal_root is not None
            else (self._roots[0] if self._roots else Path("/"))
        )
        self._steps: list[Step] = []
        self._written: dict[Path, tuple[Path, bytes]] = {}
        """Each file written, by its real path: the name it was written under, and what."""
        self._expected: dict[Path, _Expectation] = {}
        self._folders: dict[Path, Path] = {}
        self._replaced: list[_Replaced] = []

    # -- building --------------------------------------------------------------------------

    def _default_name(self, path: Path) -> str:
        for root in self._roots:
            if path == root or root in path.parents:
                return path.relative_to(root).as_posix() or "."
        return str(path)

    def name(self, path: Path) -> str:
        """The path as people know it."""
        return self._name(path)

    def _inside(self, path: Path) -> bool:
        return any(path == root or root in path.parents for root in self._roots)

    def _confine(self, given: Path, real: Path) -> Path:
        if not self._allow_outside and not self._inside(real):
            shown = self._name(given) if self._inside(given) else str(given)
            where = "" if real == given else f" (it leads to {real})"
            raise EditOutsideRootError(
                shown, f"nothing was written: {shown}{where} is outside the root"
            )
        return real

    def locate(self, path: str | os.PathLike[str], *, follow_links: bool = True) -> Path:
        """``path`` resolved with its symbolic links (a link itself when not
        ``follow_links``: a rename or delete acts on the link), kept inside the root.

        Raises:
            EditOutsideRootError: it resolves outside the root.
        """
        given = Path(os.path.abspath(path))
        folder = self._real_folder(given.parent)
        if follow_links and os.path.islink(given):
            real = Path(os.path.realpath(given))
        else:
            real = folder / given.name
        return self._confine(given, real)

    def _real_folder(self, folder: Path) -> Path:
        """``folder`` with its links resolved, once per folder of the set."""
        real = self._folders.get(folder)
        if real is None:
            real = self._folders[folder] = Path(os.path.realpath(folder))
        return real

    def expect(self, path: str | os.PathLike[str], content: bytes | None) -> None:
        """``path`` must hold ``content`` (``None``: not exist) until the set is committed:
        what the change was made from. A file that differs is an :class:`EditConflictError`."""
        real = self.locate(path)
        self._expected.setdefault(real, _Expectation(real, content))

    # ``change`` tags a step with the caller's own number for it (the index of a
    # ``WorkspaceEdit``'s change), which a :class:`WriteError` about it carries.

    def write(
        self, path: str | os.PathLike[str], data: bytes, *, change: int | None = None
    ) -> None:
        """Give the file at ``path`` (through a symbolic link: its target) ``data``.

        Steps are keyed by the real path: the same file given a text under a second name
        (a link and its target) is one write when the texts are equal, and is refused,
        naming both names, when they differ (each name's change would undo the other's).

        Raises:
            EditOutsideRootError: it resolves outside the root.
            WriteError: the set writes another text to the same file under another name.
        """
        real = self.locate(path)
        given = Path(os.path.abspath(path))
        earlier = self._written.get(real)
        if earlier is not None and earlier[0] != given:
            if earlier[1] == data:
                return
            first, second = self._name(earlier[0]), self._name(given)
            raise WriteError(
                f"nothing was written: {first} and {second} are one file (a symbolic link and "
                "its target), given two different texts",
                change,
            )
        self._written[real] = (given, data)
        self._steps.append(Write(real, data, change))

    def make_folder(self, path: str | os.PathLike[str], *, change: int | None = None) -> None:
        self._steps.append(MakeFolder(self.locate(path, follow_links=False), change))

    def rename(
        self,
        old: str | os.PathLike[str],
        new: str | os.PathLike[str],
        *,
        overwrite: bool,
        change: int | None = None,
    ) -> None:
        self._steps.append(
            Rename(
                self.locate(old, follow_links=False),
                self.locate(new, follow_links=False),
                overwrite,
                change,
            )
        )

    def delete(
        self, path: str | os.PathLike[str], *, recursive: bool, change: int | None = None
    ) -> None:
        self._steps.append(Delete(self.locate(path, follow_links=False), recursive, change))

    @property
    def targets(self) -> list[Path]:
        """Every path the set changes, in order, once each."""
        found: dict[Path, None] = {}
        for step in self._steps:
            if isinstance(step, Rename):
                found[step.old] = None
                found[step.new] = None
            else:
                found[step.target] = None
        return list(found)

    # -- committing ------------------------------------------------------------------------

    def commit(self) -> None:
        """Make every step, all or nothing (see the module's docstring).

        Raises:
            EditOutsideRootError: a path leads outside the root.
            EditConflictError: a file changed since the change was made from it, or while
                the set was being made (the change is kept, the set undone).
            LspError: a file that may not be written (hard-linked, read-only, a notebook
                whose new text is not one), or a write that failed (the disk full, a folder
                not writable), naming the file; nothing was written.
        """
        if not self._steps:
            return
        writes = [step for step in self._steps if isinstance(step, Write)]
        for write in writes:
            self._check_target(write)
        self._follow(writes)
        folder = journal_folder(self._journal_root)
        try:
            journal = _Journal.create(folder)
        except OSError as error:
            raise _failure(
                f"nothing was written: cannot keep a journal in {folder}", error
            ) from error
        try:
            for step in self._steps:
                if isinstance(step, Write):
                    step.temp = temp_name(step.target)
                elif isinstance(step, Delete):
                    step.aside = temp_name(step.target)
                elif isinstance(step, Rename):
                    step.aside = temp_name(step.new)
            record = self._record()
            journal.write_body(record)
            told = WRITING.get()
            if told is not None:
                told(record)
            self._prepare(writes)
            self._check_conflicts()
            journal.mark_complete()
            self._replace(journal)
        except BaseException:
            self._remove_temporaries()
            journal.finish()
            raise
        finally:
            for replaced in self._replaced:
                replaced.close()
            self._replaced = []
        journal.finish()

    def _follow(self, writes: list[Write]) -> None:
        """Work out what each write replaces: what the steps before it leave there."""
        known: dict[Path, bytes | None] = {path: e.content for path, e in self._expected.items()}
        for write in writes:
            known.setdefault(write.target, write.old)

        def initial(path: Path) -> bytes | None:
            if path not in known:
                known[path] = content(path)
            return known[path]

        timeline = Timeline(initial)
        for step in self._steps:
            timeline.take(step)

    def _record(self) -> dict[str, Any]:
        steps: list[dict[str, Any]] = []
        for step in self._steps:
            if isinstance(step, Write):
                steps.append(
                    {
                        "op": "write",
                        "target": os.fsdecode(step.target),
                        "temp": os.fsdecode(step.temp or ""),
                        "old": _digest(step.before),
                        "new": _digest(step.data),
                    }
                )
            elif isinstance(step, MakeFolder):
                steps.append({"op": "mkdir", "target": os.fsdecode(step.target)})
            elif isinstance(step, Rename):
                steps.append(
                    {
                        "op": "rename",
                        "old": os.fsdecode(step.old),
                        "new": os.fsdecode(step.new),
                        "overwrite": step.overwrite,
                        "aside": os.fsdecode(step.aside or ""),
                        "content": _digest(step.moved),
                    }
                )
            else:
                steps.append(
                    {
                        "op": "delete",
                        "target": os.fsdecode(step.target),
                        "aside": os.fsdecode(step.aside or ""),
                    }
                )
        return {"version": 1, "root": os.fsdecode(self._journal_root), "steps": steps}

    def _check_conflicts(self) -> None:
        changed = []
        for expectation in self._expected.values():
            if content(expectation.path) != expectation.content:
                changed.append(self._name(expectation.path))
        if changed:
            raise EditConflictError(changed)

    def _check_target(self, step: Write) -> None:
        """Refuse a target that must not be replaced; remember its mode, owner and content."""
        name = self._name(step.target)
        if step.target.suffix == ".ipynb":
            problem = _not_a_notebook(step.data)
            if problem is not None:
                raise WriteError(
                    f"nothing was written: {name} would not be a notebook: {problem}",
                    step.change,
                )
        try:
            status = os.stat(step.target)
        except FileNotFoundError:
            return
        except OSError as error:
            raise _failure(f"nothing was written: cannot read {name}", error, step) from error
        if stat.S_ISDIR(status.st_mode):
            raise WriteError(f"nothing was written: {name} is a folder", step.change)
        if status.st_nlink > 1:
            raise WriteError(
                f"nothing was written: {name} has {status.st_nlink} hard links, and replacing "
                "it would split them (edit it in place yourself)",
                step.change,
            )
        if status.st_mode & 0o222 == 0 or not os.access(step.target, os.W_OK):
            raise WriteError(
                f"nothing was written: {name} is read-only (it has no write permission)",
                step.change,
            )
        step.mode = stat.S_IMODE(status.st_mode)
        step.owner = (status.st_uid, status.st_gid)
        expected = self._expected.get(step.target)
        if expected is not None and expected.content is not None:
            step.old = expected.content  # compared with the file before anything is replaced
            return
        try:
            step.old = read(step.target)
        except OSError as error:
            raise _failure(f"nothing was written: cannot read {name}", error, step) from error

    def _prepare(self, writes: list[Write]) -> None:
        """Write every temporary file, synced, then sync their folders. Many files are
        written by a few threads at once: each fsync waits for the disk, and the disk takes
        several at a time (a set of 100 files in about two thirds of the time)."""

        def one(step: Write) -> None:
            assert step.temp is not None
            try:
                _write_new(step.temp, step.data, step.mode, step.owner)
            except OSError as error:
                raise _failure(
                    f"nothing was written: writing {self._name(step.target)} failed", error, step
                ) from error

        if len(writes) < PARALLEL_FROM:
            for step in writes:
                one(step)
        else:
            with ThreadPoolExecutor(WRITERS, thread_name_prefix="adecore-lsp-write") as pool:
                for future in [pool.submit(one, step) for step in writes]:
                    future.result()  # the first failure, in the set's order
        for folder in {step.temp.parent: None for step in writes if step.temp is not None}:
            _sync_folder(folder)

    def _replace(self, journal: Journal) -> None:
        done: list[Callable[[], str | None]] = []
        folders: dict[Path, None] = {}
        step: Step | None = None
        try:
            for step in self._steps:
                done.extend(self._make(step))
                for path in _touched(step):
                    folders[path.parent] = None
                if len(self._replaced) >= HELD:
                    self._compare_replaced()
            self._compare_replaced()
        except _Conflict as conflict:
            journal.mark_undone()
            self._remove_temporaries()
            problems = _undo(done)
            error = EditConflictError(conflict.names)
            if problems:
                error.message += "; putting back the rest failed: " + "; ".join(problems)
            raise error from None
        except OSError as failure:
            journal.mark_undone()
            problems = _undo(done)
            restored = "; putting back failed too: " + "; ".join(problems) if problems else ""
            assert step is not None
            raise _failure(
                f"nothing was written: {self._step_name(step)}", failure, step, restored
            ) from failure
        for step in self._steps:
            if isinstance(step, (Delete, Rename)) and step.aside is not None:
                remove_tree(step.aside)
        for folder in folders:
            if folder.is_dir():
                _sync_folder(folder)

    def _compare_replaced(self) -> None:
        """Each file replaced since the last comparison must still hold what it held when
        it was replaced: a program that had it open may have written to it since."""
        changed = [
            self._name(replaced.step.target)
            for replaced in self._replaced
            if replaced.descriptor is not None and replaced.text() != replaced.step.before
        ]
        if changed:
            raise _Conflict(changed)
        for replaced in self._replaced:
            replaced.close()

    def _step_name(self, step: Step) -> str:
        if isinstance(step, Rename):
            return f"renaming {self._name(step.old)} to {self._name(step.new)} failed"
        verb = {"Write": "writing", "MakeFolder": "making", "Delete": "deleting"}
        return f"{verb[type(step).__name__]} {self._name(step.target)} failed"

    def _make(self, step: Step) -> list[Callable[[], str | None]]:
        """Make one step; the ways to undo it, last first (each says what it could not)."""
        if isinstance(step, Write):
            return [self._replace_file(step)]
        if isinstance(step, MakeFolder):
            os.mkdir(step.target)
            return [lambda: os.rmdir(step.target)]
        if isinstance(step, Rename):
            undo: list[Callable[[], str | None]] = []
            if os.path.lexists(step.new):
                if not step.overwrite:
                    raise FileExistsError(errno.EEXIST, "it exists", os.fsdecode(step.new))
                assert step.aside is not None
                aside = step.aside
                os.rename(step.new, aside)
                undo.append(lambda: os.rename(aside, step.new))
            os.rename(step.old, step.new)
            undo.append(lambda: os.rename(step.new, step.old))
            return undo
        assert step.aside is not None
        aside_path = step.aside
        os.rename(step.target, aside_path)
        return [lambda: os.rename(aside_path, step.target)]

    def _replace_file(self, step: Write) -> Callable[[], str | None]:
        """Replace one target, if it holds what the set's earlier steps leave there; the
        replaced file stays open, to be compared afterwards and put back from."""
        assert step.temp is not None
        target = step.target
        try:
            descriptor: int | None = os.open(target, os.O_RDONLY | os.O_NOFOLLOW)
        except FileNotFoundError:
            descriptor = None
        except OSError as error:
            if error.errno != errno.ELOOP:
                raise
            raise _Conflict([self._name(target)]) from None  # a link now
        replaced = None if descriptor is None else _Replaced(step, descriptor)
        try:
            if descriptor is not None and not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise _Conflict([self._name(target)])  # a folder, a pipe now
            if (None if replaced is None else replaced.text()) != step.before:
                raise _Conflict([self._name(target)])
            os.replace(step.temp, target)
        except BaseException:
            if replaced is not None:
                replaced.close()
            raise
        if replaced is not None:
            self._replaced.append(replaced)
        name = self._name(target)

        def undo() -> str | None:
            if content(target) != step.data:
                return f"{name} was changed again meanwhile; it was left as it is"
            if replaced is None:
                os.unlink(target)
            else:
                put_back(target, replaced.text())
            return None

        return undo

    def _remove_temporaries(self) -> None:
        for step in self._steps:
            if isinstance(step, Write) and step.temp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(step.temp)


def _undo(done: list[Callable[[], str | None]]) -> list[str]:
    """Undo what was made, last first; what could not be put back, in words."""
    problems: list[str] = []
    for undo in reversed(done):
        try:
            problem = undo()
        except OSError as again:
            problem = describe(again)
        if problem:
            problems.append(problem)
    return problems


def _touched(step: Step) -> list[Path]:
    if isinstance(step, Rename):
        return [step.old, step.new]
    return [step.target]


def _not_a_notebook(data: bytes) -> str | None:
    """Why ``data`` is not a notebook (``None`` when it is one)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8"
    try:
        parse_notebook(text)
    except InvalidNotebookError as error:
        return str(error)
    return None


class WriteError(LspError):
    """A write refused or failed: nothing was written. ``change`` is the tag of the step
    it is about (see :meth:`WriteSet.write`), when it is about one."""

    def __init__(self, message: str, change: int | None = None) -> None:
        super().__init__(ErrorCodes.RequestFailed, message)
        self.change = change


def _failure(what: str, error: OSError, step: Step | None = None, more: str = "") -> WriteError:
    return WriteError(f"{what}: {describe(error)}{more}", None if step is None else step.change)
