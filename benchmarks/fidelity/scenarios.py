"""The four scenarios, each a fixed, seeded list of questions asked of one subject on a fresh
copy of one tree, every answer scored against the truth as the disk stands when it comes.

Every question's truth is non-empty: each references question has uses, and every state the
diagnostics are asked about holds an error the command line confirms. Every call is timed and
bounded by :data:`CALL_LIMIT`; a call that fails is honest (never right), one that does not
answer in time is "no answer". A question without a truth, a kill that would hit the subject
itself, or an adapter that breaks is the harness's failure: not scored, listed, and the run
fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from fidelity import checker, processes, scorer, truth
from fidelity.case import Case, apply
from fidelity.checker import NoTruth
from fidelity.questions import new_file
from fidelity.scorer import EmptyTruth, Tally
from fidelity.subject import NotSupported, Question, Reply, Subject, SubjectFailed
from fidelity.trees import git, language_files, read_text, write_text

CALL_LIMIT = 180.0
"""The longest the harness waits for one answer, in seconds."""
COLUMNS = ("cold_references", "after_edit", "rename_first", "rename_after_checkout", "server_dies")
"""The scores' columns: the scenarios, renames split into the first after the subject's start
and those after a ``git checkout`` made behind the subject's back."""

SubjectFactory = Callable[[], Subject]


@dataclass
class Outcome:
    """A scenario's tallies by column, and what the run should say about it."""

    tallies: dict[str, Tally] = field(default_factory=lambda: {c: Tally() for c in COLUMNS})
    notes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    """The harness's own failures (no truth, a kill that missed): not scores."""

    def fail(self, text: str) -> None:
        """Record a failure of the harness and say it at once."""
        self.failures.append(text)
        print(f"  HARNESS FAILURE: {text}", flush=True)


async def call(asked: Awaitable[Reply]) -> Reply:
    """The reply of a call with its wall time; a failure, and a call past
    :data:`CALL_LIMIT`, as replies that say so.

    Raises:
        NotSupported: the subject has no way to do this.
    """
    began = time.monotonic()
    try:
        reply = await asyncio.wait_for(asked, CALL_LIMIT)
    except SubjectFailed as error:
        text = str(error) or type(error).__name__
        return Reply(failed=text, ms=(time.monotonic() - began) * 1000)
    except asyncio.TimeoutError as error:  # NoAnswer too: the adapter's own bound
        said = str(error) or f"no answer within {CALL_LIMIT:.0f} s"
        return Reply(no_answer=said, ms=(time.monotonic() - began) * 1000)
    return replace(reply, ms=(time.monotonic() - began) * 1000)


async def ask_references(
    subject: Subject, case: Case, question: Question, tally: Tally, out: Outcome
) -> None:
    """Ask and score one references question (a subject without references is not asked)."""
    try:
        reply = await call(subject.references(question))
    except NotSupported as error:
        tally.skip()
        out.notes.append(f"{case.label}: references not asked: {error}")
        return
    expected = case.references[truth.key(question)].places
    try:
        score = scorer.references(reply, expected, question)
    except EmptyTruth as error:
        out.fail(f"{case.label}: no truth: {error}")
        return
    what = (
        f"{case.label}: references of {question.name} ({truth.key(question)}):"
        f" {len(scorer.without_declaration(reply.places or frozenset(), question))} places,"
        f" the truth {len(scorer.without_declaration(expected, question))}"
    )
    tally.add(score, reply, what)


async def ask_errors(
    subject: Subject,
    case: Case,
    root: Path,
    paths: list[str],
    step: str,
    tally: Tally,
    out: Outcome,
) -> None:
    """Ask the errors of ``paths`` and score them against the command line on the disk (a
    subject without diagnostics is not asked; a question without a truth is the harness's
    failure, named)."""
    try:
        reply = await call(subject.diagnostics(paths))
    except NotSupported as error:
        tally.skip()
        out.notes.append(f"{case.label}: diagnostics not asked: {error}")
        return
    try:
        expected = checker.errors(root, case.server, paths)
        score = scorer.errors(reply, expected)
    except (NoTruth, EmptyTruth) as error:
        out.fail(f"{case.label}: {step}: errors of {', '.join(paths)}: no truth: {error}")
        return
    what = (
        f"{case.label}: {step}: errors of {', '.join(paths)}: {sorted(reply.errors or ())},"
        f" the command line {sorted(expected)}"
    )
    tally.add(score, reply, what)


def files_of(root: Path, case: Case) -> dict[str, bytes]:
    """The tree's files of the case's language and their bytes: what a write is judged by."""
    return {path: (root / path).read_bytes() for path in language_files(root, case.server.language)}


@contextlib.asynccontextmanager
async def session(
    factory: SubjectFactory, case: Case, folder: Path
) -> AsyncIterator[tuple[Subject, Path]]:
    """A fresh workspace copy of the tree and the subject started on it."""
    root = case.make_workspace(folder / "tree")
    subject = factory()
    try:
        await asyncio.wait_for(subject.start(root, case.server), CALL_LIMIT)
        yield subject, root
    finally:
        await subject.stop()


async def cold_references(factory: SubjectFactory, case: Case, folder: Path) -> Outcome:
    """References of the seeded symbols, asked right after the subject starts."""
    out = Outcome()
    async with session(factory, case, folder) as (subject, _):
        for question in case.symbols:
            await ask_references(subject, case, question, out.tallies["cold_references"], out)
    return out


