"""finality: real servers' diagnostics sequences replayed with explicit times, one row each."""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from adecore_lsp.protocol.workspace.finality import DiagnosticsFinality, FinalityStatus, Mode

A = "file:///w/a.py"
B = "file:///w/b.py"
SETTLE = 0.3


def item(message: str) -> dict[str, Any]:
    return {
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
        "message": message,
    }


X, Y, Z = item("x"), item("y"), item("z")


class Expect(NamedTuple):
    """The client opened or changed the document to ``version`` at ``at``."""

    at: float
    version: int
    mode: Mode = "push"
    uri: str = A


class Push(NamedTuple):
    """``textDocument/publishDiagnostics`` at ``at``."""

    at: float
    version: int | None
    items: list[Any]
    uri: str = A


class Pull(NamedTuple):
    """A pull answer at ``at`` for a pull made for ``version``."""

    at: float
    version: int
    items: list[Any]
    uri: str = A


class Busy(NamedTuple):
    """The server's progress began (``active``) or ended at ``at``."""

    at: float
    active: bool


class Close(NamedTuple):
    """The client closed the document."""

    uri: str = A


class Check(NamedTuple):
    """``status(uri, at)`` answers this."""

    at: float
    final: bool
    items: list[Any]
    stale: bool
    recheck_at: float | None = None
    uri: str = A


Step = Expect | Push | Pull | Busy | Close | Check


def run(finality: DiagnosticsFinality, steps: list[Step]) -> None:
    """Feed ``steps`` in order, asserting each check."""
    for step in steps:
        if isinstance(step, Expect):
            finality.expect(step.uri, step.version, step.at, step.mode)
        elif isinstance(step, Push):
            finality.pushed(step.uri, step.version, step.items, step.at)
        elif isinstance(step, Pull):
            finality.pulled(step.uri, step.version, step.items, step.at)
        elif isinstance(step, Busy):
            finality.progress_active(step.active, step.at)
        elif isinstance(step, Close):
            finality.closed(step.uri)
        else:
            expected = FinalityStatus(step.final, step.items, step.stale, step.recheck_at)
            assert finality.status(step.uri, step.at) == expected, step


