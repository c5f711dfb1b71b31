"""The write path's journal, the recovery of a set whose writer died, and the file
operations both make.

A set's journal lives in the user's state folder (never in the project), one folder per
root: a JSON line of the set's steps (each write's target, temporary file and the digests
of the text it replaces and of its new one; each rename's names and the digest of what it
moves), then ``complete`` once the set may be finished. Its writer holds it with ``flock``
for as long as it lives, so :func:`recover` replays only the journals of dead writers:
finishing a complete set, undoing an incomplete one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
import stat
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows has no flock
    fcntl = None  # type: ignore[assignment]

from .environment import getenv, home

# Internal to the library: Workspace.apply and LspSession.apply_edit are the public faces.
__all__: list[str] = []

TEMP_SUFFIX = ".adecore-tmp"
"""The end of every temporary file's name: ``.app.py.<random>.adecore-tmp`` beside ``app.py``."""

WRITING: ContextVar[Callable[[dict[str, Any]], None] | None] = ContextVar(
    "adecore_lsp_writing", default=None
)
"""Told each set's journal record once it is recorded, before any file is replaced: the
daemon tells its caller, who can then say what is on disk if the daemon dies."""

_COMPLETE = b"complete\n"
_UNDONE = b"undone\n"
"""Written after ``complete`` when a conflict found during the replacements undoes the set:
recovery then removes what is left of it rather than finishing it."""


def state_folder() -> Path:
    """``$XDG_STATE_HOME/adecore-lsp`` (else ``~/.local/state/adecore-lsp``)."""
    base = getenv("XDG_STATE_HOME") or os.path.join(home(), ".local", "state")
    return Path(base) / "adecore-lsp"


def journal_folder(root: Path) -> Path:
    """Where the journals of writes under ``root`` (a real path) live: one folder per root."""
    key = hashlib.sha256(os.fsencode(root)).hexdigest()[:32]
    return state_folder() / "journals" / key


def digest(data: bytes | None) -> str | None:
    """The journal's name for a content (``None``: no file)."""
    return None if data is None else hashlib.sha256(data).hexdigest()


# -- files -----------------------------------------------------------------------------


def read(path: Path) -> bytes:
    with open(path, "rb") as file:
        return file.read()


def content(path: Path) -> bytes | None:
    """What ``path`` holds: ``None`` when nothing is there, ``b""`` for a folder."""
    try:
        return read(path)
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return b""


def temp_name(target: Path) -> Path:
    """A new name beside ``target`` (in the nearest folder that exists)."""
    folder = target.parent
    while not folder.is_dir() and folder.parent != folder:
        folder = folder.parent
    return folder / f".{target.name}.{secrets.token_hex(6)}{TEMP_SUFFIX}"


def sync_folder(folder: Path) -> None:
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


def remove_tree(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        pass


def read_all(descriptor: int) -> bytes:
    """The whole of an open file, from its start."""
    parts: list[bytes] = []
    offset = 0
    while True:
        part = os.pread(descriptor, 1 << 20, offset)
        if not part:
            return b"".join(parts)
        parts.append(part)
        offset += len(part)


def write_new(path: Path, data: bytes, mode: int | None, owner: tuple[int, int] | None) -> None:
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


def put_back(target: Path, data: bytes) -> None:
    status = os.stat(target)
    temp = temp_name(target)
    write_new(temp, data, stat.S_IMODE(status.st_mode), (status.st_uid, status.st_gid))
    os.replace(temp, target)


def describe(error: OSError) -> str:
    return error.strerror or str(error)


# -- the journal -----------------------------------------------------------------------


@dataclass
class Journal:
    """One set's journal: a JSON line of its steps, then ``complete`` once it may be
    finished; locked by its writer for as long as it lives."""

    path: Path
    descriptor: int

    @classmethod
    def create(cls, folder: Path) -> Journal:
        """A new journal in ``folder``, locked. Raises ``OSError`` when it cannot be made."""
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        name = folder / f"{secrets.token_hex(8)}.json"
        part = name.with_suffix(".part")
        descriptor = os.open(part, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        return cls(part, descriptor)

    def write_body(self, record: dict[str, Any]) -> None:
        body = orjson.dumps(record) + b"\n"
        os.write(self.descriptor, body)
        os.fsync(self.descriptor)
        final = self.path.with_suffix(".json")
        os.rename(self.path, final)
        self.path = final
        sync_folder(final.parent)

    def mark_complete(self) -> None:
        os.write(self.descriptor, _COMPLETE)
        os.fsync(self.descriptor)

    def mark_undone(self) -> None:
        """The set is being undone: recovery must not finish it."""
        os.write(self.descriptor, _UNDONE)
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
            problems.append(f"{step.get('op')} of {step.get('target')}: {describe(error)}")
    for aside in asides:
        with contextlib.suppress(OSError):
            remove_tree(Path(aside))
    return problems


def _finish(step: dict[str, Any], asides: list[str]) -> Iterator[str]:
    op = step.get("op")
    if op == "write":
        temp, target = step["temp"], step["target"]
        if not os.path.lexists(temp):
            return  # done before the crash
        now = digest(content(Path(target)))
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