async def after_edit(factory: SubjectFactory, case: Case, folder: Path) -> Outcome:
    """A definition renamed by hand so that a file using it breaks, and the errors of the
    files concerned after each of: (a) the subject's own edit (itself a question: the disk
    must hold exactly that edit), (b) a write from outside that undoes it and breaks another
    definition, (c) ``git checkout`` of the revision with the first break, (d) a file created
    from the shell that misuses the name. Every state holds an error."""
    out = Outcome()
    tally = out.tallies["after_edit"]
    if len(case.breaks) < 2:
        out.notes.append(f"{case.label}: after an edit: no two breaks to ask about")
        return out
    first, second = case.breaks
    pair = [first.path, first.dependent]
    both = list(dict.fromkeys([*pair, second.path, second.dependent]))
    async with session(factory, case, folder) as (subject, root):
        base = {p: read_text(root / p) for p in {first.path, second.path}}
        expected = files_of(root, case)
        expected[first.path] = apply(base[first.path], first).encode("utf-8")
        step = "(a) after the subject's edit"
        try:
            reply = await call(subject.edit(first.path, first.old, first.new))
        except NotSupported as error:
            tally.skip()
            out.notes.append(f"{case.label}: (a) the edit not asked: {error}")
            step = "(a) after the harness's write (the subject has no edit tool)"
        else:
            actual = files_of(root, case)
            what = f"{case.label}: (a) the edit of {first.path}: files that differ"
            tally.add(
                scorer.tree(reply, actual, expected),
                reply,
                f"{what} {scorer.differences(actual, expected)}",
            )
            if actual != expected:
                step = "(a) after the harness's write (the subject's edit did not land)"
        (root / first.path).write_bytes(expected[first.path])
        await ask_errors(subject, case, root, pair, step, tally, out)
        texts = dict(base)
        texts[second.path] = apply(texts[second.path], second)
        for path, text in texts.items():
            write_text(root / path, text)
        await ask_errors(subject, case, root, both, "(b) a write from outside", tally, out)
        git(root, "checkout", "-q", "-f", "broken")
        await ask_errors(subject, case, root, both, "(c) git checkout", tally, out)
        created, text = new_file(case.server.language, first)
        (root / created).write_text(text, encoding="utf-8")
        step = "(d) a file from the shell"
        await ask_errors(subject, case, root, [created, first.path], step, tally, out)
    return out


async def rename(factory: SubjectFactory, case: Case, folder: Path) -> Outcome:
    """The seeded renames, applied by the subject one after another, each scored byte for
    byte against the truth's; the first is asked right after the subject's start, the others
    each after ``git checkout -f base`` behind the subject's back."""
    out = Outcome()
    async with session(factory, case, folder) as (subject, root):
        for index, question in enumerate(case.renames):
            column = "rename_first" if index == 0 else "rename_after_checkout"
            before = files_of(root, case)
            expected = {**before, **case.rename_truths[truth.key(question)]}
            try:
                reply = await call(subject.rename(question, question.name + "Renamed"))
            except NotSupported as error:
                out.tallies["rename_first"].skip(1 if index == 0 else 0)
                out.tallies["rename_after_checkout"].skip(len(case.renames) - max(index, 1))
                out.notes.append(f"{case.label}: rename not asked: {error}")
                return out
            actual = files_of(root, case)
            what = (
                f"{case.label}: rename of {question.name}: files that differ from the truth"
                f" {scorer.differences(actual, expected)}"
            )
            out.tallies[column].add(scorer.tree(reply, actual, expected), reply, what)
            git(root, "checkout", "-q", "-f", "base")
    return out


async def server_dies(factory: SubjectFactory, case: Case, folder: Path) -> Outcome:
    """The language server killed during a session (after a first answer), only the server:
    the subject's own processes must outlive it. Then references of the first symbol, and,
    after the first break is written from outside, the errors of the files it breaks."""
    out = Outcome()
    tally = out.tallies["server_dies"]
    if not case.symbols:
        out.notes.append(f"{case.label}: a server that dies: no references question to ask")
        return out
    question = case.symbols[0]
    async with session(factory, case, folder) as (subject, root):
        own = subject.pids()
        if not own:
            tally.skip(2 if case.breaks else 1)
            out.notes.append(f"{case.label}: no process lives between calls: nothing to kill")
            return out
        try:
            await call(subject.references(question))
        except NotSupported:
            with contextlib.suppress(NotSupported):
                await call(subject.diagnostics([question.path]))
        try:
            processes.kill_server(own, case.server)
        except processes.NothingToKill as error:
            tally.skip(2 if case.breaks else 1)
            out.notes.append(f"{case.label}: a server that dies not asked: {error}")
            return out
        except processes.KillFailed as error:
            out.fail(f"{case.label}: the kill: {error}")
            return out
        await asyncio.sleep(0.5)
        await ask_references(subject, case, question, tally, out)
        if case.breaks:
            first = case.breaks[0]
            path = root / first.path
            write_text(path, apply(read_text(path), first))
            step = "after the kill and a write from outside"
            await ask_errors(subject, case, root, [first.path, first.dependent], step, tally, out)
    return out


SCENARIOS: dict[str, Callable[[SubjectFactory, Case, Path], Awaitable[Outcome]]] = {
    "cold_references": cold_references,
    "after_edit": after_edit,
    "rename": rename,
    "server_dies": server_dies,
}