SCENARIOS: dict[str, tuple[float, list[Step]]] = {
    "pyrefly: the same report three times within a few ms": (
        SETTLE,
        [
            Expect(0.0, 1),
            Busy(0.01, True),
            Busy(0.09, False),
            Check(0.095, False, [], True),
            Push(0.100, 1, [X]),
            Push(0.102, 1, [X]),
            Push(0.104, 1, [X]),
            Check(0.2, False, [X], False, 0.104 + SETTLE),
            Check(0.104 + SETTLE, True, [X], False),
        ],
    ),
    "basedpyright push: an empty report, then the real one with the same version": (
        1.2,
        [
            Expect(0.0, 1),
            Push(0.05, 1, []),
            Check(0.5, False, [], False, 0.05 + 1.2),
            Push(1.0, 1, [X]),
            Push(1.02, 1, [X]),  # a duplicate 20 ms later
            Check(1.1, False, [X], False, 1.02 + 1.2),
            Check(1.02 + 1.2, True, [X], False),
        ],
    ),
    "gopls: the first report unversioned, the next one versioned": (
        SETTLE,
        [
            Busy(0.0, True),  # gopls creates progress before didOpen
            Expect(0.1, 1),
            Push(0.2, None, [X]),
            # An unversioned report does not wait for progress.
            Check(0.3, False, [X], False, 0.2 + SETTLE),
            Check(0.2 + SETTLE, True, [X], False),
            Busy(0.6, False),
            Expect(1.0, 2),
            Check(1.0, False, [X], True),
            Push(1.2, 2, []),
            Check(1.3, False, [], False, 1.2 + SETTLE),
            Check(1.2 + SETTLE, True, [], False),
        ],
    ),
    "an unversioned pusher that sends one report": (
        SETTLE,
        [
            Expect(0.0, 1),
            Check(0.2, False, [], True),
            Push(0.4, None, [X]),
            Check(0.5, False, [X], False, 0.4 + SETTLE),
            Check(0.4 + SETTLE, True, [X], False),
            Check(30.0, True, [X], False),
        ],
    ),
    "an unversioned report restarts the quiet window and replaces the items": (
        SETTLE,
        [
            Expect(0.0, 1),
            Push(0.1, None, [X]),
            Push(0.3, None, [X, Y]),
            Check(0.41, False, [X, Y], False, 0.3 + SETTLE),
            Check(0.3 + SETTLE, True, [X, Y], False),
        ],
    ),
    "a versioned report for an old version after a change counts for nothing": (
        SETTLE,
        [
            Expect(0.0, 1),
            Push(0.1, 1, [X]),
            Check(0.1 + SETTLE, True, [X], False),
            Expect(1.0, 2),
            Push(1.05, 1, [X]),  # late, for the text before the change
            Check(2.0, False, [X], True),
            Push(2.1, 1, [Y]),  # a later report of that version replaces the stale items
            Push(2.2, 0, [Z]),  # an older one does not
            Check(3.0, False, [Y], True),
        ],
    ),
    "a report for a version the client never sent is dropped": (
        SETTLE,
        [
            Expect(0.0, 1),
            Push(0.1, 1, [X]),
            Expect(1.0, 2),
            Push(1.1, 3, []),  # pyrefly's empty v3, which would read as clean
            Check(2.0, False, [X], True),
            Push(2.1, 2, [Y]),
            Push(2.2, 3, []),
            Check(2.1 + SETTLE, True, [Y], False),
        ],
    ),
    "an old report before the first version is kept as the last known": (
        SETTLE,
        [
            Expect(0.0, 2),
            Push(0.1, 1, [X]),
            Check(0.5, False, [X], True),
        ],
    ),
    "progress active delays a versioned report, then a settle after its end": (
        SETTLE,
        [
            Expect(0.0, 1),
            Busy(0.05, True),
            Push(0.1, 1, [X]),
            Check(0.5, False, [X], False),
            Busy(0.8, True),  # told again: still the same progress
            Busy(0.8, False),
            Busy(0.85, False),  # told again: the end stays at 0.8
            Check(0.9, False, [X], False, 0.8 + SETTLE),
            Check(0.8 + SETTLE, True, [X], False),
            # Progress that begins again makes it wait again: a newer report may come.
            Busy(2.0, True),
            Check(2.0, False, [X], False),
            Busy(2.5, False),
            Push(2.51, 1, [X, Y]),
            Check(2.51 + SETTLE, True, [X, Y], False),
        ],
    ),
    "a report sent just after progress ended restarts the window": (
        SETTLE,
        [
            Expect(0.0, 1),
            Push(0.01, 1, [X]),  # a quick syntax-only pass
            Busy(0.02, True),
            Busy(1.0, False),
            Check(1.0, False, [X], False, 1.0 + SETTLE),
            Push(1.001, 1, [X, Y]),  # the full analysis
            Check(1.0 + SETTLE, False, [X, Y], False, 1.001 + SETTLE),
            Check(1.001 + SETTLE, True, [X, Y], False),
        ],
    ),
    "pull: final as soon as the answer for the current version arrives": (
        SETTLE,
        [
            Expect(0.0, 1, "pull"),
            Check(0.1, False, [], True),
            Pull(0.2, 1, [X]),
            Check(0.2, True, [X], False),
            Expect(1.0, 2, "pull"),
            Check(1.0, False, [X], True),
            Pull(1.1, 1, [Z]),  # an answer to a pull made before the change
            Pull(1.1, 3, [Y]),  # a version never sent
            Check(1.2, False, [Z], True),
            Pull(1.3, 2, []),
            Check(1.3, True, [], False),
        ],
    ),
    "rust-analyzer: pull and push for the same version are both reported": (
        SETTLE,
        [
            Expect(0.0, 1, "pull"),
            Busy(0.0, True),
            Push(0.05, 1, [Y]),  # cargo check, before the pull answer
            Check(0.1, False, [Y], False),
            Pull(0.2, 1, [X]),
            Check(0.2, True, [X, Y], False),
            Push(0.5, 1, [Z]),  # a newer cargo check replaces its own items only
            Check(0.5, True, [X, Z], False),
            Expect(1.0, 2, "pull"),
            Check(1.0, False, [X, Z], True),
            Push(1.1, 1, [Y]),  # cargo check for v1, after the change
            Check(1.2, False, [Y], True),
            Pull(1.3, 2, [X]),
            Check(1.3, True, [X], False),
        ],
    ),
    "a pull answer in push mode is final too": (
        SETTLE,
        [
            Expect(0.0, 1),
            Pull(0.1, 1, [X]),
            Check(0.1, True, [X], False),
        ],
    ),
    "a timeout: never final, stale, with the last items known": (
        SETTLE,
        [
            Expect(0.0, 1),
            Push(0.1, 1, [X, Y]),
            Check(1.0, True, [X, Y], False),
            Expect(2.0, 2),
            Check(32.0, False, [X, Y], True),
            Expect(40.0, 3, "pull"),
            Check(70.0, False, [X, Y], True),
        ],
    ),
    "a second wait for the same version keeps what came and takes the mode": (
        SETTLE,
        [
            Expect(0.0, 1),
            Push(0.1, 1, [X]),
            Expect(0.2, 1),
            Check(0.1 + SETTLE, True, [X], False),
            Expect(1.0, 1, "pull"),
            Check(1.0, False, [X], False),
            Pull(1.1, 1, [Y]),
            Check(1.1, True, [Y, X], False),
        ],
    ),
    "closing forgets, and reports after close are dropped": (
        SETTLE,
        [
            Expect(0.0, 1),
            Push(0.1, 1, [X]),
            Close(),
            Check(0.5, False, [], True),
            Push(0.6, None, [Y]),  # gopls, fortls, rust-analyzer: about the file on disk
            Pull(0.6, 1, [Y]),
            Check(1.0, False, [], True),
            Close(),  # closing twice is harmless
            Expect(2.0, 1),
            Check(2.0, False, [], True),
        ],
    ),
    "a document never expected": (
        SETTLE,
        [
            Push(0.1, 1, [X], B),
            Check(0.5, False, [], True, None, B),
        ],
    ),
    "a zero settle window is final at the report's time": (
        0.0,
        [
            Expect(0.0, 1),
            Push(0.1, None, [X]),
            Check(0.1, True, [X], False),
        ],
    ),
}


