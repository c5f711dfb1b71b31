"""What the commands share: the files a command is about, how paths and server messages are
shown, the lines of files, the servers' names and versions, and incomplete answers said.

Paths are relative to the root inside the workspace. The text format shows them relative
to the current folder (so that a terminal can open them, and a printed target works where
it was printed); the machine formats keep them relative to the root. A server's message
that names the root (by path or ``file:`` URI) gets the same treatment, so stdout holds no
absolute path of the root and the same run gives the same bytes wherever the root is.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from ..workspace.checks.scope_plan import selection
from ..workspace.disk.listing import confined, root_files
from ..workspace.files.notebooks import file_line, notebook_of
from ..workspace.model import Diagnostic, FileStatus, Results
from ..workspace.servers.notebook_view import NotebookView
from ..workspace.servers.scopes import Origin
from ..workspace.servers.server_facts import version_in
from ..workspace.workspace import Workspace
from .output import Output, shown_path

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

REASON_WORDS = {
    "not_utf8": "not UTF-8",
    "timeout": "timeout",
    "server_crashed": "server crashed",
    "unsupported": "no installed server takes it",
    "not_ready": "the server was not ready",
    "too_many_files": "more files than max_open_files",
    "other_roots": "the server of another package could not be asked",
}


def cwd_of(args: argparse.Namespace) -> Path:
    """The caller's current folder (the daemon runs commands for callers elsewhere)."""
    given = getattr(args, "cwd", None)
    return Path(given) if given is not None else Path.cwd()


class Shown:
    """How one command shows paths and messages: relative to ``base`` (the current folder in
    text, the root in the machine formats). Writing control characters out is the text
    format's own business (:mod:`.reports`)."""

    def __init__(self, root: Path, base: Path, *, text: bool) -> None:
        self.root = root
        self.base = base
        self.text = text
        self._messages: Callable[[str], str] = _message_paths(root, base)

    @classmethod
    def of(cls, args: argparse.Namespace, ws: Workspace, *, text: bool | None = None) -> Shown:
        is_text = getattr(args, "format", "text") == "text" if text is None else text
        return cls(ws.root, cwd_of(args) if is_text else ws.root, text=is_text)

    def path(self, path: str) -> str:
        """A root-relative (or outside: absolute) path as this format shows it."""
        if self.base != self.root and not os.path.isabs(path):
            return os.path.relpath(self.root / path, self.base)
        return path

    def message(self, text: str) -> str:
        """A server's message with the root's absolute paths and URIs made relative."""
        return self._messages(text)

    def diagnostics(self, items: Sequence[Diagnostic]) -> list[Diagnostic]:
        """``items`` with their paths and messages as this format shows them."""
        return [
            replace(item, path=self.path(item.path), message=self.message(item.message))
            for item in items
        ]


def _message_paths(root: Path, base: Path) -> Callable[[str], str]:
    """A function replacing, in a text, the root's path and ``file:`` URI (and any path or
    URI under it) by that path relative to ``base`` (the root itself as ``.``)."""
    root_text = str(root)
    root_uri = root.as_uri()
    ends = r"(?=$|[\s'\"`:,;()\[\]{}<>])"
    pattern = re.compile(
        "(?:"
        + re.escape(root_uri)
        + r"|"
        + re.escape(quote(root_text))
        + r"|"
        + re.escape(root_text)
        + r")((?:/[^\s'\"`:,;()\[\]{}<>]*)?)"
        + ends
    )

    def relative(match: re.Match[str]) -> str:
        rest = unquote(match.group(1)) if match.group(0).startswith("file:") else match.group(1)
        full = root / rest.lstrip("/") if rest.strip("/") else root
        shown = os.path.relpath(full, base)
        return shown

    def replace(text: str) -> str:
        if root_text not in text and root_uri not in text and quote(root_text) not in text:
            return text
        return pattern.sub(relative, text)

    return replace


def raw_line(ws: Workspace) -> Callable[[Diagnostic, bool], int]:
    """The line of the file itself where a finding starts (or ends, with ``end``): for a
    notebook cell's finding, the line of the ``.ipynb`` that holds its source line, so that a
    reader of the raw file (a CI annotation, a code-scanning service) lands on it."""
    views: dict[str, NotebookView | None] = {}

    def place(item: Diagnostic, end: bool = False) -> int:
        line = item.end_line if end else item.line
        if item.cell is None:
            return line
        if item.path not in views:
            views[item.path] = notebook_of(ws, item.path)
        view = views[item.path]
        if view is None:
            return line
        try:
            return file_line(view, item.cell, line)
        except ValueError:
            return line

    return place


