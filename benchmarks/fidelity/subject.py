"""What every subject answers, in one shape the scorer reads without knowing the subject.

A subject is a tool people would pick to ask a language server (this project's MCP server and
command line, the peers), driven through its public interface by an adapter
(``subjects/NAME.py``). The adapter turns each answer into a :class:`Reply`: the places or
errors it names, whether the answer says it is incomplete, stale or failed in a field of its
own (``flagged``) or only in free text (``hedged``), its size in bytes as the subject gave
it, and the wall time of the call. A call that fails raises :class:`SubjectFailed`.
"""

from __future__ import annotations

import abc
import asyncio
import re
from dataclasses import dataclass, field
from pathlib import Path

Place = tuple[str, int]
"""A reference: the file (relative to the tree, with ``/``) and the 0-based line."""

Error = tuple[str, int, int]
"""An error diagnostic: the file, the 0-based line and the 0-based column of its start."""


IMPORT_CYCLE = "reportImportCycles"
"""basedpyright's import-cycle rule: its language server finds a cycle or not depending on the
order it reads files in, so its findings are left out of both sides of every comparison."""
_CYCLE_MESSAGE = re.compile(r"^\s*Cycle detected in import chain")


def import_cycle(code: object = None, message: object = None) -> bool:
    """Whether a finding (its rule or code, its message) is an import cycle's."""
    return code == IMPORT_CYCLE or bool(_CYCLE_MESSAGE.match(str(message or "")))


class NotSupported(Exception):
    """The subject has no way to do this (no rename tool, no diagnostics): not asked."""


class SubjectFailed(Exception):
    """The subject said it failed (an error, a non-zero exit): an answer that says so."""


class NoAnswer(asyncio.TimeoutError):
    """The subject did not answer within a bound (the adapter's or the harness's): not an
    answer that says anything."""


@dataclass(frozen=True)
class Server:
    """The language server every subject is given, as far as its configuration allows."""

    id: str
    """The registry's id: ``basedpyright``, ``typescript-language-server``, ``scripted``."""
    language: str
    """``python`` or ``typescript``."""
    argv: tuple[str, ...]
    """How to start it on stdio (absolute executable)."""
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
    """The answer's own field or status saying it is incomplete, stale or failed
    (``complete: false``, an exit status, agent-lsp's ``indexed=false``, serena's "too long")."""
    hedged: str | None = None
    """Free text of the answer that hedges ("may be incomplete") with no field to say so."""
    failed: str | None = None
    """The call failed and said so (an error result, an exception, a non-zero exit): never
    right, whatever it holds."""
    no_answer: str | None = None
    """The call did not answer within the harness's bound: neither honest nor right."""
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

    async def own_server(self, server: Server) -> Server | None:
        """The server this subject runs when it cannot be given ``server`` (its answers are
        then scored against that server's own settled truth, in a row of its own); None when
        it runs ``server``."""
        return None