QUIET: dict[str, list[Step]] = {
    "gopls: the open's report comes after the change, and none for the change": [
        Busy(0.0, True),
        Expect(0.1, 1),
        Busy(0.15, False),
        Expect(0.2, 2),  # sent before the open's report came
        Push(0.3, 1, [X]),  # about version 1: gopls' delivered report
        Check(0.5, False, [X], True, 0.3 + SETTLE),
        # Quiet for the window after its last report: that report stands for version 2.
        Check(0.3 + SETTLE, True, [X], False),
        Expect(1.0, 3),
        Check(1.0 + SETTLE, True, [X], False),
        Push(1.5, 3, [Y]),  # a report for the version: the versioned rule again
        Check(1.6, False, [Y], False, 1.5 + SETTLE),
        Check(1.5 + SETTLE, True, [Y], False),
    ],
    "the window starts again at any report, progress holds it, and its end counts": [
        Expect(0.0, 1),
        Push(0.1, None, [X]),
        Expect(1.0, 2),
        Push(1.2, None, [Y], B),  # gopls still reporting on another file
        Check(1.0 + SETTLE, False, [X], True, 1.2 + SETTLE),
        Busy(1.3, True),
        Check(3.0, False, [X], True),
        Busy(3.1, False),
        Check(3.1 + SETTLE - 0.01, False, [X], True, 3.1 + SETTLE),
        Check(3.1 + SETTLE, True, [X], False),
    ],
    "a document it never reported on is never taken for clean": [
        Expect(0.0, 1),
        Push(0.1, 7, [X]),  # a version never sent is not what it delivered
        Check(5.0, False, [], True),
        Push(5.1, None, [X], B),
        Check(9.0, False, [], True),
    ],
    "its report after a close is what it delivered last": [
        Expect(0.0, 1),
        Push(0.1, 1, []),
        Close(),
        Push(0.2, None, [Z]),  # gopls diagnoses the file on disk after the close
        Expect(1.0, 1),
        Check(1.0 + SETTLE, True, [Z], False),
    ],
    "a pull-mode document waits for its pull": [
        Expect(0.0, 1, "pull"),
        Push(0.1, None, [X]),
        Expect(1.0, 2, "pull"),
        Check(9.0, False, [X], True),
    ],
}