def short_version(version: object) -> str | None:
    """``22.1.1`` of clangd's ``clangd version 22.1.1 linux x86_64-...``, the ``Version``
    of gopls' build info in JSON (:func:`version_in`); a text without one as it is."""
    if not isinstance(version, str) or not version.strip():
        return None
    if version.lstrip().startswith("{"):
        return version_in(version)
    return version_in(version) or " ".join(version.split())


async def servers_of(ws: Workspace) -> list[tuple[str, str | None]]:
    """The started servers' ids and versions (from ``serverInfo``, else the executable's own
    ``--version``), sorted by id."""
    found: dict[str, str | None] = {}
    for handle in ws.server_choice.used():
        if handle.spec.id in found:
            continue
        session = handle.live
        info = session.server_info if session is not None else None
        version = short_version(info.get("version") if isinstance(info, dict) else None)
        found[handle.spec.id] = version or short_version(await handle.version())
    return sorted(found.items())


def crashes(ws: Workspace) -> str | None:
    """The message of the servers that crashed, with their last stderr lines."""
    crashed = [handle for handle in ws.server_choice.used() if handle.state == "crashed"]
    if not crashed:
        return None
    parts = []
    for handle in crashed:
        tail = handle.stderr_tail()
        quoted = f"; its last stderr lines:\n{tail}" if tail else ""
        why = f" ({handle.crash_reason})" if handle.crash_reason else ""
        parts.append(f"the language server {handle.spec.id} crashed{why}{quoted}")
    return "\n".join(parts)


NAMED_AT_MOST = 5
"""The files an ``incomplete:`` line names; of more, it gives their count and the first
ones (a big tree's timeout left hundreds; ``--format json`` holds each file's status)."""


def incomplete(output: Output, what: str, files: Sequence[str] = ()) -> None:
    """``incomplete: what: files`` on stderr (the exit status says 3); of more than
    :data:`NAMED_AT_MOST` files, ``N files: the first ones and M more``."""
    listed = f": {', '.join(files)}" if files else ""
    if len(files) > NAMED_AT_MOST:
        first = ", ".join(files[:NAMED_AT_MOST])
        listed = f": {len(files)} files: {first} and {len(files) - NAMED_AT_MOST} more"
    output.error(f"incomplete: {what}{listed}")


def reasons_in_words(reasons: Sequence[str | None]) -> str:
    return ", ".join(REASON_WORDS.get(str(r), str(r)) for r in dict.fromkeys(reasons))


def say_incomplete(output: Output, results: Results[Any]) -> int:
    """3, said on stderr, for a partial answer; else 0."""
    if results.complete:
        return 0
    incomplete(output, f"the answer may be partial ({reasons_in_words([results.reason])})")
    return 3


def exit_for(complete: bool, failing: bool) -> int:
    """3 when incomplete (it wins over findings), 1 for findings, else 0."""
    if not complete:
        return 3
    return 1 if failing else 0


@dataclass(frozen=True)
class Scope:
    """The files a ``check``, ``format`` or ``fix`` is about: ``files`` in order, where each
    was found (``origins``; :class:`..workspace.servers.scopes.Origin`), the files named themselves
    (``named``), and the paths as messages name them (``described``)."""

    files: list[Path]
    origins: dict[Path, Origin]
    named: frozenset[Path]
    described: str


