"""What ``agents setup`` wrote into each host file, remembered in the user's state folder
(``$XDG_STATE_HOME/adecore-lsp/agents/``, never in the project), so that ``--remove`` gives
the file back byte for byte: the text it had before the first setup, the text setup left,
and the pieces added (host, piece, command). A file whose text is no longer what setup left
(edited since, or set up on another machine) has no use for its record: ``--remove`` then
takes the entries out by their shape.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..write_journal import state_folder

# Internal to the library: nothing here is public API (the command line is).
__all__: list[str] = []


@dataclass(frozen=True)
class Added:
    """One piece setup added to a file: of which host, which piece, with which command."""

    host: str
    piece: str
    command: str


@dataclass(frozen=True)
class Record:
    """A host file as setup left it (``path``: its real path)."""

    path: str
    before: str | None
    """Its text before the first setup (``None``: there was no file)."""
    after: str
    """Its text as setup left it."""
    added: tuple[Added, ...]


def _file(real: Path) -> Path:
    key = hashlib.sha256(os.fsencode(real)).hexdigest()[:32]
    return state_folder() / "agents" / f"{key}.json"


def recall(real: Path) -> Record | None:
    """The record of the file at ``real`` (a real path), if one is kept and readable."""
    try:
        data: Any = json.loads(_file(real).read_text(encoding="utf-8"))
        record = Record(
            data["path"],
            data["before"],
            data["after"],
            tuple(Added(*item) for item in data["added"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return record if record.path == os.fsdecode(real) else None


def remember(record: Record) -> None:
    """Keep ``record`` (written whole or not at all, readable by this user alone).

    Raises:
        OSError: the state folder cannot be written.
    """
    path = _file(Path(record.path))
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    data = {
        "path": record.path,
        "before": record.before,
        "after": record.after,
        "added": [[item.host, item.piece, item.command] for item in record.added],
    }
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".record-")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump(data, file)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def forget(real: Path) -> None:
    """Drop the record of the file at ``real``, if any."""
    _file(real).unlink(missing_ok=True)
