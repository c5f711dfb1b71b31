"""Where a server's executable is: on ``PATH``, in the running Python's scripts folder, or
in a project's own environments (``.venv/bin``, ``node_modules/.bin``), never inside a root
that is not trusted. Looks only at the disk: nothing is started or installed.
"""

from __future__ import annotations

import os
import shutil
import sysconfig
from functools import lru_cache
from pathlib import Path

from ...environment import getenv

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


def inside(path: str | os.PathLike[str], root: Path) -> bool:
    """Whether ``path``, as given or with its links resolved, lies in ``root``."""
    for candidate, base in (
        (os.path.abspath(path), os.path.abspath(root)),
        (os.path.realpath(path), os.path.realpath(root)),
    ):
        if candidate == base or candidate.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def on_path(program: str, outside: Path | None) -> str | None:
    """``program`` on ``PATH``; with ``outside``, never one inside that folder (an entry
    there is skipped, and so is a program that leads into it)."""
    path = getenv("PATH", os.defpath) or os.defpath
    if outside is None:
        found = shutil.which(program, path=path)
        return os.path.abspath(found) if found is not None else None
    for entry in path.split(os.pathsep):
        if not entry or inside(entry, outside):
            continue
        found = shutil.which(program, path=entry)
        if found is not None and not inside(found, outside):
            return os.path.abspath(found)
    return None


@lru_cache(maxsize=1)
def scripts_folder() -> str | None:
    """The scripts folder of the Python environment this code runs in (``.venv/bin``),
    looked up once a process."""
    return sysconfig.get_path("scripts") or None


def in_scripts_folder(program: str) -> str | None:
    """``program`` in the scripts folder of the Python environment this code runs in."""
    scripts = scripts_folder()
    if not scripts:
        return None
    found = shutil.which(program, path=scripts)
    return os.path.abspath(found) if found is not None else None


def executable(path: Path) -> str | None:
    """``path`` made absolute if it is an executable file (on Windows, with PATHEXT tried)."""
    found = shutil.which(str(path))
    return os.path.abspath(found) if found is not None else None


def local_bin_dirs(root: Path) -> list[Path]:
    """A project's own executables: its virtual environment's, then its npm packages'."""
    venv_bin = root / ".venv" / ("Scripts" if os.name == "nt" else "bin")
    return [venv_bin, root / "node_modules" / ".bin"]
