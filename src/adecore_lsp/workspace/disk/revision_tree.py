"""A git revision's files, and what changed in the working tree since it, from git's objects
alone: git never checks a file out or reads one of the working tree (so no filter driver,
hook or fsmonitor program a repository names can run, see ``git.py``).

- The revision's files are written by us from ``git ls-tree`` and ``git cat-file``: as
  committed, byte for byte (no ``smudge``, no end-of-line or ``ident`` conversion).
- The working tree's side of ``git diff -M REV`` is its files as they are on disk: each
  path of the index, read and hashed here, makes a tree in a temporary object folder of
  our own (the repository's objects read beside it, nothing written to them), and
  ``git diff-tree -M`` compares the revision's tree with it.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
import threading
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from . import git

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

REGULAR, EXECUTABLE, LINK, SUBMODULE, TREE = "100644", "100755", "120000", "160000", "40000"


@dataclass
class Moves:
    """What changed between the revision and the working tree, by paths relative to the
    repository's top: ``renamed`` maps the new path to the old one."""

    changed: set[str] = field(default_factory=set)
    renamed: dict[str, str] = field(default_factory=dict)
    added: set[str] = field(default_factory=set)


def _z(data: bytes) -> list[str]:
    return [item for item in data.decode("utf-8", "surrogateescape").split("\0") if item]


def _safe(path: str) -> str:
    """``path`` when git itself would check it out (no ``..``, ``.git``, empty or absolute
    part), else a GitError: a crafted tree must not write outside the folder."""
    parts = path.split("/")
    if any(part in ("", ".", "..") or part.lower() == ".git" for part in parts):
        raise git.GitError(f"the revision holds a path git would not check out: {path!r}")
    return path


def _one_name_each(paths: list[str]) -> None:
    """A GitError when a path is listed twice, or is both an entry and a folder of another
    (a crafted tree can hold a name twice: a link to a folder outside, and a folder holding
    a link, which would be written through the first)."""
    seen: set[str] = set()
    for path in paths:
        if path in seen:
            raise git.GitError(f"the revision holds {path!r} twice, as git would not check out")
        seen.add(path)
    for path in paths:
        parts = path.split("/")
        for end in range(1, len(parts)):
            above = "/".join(parts[:end])
            if above in seen:
                raise git.GitError(
                    f"the revision holds {above!r} both as a file and as a folder (of "
                    f"{path!r}), as git would not check out"
                )


def write_revision(
    top: Path, commit: str, folder: Path, guarded: list[Path], stop: threading.Event
) -> list[Path]:
    """Write the files of ``commit`` (of the repository at ``top``) into ``folder``, as
    committed; the files written (links included), sorted. Nothing is created outside
    ``folder``: no name twice, no entry below a link, every folder made one at a time and
    never through a link. ``stop`` set, it ends early with a GitError."""
    entries: dict[str, list[tuple[str, str]]] = {}
    links: list[tuple[str, str]] = []
    submodules: list[str] = []
    for line in _z(git.run(top, "ls-tree", "-r", "-z", "--full-tree", commit, guarded=guarded)):
        head, _, path = line.partition("\t")
        mode, kind, oid = head.split(" ")
        path = _safe(path)
        if kind == "commit":  # a submodule: an empty folder, as git leaves it
            submodules.append(path)
        elif kind == "blob" and mode == LINK:
            links.append((oid, path))
        elif kind == "blob":
            entries.setdefault(oid, []).append((mode, path))
    _one_name_each(
        [*submodules, *(path for _, path in links), *(p for e in entries.values() for _, p in e)]
    )
    written: list[Path] = []
    try:
        for path in submodules:
            os.mkdir(make_folders(folder, folder / path))
        for oid, data in git.objects(top, list(entries), guarded=guarded):
            if stop.is_set():
                raise git.GitError("the revision's files were no longer wanted")
            if data is None:
                raise git.GitError(f"git has no object {oid} of revision {commit}")
            for mode, path in entries[oid]:
                written.append(_write(folder, folder / path, data, mode == EXECUTABLE))
        link_targets = dict(git.objects(top, [oid for oid, _ in links], guarded=guarded))
        # Links last: no file above is written through one.
        for oid, path in links:
            target = link_targets.get(oid)
            if target is None:
                raise git.GitError(f"git has no object {oid} of revision {commit}")
            written.append(make_link(folder, folder / path, os.fsdecode(target)))
    except OSError as error:
        raise git.GitError(f"writing the files of {commit[:12]} failed: {error}") from None
    return sorted(written)


def make_folders(top: Path, path: Path) -> Path:
    """Make the folders between ``top`` and ``path`` one at a time, each a real folder
    (never a link, never through one): whatever is then made at ``path`` is inside ``top``.

    Raises:
        GitError: one of them is a link or a file, naming it.
    """
    current = top
    for part in path.relative_to(top).parts[:-1]:
        current = current / part
        try:
            os.mkdir(current)
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(current).st_mode):  # a link to a folder included
                raise git.GitError(
                    f"the revision holds {current.relative_to(top).as_posix()!r} as a link or "
                    "a file, and something below it: nothing is written through it"
                ) from None
    return path


def make_link(top: Path, path: Path, target: str) -> Path:
    """A symbolic link at ``path`` (below ``top``) to ``target``, never through a link."""
    os.symlink(target, make_folders(top, path))
    return path


