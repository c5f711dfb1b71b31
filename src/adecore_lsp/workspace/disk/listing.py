"""The files of a workspace's root: which to check, and whether the disk changed under us.

A whole-root call (diagnostics of everything, references, a bare-name target) opens the
root's files that a server takes. It skips what the root's ``.gitignore`` files ignore and
the folders no checker reads (``.venv``, ``node_modules``, ``.git``).
``git ls-files`` answers where the root is a git work tree (it knows every ignore rule);
elsewhere (an sdist, a CI copy, a repository git refuses for its owner) the ``.gitignore``
files are read here and matched by git's own rules (``gitignore.py``). A file whose real
path lies outside the root (a symbolic link out of it, or a file in a linked folder) is never
read: a listing leaves it out and counts it, a read of it is refused (:func:`confined`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from . import git
from .gitignore import IgnoreFile, ignored, read_ignore_file

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

SKIPPED_FOLDERS = frozenset(
    {".venv", "venv", "node_modules", ".git", "__pycache__", ".ipynb_checkpoints"}
)
"""Folders no checker's command line reads (each one's default excludes name them). A
folder named ``build`` or ``dist`` is not among them: each server's scope decides (ruff's
default excludes name ``dist``, pyright's neither), and ``.gitignore`` where it says so."""


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
            status = os.stat(path)
        except OSError:
            return None
        return cls(status.st_size, status.st_mtime_ns, status.st_ctime_ns)

    @classmethod
    def of_file(cls, path: Path) -> DiskState | None:
        """The state of a file, ``None`` for anything else (missing, a folder, a device):
        one stat that both checks and records."""
        try:
            status = os.stat(path)
        except OSError:
            return None
        if not stat.S_ISREG(status.st_mode):
            return None
        return cls(status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def is_file(path: Path) -> bool:
    """Whether ``path`` is a file: one stat, quick enough to call from the event loop."""
    return path.is_file()


class NotUtf8Error(ValueError):
    """A file that is not UTF-8 text: no server reads it as code, and it is reported as not
    checked (``not_utf8``) rather than failing the files around it."""


class LinkOutOfRootError(ValueError):
    """A path inside the root as written whose real path lies outside it (a symbolic link
    out of the root, or a file in a linked folder): it is never read, as it is never
    written, so a repository cannot make the tool show a file of the machine."""

    def __init__(self, shown: str) -> None:
        super().__init__(
            f"{shown} leads out of the root through a symbolic link (its real path lies "
            "outside the root): it is not read"
        )
        self.shown = shown


def leads_out(root: Path, path: Path) -> bool:
    """Whether ``path``, inside ``root`` as written, has its real path outside ``root``'s.
    A path given outside the root is the caller's own choice, and is not judged here.

    One ``lstat`` for each part below the root, and a ``realpath`` only when one of them is
    a link: asked at each first read of a file, and never remembered (a folder may become
    a link between two commands of a daemon)."""
    top, full = os.fspath(root), os.fspath(path)
    inside = top if top.endswith(os.sep) else top + os.sep
    if not full.startswith(inside):
        return False
    parts = full[len(inside) :].split(os.sep)
    if ".." in parts:
        return _outside(root, path)
    current = inside.rstrip(os.sep)
    for part in parts:
        current += os.sep + part
        try:
            mode = os.lstat(current).st_mode
        except OSError:
            return False  # nothing there to read
        if stat.S_ISLNK(mode):
            return _outside(root, path)
    return False


def _outside(root: Path, path: Path) -> bool:
    return not _within(os.path.realpath(path), os.path.realpath(root))


def confined(root: Path, path: Path, shown: str | None = None) -> Path:
    """``path``, unless it is inside ``root`` as written and its real path is not.

    Raises:
        LinkOutOfRootError: naming it as ``shown`` (by default, relative to ``root``).
    """
    if leads_out(root, path):
        raise LinkOutOfRootError(shown or path.relative_to(root).as_posix())
    return path


def read_text(path: Path) -> str:
    """A file's text as UTF-8, with its line endings as they are.

    Raises:
        NotUtf8Error: a file that is not UTF-8 text, naming it (a ``ValueError``).
        OSError: a file that cannot be read (``FileNotFoundError`` when it is missing).
    """
    with open(path, "rb", buffering=0) as file:  # one read of the whole file, unbuffered
        data = file.readall()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotUtf8Error(f"{path} is not UTF-8 text: {error}") from None


UNCOUNTED = frozenset({".git", "__pycache__"})
"""Skipped folders a listing does not count as left out: they never hold a project's code."""

Aside = dict[str, set[str]]
"""What a listing left aside, by reason (``SKIPPED``, ``GITIGNORED``): the root-relative
names of the folders and files it did not take (folders end with ``/``)."""

SKIPPED = "no checker reads"
GITIGNORED = "that .gitignore ignores"


def root_files(
    root: Path,
    wanted: Callable[[Path], bool],
    under: Path | None = None,
    *,
    links_out: set[Path] | None = None,
    aside: Aside | None = None,
) -> list[Path]:
    """The files under ``root`` that ``wanted`` accepts, ignored ones and skipped folders left
    out, sorted by path; with ``under`` (a folder in the root), only those inside it (and
    only that folder is walked). A file whose real path lies outside the root is left out,
    and added to ``links_out`` when given. ``aside``, when given, gets what was left out
    otherwise, by reason: the skipped folders (walked or not), and outside git the folders
    and the wanted files ``.gitignore`` ignores (git's listing names no ignored file)."""
    links: set[Path] = set()
    listed = _git_files(root, links)
    if listed is None:
        found: list[Path] = []
        within = None if under is None or under == root else os.fspath(under)
        top = os.path.realpath(root)

        def note(reason: str, path: str, folder: bool) -> None:
            if aside is not None and (folder or wanted(Path(path))):
                name = os.path.relpath(path, root) + ("/" if folder else "")
                aside.setdefault(reason, set()).add(name)

        def take(entry: os.DirEntry[str]) -> None:
            path = Path(entry.path)
            if not wanted(path):
                return
            # The walk enters no linked folder: only a link itself can lead out.
            if entry.is_symlink() and not _within(os.path.realpath(path), top):
                if links_out is not None:
                    links_out.add(path)
                return
            found.append(path)

        rules = _root_rules(os.fspath(root))
        _files(os.fspath(root), rules, _skipped_folder, take, within, note)
        return sorted(found)
    return listed_files(root, listed, wanted, under, links_out=links_out, links=links, aside=aside)


def listed_files(
    root: Path,
    listed: Iterable[Path],
    wanted: Callable[[Path], bool],
    under: Path | None = None,
    *,
    links_out: set[Path] | None = None,
    links: set[Path] | None = None,
    aside: Aside | None = None,
) -> list[Path]:
    """Of the files git lists (``listed``, absolute), those inside ``root`` (and ``under``)
    that ``wanted`` accepts, skipped folders left out, sorted by path. A file whose real path
    lies outside the root (a link, or in a linked folder: git lists what its index holds,
    and an index comes with the repository) is left out, and added to ``links_out``.
    ``links``: which of ``listed`` are symbolic links, when known (else each is looked at).
    ``aside`` gets the skipped folders that held a wanted file (a committed ``.venv``)."""
    inside = None if under is None or under == root else under.relative_to(root).parts
    reals = _RealFolders(root)
    found = []
    for path in listed:
        if not path.is_relative_to(root):
            continue
        parts = path.relative_to(root).parts[:-1]
        if inside is not None and parts[: len(inside)] != inside:
            continue
        skipped = SKIPPED_FOLDERS.intersection(parts)
        if skipped:
            if aside is not None and not UNCOUNTED.intersection(parts) and wanted(path):
                depth = min(parts.index(name) for name in skipped) + 1
                aside.setdefault(SKIPPED, set()).add("/".join(parts[:depth]) + "/")
            continue
        if wanted(path):
            if reals.leads_out(path, None if links is None else path in links):
                if links_out is not None:
                    links_out.add(path)
            else:
                found.append(path)
    return sorted(found)


def _within(real: str, top: str) -> bool:
    return real == top or real.startswith(top if top.endswith(os.sep) else top + os.sep)


class _RealFolders:
    """Where the files of a listing really are: one ``lstat`` a file and one a folder (the
    real path of each folder remembered for this listing), instead of a ``realpath`` of
    every file."""

    def __init__(self, root: Path) -> None:
        self.top = os.path.realpath(root)
        self._folders: dict[str, str] = {os.fspath(root): self.top}

    def folder(self, folder: str) -> str:
        known = self._folders.get(folder)
        if known is None:
            parent, _, name = folder.rpartition(os.sep)
            if os.path.islink(folder):
                known = os.path.realpath(folder)
            else:
                known = os.path.join(self.folder(parent), name)
            self._folders[folder] = known
        return known

    def leads_out(self, path: Path, link: bool | None = None) -> bool:
        """Whether ``path`` (inside the root as written; ``link``: whether it is a symbolic
        link, when known) has its real path outside it."""
        text = os.fspath(path)
        if not _within(self.folder(os.path.dirname(text)), self.top):
            return True
        if link is None:
            link = os.path.islink(text)
        return link and not _within(os.path.realpath(text), self.top)


def _skipped_folder(name: str) -> bool:
    return name in SKIPPED_FOLDERS


def _git_files(root: Path, links: set[Path] | None = None) -> list[Path] | None:
    """The files git lists in ``root`` (tracked, and untracked ones it does not ignore), when
    ``root`` is the top of a git work tree; ``None`` otherwise, or when git cannot say. The
    symbolic links among them are added to ``links`` (one ``lstat`` a file says both)."""
    if not (root / ".git").exists():
        return None
    try:
        listing = ("ls-files", "-z", "--cached", "--others", "--exclude-standard")
        out = git.run(root, *listing, timeout=30)
    except git.GitError:
        return None
    names = out.decode("utf-8", "surrogateescape").split("\0")
    found = []
    for name in names:
        if name:
            path = root / name
            try:
                mode = os.lstat(path).st_mode
                if stat.S_ISLNK(mode):
                    mode = os.stat(path).st_mode
                    if links is not None:
                        links.add(path)
            except OSError:
                continue
            if stat.S_ISREG(mode):
                found.append(path)
    return found


TREE_SKIPPED = SKIPPED_FOLDERS | {".hg", ".svn", ".tox", ".nox", ".cache"}
"""Folders whose files no server is told of (besides any ``*_cache`` folder)."""

Stamp = tuple[int, int, int]
"""A file's size, modification time and status-change time (ns)."""


def tree_stock(root: Path) -> dict[str, Stamp]:
    """Every file under ``root`` by path, with its :data:`Stamp`: what changed between two
    looks is what the servers are told. Left out: the folders no server reads (``.git``,
    ``node_modules``, ``.venv``, caches ...) and what ``.gitignore`` files ignore (build
    output, logs), so that a tool writing there between two commands tells nobody anything.
    One ``scandir`` a folder and one ``stat`` a file: a few milliseconds for a thousand files.
    """
    found: dict[str, Stamp] = {}

    def take(entry: os.DirEntry[str]) -> None:
        status = entry.stat()
        found[entry.path] = (status.st_size, status.st_mtime_ns, status.st_ctime_ns)

    _files(os.fspath(root), _root_rules(os.fspath(root)), _skipped_in_tree, take, None)
    return found


def _skipped_in_tree(name: str) -> bool:
    return name in TREE_SKIPPED or name.endswith("_cache")


def _files(
    folder: str,
    rules: tuple[IgnoreFile, ...],
    skipped: Callable[[str], bool],
    take: Callable[[os.DirEntry[str]], None],
    within: str | None,
    note: Callable[[str, str, bool], None] | None = None,
) -> None:
    """Call ``take`` for each file under ``folder`` that ``.gitignore`` keeps, in folders
    ``skipped`` does not name; with ``within``, only the files inside that folder (the
    folders above it are read for their ``.gitignore`` only). ``note(reason, path,
    is_folder)`` hears each folder skipped and each folder or file ignored there."""
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:
        return
    for entry in entries:
        if entry.name == ".gitignore" and not entry.is_symlink():  # git follows no such link
            found = read_ignore_file(Path(entry.path), folder)
            if found is not None:
                rules = (*rules, found)
            break
    inside = within is None or folder == within or folder.startswith(within + os.sep)
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                path = entry.path
                if skipped(entry.name) or ignored(path, True, rules):
                    if note is not None and inside and entry.name not in UNCOUNTED:
                        note(SKIPPED if skipped(entry.name) else GITIGNORED, path, True)
                    continue
                toward = within is not None and (within + os.sep).startswith(path + os.sep)
                if inside or toward:
                    _files(path, rules, skipped, take, within, note)
            elif inside and entry.is_file():
                if not ignored(entry.path, False, rules):
                    take(entry)
                elif note is not None:
                    note(GITIGNORED, entry.path, False)
        except OSError:
            continue  # gone meanwhile: the next look says so


def _root_rules(root: str) -> tuple[IgnoreFile, ...]:
    """What git ignores in every folder of ``root`` before any ``.gitignore``: the
    repository's own ``.git/info/exclude``, when ``root`` holds a ``.git`` folder that git
    cannot be asked about (not installed, or refused for its owner)."""
    found = read_ignore_file(Path(root, ".git", "info", "exclude"), root)
    return () if found is None else (found,)
