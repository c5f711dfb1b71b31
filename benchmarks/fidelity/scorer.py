"""How an answer scores against the truth. It knows nothing of subjects: only a reply's
value, whether the reply says it is not whole, and the truth.

- *right*: equal to the truth;
- *honest*: not right, but the answer itself says it is incomplete, stale or failed;
- *wrong*: not right and presented as right (an empty list, or "no diagnostics", that is not
  the truth is wrong): the only bad score.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from fidelity.subject import Error, Place, Question, Reply

RIGHT = "right"
HONEST = "honest"
WRONG = "wrong"


def verdict(equal: bool, flagged: str | None) -> str:
    """The score of an answer that is or is not ``equal`` to the truth."""
    if equal:
        return RIGHT
    return HONEST if flagged else WRONG


def without_declaration(places: frozenset[Place], question: Question) -> frozenset[Place]:
    """``places`` less the question's own line (the declaration, which subjects include or
    leave out by their own defaults)."""
    return frozenset(p for p in places if p != (question.path, question.line))


def references(reply: Reply, truth: frozenset[Place], question: Question) -> str:
    """The score of a references answer."""
    answer = without_declaration(reply.places or frozenset(), question)
    return verdict(answer == without_declaration(truth, question), reply.flagged)


def errors(reply: Reply, truth: frozenset[Error]) -> str:
    """The score of a diagnostics answer (errors only, by file, line and column)."""
    return verdict((reply.errors or frozenset()) == truth, reply.flagged)


def tree(reply: Reply, actual: dict[str, bytes], expected: dict[str, bytes]) -> str:
    """The score of a rename: the tree on disk byte for byte against the server's own."""
    return verdict(actual == expected, reply.flagged)


def differences(actual: dict[str, bytes], expected: dict[str, bytes]) -> list[str]:
    """The files that differ, for the run's log."""
    return sorted(p for p in actual.keys() | expected.keys() if actual.get(p) != expected.get(p))


@dataclass
class Tally:
    """One scenario's scores and costs, over every tree it ran on."""

    right: int = 0
    honest: int = 0
    wrong: int = 0
    times: list[float] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    wrongs: list[str] = field(default_factory=list)
    """What each wrong answer was, for the notes."""
    honests: list[str] = field(default_factory=list)
    """What each honest answer was and what it said of itself, for the notes."""

    @property
    def asked(self) -> int:
        """Questions scored."""
        return self.right + self.honest + self.wrong

    def add(self, score: str, reply: Reply, what: str = "") -> None:
        """Count one answer, its time and its size."""
        if score == RIGHT:
            self.right += 1
        elif score == HONEST:
            self.honest += 1
            self.honests.append(f"{what} (it said: {reply.flagged})")
        else:
            self.wrong += 1
            self.wrongs.append(what)
        self.times.append(reply.ms)
        self.sizes.append(reply.size)

    def merge(self, other: Tally) -> None:
        """Add ``other``'s answers to these."""
        self.right += other.right
        self.honest += other.honest
        self.wrong += other.wrong
        self.times += other.times
        self.sizes += other.sizes
        self.wrongs += other.wrongs
        self.honests += other.honests

    def as_json(self) -> dict[str, Any]:
        """The scenario's entry of ``--json``."""
        return {
            "asked": self.asked,
            "right": self.right,
            "honest": self.honest,
            "wrong": self.wrong,
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