def scope(
    args: argparse.Namespace,
    ws: Workspace,
    output: Output | None = None,
    *,
    formatting: bool = False,
) -> Scope:
    """The files ``check``, ``format`` and ``fix`` are about (see :class:`Scope`).

    The paths given (files and folders, relative to the current folder); without any, the
    current folder when it lies inside the root, else the whole root. With ``formatting``,
    also the files of those folders that a server formats and takes for nothing else (ruff
    and Markdown, as ``ruff format`` finds them). Files whose real path lies outside the
    root (links out of it) are never read: one named is refused, those a folder holds are
    left out and counted on ``output``'s stderr.

    Raises:
        ServerNotFoundError: none of them is taken by an installed server, but one that is
            not installed would take them (its install hint).
        ValueError: none of them is a file an installed server takes, saying so (a run that
            checks nothing never looks like a clean check); a path named that leads out of
            the root (``LinkOutOfRootError``).
    """
    cwd = cwd_of(args)
    given: list[str] = list(getattr(args, "paths", None) or [])
    ws.server_choice.links_out.clear()
    ws.server_choice.aside.clear()
    if given:
        for name in given:
            full = Path(os.path.abspath(cwd / name))
            if full != ws.root and ws.root not in full.parents:
                raise ValueError(
                    f"{name} is outside the root {ws.root} (give --root to check it there)"
                )
            confined(ws.root, full, name)
        described = ", ".join(given)
        folders = [full for path in given if (full := Path(os.path.abspath(cwd / path))).is_dir()]
    elif cwd != ws.root and ws.root in cwd.parents:
        described = "the current folder"
        folders = [cwd]
    else:
        described = "the root"
        folders = [ws.root]
    files, origins, named = selection(ws, [cwd / path for path in given] or None, cwd)
    wanted = ws.takes
    if formatting:
        only = ws.server_choice.formats_only
        links_out = ws.server_choice.links_out
        found = (
            path
            for folder in folders
            for path in root_files(ws.root, only, folder, links_out=links_out)
        )
        files = list(dict.fromkeys([*files, *found]))
        wanted = lambda path: ws.takes(path) or only(path)  # noqa: E731
    if output is not None:
        say_links_out(output, ws)
        say_aside(output, ws)
    if not any(wanted(path) for path in files):
        for file in files:
            missing = ws.server_choice.missing_server(file)
            if missing is not None:
                raise missing
        raise ValueError(
            f"nothing to check: {described} has no file that an installed language server "
            "takes (`adecore-lsp servers` lists the servers and their languages)"
        )
    return Scope(files, origins, named, described)


def say_links_out(output: Output, ws: Workspace) -> None:
    """The stderr line counting the files a listing left out as links out of the root
    (also with ``--quiet``: a file that was not checked must not look checked)."""
    left = sorted(ws.paths.relative(path) for path in ws.server_choice.links_out)
    if left:
        many = len(left) != 1
        names = ", ".join(shown_path(name) for name in left[:5])
        names += ", ..." if len(left) > 5 else ""
        output.warning(
            f"{len(left)} file{'s' * many} left out: {'links' if many else 'a link'} out of "
            f"the root, never read ({names})"
        )


def say_aside(output: Output, ws: Workspace) -> None:
    """The stderr note counting what the listing left aside, by reason, naming the first
    few: ``left out: 2 folders no checker reads (.venv/, node_modules/)``."""
    for reason, names in sorted(ws.server_choice.aside.items()):
        folders = sorted(name for name in names if name.endswith("/"))
        files = sorted(name for name in names if not name.endswith("/"))
        counted = [
            f"{len(group)} {kind}{'s' * (len(group) != 1)}"
            for kind, group in (("folder", folders), ("file", files))
            if group
        ]
        shown = [shown_path(name) for name in (folders + files)[:5]]
        more = len(names) - len(shown)
        listed = ", ".join(shown) + (f" and {more} more" if more > 0 else "")
        output.note(f"left out: {' and '.join(counted)} {reason} ({listed})")


def say_unfinished(output: Output, files: dict[str, FileStatus], shown: Shown) -> None:
    """The stderr line naming the files whose diagnostics are not final, and why."""
    unfinished = {path: status for path, status in files.items() if not status.complete}
    if unfinished:
        why = reasons_in_words(sorted(str(s.reason) for s in unfinished.values()))
        names = [shown_path(shown.path(path)) for path in sorted(unfinished)]
        incomplete(output, f"diagnostics not final ({why})", names)


def finish(
    output: Output,
    ws: Workspace,
    files: dict[str, FileStatus],
    shown: Shown,
    failing: bool,
    *,
    complete: bool = True,
) -> int:
    """The exit status: 2 for a crash (said with its stderr), else 3 for files not final
    (named on stderr) or ``complete`` false, else 1 for findings at or above --fail-on,
    else 0."""
    crash = crashes(ws)
    if crash is not None:
        output.error(crash)
        return 2
    say_unfinished(output, files, shown)
    return exit_for(complete and all(status.complete for status in files.values()), failing)
