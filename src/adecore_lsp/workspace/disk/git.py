"""The one way the library runs git: a repository's own configuration can start no program.

A stranger's ``.git/config`` (or a file it includes) may name programs that git runs on
its behalf: a ``core.fsmonitor`` program, filter drivers (``smudge``, ``clean``,
``process``) its ``.gitattributes`` gives files of any name, hooks, an external diff or a
textconv, a pager, an editor, an askpass or credential helper, an ssh command or an
``ext::`` remote. So, whatever the root's trust:

- only the plumbing commands of :data:`COMMANDS` run: they read objects, refs and the
  index's list of paths, and never convert a working tree file's content (no filter runs),
  show a commit (no signature program), write a ref or an index (no hook event), or open a
  pager or an editor;
- ``-c`` sets what the plumbing would still consult (:data:`OVERRIDES`): given on the
  command line, each wins over every configuration file, included ones too;
- every transport is refused (``GIT_ALLOW_PROTOCOL`` empty, over any ``protocol.*``
  configuration; ``GIT_NO_LAZY_FETCH``): a partial clone's missing objects are not
  fetched, so no remote, helper, ``uploadpack`` or ssh command runs;
- the caller's ``GIT_*`` variables are dropped (``GIT_DIR``, ``GIT_EXTERNAL_DIFF``,
  ``GIT_ASKPASS``, ``GIT_CONFIG_PARAMETERS`` ...), and so are ``SSH_ASKPASS`` and the
  ``PATH`` entries inside the repository: git itself, and anything it would look up, is
  never a program of the repository (an activated ``.venv`` holding a ``git``).

The user's own global and system configuration stay read: they are the user's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Literal

from ...environment import environ
from .executables import inside

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

GIT_TIMEOUT = 120.0
"""The longest one git command may take, in seconds."""

COMMANDS = frozenset({"rev-parse", "ls-files", "ls-tree", "cat-file", "diff-tree"})
"""The git commands the library runs: read-only plumbing (see the module's docstring)."""

REFUSED_OPTIONS = frozenset({"--filters", "--textconv", "--ext-diff", "--recurse-submodules"})
"""Options that would make the plumbing run a program the configuration names."""

OVERRIDES = (
    # ls-files reads the index, and the index asks the fsmonitor program what changed.
    ("core.fsmonitor", "false"),
    # No command here fires a hook; were one to, it would find none.
    ("core.hooksPath", os.devnull),
    # "cat" is git's own word for no pager (as is --no-pager, given too).
    ("core.pager", "cat"),
    # An empty value empties these lists: no askpass, no credential helper.
    ("core.askPass", ""),
    ("credential.helper", ""),
    # No command here works inside a submodule's repository (with its own configuration).
    ("submodule.recurse", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
)
"""``-c`` settings given to every git command."""

ENVIRONMENT = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ALLOW_PROTOCOL": "",  # no transport at all, whatever protocol.*.allow says
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_PAGER": "cat",
    "GIT_EDITOR": ":",  # git's own word for no editor
    "GIT_SEQUENCE_EDITOR": ":",
    "GIT_OPTIONAL_LOCKS": "0",  # no index refresh written as a side effect
}

EXTRA_VARIABLES = frozenset({"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES"})
"""What a caller may add to the environment: objects written to a folder of its own."""


class GitError(ValueError):
    """git is missing, failed (with its own last words), or took too long."""


def repository_top(folder: Path) -> Path | None:
    """The nearest folder from ``folder`` up holding a ``.git``, without running git."""
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return None


def search_path(guarded: Iterable[Path]) -> str:
    """The call's ``PATH`` without relative entries and without entries inside ``guarded``
    (an entry leading there through links counts as inside)."""
    folders = list(guarded)
    entries = (environ().get("PATH") or os.defpath).split(os.pathsep)
    kept = [
        entry
        for entry in entries
        if entry and os.path.isabs(entry) and not any(inside(entry, f) for f in folders)
    ]
    return os.pathsep.join(dict.fromkeys(kept))


def _prepared(
    cwd: Path, args: Sequence[str], guarded: Sequence[Path], extra: Mapping[str, str]
) -> tuple[list[str], dict[str, str]]:
    """The argv and environment of one git command (see the module's docstring)."""
    if not args or args[0] not in COMMANDS:
        raise GitError(f"git {args[0] if args else ''} is not a command the library runs")
    refused = REFUSED_OPTIONS.intersection(args)
    if refused:
        raise GitError(f"git {args[0]} {sorted(refused)[0]} is not run by the library")
    unknown = set(extra) - EXTRA_VARIABLES
    if unknown:
        raise GitError(f"{sorted(unknown)[0]} is not set for git by the library")
    top = repository_top(cwd)
    folders = [cwd, *guarded, *([top] if top is not None else [])]
    path = search_path(folders)
    program = shutil.which("git", path=path)
    if program is None:
        raise GitError("git is not installed (or not on PATH)")
    env = {
        key: value
        for key, value in environ().items()
        if not key.startswith("GIT_") and key != "SSH_ASKPASS"
    }
    env.update(ENVIRONMENT)
    env.update(extra)
    env["PATH"] = path
    config = [item for key, value in OVERRIDES for item in ("-c", f"{key}={value}")]
    return [program, "--no-pager", *config, *args], env


def run(
    cwd: Path,
    *args: str,
    guarded: Sequence[Path] = (),
    extra: Mapping[str, str] | None = None,
    timeout: float = GIT_TIMEOUT,
) -> bytes:
    """Run ``git ARGS`` in ``cwd`` (``PATH`` entries inside ``cwd``, its repository and
    ``guarded`` skipped; ``extra``: variables of :data:`EXTRA_VARIABLES`); its stdout.

    Raises:
        GitError: git is missing, refused the command (its own last line), or overran.
    """
    argv, env = _prepared(cwd, args, guarded, extra or {})
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except OSError as error:
        raise GitError(f"git could not be started: {error}") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} did not finish in {timeout:.0f} s") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(said[-1] if said else f"git {args[0]} failed")
    return done.stdout


