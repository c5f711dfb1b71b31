"""The four scenarios, each a fixed, seeded list of questions asked of one subject on a fresh
copy of one tree, every answer scored against the truth as the disk stands when it comes.

Every call is timed here and bounded by :data:`CALL_LIMIT`: a call that does not answer in
time counts as a failure the subject did not hide (honest), and is reported in the notes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from fidelity import scorer, truth
from fidelity.questions import Break, new_file
from fidelity.scorer import Tally
from fidelity.subject import NotSupported, Question, Reply, Server, Subject, SubjectFailed
from fidelity.trees import git

CALL_LIMIT = 180.0
"""The longest the harness waits for one answer, in seconds."""

SubjectFactory = Callable[[], Subject]


@dataclass
class Case:
    """One tree as the scenarios see it: its pristine copy, its server, its questions and
    their settled references."""

    label: str
    pristine: Path
    server: Server
    symbols: list[Question]
    renames: list[Question]
    breaking: Break | None
    references: dict[str, frozenset[tuple[str, int]]]
    make_workspace: Callable[[Path], Path]


@dataclass
class Outcome:
    """A scenario's tally, and what the run should say about it."""

    tally: Tally = field(default_factory=Tally)
    notes: list[str] = field(default_factory=list)


async def timed(call: Awaitable[Reply]) -> Reply:
    """The reply of ``call`` with its wall time.

    Raises:
        SubjectFailed: the subject failed, or did not answer within :data:`CALL_LIMIT`.
    """
    began = time.monotonic()
    try:
        reply = await asyncio.wait_for(call, CALL_LIMIT)
    except asyncio.TimeoutError as error:
        raise SubjectFailed(f"no answer within {CALL_LIMIT:.0f} s") from error
    return replace(reply, ms=(time.monotonic() - began) * 1000)


def failure(began: float, error: Exception) -> Reply:
    """The reply a failed call counts as: it said it failed."""
    return Reply(flagged=f"failed: {error}", ms=(time.monotonic() - began) * 1000)


async def _reply(call: Awaitable[Reply], what: str, case: Case, out: Outcome) -> Reply | None:
    """The reply of ``call``, a failure counted as one that said so; None (and a note) when
    the subject has no such question."""
    began = time.monotonic()
    try:
        return await timed(call)
    except NotSupported as error:
        out.notes.append(f"{case.label}: {what} not asked: {error}")
        return None
    except SubjectFailed as error:
        return failure(began, error)


async def ask_references(subject: Subject, case: Case, question: Question, out: Outcome) -> None:
    """Ask and score one references question (a subject without references is noted)."""
    reply = await _reply(subject.references(question), "references", case, out)
    if reply is None:
        return
    expected = case.references[truth.key(question)]
    score = scorer.references(reply, expected, question)
    what = (
        f"{case.label}: references of {question.name} ({truth.key(question)}):"
        f" {len(reply.places or ())} places, the truth {len(expected)}"
    )
    out.tally.add(score, reply, what)


async def ask_errors(
    subject: Subject, case: Case, root: Path, paths: list[str], step: str, out: Outcome
) -> None:
    """Ask the errors of ``paths`` and score them against the command line on the disk (a
    subject without diagnostics is noted)."""
    reply = await _reply(subject.diagnostics(paths), "diagnostics", case, out)
    if reply is None:
        return
    expected = truth.errors(root, case.server, paths)
    score = scorer.errors(reply, expected)
    what = (
        f"{case.label}: {step}: errors of {', '.join(paths)}: {sorted(reply.errors or ())},"
        f" the command line {sorted(expected)}"
    )
    out.tally.add(score, reply, what)


@contextlib.asynccontextmanager
async def session(
    factory: SubjectFactory, case: Case, folder: Path
) -> AsyncIterator[tuple[Subject, Path]]:
    """A fresh workspace copy of the tree and the subject started on it."""
    root = case.make_workspace(folder / "tree")
    subject = factory()
    await asyncio.wait_for(subject.start(root, case.server), CALL_LIMIT)
    try:
        yield subject, root
    finally:
        await subject.stop()


async def cold_references(factory: SubjectFactory, case: Case, folder: Path) -> Outcome:
    """References of the seeded symbols, asked right after the subject starts."""
    out = Outcome()
    async with session(factory, case, folder) as (subject, _):
        for question in case.symbols:
            await ask_references(subject, case, question, out)
    return out


