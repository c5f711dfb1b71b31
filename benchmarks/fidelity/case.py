"""A tree as the scenarios see it, and its truth settled once before any subject is asked:
the references questions both witnesses agree on (with a use in another file), the renames
whose truth passes its own check, and two breaks whose errors the command line confirms.

Every question left out is listed with its reason (``Case.dropped``); a tree where nothing
is left to ask is refused (:class:`~fidelity.checker.NoTruth`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from fidelity import checker, questions, truth
from fidelity.checker import NoTruth
from fidelity.questions import Break
from fidelity.subject import Question, Server
from fidelity.trees import TSCONFIG_NOTE, git, read_text, source_files, workspace, write_text

BATCH = 8
"""Candidates settled at once; more batches follow until enough questions agree."""
SPARE = 2
"""Rename candidates settled beyond those asked, in case a rename's truth fails its check."""
RENAMED = "Renamed"
"""What a rename appends to a name."""


@dataclass
class Case:
    """One tree and its settled truth."""

    label: str
    pristine: Path
    server: Server
    symbols: list[Question] = field(default_factory=list)
    """References questions, each with a settled, agreed, non-empty truth."""
    references: dict[str, truth.References] = field(default_factory=dict)
    renames: list[Question] = field(default_factory=list)
    rename_truths: dict[str, dict[str, bytes]] = field(default_factory=dict)
    """Each rename's truth: the files it changes, from the tree at ``base``."""
    breaks: list[Break] = field(default_factory=list)
    """Two changes whose errors the command line confirms ((a)/(c) and (b))."""
    dropped: list[str] = field(default_factory=list)
    """Every question left out, and why."""
    notes: list[str] = field(default_factory=list)
    """What the run should say about the tree (the harness's own tsconfig.json)."""
    seconds: float = 0.0
    """How long settling the truth took."""

    def make_workspace(self, into: Path) -> Path:
        """A fresh git copy of the tree at ``into``: ``base`` checked out, and ``broken`` (the
        first break committed) to check out from the outside."""
        root = workspace(self.pristine, into, self.server.language)
        if self.breaks:
            first = self.breaks[0]
            path = root / first.path
            write_text(path, apply(read_text(path), first))
            git(root, "commit", "-q", "-am", "broken")
            git(root, "tag", "broken")
            git(root, "checkout", "-q", "base")
        return root

    def for_server(self, server: Server, references: dict[str, truth.References]) -> Case:
        """This case as scored against another server's own settled truth."""
        kept = [q for q in self.symbols if truth.key(q) in references]
        return replace(self, server=server, symbols=kept, references=references)


def apply(text: str, change: Break) -> str:
    """``text`` with ``change`` made."""
    return text.replace(change.old, change.new, 1)


def counts(case: Case) -> dict[str, int]:
    """The questions of each scenario for one subject on this tree (edits and diagnostics
    in "after an edit"; references and errors after the kill)."""
    after_edit = 5 if len(case.breaks) == 2 else 0
    return {
        "cold_references": len(case.symbols),
        "after_edit": after_edit,
        "rename_first": min(1, len(case.renames)),
        "rename_after_checkout": max(0, len(case.renames) - 1),
        "server_dies": (1 if case.symbols else 0) + (1 if case.breaks else 0),
    }


@dataclass
class Settled:
    """What the truth's session on a tree gave: the agreed questions and what was dropped."""

    agreed: dict[str, truth.References] = field(default_factory=dict)
    order: list[Question] = field(default_factory=list)
    """The agreed questions with a use in another file, in the pool's order."""
    dropped: list[str] = field(default_factory=list)
    server_renames: dict[str, dict[str, bytes] | str] = field(default_factory=dict)
    """The server's own rename of each agreed question (its changed files), or why none."""
    texts: dict[str, str] = field(default_factory=dict)
    """The files as the session opened them."""


async def references_truth(
    root: Path, server: Server, pool: list[Question], wanted: int, renames_from: int
) -> Settled:
    """Settle ``pool`` in batches until ``wanted`` questions agree with a use in another file;
    the server's own rename of those from ``renames_from`` on is asked in the same session.

    Raises:
        NoTruth: the server never settled.
    """
    settled = Settled()
    session = await truth.Session.open(root, server)
    try:
        for start in range(0, len(pool), BATCH):
            batch = pool[start : start + BATCH]
            found, disagreed = await truth.witnessed(session, batch)
            settled.dropped += [d.describe() for d in disagreed]
            for question in batch:
                agreed = found.get(truth.key(question))
                if agreed is None:
                    continue
                if not agreed.other_files():
                    settled.dropped.append(f"{question.name}: no use in another file")
                    continue
                settled.agreed[truth.key(question)] = agreed
                settled.order.append(question)
            if len(settled.order) >= wanted:
                break
        settled.order = settled.order[:wanted]
        for question in settled.order[renames_from:]:
            try:
                changes: dict[str, bytes] | str = await session.rename(
                    question, question.name + RENAMED
                )
            except NoTruth as error:
                changes = str(error)
            settled.server_renames[truth.key(question)] = changes
        settled.texts = dict(session.texts)
    finally:
        await session.close()
    return settled


