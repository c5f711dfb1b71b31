"""How an answer scores against the truth. It knows nothing of subjects: only a reply's
value, what the reply says of itself, and the truth.

- *right*: equal to the truth, from a call that did not fail;
- *honest*: not right, and the answer says it is incomplete, stale or failed in a field or
  status of its own (``complete: false``, an error result, a non-zero exit);
- *hedged*: not right, and only free text of the answer hedges ("may be incomplete");
- *wrong*: not right and presented as right: the bad score;
- *no answer*: no reply within the harness's bound (neither right nor honest).

No truth is empty: a question whose truth is empty is refused (:class:`EmptyTruth`), since
an answer of nothing would be right for free. A failed call is never right.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from fidelity.subject import Error, Place, Question, Reply

RIGHT = "right"
HONEST = "honest"
HEDGED = "hedged"
WRONG = "wrong"
NO_ANSWER = "no_answer"
SCORES = (RIGHT, WRONG, HONEST, HEDGED, NO_ANSWER)


class EmptyTruth(ValueError):
    """A question asked against an empty truth: the harness's mistake, never scored."""


def verdict(equal: bool, reply: Reply) -> str:
    """The score of an answer that is or is not ``equal`` to the truth."""
    if reply.no_answer:
        return NO_ANSWER
    if reply.failed:
        return HONEST
    if equal:
        return RIGHT
    if reply.flagged:
        return HONEST
    return HEDGED if reply.hedged else WRONG


def without_declaration(places: frozenset[Place], question: Question) -> frozenset[Place]:
    """``places`` less the question's own line (the declaration, which subjects include or
    leave out by their own defaults)."""
    return frozenset(p for p in places if p != (question.path, question.line))


def references(reply: Reply, truth: frozenset[Place], question: Question) -> str:
    """The score of a references answer.

    Raises:
        EmptyTruth: the truth names no place but the declaration.
    """
    expected = without_declaration(truth, question)
    if not expected:
        raise EmptyTruth(f"references of {question.name}: the truth names no use")
    answer = without_declaration(reply.places or frozenset(), question)
    return verdict(answer == expected, reply)


def errors(reply: Reply, truth: frozenset[Error]) -> str:
    """The score of a diagnostics answer (errors only, by file, line and column).

    Raises:
        EmptyTruth: the truth has no error.
    """
    if not truth:
        raise EmptyTruth("diagnostics: the command line reports no error")
    return verdict((reply.errors or frozenset()) == truth, reply)


def tree(reply: Reply, actual: dict[str, bytes], expected: dict[str, bytes]) -> str:
    """The score of a write (a rename, an edit): the tree on disk byte for byte against the
    truth's."""
    return verdict(actual == expected, reply)


def differences(actual: dict[str, bytes], expected: dict[str, bytes]) -> list[str]:
    """The files that differ, for the run's log."""
    return sorted(p for p in actual.keys() | expected.keys() if actual.get(p) != expected.get(p))


def said(reply: Reply) -> str:
    """What a reply said of itself, for the notes."""
    for word, text in (
        ("failed", reply.failed),
        ("no answer", reply.no_answer),
        ("flagged", reply.flagged),
        ("hedged", reply.hedged),
    ):
        if text:
            return f"{word}: {text}"
    return "nothing"


@dataclass
class Tally:
    """One scenario's scores and costs, over every tree it ran on."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SCORES, 0))
    failed: int = 0
    """Honest answers that were failed calls (a subset of ``honest``)."""
    not_asked: int = 0
    """Questions the subject has no tool for."""
    times: list[float] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What each answer that was not right was, and what it said of itself."""

    @property
    def asked(self) -> int:
        """Questions scored."""
        return sum(self.counts.values())

    @property
    def right(self) -> int:
        """Answers equal to the truth."""
        return self.counts[RIGHT]

    def add(self, score: str, reply: Reply, what: str = "") -> None:
        """Count one answer, its time and its size."""
        self.counts[score] += 1
        if score == HONEST and reply.failed:
            self.failed += 1
        if score != RIGHT:
            self.notes.append(f"{score.replace('_', ' ')}: {what} ({said(reply)})")
        if score != NO_ANSWER:
            self.times.append(reply.ms)
            self.sizes.append(reply.size)

    def skip(self, count: int = 1) -> None:
        """Count ``count`` questions the subject could not be asked."""
        self.not_asked += count

    def merge(self, other: Tally) -> None:
        """Add ``other``'s answers to these."""
        for score in SCORES:
            self.counts[score] += other.counts[score]
        self.failed += other.failed
        self.not_asked += other.not_asked
        self.times += other.times
        self.sizes += other.sizes
        self.notes += other.notes

    def as_json(self) -> dict[str, Any]:
        """The scenario's entry of ``--json``."""
        return {
            "asked": self.asked,
            **self.counts,
            "failed": self.failed,
            "not_asked": self.not_asked,
            "p50_ms": round(percentile(self.times, 50), 1),
            "p95_ms": round(percentile(self.times, 95), 1),
            "median_bytes": int(statistics.median(self.sizes)) if self.sizes else 0,
        }


def percentile(values: list[float], rank: float) -> float:
    """The ``rank``-th percentile, interpolated between the nearest values (0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * rank / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
