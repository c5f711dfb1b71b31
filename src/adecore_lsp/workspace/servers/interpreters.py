"""The Python interpreter a server of an untrusted root is given in place of the
repository's own.

Python servers start an interpreter by themselves to learn a project's search paths:
basedpyright its root's ``.venv/bin/python``, pyrefly the nearest ``.venv``, ``venv`` or
``env``'s, pyright the ``python`` on ``PATH``, jedi and pylsp the activated environment's
(``ServerSpec`` ``interpreter_sources``, as measured); pyrefly also the environment of each
project below its root, so it is given an interpreter always where a folder it reaches is
not trusted (``ServerSpec.interpreter_per_project``). In a root that is not trusted (or a
nested project that is not: :mod:`.untrusted_folders`) that program is the repository's,
so the server is told to run one of ours instead (``ServerSpec.interpreter``): the
interpreter adecore-lsp runs on, in a folder of the user's state folder made to look like a
virtual environment that has nothing installed, whose ``sys.path`` also holds the
environment's own folders: its ``site-packages`` and the paths its ``.pth`` files name
(their ``import`` lines are code and are never run), read from disk. Imports resolve as the
server's own command line resolves them, with adecore-lsp's Python's version and standard
library. A server that imports compiled modules found on its interpreter's path (jedi) gets
an interpreter with nothing on it, and the folders as extra paths
(``ServerSpec.interpreter_paths``), where jedi imports nothing.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...write_journal import state_folder
from ..disk.executables import inside

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

GUARD = '"""adecore-lsp: nothing of the project\'s environment runs here."""\n'
"""The ``sitecustomize`` and ``usercustomize`` modules of the interpreter we give: found
before any of the project's folders, so a module of that name there is never imported."""


@dataclass(frozen=True)
class Interpreter:
    """What a server of an untrusted root is given: ``executable``, ours, in place of the
    interpreter of ``environment``; ``paths``, the environment's folders it carries (or, for
    a server with ``interpreter_paths``, that are given there). For a server given one in
    any case (``always``), ``executable`` may be the user's own interpreter, of
    ``environment`` outside the untrusted folders (``None``: it would start none)."""

    executable: str
    environment: Path | None
    paths: tuple[str, ...]


VENV_NAMES = {".venv": (".venv",), "venv above": (".venv", "venv", "env")}
"""The folders each source looks for an environment in (pyrefly's names, measured: a
``.env`` folder it does not take)."""


def environment_started(sources: Sequence[str], root: Path, env: Mapping[str, str]) -> Path | None:
    """The environment whose interpreter a server rooted at ``root`` starts, looking in
    ``sources`` in order (``INTERPRETER_SOURCES``); ``None`` when it finds none."""
    found = started(sources, root, env)
    return None if found is None else found[0]


def started(sources: Sequence[str], root: Path, env: Mapping[str, str]) -> tuple[Path, str] | None:
    """The environment a server rooted at ``root`` starts an interpreter of, and that
    interpreter, looking in ``sources`` in order; ``None`` when it finds none."""
    for source in sources:
        found = _environment_at(source, root, env)
        if found is not None:
            return found
    return None


def _environment_at(source: str, root: Path, env: Mapping[str, str]) -> tuple[Path, str] | None:
    if source in VENV_NAMES:
        folders = [root, *root.parents] if source == "venv above" else [root]
        for folder in folders:
            for name in VENV_NAMES[source]:
                venv = folder / name
                if _is_environment(venv):
                    return venv, _executable(venv)
        return None
    if source == "PATH":
        path = env.get("PATH", os.defpath)
        for name in ("python3", "python"):
            found = shutil.which(name, path=path)
            if found is not None:
                found = os.path.abspath(found)
                return Path(found).parent.parent, found
        return None
    named = env.get(source)
    if named and os.path.isdir(named):
        folder = Path(os.path.abspath(named))
        return folder, _executable(folder)
    return None


def _executable(environment: Path) -> str:
    """The interpreter of ``environment``: its ``bin/python``, else its ``bin/python3``."""
    for name in ("python", "python3"):
        if os.path.exists(environment / "bin" / name):
            return str(environment / "bin" / name)
    return str(environment / "bin" / "python")


def _is_environment(folder: Path) -> bool:
    return (folder / "pyvenv.cfg").is_file() or os.path.exists(folder / "bin" / "python")


def search_paths(environment: Path, confined: Sequence[Path]) -> tuple[str, ...]:
    """The folders an interpreter of ``environment`` puts on ``sys.path`` beyond the standard
    library, read from disk: its ``site-packages`` and the folders its ``.pth`` files name;
    only those whose real path lies in one of ``confined`` (a folder linked out of the root
    is not read)."""
    found: dict[str, None] = {}
    for site in _site_packages(environment):
        if not _really_inside(site, confined):
            continue
        found[str(site)] = None
        for pth in sorted(site.glob("*.pth")):
            for folder in _pth_folders(pth, site):
                if _really_inside(folder, confined):
                    found[str(folder)] = None
    return tuple(found)