def _rename_truths(
    case: Case, root: Path, candidates: list[Question], settled: Settled, wanted: int
) -> None:
    """Keep the first ``wanted`` renames whose truth equals the server's own rename and
    passes the whole tree's check; the others tried are dropped with their reason."""
    for question in candidates:
        references = case.references[truth.key(question)]
        new_name = question.name + RENAMED
        try:
            changes = truth.renamed(settled.texts, references, new_name)
            own = settled.server_renames.get(truth.key(question), "not asked")
            if isinstance(own, str):
                raise NoTruth(f"the server's own rename: {own}")
            if own != changes:
                raise NoTruth(
                    "the server's own rename differs from renaming every place of the"
                    f" references truth: {_first_difference(own, changes)}"
                )
            truth.check_rename(root, case.server, references, new_name, changes)
        except NoTruth as error:
            case.dropped.append(f"rename of {question.name}: {error}")
            continue
        case.renames.append(question)
        case.rename_truths[truth.key(question)] = changes
        if len(case.renames) == wanted:
            return


def _first_difference(server: dict[str, bytes], references: dict[str, bytes]) -> str:
    """The first line where the server's rename and the references truth's differ."""
    for path in sorted(server.keys() | references.keys()):
        ours = server.get(path, b"").decode("utf-8", "replace").splitlines()
        theirs = references.get(path, b"").decode("utf-8", "replace").splitlines()
        for number, (one, other) in enumerate(zip(ours, theirs, strict=False)):
            if one != other:
                return (
                    f"{path}:{number + 1}: the server {one.strip()[:80]!r},"
                    f" the references {other.strip()[:80]!r}"
                )
        if path not in server or path not in references:
            return f"{path}: only {'the server' if path in server else 'the references'}"
    return "no line differs"


def _breaks(case: Case, root: Path, files: list[str], seed: int) -> None:
    """The first two breaks whose file pair the command line says gains an error."""
    for change in questions.breaks(root, files, case.server.language, seed):
        if len(case.breaks) == 2:
            return
        if any(b.name == change.name for b in case.breaks):
            continue
        pair = [change.path, change.dependent]
        path = root / change.path
        text = read_text(path)
        try:
            before = checker.errors(root, case.server, pair)
            write_text(path, apply(text, change))
            after = checker.errors(root, case.server, pair)
        except NoTruth as error:
            case.dropped.append(f"break of {change.name}: {error}")
            continue
        finally:
            write_text(path, text)
        if after and after != before:
            case.breaks.append(change)
        else:
            case.dropped.append(
                f"break of {change.name}: the command line finds no new error in {pair}"
            )
    if len(case.breaks) < 2:
        case.dropped.append("after an edit: not two breaks the command line confirms")
        case.breaks = []


async def settle(
    label: str, pristine: Path, server: Server, seed: int, count: int, scratch: Path
) -> Case:
    """The case of one tree, its truth settled: ``count`` references questions, up to
    ``count - 1`` renames (other symbols), two breaks.

    Raises:
        NoTruth: nothing on the tree can be asked.
    """
    began = time.monotonic()
    case = Case(label, pristine, server)
    root = workspace(pristine, scratch / f"truth-{label.replace(' ', '-')}", server.language)
    if server.language == "typescript" and not (pristine / "tsconfig.json").is_file():
        case.notes.append(f"{label}: {TSCONFIG_NOTE}")
    files = source_files(root, server.language)
    pool = questions.candidates(root, files, server.language, seed)
    if not pool:
        raise NoTruth(
            f"{label}: no {server.language} definition used from another file"
            f" among its {len(files)} source files: nothing to ask"
        )
    renames = count - 1
    settled = await references_truth(root, server, pool, count + renames + SPARE, count)
    case.dropped += settled.dropped
    case.references = settled.agreed
    if not settled.order:
        raise NoTruth(f"{label}: no question on which both witnesses agree: {settled.dropped[:3]}")
    case.symbols = sorted(settled.order[:count], key=lambda q: (q.path, q.line))
    _rename_truths(case, root, settled.order[count:], settled, renames)
    _breaks(case, root, files, seed)
    case.seconds = time.monotonic() - began
    return case


async def settle_for(case: Case, server: Server, scratch: Path) -> Case:
    """``case`` scored against ``server``'s own settled references truth (a subject that
    cannot be given the case's server); questions its witnesses disagree on are dropped.

    Raises:
        NoTruth: the server never settled.
    """
    folder = f"truth-{case.label.replace(' ', '-')}-{server.id}"
    root = workspace(case.pristine, scratch / folder, server.language)
    session = await truth.Session.open(root, server)
    try:
        found, disagreed = await truth.witnessed(session, case.symbols)
    finally:
        await session.close()
    other = case.for_server(server, found)
    other.dropped = [f"{server.id}: {d.describe()}" for d in disagreed]
    return other
