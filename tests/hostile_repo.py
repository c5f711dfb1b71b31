"""A repository from a stranger whose git configuration names programs: each one, if run,
leaves a marker file saying what it was.

Its ``.git/config`` (and a file it includes) names a ``core.fsmonitor`` program, filter
drivers (``smudge``, ``clean``, ``process``) its ``.gitattributes`` gives every file, a
textconv and an external diff, a pager, an editor, an askpass, an ssh command, a credential
helper, and hooks both where git looks by default and under ``core.hooksPath``. The files
are committed before the configuration is written, so making the repository ran nothing.
"""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

__all__ = ["HOOKS", "PROGRAMS", "commit_all", "git", "hostile_repository", "markers"]

PROGRAMS = (
    "fsmonitor",
    "smudge",
    "clean",
    "process",
    "other-smudge",
    "textconv",
    "external-diff",
    "driver-diff",
    "pager",
    "editor",
    "askpass",
    "ssh",
    "credential",
)
"""The programs the configuration names, by the name of the marker each leaves."""

HOOKS = (
    "post-checkout",
    "post-index-change",
    "reference-transaction",
    "pre-auto-gc",
    "post-merge",
    "pre-commit",
    "post-rewrite",
)


def git(root: Path, *args: str) -> str:
    """Plain git, as the test's own tool: no configuration of the repository is set yet
    when the tests use it (or none that this command reads)."""
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout


def commit_all(root: Path, message: str = "base") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def _program(path: Path, marker: str, markers: Path, *, passes_through: bool) -> None:
    """A shell script that leaves ``markers/<marker>.<pid>`` naming its arguments; a filter
    or a pager passes its input through, anything else prints nothing and fails."""
    body = "cat\nexit 0\n" if passes_through else "exit 1\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\necho "$@" > "{markers}/{marker}.$$"\n{body}', encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def hostile_repository(root: Path, files: dict[str, str], markers: Path) -> Path:
    """Make ``root`` a git repository of ``files`` (committed), then give it the hostile
    configuration; the markers go to ``markers`` (made, outside the repository)."""
    markers.mkdir(parents=True, exist_ok=True)
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    # Every file goes through a filter driver and the diff driver.
    (root / ".gitattributes").write_text(
        "* filter=evil diff=evil\n*.txt filter=other\n*.toml filter=proc\n", encoding="utf-8"
    )
    (root / "notes.txt").write_text("notes\n", encoding="utf-8")
    git(root, "init", "-q")
    commit_all(root)

    dot_git = root / ".git"
    bin_dir = dot_git / "programs"
    for name in PROGRAMS:
        passes = name in ("smudge", "clean", "other-smudge", "pager", "textconv")
        _program(bin_dir / name, name, markers, passes_through=passes)
    for folder in (dot_git / "hooks", dot_git / "own-hooks"):
        for hook in HOOKS:
            _program(folder / hook, f"hook-{folder.name}-{hook}", markers, passes_through=False)

    def p(name: str) -> str:
        return str(bin_dir / name)

    included = dot_git / "included.config"
    included.write_text(
        f'[filter "other"]\n\tsmudge = {p("other-smudge")}\n\tclean = {p("other-smudge")}\n'
        f"[core]\n\tfsmonitor = {p('fsmonitor')}\n",
        encoding="utf-8",
    )
    with open(dot_git / "config", "a", encoding="utf-8") as config:
        config.write(
            "[core]\n"
            f"\tfsmonitor = {p('fsmonitor')}\n"
            f"\thooksPath = {dot_git / 'own-hooks'}\n"
            f"\tpager = {p('pager')}\n"
            f"\teditor = {p('editor')}\n"
            f"\taskPass = {p('askpass')}\n"
            f"\tsshCommand = {p('ssh')}\n"
            "\tuntrackedCache = true\n"
            '[filter "evil"]\n'
            f"\tsmudge = {p('smudge')}\n"
            f"\tclean = {p('clean')}\n"
            '[filter "proc"]\n'
            f"\tprocess = {p('process')}\n"
            "\trequired = true\n"
            '[diff "evil"]\n'
            f"\ttextconv = {p('textconv')}\n"
            f"\tcommand = {p('driver-diff')}\n"
            "[diff]\n"
            f"\texternal = {p('external-diff')}\n"
            "[pager]\n"
            f"\tdiff = {p('pager')}\n"
            f"\tshow = {p('pager')}\n"
            "[credential]\n"
            f"\thelper = {p('credential')}\n"
            "[include]\n"
            f"\tpath = {included}\n"
        )
    return root


def markers(folder: Path) -> list[str]:
    """The programs that ran (their marker names), sorted."""
    return sorted({entry.name.rsplit(".", 1)[0] for entry in folder.iterdir()})
