"""``adecore-lsp agents setup HOST``: a coding agent's host configured to use adecore-lsp in
this project: its MCP server entry, its hooks (``adecore-lsp hook``), and a skill that says
which command answers which question (the pieces of each host: :mod:`.agents_hosts`).

Entries are merged into the host's files as text (:mod:`.json_text`): every key, comment
and space the command does not own stays as it was; a second run changes nothing; and
``--remove`` takes out exactly what it added (a file it created and left empty goes too).
Every change goes through the write path, all files or none; ``--dry-run`` prints the diff.
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
from ..write_path import WriteSet
from .agents_hosts import MARK, PIECES_OF, Piece
from .hook_hosts import HOSTS
from .json_text import JsonTextError

# Internal to the library: nothing here is public API (the command line is).
__all__: list[str] = []

PIECES = ("mcp", "hook", "skill")


@dataclass(frozen=True)
class Change:
    """One file's text before and after (``None``: no file)."""

    path: Path
    before: str | None
    after: str | None


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
    try:
        return path.read_text(encoding="utf-8") if path.exists() else None
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{shown}: cannot be read: {error}") from None


def _apply(piece: Piece, text: str | None, remove: bool) -> str | None:
    """``text`` with ``piece`` added or taken out (``None``: no file)."""
    if piece.whole:
        if text is not None and MARK not in text:
            raise ValueError(f"{piece.file} exists and is not one adecore-lsp wrote: left as is")
        return None if remove else piece.add("")
    try:
        if remove:
            if text is None:
                return None
            after = piece.remove(text)
        else:
            after = piece.add(text or piece.empty)
    except JsonTextError as error:
        raise ValueError(f"{piece.file}: not JSON: {error}") from None
    return None if after == piece.empty else after


def changes(host: str, root: Path, chosen: list[str], remove: bool) -> list[Change]:
    """What setup (or ``remove``) would change in ``root``, file by file (pieces that share a
    file, such as Gemini CLI's settings, are applied one after the other)."""
    command = executable()
    texts: dict[str, tuple[str | None, str | None]] = {}
    for piece in PIECES_OF[host](command):
        if piece.name not in chosen:
            continue
        if piece.file not in texts:
            before = _read(root / piece.file, piece.file)
            texts[piece.file] = (before, before)
        before, current = texts[piece.file]
        texts[piece.file] = (before, _apply(piece, current, remove))
    return [
        Change(root / name, before, after)
        for name, (before, after) in texts.items()
        if after != before
    ]


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
        verb = "removed from" if args.remove else "written to"
        for change in found:
            name = change.path.relative_to(root).as_posix()
            sys.stderr.write(f"adecore-lsp: {host.name}: {verb} {name}\n")
    return 0