def _site_packages(environment: Path) -> Iterator[Path]:
    seen: set[str] = set()
    candidates = [
        *sorted(environment.glob("lib/python*/site-packages")),
        *sorted(environment.glob("lib64/python*/site-packages")),
        environment / "Lib" / "site-packages",
    ]
    for candidate in candidates:
        real = os.path.realpath(candidate)
        if real not in seen and os.path.isdir(candidate):
            seen.add(real)
            yield candidate


def _pth_folders(pth: Path, site: Path) -> Iterator[Path]:
    """The folders a ``.pth`` file adds, as ``site`` reads it, without its ``import``
    lines (code)."""
    try:
        text = pth.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    for line in text.splitlines():
        entry = line.rstrip()
        if not entry or entry.startswith("#") or entry.startswith(("import ", "import\t")):
            continue
        folder = site / entry
        if folder.is_dir():
            yield Path(os.path.normpath(folder))


def _really_inside(path: Path, confined: Sequence[Path]) -> bool:
    real = os.path.realpath(path)
    for folder in confined:
        base = os.path.realpath(folder)
        if real == base or real.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def interpreter_inside(sources: Sequence[str], root: Path, env: Mapping[str, str]) -> str | None:
    """The interpreter inside ``root`` a server rooted there would start, looking in
    ``sources``, as a path relative to the root (``.venv/bin/python``): what an untrusted
    root replaces; ``None`` when it starts none there."""
    environment = environment_started(sources, root, env)
    if environment is None or not inside(environment, root):
        return None
    return os.path.relpath(environment / "bin" / "python", os.path.abspath(root))


def interpreter_for(
    sources: Sequence[str],
    root: Path,
    confined: Sequence[Path],
    env: Mapping[str, str],
    *,
    carries_paths: bool,
    always: bool = False,
) -> Interpreter | None:
    """The interpreter a server rooted at ``root`` is given, or ``None`` when the one it
    would start lies outside every folder of ``confined`` (the user's own, or none).

    ``carries_paths``: the interpreter's ``sys.path`` holds the environment's folders;
    otherwise it holds nothing beyond the standard library. ``always``: a server that
    finds interpreters below its root too (``ServerSpec.interpreter_per_project``) is given
    one in any case: the one its root would start when that is the user's own (outside
    ``confined``), else ours (with nothing when it would start none).
    """
    found = started(sources, root, env)
    if found is None or not any(inside(found[0], folder) for folder in confined):
        if not always:
            return None
        if found is None:
            return Interpreter(our_interpreter(()), None, ())
        return Interpreter(found[1], found[0], ())
    environment = found[0]
    paths = search_paths(environment, confined)
    executable = our_interpreter(paths if carries_paths else ())
    return Interpreter(executable, environment, paths)


def our_interpreter(paths: Sequence[str]) -> str:
    """The executable of an environment of ours holding nothing but ``paths``: made once
    in the state folder; the Python adecore-lsp runs on as it is when that cannot be
    written (never a shared temporary folder, where another user could have put one)."""
    base = os.path.realpath(getattr(sys, "_base_executable", "") or sys.executable)
    if os.name == "nt":  # pragma: no cover - no environment of ours is made on Windows
        return base
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    lines = [line for line in paths if "\n" not in line and "\r" not in line]
    key = hashlib.sha256("\0".join([base, sys.version, *lines]).encode()).hexdigest()[:24]
    folder = state_folder() / "interpreters" / key
    executable = folder / "bin" / "python"
    if not executable.exists():
        try:
            _make(folder, base, version, lines)
        except OSError:
            return base
    return str(executable)


def _make(folder: Path, base: str, version: str, paths: Sequence[str]) -> None:
    """Make the environment at ``folder`` (in a new folder renamed into place, so that a
    reader never sees half of it)."""
    folder.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    making = Path(tempfile.mkdtemp(prefix=".making-", dir=folder.parent))
    try:
        (making / "bin").mkdir()
        os.symlink(base, making / "bin" / "python")
        (making / "pyvenv.cfg").write_text(
            f"home = {os.path.dirname(base)}\n"
            "include-system-site-packages = false\n"
            f"version = {'.'.join(map(str, sys.version_info[:3]))}\n"
            f"executable = {base}\n",
            encoding="utf-8",
        )
        site = making / "lib" / f"python{version}" / "site-packages"
        site.mkdir(parents=True)
        for name in ("sitecustomize.py", "usercustomize.py"):
            (site / name).write_text(GUARD, encoding="utf-8")
        if paths:
            text = "".join(f"{path}\n" for path in paths)
            (site / "adecore-lsp-project.pth").write_text(text, encoding="utf-8")
        try:
            os.rename(making, folder)
        except OSError:
            if not (folder / "bin" / "python").exists():
                raise
    finally:
        shutil.rmtree(making, ignore_errors=True)
