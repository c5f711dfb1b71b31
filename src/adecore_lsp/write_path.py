"""The one write path: every file the library changes is changed here, all or nothing.

A :class:`WriteSet` gathers the steps of one change to the files of a root (write a file's
new bytes, make a folder, rename, delete), each path resolved with its symbolic links and
kept inside the root, and the contents the files must still hold (what the change was made
from). :meth:`WriteSet.commit` then:

1. checks every target: inside the root (``EditOutsideRootError``), a single hard link, a
   write permission bit, writable by this process; a symbolic link is written through;
2. records the set in a journal in the user's state folder (never in the project), locked
   with ``flock`` while its writer lives, before the first temporary file is written;
3. writes each new text to a temporary file beside its target, with the old file's mode,
   owner and group, and fsyncs the files and their folders;
4. compares every file with the content the change was made from (a foreign edit is an
   :class:`EditConflictError`, nothing written) and marks the journal complete;
5. replaces the targets in order, fsyncs their folders and removes the journal.

A failure before step 5 removes the temporary files; one during it puts back what was
replaced. A process killed anywhere in between leaves a journal that no live process holds:
:func:`recover` (called by every new ``Workspace`` on that root) finishes a complete set,
never replacing a file whose content is neither the old nor the new one, and removes the
temporary files of an incomplete one. A reader sees every file old or every file new.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
import shutil
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows has no flock
    fcntl = None  # type: ignore[assignment]

from .environment import getenv, home
from .errors import EditConflictError, EditOutsideRootError, ErrorCodes, LspError

# Internal to the library: Workspace.apply and LspSession.apply_edit are the public faces.
__all__: list[str] = []

TEMP_SUFFIX = ".adecore-tmp"
"""The end of every temporary file's name: ``.app.py.<random>.adecore-tmp`` beside ``app.py``."""

_COMPLETE = b"complete\n"

WRITERS = 16
"""Threads that write and sync the temporary files of a large set."""

PARALLEL_FROM = 8
"""Sets of this many files or more are written by several threads."""


def state_folder() -> Path:
    """``$XDG_STATE_HOME/adecore-lsp`` (else ``~/.local/state/adecore-lsp``)."""
    base = getenv("XDG_STATE_HOME") or os.path.join(home(), ".local", "state")
    return Path(base) / "adecore-lsp"


def journal_folder(root: Path) -> Path:
    """Where the journals of writes under ``root`` (a real path) live: one folder per root."""
    key = hashlib.sha256(os.fsencode(root)).hexdigest()[:32]
    return state_folder() / "journals" / key


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


# -- steps -----------------------------------------------------------------------------


@dataclass
class _Write:
    target: Path
    data: bytes
    change: int | None = None
    temp: Path | None = None
    old: bytes | None = None
    """What the target held when the set was checked (``None``: it did not exist)."""
    mode: int | None = None
    owner: tuple[int, int] | None = None


@dataclass
class _MakeFolder:
    target: Path
    change: int | None = None


@dataclass
class _Rename:
    old: Path
    new: Path
    overwrite: bool
    change: int | None = None
    aside: Path | None = None
    """Where what ``new`` held is moved while the set is made (removed at the end)."""


@dataclass
class _Delete:
    target: Path
    recursive: bool
    change: int | None = None
    aside: Path | None = None


_Step = _Write | _MakeFolder | _Rename | _Delete