def _set_line(root: Path, path: str, old: str, new: str) -> None:
    file = root / path
    file.write_text(file.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")


async def after_edit(factory: SubjectFactory, case: Case, folder: Path) -> Outcome:
    """A change that breaks a caller in another file, made four ways in turn, each followed
    by the errors of the edited and the dependent file: (a) the subject's own edit tool,
    (b) a write from outside, (c) ``git checkout`` of another revision, (d) a file created
    from the shell."""
    out = Outcome()
    change = case.breaking
    if change is None:
        out.notes.append(f"{case.label}: no definition used from another file to break")
        return out
    pair = [change.path, change.dependent]
    async with session(factory, case, folder) as (subject, root):
        broken = False
        try:
            await timed(subject.edit(change.path, change.old, change.new))
            broken = True
            await ask_errors(subject, case, root, pair, "(a) the subject's edit", out)
        except NotSupported:
            out.notes.append(f"{case.label}: (a) not asked: the subject has no edit tool")
        except SubjectFailed as error:
            out.tally.add(scorer.HONEST, failure(time.monotonic(), error), "(a) the edit")
            broken = (root / change.path).read_text(encoding="utf-8").count(change.new) > 0
        old, new = (change.new, change.old) if broken else (change.old, change.new)
        _set_line(root, change.path, old, new)
        broken = not broken
        await ask_errors(subject, case, root, pair, "(b) a write from outside", out)
        git(root, "checkout", "-q", "-f", "base" if broken else "broken")
        broken = not broken
        await ask_errors(subject, case, root, pair, "(c) git checkout", out)
        created, text = new_file(case.server.language, change)
        (root / created).write_text(text, encoding="utf-8")
        await ask_errors(
            subject, case, root, [created, change.path], "(d) a file from the shell", out
        )
    return out


async def rename(factory: SubjectFactory, case: Case, folder: Path) -> Outcome:
    """The seeded renames, applied by the subject one after another; each scored byte for
    byte against the server's own rename of the tree as it stood."""
    out = Outcome()
    async with session(factory, case, folder) as (subject, root):
        for question in case.renames:
            new_name = question.name + "Renamed"
            try:
                expected = await truth.rename(root, case.server, question, new_name)
            except truth.NoTruth as error:
                out.notes.append(f"{case.label}: rename of {question.name}: no truth: {error}")
                continue
            began = time.monotonic()
            try:
                reply = await timed(subject.rename(question, new_name))
            except NotSupported:
                out.notes.append(f"{case.label}: rename not asked: the subject cannot write one")
                return out
            except SubjectFailed as error:
                reply = failure(began, error)
            actual = truth.snapshot(root)
            score = scorer.tree(reply, actual, expected)
            what = (
                f"{case.label}: rename of {question.name}: {scorer.differences(actual, expected)}"
            )
            out.tally.add(score, reply, what)
            git(root, "checkout", "-q", "-f", "base")
    return out


def descendants(pids: list[int]) -> list[int]:
    """Every process under ``pids`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                children.setdefault(int(stat[1]), []).append(int(entry.name))
    found: list[int] = []
    todo = list(pids)
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_server(subject: Subject, server: Server) -> list[int]:
    """SIGKILL the language server processes among the subject's; the pids killed."""
    killed = []
    for pid in descendants(subject.pids()):
        with contextlib.suppress(OSError):
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            if server.process_name.encode() in command:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
    return killed


async def server_dies(factory: SubjectFactory, case: Case, folder: Path) -> Outcome:
    """The language server killed during a session (after a first answer); the next
    answers: references of the first symbol and the errors of its file."""
    out = Outcome()
    question = case.symbols[0]
    async with session(factory, case, folder) as (subject, root):
        if not subject.pids():
            out.notes.append(f"{case.label}: no process lives between calls: nothing to kill")
            return out
        try:
            await timed(subject.references(question))
        except NotSupported:
            with contextlib.suppress(SubjectFailed, NotSupported):
                await timed(subject.diagnostics([question.path]))
        except SubjectFailed:
            pass
        killed = kill_server(subject, case.server)
        if not killed:
            out.notes.append(
                f"{case.label}: no {case.server.process_name} process found under the subject"
            )
            return out
        await asyncio.sleep(0.5)
        await ask_references(subject, case, question, out)
        await ask_errors(subject, case, root, [question.path], "after the kill", out)
    return out


SCENARIOS: dict[str, Callable[[SubjectFactory, Case, Path], Awaitable[Outcome]]] = {
    "cold_references": cold_references,
    "after_edit": after_edit,
    "rename": rename,
    "server_dies": server_dies,
}