def _write(top: Path, path: Path, data: bytes, executable: bool) -> Path:
    """A new file (never through a link, never over a file) with ``data``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(make_folders(top, path), flags, 0o777 if executable else 0o666)
    with open(descriptor, "wb") as file:
        file.write(data)
    return path


def texts_at(top: Path, commit: str, paths: list[str], guarded: list[Path]) -> dict[str, bytes]:
    """The committed content of each of ``paths`` (relative to ``top``) that ``commit``
    has; the others are left out."""
    found = dict(git.objects(top, [f"{commit}:{path}" for path in paths], guarded=guarded))
    return {path: data for path in paths if (data := found[f"{commit}:{path}"]) is not None}


def moves(top: Path, commit: str, guarded: list[Path]) -> Moves:
    """Files changed, renamed and added between ``commit`` and the working tree, as
    ``git diff -M --name-status`` and ``git ls-files --others`` say, with every file of the
    working tree taken as it is on disk."""
    sha256 = len(commit) == 64
    listed = git.run(top, "ls-files", "-s", "-v", "-z", guarded=guarded)
    stock = git.text(top, "rev-parse", "--git-path", "objects", guarded=guarded).strip()
    # The revision's own trees and blobs are in the repository: only what differs is written.
    known = git.run(top, "ls-tree", "-r", "-t", "-z", "--full-tree", commit, guarded=guarded)
    with tempfile.TemporaryDirectory(prefix="adecore-lsp-objects-") as own:
        store = _Store(Path(own), sha256, {line.split(" ")[2].split("\t")[0] for line in _z(known)})
        tree = store.tree(_index_now(top, _z(listed), store))
        extra = {
            "GIT_OBJECT_DIRECTORY": own,
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": str((top / stock).resolve()),
        }
        said = git.run(
            top,
            *("diff-tree", "-r", "-M", "--name-status", "-z", "--no-ext-diff", "--no-textconv"),
            *(commit, tree),
            guarded=guarded,
            extra=extra,
        )
    found = _name_status(_z(said))
    others = git.run(top, "ls-files", "--others", "--exclude-standard", "-z", guarded=guarded)
    for path in _z(others):
        found.added.add(path)
        found.changed.add(path)
    return found


def _name_status(fields: list[str]) -> Moves:
    found = Moves()
    at = 0
    while at < len(fields):
        status = fields[at]
        if status[0] in "RC":
            old, new = fields[at + 1], fields[at + 2]
            at += 3
            if status[0] == "R":
                found.renamed[new] = old
            else:
                found.added.add(new)
            found.changed.add(new)
            continue
        path = fields[at + 1]
        at += 2
        if status[0] == "A":
            found.added.add(path)
        found.changed.add(path)
    return found


def _index_now(top: Path, listed: list[str], store: _Store) -> dict[str, tuple[str, str]]:
    """The index's paths with their mode and object id as the disk has them now (a file
    gone from the disk is left out); entries git does not look at on disk (skip-worktree,
    assume-unchanged) and submodules as the index has them."""
    now: dict[str, tuple[str, str]] = {}
    for line in listed:
        head, _, path = line.partition("\t")
        tag, mode, oid, _stage = head.split(" ")
        if path in now:
            continue  # a conflict's other stages
        if tag == "S" or tag.islower() or mode == SUBMODULE:
            now[path] = (mode, oid)
            continue
        full = top / path
        try:
            status = os.lstat(full)
            if stat.S_ISLNK(status.st_mode):
                mode, data = LINK, os.fsencode(os.readlink(full))
            elif stat.S_ISREG(status.st_mode):
                mode = mode if mode in (REGULAR, EXECUTABLE) else REGULAR
                data = full.read_bytes()
            else:
                continue
        except OSError:
            continue  # deleted (or unreadable: as good as changed)
        now[path] = (mode, store.blob(data, known=oid))
    return now


class _Store:
    """Loose objects written into a folder of our own, in the repository's hash."""

    def __init__(self, folder: Path, sha256: bool, known: set[str]) -> None:
        self.folder = folder
        self.hash = hashlib.sha256 if sha256 else hashlib.sha1
        self.known = known
        """Ids of objects the repository has (not written again)."""

    def put(self, kind: bytes, data: bytes) -> str:
        body = kind + b" %d\0" % len(data) + data
        oid = self.hash(body).hexdigest()
        if oid not in self.known:
            path = self.folder / oid[:2] / oid[2:]
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(zlib.compress(body, 1))
            self.known.add(oid)
        return oid

    def blob(self, data: bytes, *, known: str) -> str:
        """The id of ``data`` as a blob; written here unless it is ``known`` (the index's,
        already in the repository)."""
        oid = self.hash(b"blob %d\0" % len(data) + data).hexdigest()
        return oid if oid == known or oid in self.known else self.put(b"blob", data)

    def tree(self, entries: dict[str, tuple[str, str]]) -> str:
        """The id of the tree of ``entries`` (path -> mode, id), its subtrees written too."""
        below: dict[str, dict[str, tuple[str, str]]] = {}
        here: dict[str, tuple[str, str]] = {}
        for path, entry in entries.items():
            first, slash, rest = path.partition("/")
            if slash:
                below.setdefault(first, {})[rest] = entry
            else:
                here[path] = entry
        for name, inner in below.items():
            here[name] = (TREE, self.tree(inner))
        names = sorted(here, key=lambda n: _raw(n) + (b"/" if here[n][0] == TREE else b""))
        body = b"".join(
            here[name][0].encode() + b" " + _raw(name) + b"\0" + bytes.fromhex(here[name][1])
            for name in names
        )
        return self.put(b"tree", body)


def _raw(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape")