@pytest.mark.parametrize("steps", list(QUIET.values()), ids=list(QUIET))
def test_a_server_quiet_when_unchanged(steps: list[Step]) -> None:
    """A server that sends nothing when a report would equal the last it delivered (gopls):
    quiet for the settle window after a change, its last report stands."""
    run(DiagnosticsFinality(SETTLE, quiet_when_unchanged=True), steps)


def test_other_servers_never_take_silence_for_a_report() -> None:
    """Without ``quiet_when_unchanged``, the gopls sequence above waits for ever."""
    finality = DiagnosticsFinality(SETTLE)
    gopls = QUIET["gopls: the open's report comes after the change, and none for the change"]
    run(finality, gopls[:5])
    assert finality.status(A, 60.0) == FinalityStatus(False, [X], True, None)


@pytest.mark.parametrize(("settle", "steps"), list(SCENARIOS.values()), ids=list(SCENARIOS))
def test_scenarios(settle: float, steps: list[Step]) -> None:
    """Each server's sequence gives the statuses listed, at the times listed."""
    run(DiagnosticsFinality(settle), steps)


def test_pending_and_next_recheck() -> None:
    """Pending lists the documents not final; next_recheck is the earliest window's end."""
    finality = DiagnosticsFinality(SETTLE)
    assert finality.pending(0.0) == []
    assert finality.next_recheck(0.0) is None
    finality.expect(A, 1, 0.0, "push")
    finality.expect(B, 1, 0.0, "push")
    assert finality.pending(0.0) == [A, B]
    assert finality.next_recheck(0.0) is None
    finality.pushed(B, 1, [X], 0.1)
    finality.pushed(A, None, [Y], 0.2)
    assert finality.pending(0.3) == [A, B]
    assert finality.next_recheck(0.3) == 0.1 + SETTLE
    assert finality.pending(0.1 + SETTLE) == [A]
    assert finality.next_recheck(0.1 + SETTLE) == 0.2 + SETTLE
    assert finality.pending(0.2 + SETTLE) == []
    assert finality.next_recheck(0.2 + SETTLE) is None
    finality.expect(A, 2, 1.0, "push")
    assert finality.pending(1.0) == [A]


def test_items_are_copies() -> None:
    """Changing a list given or returned changes nothing kept."""
    finality = DiagnosticsFinality(SETTLE)
    finality.expect(A, 1, 0.0, "pull")
    items = [X]
    finality.pulled(A, 1, items, 0.1)
    items.append(Y)
    status = finality.status(A, 0.1)
    status.items.append(Z)
    assert finality.status(A, 0.1).items == [X]


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: DiagnosticsFinality(-0.1), r"settle \(-0\.1\) must not be negative"),
        (
            lambda: DiagnosticsFinality(SETTLE).expect(A, 1, 0.0, "poll"),  # type: ignore[arg-type]  # a mode that does not exist, on purpose
            r"unknown diagnostics mode 'poll'",
        ),
    ],
)
def test_bad_arguments(make: Any, match: str) -> None:
    """A negative settle window or an unknown mode is a ValueError naming it."""
    with pytest.raises(ValueError, match=match):
        make()


def test_a_push_that_repeats_the_pull_counts_each_finding_once() -> None:
    """ruff answers pulls and pushes the same findings: each distinct diagnostic once."""
    finality = DiagnosticsFinality(SETTLE)
    finality.expect(A, 1, 0.0, "pull")
    finality.pulled(A, 1, [X, Y], 0.1)
    finality.pushed(A, 1, [{**Y}, Z], 0.2)
    assert finality.status(A, 0.3).items == [X, Y, Z]
    finality.pushed(A, 1, [X], 0.4)  # a push of what the pull has adds nothing
    assert finality.status(A, 0.5).items == [X, Y]
    finality.pushed(A, 1, ["not a diagnostic"], 0.6)
    assert finality.status(A, 0.7).items == [X, Y, "not a diagnostic"]
    odd = {"range": "nowhere", "message": "odd"}
    finality.pushed(A, 1, [odd], 0.8)
    assert finality.status(A, 0.9).items == [X, Y, odd]


