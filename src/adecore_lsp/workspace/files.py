"""The files of a workspace's root: which to check, and whether the disk changed under us.

A whole-root call (diagnostics of everything, references, a bare-name target) opens the
root's files that a server takes. It skips what the root's ``.gitignore`` files ignore and
the folders no one checks (``.venv``, ``node_modules``, ``build``, ``dist``, ``.git``).
``git ls-files`` answers where the root is a git work tree (it knows every ignore rule);
elsewhere the ``.gitignore`` patterns are matched here.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

SKIPPED_FOLDERS = frozenset(
    {".venv", "venv", "node_modules", "build", "dist", ".git", "__pycache__", ".ipynb_checkpoints"}
)


@dataclass(frozen=True)
class DiskState:
    """What a file was on disk when last read: its size, modification time and status-change
    time. ``st_ctime`` is what a rewrite that restores the modification time (``cp -p``,
    ``rsync -t``, ``tar x``, an editor keeping times) cannot set back; it also moves with a
    ``chmod``, which costs one needless read at worst."""

    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, path: Path) -> DiskState | None:
        try:
            status = path.stat()
        except OSError:
            return None
        return cls(status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def is_file(path: Path) -> bool:
    """Whether ``path`` is a file: one stat, quick enough to call from the event loop."""
    return path.is_file()


class NotUtf8Error(ValueError):
    """A file that is not UTF-8 text: no server reads it as code, and it is reported as not
    checked (``not_utf8``) rather than failing the files around it."""


def read_text(path: Path) -> str:
    """A file's text as UTF-8, with its line endings as they are.

    Raises:
        NotUtf8Error: a file that is not UTF-8 text, naming it (a ``ValueError``).
        OSError: a file that cannot be read (``FileNotFoundError`` when it is missing).
    """
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotUtf8Error(f"{path} is not UTF-8 text: {error}") from None


def root_files(root: Path, wanted: Callable[[Path], bool], under: Path | None = None) -> list[Path]:
    """The files under ``root`` that ``wanted`` accepts, ignored ones and skipped folders left
    out, sorted by path; with ``under`` (a folder in the root), only those inside it."""
    listed = _git_files(root)
    candidates = listed if listed is not None else _walk(root)
    inside = None if under is None or under == root else under.relative_to(root).parts
    return sorted(
        path
        for path in candidates
        if not SKIPPED_FOLDERS.intersection(parts := path.relative_to(root).parts[:-1])
        and (inside is None or parts[: len(inside)] == inside)
        and wanted(path)
    )


def _git_files(root: Path) -> list[Path] | None:
    git = shutil.which("git")
    if git is None or not (root / ".git").exists():
        return None
    try:
        result = subprocess.run(
            [git, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            timeout=30,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    names = result.stdout.decode("utf-8", "surrogateescape").split("\0")
    return [path for name in names if name and (path := root / name).is_file()]


def _walk(root: Path) -> Iterator[Path]:
    rules: list[tuple[Path, list[str]]] = []
    for folder, folders, files in os.walk(root):
        here = Path(folder)
        ignore = here / ".gitignore"
        if ignore.is_file():
            rules.append((here, _patterns(ignore)))
        folders[:] = sorted(
            name
            for name in folders
            if name not in SKIPPED_FOLDERS and not _ignored(here / name, True, rules)
        )
        for name in sorted(files):
            path = here / name
            if not _ignored(path, False, rules):
                yield path


def _patterns(path: Path) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    return [line.rstrip() for line in lines if line.strip() and not line.startswith("#")]


def _ignored(path: Path, is_dir: bool, rules: list[tuple[Path, list[str]]]) -> bool:
    """Whether ``.gitignore`` patterns ignore ``path``: the last matching pattern decides."""
    ignored = False
    for base, patterns in rules:
        try:
            relative = path.relative_to(base).as_posix()
        except ValueError:
            continue
        for pattern in patterns:
            negated = pattern.startswith("!")
            body = pattern[1:] if negated else pattern
            if body.endswith("/"):
                if not is_dir:
                    continue
                body = body.rstrip("/")
            anchored = "/" in body
            body = body.lstrip("/")
            target = relative if anchored else relative.rsplit("/", 1)[-1]
            if fnmatch.fnmatchcase(target, body) or fnmatch.fnmatchcase(relative, body + "/**"):
                ignored = not negated
    return ignored