def text(cwd: Path, *args: str, guarded: Sequence[Path] = ()) -> str:
    """:func:`run`'s stdout as text (paths as git spells them, any bytes kept)."""
    return run(cwd, *args, guarded=guarded).decode("utf-8", "surrogateescape")


def objects(
    cwd: Path, names: Sequence[str], *, guarded: Sequence[Path] = (), timeout: float = GIT_TIMEOUT
) -> Iterator[tuple[str, bytes | None]]:
    """Each object ``names`` names (an id, or ``REV:PATH``) with its content as stored
    (``git cat-file --batch``: no filter, no conversion), ``None`` for one that is
    missing; in order, read as git writes them (the whole set is never held at once).

    Raises:
        GitError: git is missing, failed, or took longer than ``timeout`` in all.
    """
    if any("\n" in name for name in names):
        raise GitError("an object name with a line break")
    argv, env = _prepared(cwd, ["cat-file", "--batch"], guarded, {})
    with tempfile.TemporaryFile() as asked, tempfile.TemporaryFile() as said:
        asked.write("".join(f"{name}\n" for name in names).encode("utf-8", "surrogateescape"))
        asked.seek(0)
        try:
            process = subprocess.Popen(
                argv, cwd=cwd, env=env, stdin=asked, stdout=subprocess.PIPE, stderr=said
            )
        except OSError as error:
            raise GitError(f"git could not be started: {error}") from None
        overran = threading.Event()

        def stop() -> None:
            overran.set()
            process.kill()

        timer = threading.Timer(timeout, stop)
        timer.start()
        complete = False
        try:
            assert process.stdout is not None
            for name in names:
                found = _one(process.stdout)
                if found is False:
                    break
                yield name, found
            else:
                complete = True
        finally:
            timer.cancel()
            if process.poll() is None and not complete:
                process.kill()
            process.stdout.close()  # type: ignore[union-attr]
            process.wait()
        if overran.is_set():
            raise GitError(f"git cat-file did not finish in {timeout:.0f} s")
        if process.returncode != 0 or not complete:
            said.seek(0)
            words = said.read().decode("utf-8", "replace").strip().splitlines()
            raise GitError(words[-1] if words else "git cat-file ended early")


def _one(out: IO[bytes]) -> bytes | Literal[False] | None:
    """The next answer of ``cat-file --batch``: the content, ``None`` for a missing
    object, ``False`` when the answer is cut short or not one."""
    header = out.readline()
    if header.endswith((b" missing\n", b" ambiguous\n")):
        return None
    words = header.split()
    if len(words) != 3 or not words[2].isdigit():
        return False
    size = int(words[2])
    data = out.read(size)
    if len(data) != size or out.read(1) != b"\n":
        return False
    return data
