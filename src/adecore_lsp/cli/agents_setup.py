"""``adecore-lsp agents setup HOST``: a coding agent's host configured to use adecore-lsp in
this project: its MCP server entry, its hooks (``adecore-lsp hook``), and a skill that says
which command answers which question (the pieces of each host: :mod:`.agents_hosts`).

Entries are merged into the host's files as text (:mod:`.json_text`, :mod:`.toml_text`):
every key, comment and space the command does not own stays as it was, a byte order mark
and CRLF line ends too; a second run changes nothing; and ``--remove`` gives back the file
it found, byte for byte, from what setup remembered (:mod:`.agents_memory`): the text
before setup with the pieces that stay added again. A file changed since setup has its
entries taken out by their shape instead (a file it created and left empty goes too). Host
files that are one file (links to one target) are one file: each piece goes into it in
turn. Every change goes through the write path, all files or none; ``--dry-run`` prints the
diff.
"""

from __future__ import annotations

import argparse
import difflib
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import LspError
from ..workspace.disk.listing import confined
from ..write_path import WriteSet
from .agents_hosts import MARK, PIECES_OF, Piece
from .agents_memory import Added, Record, forget, recall, remember
from .hook_hosts import HOSTS
from .json_text import JsonTextError
from .toml_text import TomlTextError

# Internal to the library: nothing here is public API (the command line is).
__all__: list[str] = []

PIECES = ("mcp", "hook", "skill")
BOM = "\ufeff"


@dataclass(frozen=True)
class Change:
    """One file's text before and after (``None``: no file), under every name it has
    here, and what to remember of it once written (``None``: nothing)."""

    path: Path
    before: str | None
    after: str | None
    names: tuple[str, ...] = ()
    record: Record | None = None
    real: Path | None = None


def executable() -> str:
    """How the host should run adecore-lsp: by name when the one on ``PATH`` is this one
    (a settings file shared by a team then works on every machine), else its full path."""
    mine = Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else None
    found = shutil.which("adecore-lsp")
    if mine is None or mine.name != "adecore-lsp":
        return "adecore-lsp"  # run as python -m adecore_lsp: the one on PATH
    if found and Path(found).resolve() == mine:
        return "adecore-lsp"
    return str(mine)


def _read(path: Path, shown: str) -> str | None:
    """The file's text as it is on disk (line ends and a byte order mark kept)."""
    try:
        if not path.exists():
            return None
        return path.read_bytes().decode("utf-8")
    except OSError as error:
        raise ValueError(f"{shown}: cannot be read: {error}") from None
    except UnicodeDecodeError as error:
        raise ValueError(f"{shown}: not UTF-8 text ({error}): left as is") from None


@dataclass(frozen=True)
class _Form:
    """How a file writes what it holds: a byte order mark, CRLF line ends. Entries are
    edited without them and written with them."""

    bom: bool
    crlf: bool

    @classmethod
    def of(cls, text: str) -> _Form:
        lines = text.count("\n")
        return cls(text.startswith(BOM), lines > 0 and text.count("\r\n") == lines)

    def inner(self, text: str) -> str:
        text = text.removeprefix(BOM) if self.bom else text
        return text.replace("\r\n", "\n") if self.crlf else text

    def outer(self, text: str) -> str:
        text = text.replace("\n", "\r\n") if self.crlf else text
        return BOM + text if self.bom else text


def _apply(piece: Piece, text: str | None, remove: bool) -> str | None:
    """``text`` with ``piece`` added or taken out (``None``: no file)."""
    if piece.whole:
        if text is not None and MARK not in text:
            raise ValueError(f"{piece.file} exists and is not one adecore-lsp wrote: left as is")
        return None if remove else piece.add("")
    if remove and text is None:
        return None
    form = _Form.of(text or "")
    inner = form.inner(text or "")
    try:
        after = piece.remove(inner) if remove else piece.add(inner or piece.empty)
    except JsonTextError as error:
        raise ValueError(f"{piece.file}: not JSON: {error}") from None
    except TomlTextError as error:
        raise ValueError(f"{piece.file}: not TOML: {error}") from None
    if remove and after == inner:
        return text  # nothing of ours in it: not a byte changed
    return None if after == piece.empty else form.outer(after)


def changes(host: str, root: Path, chosen: list[str], remove: bool) -> list[Change]:
    """What setup (or ``remove``) would change in ``root``, file by file: pieces that share
    a file (Gemini CLI's settings, or two host files linked to one) are applied one after
    the other to its one text.

    Raises:
        ValueError: a file that cannot be read or edited, or that leads out of the root.
    """
    command = executable()
    pieces: dict[Path, list[Piece]] = {}
    names: dict[Path, list[str]] = {}
    for piece in PIECES_OF[host](command):
        if piece.name in chosen:
            path = confined(root, root / piece.file, piece.file)
            real = Path(os.path.realpath(path))
            pieces.setdefault(real, []).append(piece)
            if piece.file not in names.setdefault(real, []):
                names[real].append(piece.file)
    found = []
    for real, group in pieces.items():
        first = names[real][0]
        before = _read(root / first, first)
        record = recall(real)
        if record is not None and record.after != before:
            record = None  # changed since setup: what it remembers is of another text
        if remove:
            after, kept = _removed(host, group, before, record, root, real)
        else:
            after, kept = _added(host, command, group, before, record, real)
        if after != before:
            found.append(Change(root / first, before, after, tuple(names[real]), kept, real))
    return found