@dataclass
class _Expectation:
    path: Path
    content: bytes | None


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
        self._steps: list[_Step] = []
        self._expected: dict[Path, _Expectation] = {}
        self._folders: dict[Path, Path] = {}

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
        """Give the file at ``path`` (through a symbolic link: its target) ``data``."""
        self._steps.append(_Write(self.locate(path), data, change))

    def make_folder(self, path: str | os.PathLike[str], *, change: int | None = None) -> None:
        self._steps.append(_MakeFolder(self.locate(path, follow_links=False), change))

    def rename(
        self,
        old: str | os.PathLike[str],
        new: str | os.PathLike[str],
        *,
        overwrite: bool,
        change: int | None = None,
    ) -> None:
        self._steps.append(
            _Rename(
                self.locate(old, follow_links=False),
                self.locate(new, follow_links=False),
                overwrite,
                change,
            )
        )

    def delete(
        self, path: str | os.PathLike[str], *, recursive: bool, change: int | None = None
    ) -> None:
        self._steps.append(_Delete(self.locate(path, follow_links=False), recursive, change))

    @property
    def targets(self) -> list[Path]:
        """Every path the set changes, in order, once each."""
        found: dict[Path, None] = {}
        for step in self._steps:
            if isinstance(step, _Rename):
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
            EditConflictError: a file changed since the change was made from it.
            LspError: a file that may not be written (hard-linked, read-only), or a write
                that failed (the disk full, a folder not writable), naming the file;
                nothing was written.
        """
        if not self._steps:
            return
        writes = [step for step in self._steps if isinstance(step, _Write)]
        for write in writes:
            self._check_target(write)
        journal = _Journal.create(journal_folder(self._journal_root))
        try:
            for step in self._steps:
                if isinstance(step, _Write):
                    step.temp = _temp_name(step.target)
                elif isinstance(step, _Delete):
                    step.aside = _temp_name(step.target)
                elif isinstance(step, _Rename):
                    step.aside = _temp_name(step.new)
            journal.write_body(self._record())
            self._prepare(writes)
            self._check_conflicts()
            journal.mark_complete()
            self._replace(journal)
        except BaseException:
            self._remove_temporaries()
            journal.finish()
            raise
        journal.finish()

    def _record(self) -> dict[str, Any]:
        steps: list[dict[str, Any]] = []
        for step in self._steps:
            if isinstance(step, _Write):
                steps.append(
                    {
                        "op": "write",
                        "target": os.fsdecode(step.target),
                        "temp": os.fsdecode(step.temp or ""),
                        "old": _digest(step.old),
                        "new": _digest(step.data),
                    }
                )
            elif isinstance(step, _MakeFolder):
                steps.append({"op": "mkdir", "target": os.fsdecode(step.target)})
            elif isinstance(step, _Rename):
                steps.append(
                    {
                        "op": "rename",
                        "old": os.fsdecode(step.old),
                        "new": os.fsdecode(step.new),
                        "overwrite": step.overwrite,
                        "aside": os.fsdecode(step.aside or ""),
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
            if _content(expectation.path) != expectation.content:
                changed.append(self._name(expectation.path))
        if changed:
            raise EditConflictError(changed)

    def _check_target(self, step: _Write) -> None:
        """Refuse a target that must not be replaced; remember its mode, owner and content."""
        name = self._name(step.target)
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
            step.old = _read(step.target)
        except OSError as error:
            raise _failure(f"nothing was written: cannot read {name}", error, step) from error

    def _prepare(self, writes: list[_Write]) -> None:
        """Write every temporary file, synced, then sync their folders. Many files are
        written by a few threads at once: each fsync waits for the disk, and the disk takes
        several at a time (a set of 100 files in about two thirds of the time)."""

        def one(step: _Write) -> None:
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

    def _replace(self, journal: _Journal) -> None:
        done: list[Callable[[], None]] = []
        folders: dict[Path, None] = {}
        try:
            for step in self._steps:
                done.extend(self._make(step))
                for path in _touched(step):
                    folders[path.parent] = None
        except OSError as error:
            problems = []
            for undo in reversed(done):
                try:
                    undo()
                except OSError as again:
                    problems.append(_describe(again))
            restored = "; putting back failed too: " + "; ".join(problems) if problems else ""
            raise _failure(
                f"nothing was written: {self._step_name(step)}", error, step, restored
            ) from error
        for step in self._steps:
            if isinstance(step, (_Delete, _Rename)) and step.aside is not None:
                _remove_tree(step.aside)
        for folder in folders:
            if folder.is_dir():
                _sync_folder(folder)

    def _step_name(self, step: _Step) -> str:
        if isinstance(step, _Rename):
            return f"renaming {self._name(step.old)} to {self._name(step.new)} failed"
        verb = {"_Write": "writing", "_MakeFolder": "making", "_Delete": "deleting"}
        return f"{verb[type(step).__name__]} {self._name(step.target)} failed"

    def _make(self, step: _Step) -> list[Callable[[], None]]:
        """Make one step; the ways to undo it, last first."""
        if isinstance(step, _Write):
            assert step.temp is not None
            target, old = step.target, step.old
            if old is None and os.path.lexists(target):
                old = _read(target)  # made by an earlier step of this set (a create)
            os.replace(step.temp, target)
            if old is None:
                return [lambda: os.unlink(target)]
            return [lambda: _put_back(target, old)]
        if isinstance(step, _MakeFolder):
            os.mkdir(step.target)
            return [lambda: os.rmdir(step.target)]
        if isinstance(step, _Rename):
            undo: list[Callable[[], None]] = []
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

    def _remove_temporaries(self) -> None:
        for step in self._steps:
            if isinstance(step, _Write) and step.temp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(step.temp)


def _touched(step: _Step) -> list[Path]:
    if isinstance(step, _Rename):
        return [step.old, step.new]
    return [step.target]


def _content(path: Path) -> bytes | None:
    try:
        return _read(path)
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return b""


def _read(path: Path) -> bytes:
    with open(path, "rb") as file:
        return file.read()


def _temp_name(target: Path) -> Path:
    """A new name beside ``target`` (in the nearest folder that exists)."""
    folder = target.parent
    while not folder.is_dir() and folder.parent != folder:
        folder = folder.parent
    return folder / f".{target.name}.{secrets.token_hex(6)}{TEMP_SUFFIX}"


def _write_new(path: Path, data: bytes, mode: int | None, owner: tuple[int, int] | None) -> None:
    """A new file at ``path`` holding ``data``, synced, with ``mode`` and ``owner`` (as far
    as this process may give them)."""
    # A new file (no mode to keep) gets what the umask leaves of 0o666, as open() gives.
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if mode else 0o666)
    try:
        if owner is not None:
            with contextlib.suppress(OSError):
                os.fchown(descriptor, *owner)
        if mode is not None:
            os.fchmod(descriptor, mode)  # after chown, which may clear set-id bits
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view) :]
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _sync_folder(folder: Path) -> None:
    try:
        descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass  # some file systems cannot sync a folder; the files themselves are synced
    finally:
        os.close(descriptor)


def _put_back(target: Path, data: bytes) -> None:
    status = os.stat(target)
    temp = _temp_name(target)
    _write_new(temp, data, stat.S_IMODE(status.st_mode), (status.st_uid, status.st_gid))
    os.replace(temp, target)


def _remove_tree(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        pass


def _describe(error: OSError) -> str:
    return error.strerror or str(error)


class WriteError(LspError):
    """A write refused or failed: nothing was written. ``change`` is the tag of the step
    it is about (see :meth:`WriteSet.write`), when it is about one."""

    def __init__(self, message: str, change: int | None = None) -> None:
        super().__init__(ErrorCodes.RequestFailed, message)
        self.change = change


def _failure(what: str, error: OSError, step: _Step | None = None, more: str = "") -> WriteError:
    return WriteError(f"{what}: {_describe(error)}{more}", None if step is None else step.change)


# -- the journal -----------------------------------------------------------------------


@dataclass
class _Journal:
    """One set's journal: a JSON line of its steps, then ``complete`` once it may be
    finished; locked by its writer for as long as it lives."""

    path: Path
    descriptor: int
    body: bytes = field(default=b"")

    @classmethod
    def create(cls, folder: Path) -> _Journal:
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            name = folder / f"{secrets.token_hex(8)}.json"
            part = name.with_suffix(".part")
            descriptor = os.open(part, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError as error:
            raise _failure(
                f"nothing was written: cannot keep a journal in {folder}", error
            ) from error
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        return cls(part, descriptor)

    def write_body(self, record: dict[str, Any]) -> None:
        body = orjson.dumps(record) + b"\n"
        os.write(self.descriptor, body)
        os.fsync(self.descriptor)
        final = self.path.with_suffix(".json")
        os.rename(self.path, final)
        self.path = final
        _sync_folder(final.parent)

    def mark_complete(self) -> None:
        os.write(self.descriptor, _COMPLETE)
        os.fsync(self.descriptor)

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        os.close(self.descriptor)


def recover(root: Path) -> list[str]:
    """Finish or undo the interrupted writes under ``root`` that no live process holds.

    A complete set is finished (a file whose content is neither the step's old nor its new
    one is left as it is, and named in the answer); the temporary files of an incomplete
    one are removed. Returns what could not be finished, in words (empty when all went
    well). Never raises for a journal it cannot read: that journal is left for a person.
    """
    folder = journal_folder(Path(os.path.realpath(root)))
    if not folder.is_dir():
        return []
    problems: list[str] = []
    for entry in sorted(folder.iterdir()):
        if entry.suffix not in (".json", ".part"):
            continue
        try:
            descriptor = os.open(entry, os.O_RDWR)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # its writer lives
            if not entry.exists():
                continue  # finished meanwhile
            data = entry.read_bytes()
            if not data and time.time() - os.fstat(descriptor).st_mtime < 10:
                continue  # just made: its writer is about to lock it
            problems.extend(_replay(data))
            entry.unlink()
        finally:
            os.close(descriptor)
    return problems


def _replay(data: bytes) -> list[str]:
    first, _, rest = data.partition(b"\n")
    try:
        record = orjson.loads(first)
        steps = record["steps"]
    except (orjson.JSONDecodeError, KeyError, TypeError):
        return []  # written before any temporary file: nothing to undo
    if rest != _COMPLETE:
        for step in steps:
            if step.get("op") == "write" and step.get("temp"):
                with contextlib.suppress(OSError):
                    os.unlink(step["temp"])
        return []
    problems: list[str] = []
    asides: list[str] = []
    for step in steps:
        try:
            problems.extend(_finish(step, asides))
        except OSError as error:
            problems.append(f"{step.get('op')} of {step.get('target')}: {_describe(error)}")
    for aside in asides:
        with contextlib.suppress(OSError):
            _remove_tree(Path(aside))
    return problems


def _finish(step: dict[str, Any], asides: list[str]) -> Iterator[str]:
    op = step.get("op")
    if op == "write":
        temp, target = step["temp"], step["target"]
        if not os.path.lexists(temp):
            return  # done before the crash
        now = _digest(_content(Path(target)))
        if now in (step["old"], step["new"]):
            os.replace(temp, target)
        else:
            os.unlink(temp)
            yield f"{target} changed since; it was left as it is"
    elif op == "mkdir":
        with contextlib.suppress(FileExistsError):
            os.mkdir(step["target"])
    elif op == "rename":
        old, new, aside = step["old"], step["new"], step.get("aside") or ""
        if aside:
            asides.append(aside)
        if os.path.lexists(old):
            if os.path.lexists(new):
                if not step.get("overwrite") or not aside:
                    yield f"{new} exists; {old} was not renamed to it"
                    return
                os.rename(new, aside)
            os.rename(old, new)
    elif op == "delete":
        target, aside = step["target"], step.get("aside") or ""
        if os.path.lexists(target) and aside:
            os.rename(target, aside)
        if aside:
            asides.append(aside)
