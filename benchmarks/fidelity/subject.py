"""What every subject answers, in one shape the scorer reads without knowing the subject.

A subject is a tool people would pick to ask a language server (this project's MCP server and
command line, the peers), driven through its public interface by an adapter
(``subjects/NAME.py``). The adapter turns each answer into a :class:`Reply`: the places or
errors it names, whether the answer itself says it is incomplete, stale or failed (in words
or a field), its size in bytes as the subject gave it, and the wall time of the call.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from pathlib import Path

Place = tuple[str, int]
"""A reference: the file (relative to the tree, with ``/``) and the 0-based line."""

Error = tuple[str, int, int]
"""An error diagnostic: the file, the 0-based line and the 0-based column of its start."""


class NotSupported(Exception):
    """The subject has no way to do this (no rename tool, no diagnostics): not asked."""


class SubjectFailed(Exception):
    """The subject said it failed (an error, a non-zero exit): an answer that says so."""


@dataclass(frozen=True)
class Server:
    """The language server every subject is given, as far as its configuration allows."""

    id: str
    """The registry's id: ``basedpyright``, ``typescript-language-server``, ``scripted``."""
    language: str
    """``python`` or ``typescript``."""
    argv: tuple[str, ...]
    """How to start it on stdio (absolute executable)."""
    process_name: str
    """A word of the server process's command line, to find it among a subject's children."""
    check: tuple[str, ...] = ()
    """The server's own command line that checks files (the truth of diagnostics)."""


@dataclass(frozen=True)
class Reply:
    """One answer, as the scorer sees it."""

    places: frozenset[Place] | None = None
    """For references: every place named (the declaration left out)."""
    errors: frozenset[Error] | None = None
    """For diagnostics: every error named in the files asked about."""
    flagged: str | None = None
    """The answer's own words or field saying it is incomplete, stale or failed."""
    size: int = 0
    """The answer's size in bytes, as the subject gave it."""
    ms: float = 0.0
    """The call's wall time, from asking to having the answer."""


@dataclass
class Question:
    """A symbol asked about: where its name is (0-based line and column) and its name."""

    path: str
    line: int
    column: int
    name: str
    extra: dict[str, str] = field(default_factory=dict)


class Subject(abc.ABC):
    """A tool under test. Every method is timed by the harness; an adapter raises
    :class:`SubjectFailed` when the subject says it failed and :class:`NotSupported` when it
    has no way to do what is asked."""

    name: str = ""

    @abc.abstractmethod
    async def start(self, root: Path, server: Server) -> None:
        """Start the subject on ``root`` with ``server``; return as soon as it can be asked."""

    @abc.abstractmethod
    async def references(self, question: Question) -> Reply:
        """Where ``question``'s symbol is used, the declaration left out."""

    @abc.abstractmethod
    async def diagnostics(self, paths: list[str]) -> Reply:
        """The errors of ``paths`` (relative to the root) as the subject sees the disk now."""

    async def edit(self, path: str, old: str, new: str) -> Reply:
        """Replace ``old`` by ``new`` in ``path`` through the subject's own edit tool."""
        raise NotSupported("no edit tool")

    async def rename(self, question: Question, new_name: str) -> Reply:
        """Rename ``question``'s symbol to ``new_name`` and write the result to disk."""
        raise NotSupported("no rename that writes")

    @abc.abstractmethod
    def pids(self) -> list[int]:
        """The processes the subject started itself (the harness finds the language server
        among their descendants)."""

    @abc.abstractmethod
    async def stop(self) -> None:
        """Stop the subject and everything it started."""

    async def version(self) -> str:
        """The subject's version, as installed."""
        return "unknown"