def _added(
    host: str,
    command: str,
    group: list[Piece],
    before: str | None,
    record: Record | None,
    real: Path,
) -> tuple[str | None, Record | None]:
    """The file with ``group`` added, and its record (the text before the first setup)."""
    text = before
    for piece in group:
        text = _apply(piece, text, remove=False)
    assert text is not None
    ours = {(host, piece.name) for piece in group}
    earlier = [] if record is None else [a for a in record.added if (a.host, a.piece) not in ours]
    added = (*earlier, *(Added(host, piece.name, command) for piece in group))
    first = before if record is None else record.before
    return text, Record(os.fsdecode(real), first, text, added)


def _removed(
    host: str,
    group: list[Piece],
    before: str | None,
    record: Record | None,
    root: Path,
    real: Path,
) -> tuple[str | None, Record | None]:
    """The file with ``group`` taken out, and its record (``None`` once nothing of ours is
    left, or when it cannot be known): from the record, the text before setup with the
    pieces that stay added again; else each entry taken out by its shape."""
    if record is not None:
        gone = {(host, piece.name) for piece in group}
        staying = [a for a in record.added if (a.host, a.piece) not in gone]
        text = record.before
        for item in staying:
            piece = _piece(item, root, real)
            if piece is None:
                break  # a piece this version no longer writes: by shape, below
            text = _apply(piece, text, remove=False)
        else:
            if not staying:
                return text, None
            assert text is not None
            return text, Record(record.path, record.before, text, tuple(staying))
    text = before
    for piece in group:
        text = _apply(piece, text, remove=True)
    return text, None


def _piece(item: Added, root: Path, real: Path) -> Piece | None:
    """The piece ``item`` names, as it writes into the file at ``real`` (a real path)."""
    makers = PIECES_OF.get(item.host)
    for piece in makers(item.command) if makers is not None else []:
        if piece.name == item.piece and Path(os.path.realpath(root / piece.file)) == real:
            return piece
    return None


def diff(root: Path, found: list[Change]) -> str:
    """The changes as one unified diff, paths relative to ``root``."""
    out: list[str] = []
    for change in found:
        name = change.path.relative_to(root).as_posix()
        out += difflib.unified_diff(
            (change.before or "").splitlines(keepends=True),
            (change.after or "").splitlines(keepends=True),
            f"a/{name}" if change.before is not None else "/dev/null",
            f"b/{name}" if change.after is not None else "/dev/null",
        )
    return "".join(line if line.endswith("\n") else line + "\n" for line in out)


def write(root: Path, found: list[Change]) -> None:
    """Make ``found``, all files or none, through the write path (each file expected to
    hold what the change was made from); a folder a removed file leaves empty goes too."""
    writes = WriteSet(root)
    made: set[Path] = set()
    for change in found:
        writes.expect(change.path, None if change.before is None else change.before.encode())
        if change.after is None:
            writes.delete(change.path, recursive=False)
            continue
        missing = []
        folder = change.path.parent
        while folder != root and not folder.exists() and folder not in made:
            missing.append(folder)
            folder = folder.parent
        for folder in reversed(missing):
            writes.make_folder(folder)
            made.add(folder)
        writes.write(change.path, change.after.encode("utf-8"))
    for folder in _left_empty(root, [c.path for c in found if c.after is None]):
        writes.delete(folder, recursive=False)
    writes.commit()


def remember_all(found: list[Change]) -> str | None:
    """Keep what setup wrote of each file (``--remove`` gives it back byte for byte); why
    that could not be done, if it could not (the files are written all the same)."""
    try:
        for change in found:
            assert change.real is not None
            if change.record is not None:
                remember(change.record)
            else:
                forget(change.real)
    except OSError as error:
        return (
            f"cannot remember what was written ({error}): --remove will take the entries "
            "out by their shape"
        )
    return None


def _left_empty(root: Path, removed: list[Path]) -> list[Path]:
    """The folders under ``root`` that hold nothing but ``removed`` (and folders so left
    empty), deepest first."""
    gone = set(removed)
    empty: list[Path] = []
    for folder in sorted({p.parent for p in removed}, key=lambda f: -len(f.parts)):
        while folder != root and root in folder.parents and folder not in gone:
            try:
                entries = set(folder.iterdir())
            except OSError:
                break
            if not entries <= gone:
                break
            gone.add(folder)
            empty.append(folder)
            folder = folder.parent
    return sorted(empty, key=lambda f: -len(f.parts))


def run_agents(args: argparse.Namespace) -> int:
    """``agents setup``: 0 when done (or nothing to do), 2 on a failure, said on stderr."""
    host = HOSTS[args.host]
    root = Path(args.root or os.getcwd()).resolve()
    chosen = [name for name in PIECES if getattr(args, name)] or list(PIECES)
    try:
        if not root.is_dir():
            raise ValueError(f"{root}: not a folder")
        found = changes(host.name, root, chosen, args.remove)
        if args.dry_run:
            sys.stdout.write(diff(root, found))
        elif found:
            write(root, found)
    except (ValueError, OSError, LspError) as error:
        sys.stderr.write(f"adecore-lsp: error: {error}\n")
        return 2
    if not found:
        sys.stderr.write("adecore-lsp: nothing to change\n")
    elif not args.dry_run:
        problem = remember_all(found)
        verb = "removed from" if args.remove else "written to"
        for change in found:
            name = change.path.relative_to(root).as_posix()
            also = f" (also {', '.join(change.names[1:])}: one file)" if change.names[1:] else ""
            sys.stderr.write(f"adecore-lsp: {host.name}: {verb} {name}{also}\n")
        if problem:
            sys.stderr.write(f"adecore-lsp: warning: {problem}\n")
    return 0