def test_silence_counts_from_the_servers_last_word() -> None:
    """A document silent since it was sent, and since the server's last report about any
    file and the end of its progress; none while progress is active or once it heard."""
    finality = DiagnosticsFinality(SETTLE)
    assert finality.silent_since(A) is None
    finality.expect(A, 1, 1.0, "push")
    finality.expect(B, 1, 1.0, "push")
    assert finality.silent_since(A) == (1, 1.0)
    finality.pushed(B, None, [], 2.0)
    assert finality.silent_since(A) == (1, 2.0)
    assert finality.silent_since(B) is None
    finality.progress_active(True, 2.5)
    assert finality.silent_since(A) is None
    finality.progress_active(False, 3.0)
    assert finality.silent_since(A) == (1, 3.0)
    finality.pushed("file:///w/unknown.py", None, [], 4.0)
    assert finality.silent_since(A) == (1, 4.0)


def test_a_refresh_makes_pull_answers_outdated() -> None:
    finality = DiagnosticsFinality(SETTLE)
    finality.expect(A, 1, 0.0, "pull")
    finality.expect(B, 1, 0.0, "push")
    finality.pulled(A, 1, [X], 0.1)
    assert finality.status(A, 0.2).final
    finality.refreshed()
    after = finality.status(A, 0.3)
    assert (after.final, after.items, after.stale) == (False, [X], True)
    finality.pulled(A, 1, [Y], 0.4)
    assert finality.status(A, 0.5) == FinalityStatus(True, [Y], False, None)


def test_other_files_changing_makes_every_answer_wait_again() -> None:
    """After another file changed, a pull answer is wanted again and a push is final only
    a settle window after the change (or after the server's new report)."""
    finality = DiagnosticsFinality(SETTLE)
    finality.expect(A, 1, 0.0, "pull")
    finality.expect(B, 1, 0.0, "push")
    finality.pulled(A, 1, [X], 0.1)
    finality.pushed(B, 1, [Y], 0.1)
    assert finality.status(A, 1.0).final
    assert finality.status(B, 1.0).final
    finality.others_changed(2.0)
    assert finality.status(A, 2.1) == FinalityStatus(False, [X], True, None)
    assert finality.status(B, 2.1) == FinalityStatus(False, [Y], False, 2.0 + SETTLE)
    assert finality.status(B, 2.0 + SETTLE) == FinalityStatus(True, [Y], False, None)
    finality.pushed(B, 1, [Z], 2.2)
    assert finality.status(B, 2.3).recheck_at == 2.2 + SETTLE
    assert finality.status(B, 2.2 + SETTLE).items == [Z]
    finality.pulled(A, 1, [Y], 2.4)
    assert finality.status(A, 2.5) == FinalityStatus(True, [Y], False, None)


def test_a_final_push_is_final_at_once_for_its_version() -> None:
    """ruff pushes each notebook cell's whole report once it has linted the notebook: in
    ``push_final`` mode a versioned push for the current version is final at once."""
    finality = DiagnosticsFinality(SETTLE)
    finality.expect(A, 1, 0.0, "push_final")
    assert not finality.status(A, 0.1).final  # nothing yet: never read as clean
    finality.pushed(A, 1, [X], 0.2)
    assert finality.status(A, 0.2) == FinalityStatus(True, [X], False, None)
    finality.expect(A, 2, 0.3, "push_final")
    finality.pushed(A, 1, [Y], 0.4)  # about the old text: it counts for nothing
    assert not finality.status(A, 0.5).final
    finality.pushed(A, 2, [Z], 0.6)
    assert finality.status(A, 0.6).final
    # Other files changed after it: the push waits a settle window, or the next report.
    finality.others_changed(1.0)
    assert finality.status(A, 1.0) == FinalityStatus(False, [Z], False, 1.0 + SETTLE)
    finality.pushed(A, 2, [X], 1.1)
    assert finality.status(A, 1.1) == FinalityStatus(True, [X], False, None)
    # An unversioned push is not a final one: its window is waited for.
    finality.expect(B, 1, 2.0, "push_final")
    finality.pushed(B, None, [Y], 2.1)
    assert finality.status(B, 2.1) == FinalityStatus(False, [Y], False, 2.1 + SETTLE)


def test_an_answer_to_a_pull_sent_before_a_refresh_is_not_final() -> None:
    """basedpyright answers a pull it got before its refresh without the import cycle it
    found meanwhile: that answer is last known, and the next pull's makes the file final."""
    finality = DiagnosticsFinality(SETTLE)
    finality.expect(A, 1, 0.0, "pull")
    asked = finality.generation
    finality.refreshed()
    assert finality.generation == asked + 1
    assert finality.pulled(A, 1, [X], 0.1, asked) is False
    assert finality.status(A, 0.2) == FinalityStatus(False, [X], True, None)
    assert finality.pulled(A, 1, [X, Y], 0.3, finality.generation) is True
    assert finality.status(A, 0.4) == FinalityStatus(True, [X, Y], False, None)
    # Without a generation (a caller that does not say), an answer counts as before.
    assert finality.pulled(A, 1, [Y], 0.5) is True
    assert finality.pulled("file:///w/not-expected.py", 1, [Y], 0.6) is False
    # An answer for a later version than the one expected counts for nothing.
    assert finality.pulled(A, 2, [Z], 0.7) is False
    assert finality.status(A, 0.8).items == [Y]


# -- heard and answered ------------------------------------------------------------------------

NEVER = float("-inf")


def test_heard_at_is_the_last_report_or_refresh_about_the_check() -> None:
    """Pushes and pull answers about an expected document, for any version, and refreshes
    are heard; reports about documents not expected (closed, never opened) are not, nor is
    another file changing on the client's side."""
    finality = DiagnosticsFinality(SETTLE)
    assert finality.heard_at == NEVER
    finality.pushed(A, None, [X], 0.5)  # not expected yet
    assert finality.heard_at == NEVER
    finality.expect(A, 2, 1.0, "push")
    finality.expect(B, 1, 1.0, "pull")
    assert finality.heard_at == NEVER
    finality.pushed(A, 1, [X], 1.1)  # an earlier version: heard all the same
    assert finality.heard_at == 1.1
    finality.pushed(A, 3, [X], 1.2)  # a later version, dropped: heard
    assert finality.heard_at == 1.2
    finality.pulled(B, 1, [Y], 1.3)
    assert finality.heard_at == 1.3
    finality.pulled("file:///w/not-expected.py", 1, [Y], 1.4)
    assert finality.heard_at == 1.3
    finality.refreshed(1.5)
    assert finality.heard_at == 1.5
    finality.refreshed()  # the client outdated them: nothing heard
    finality.others_changed(1.6)
    assert finality.heard_at == 1.5
    finality.closed(A)
    finality.pushed(A, 2, [], 1.7)  # after didClose
    assert finality.heard_at == 1.5


def test_answered_at_is_the_last_first_report_for_a_current_version() -> None:
    """Only the first report for a document's current version answers it: a server that
    reports on the same documents again and again (after refresh upon refresh) answers
    nothing new; a new version, or other files changing, wants a new first answer."""
    finality = DiagnosticsFinality(SETTLE)
    assert finality.answered_at == NEVER
    finality.expect(A, 1, 0.0, "pull")
    finality.expect(B, 1, 0.0, "push")
    finality.pulled(A, 1, [X], 0.1)
    assert finality.answered_at == 0.1
    for at in (0.2, 0.3, 0.4):
        finality.refreshed(at)
        finality.pulled(A, 1, [X], at + 0.05, finality.generation - 1)  # outdated on its way
        finality.pulled(A, 1, [X], at + 0.06)
    assert finality.answered_at == 0.1
    finality.pushed(B, 0, [Y], 0.5)  # an earlier version answers nothing
    assert finality.answered_at == 0.1
    finality.pushed(B, None, [Y], 0.6)  # unversioned: for the current version
    assert finality.answered_at == 0.6
    finality.pushed(B, 1, [Y], 0.7)
    assert finality.answered_at == 0.6
    finality.expect(B, 2, 0.8, "push")
    finality.pushed(B, 2, [Y], 0.9)
    assert finality.answered_at == 0.9
    finality.others_changed(1.0)
    finality.pulled(A, 1, [X], 1.1)
    assert finality.answered_at == 1.1
    finality.pulled(A, 2, [X], 1.2)  # a later version than sent: no answer
    assert finality.answered_at == 1.1
