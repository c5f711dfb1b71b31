"""readiness: real servers' signal sequences replayed with explicit times, one table row each."""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from adecore_lsp.protocol.workspace.readiness import (
    ReadinessCheck,
    ReadinessSource,
    ReadinessState,
    ReadinessTracker,
)

GRACE = 1.0
SETTLE = 0.3
DIAGNOSTIC = "textDocument/diagnostic"
WATCHED = "workspace/didChangeWatchedFiles"
UUID_1 = "0b8f5a3e-5c1d-4d5e-9b1a-1f0d2c3b4a51"
UUID_2 = "7d2e9c41-0a6b-4f3e-8c5d-2e1f0a9b8c72"
LINTS = ("lint: pycodestyle", "lint: pyflakes")


class Created(NamedTuple):
    """``window/workDoneProgress/create`` for ``token`` at ``at``."""

    at: float
    token: Any


class Progress(NamedTuple):
    """``$/progress`` for ``token`` with ``value`` at ``at``."""

    at: float
    token: Any
    value: Any


class Status(NamedTuple):
    """``experimental/serverStatus`` with ``params`` at ``at``."""

    at: float
    params: Any


class Registered(NamedTuple):
    """A dynamic registration of ``method`` at ``at``."""

    at: float
    method: str


class Check(NamedTuple):
    """``check(at)`` answers this, and ``active_progress()`` says ``active``."""

    at: float
    state: ReadinessState
    source: ReadinessSource
    phases: tuple[str, ...]
    recheck_at: float | None
    active: bool = False


Step = Created | Progress | Status | Registered | Check


def begin(title: Any = None) -> dict[str, Any]:
    value: dict[str, Any] = {"kind": "begin"}
    if title is not None:
        value["title"] = title
    return value


REPORT: dict[str, Any] = {"kind": "report", "message": "3/10"}
END: dict[str, Any] = {"kind": "end"}


def run(tracker: ReadinessTracker, steps: list[Step]) -> None:
    """Feed ``steps`` in order, asserting each check."""
    for step in steps:
        if isinstance(step, Created):
            tracker.progress_created(step.token, step.at)
        elif isinstance(step, Progress):
            tracker.progress(step.token, step.value, step.at)
        elif isinstance(step, Status):
            tracker.server_status(step.params, step.at)
        elif isinstance(step, Registered):
            tracker.registered(step.method, step.at)
        else:
            expected = ReadinessCheck(step.state, step.source, step.phases, step.recheck_at)
            assert tracker.check(step.at) == expected, step
            assert tracker.active_progress() is step.active, step


SCENARIOS: dict[str, tuple[str, str | None, list[Step]]] = {
    "rust-analyzer: serverStatus quiescent decides, its progress aside": (
        "server_status",
        None,
        [
            Check(0.01, "waiting", "server_status", (), GRACE),
            Created(0.02, "rustAnalyzer/Fetching"),
            Progress(0.02, "rustAnalyzer/Fetching", begin("Fetching")),
            # Progress shown, but the declared serverStatus is waited for within the grace.
            Check(0.03, "waiting", "server_status", ("Fetching",), GRACE, active=True),
            Status(0.04, {"health": "ok", "quiescent": False}),
            Check(0.05, "waiting", "server_status", ("Fetching",), None, active=True),
            Progress(0.3, "rustAnalyzer/Fetching", END),
            Created(0.31, "rustAnalyzer/Indexing"),
            Progress(0.31, "rustAnalyzer/Indexing", begin("Indexing")),
            Status(0.9, {"health": "ok", "quiescent": True, "message": "done"}),
            # Quiescent wins though a token is still active.
            Check(0.9, "ready", "server_status", ("Fetching", "Indexing"), None, active=True),
            Progress(1.0, "rustAnalyzer/Indexing", END),
            Status(2.0, {"health": "warning", "quiescent": False}),  # re-indexing
            Check(2.0, "waiting", "server_status", ("Fetching", "Indexing"), None),
            Status(2.5, {"health": "error", "quiescent": True}),  # unhealthy but done
            Check(2.5, "ready", "server_status", ("Fetching", "Indexing"), None),
        ],
    ),
    "serverStatus params that are not one are ignored": (
        "server_status",
        None,
        [
            Status(0.1, None),
            Status(0.1, ["quiescent", True]),
            Status(0.1, {"health": "ok"}),
            Status(0.1, {"quiescent": 1}),
            Check(0.2, "waiting", "server_status", (), GRACE),
            Check(GRACE, "no_signal", "none", (), None),
        ],
    ),
    "rust-analyzer without serverStatus after the grace: ready by its progress": (
        "server_status",
        None,
        [
            Created(0.1, "rustAnalyzer/Indexing"),
            Progress(0.1, "rustAnalyzer/Indexing", begin("Indexing")),
            Progress(0.2, "rustAnalyzer/Indexing", END),
            Check(0.6, "waiting", "server_status", ("Indexing",), GRACE),
            Check(GRACE, "ready", "progress", ("Indexing",), None),
        ],
    ),
    "basedpyright: ready once textDocument/diagnostic is registered": (
        "registration",
        DIAGNOSTIC,
        [
            Registered(0.01, WATCHED),  # another method is no signal
            Check(0.02, "waiting", "registration", (), GRACE),
            Registered(0.03, DIAGNOSTIC),
            Check(0.03, "ready", "registration", (), None),
            # It has loaded: later progress (an analysis, a request's own) holds it up
            # while it runs, and no settle window after its end.
            Created(0.1, 1),
            Progress(0.1, 1, begin("Analyzing")),
            Check(0.2, "waiting", "registration", ("Analyzing",), None, active=True),
            Progress(0.4, 1, END),
            Check(0.4, "ready", "registration", ("Analyzing",), None),
            Created(0.5, 2),
            Progress(0.5, 2, begin("Finding references")),
            Progress(0.52, 2, END),
            Check(0.53, "ready", "registration", ("Analyzing", "Finding references"), None),
        ],
    ),
    "basedpyright: a signal that comes while it is ready marks it loaded": (
        "registration",
        DIAGNOSTIC,
        [
            Registered(0.03, DIAGNOSTIC),
            # No one asked; the first pull's progress comes while it is ready.
            Created(1.0, "pull"),
            Progress(1.0, "pull", begin("")),
            Progress(1.0, "pull", REPORT),
            Progress(1.0, "pull", END),
            Check(1.01, "ready", "registration", ("",), None),
        ],
    ),
    "a registration server whose progress ended before it registered": (
        "registration",
        DIAGNOSTIC,
        [
            Created(0.05, "p"),
            Progress(0.05, "p", begin("Analyzing")),
            Progress(0.1, "p", END),
            # Progress looks ready, but the declared registration is waited for.
            Check(0.5, "waiting", "registration", ("Analyzing",), GRACE),
            Registered(0.6, DIAGNOSTIC),
            Check(0.6, "ready", "registration", ("Analyzing",), None),
        ],
    ),
    "a registration server that never registers but shows progress": (
        "registration",
        DIAGNOSTIC,
        [
            Progress(0.2, "p", begin("Analyzing")),
            Progress(0.95, "p", END),
            Check(0.97, "waiting", "registration", ("Analyzing",), GRACE),
            Check(GRACE, "waiting", "progress", ("Analyzing",), 0.95 + SETTLE),
            Check(0.95 + SETTLE, "ready", "progress", ("Analyzing",), None),
        ],
    ),
    "pylsp: progress with UUID tokens for each lint pass": (
        "progress",
        None,
        [
            Check(0.1, "waiting", "progress", (), GRACE),
            Created(0.20, UUID_1),
            Check(0.20, "waiting", "progress", (), None, active=True),
            Progress(0.21, UUID_1, begin("lint: pycodestyle")),
            Progress(0.25, UUID_1, END),
            Check(0.25, "waiting", "progress", ("lint: pycodestyle",), 0.25 + SETTLE),
            # A token created within the settle window keeps it waiting.
            Created(0.26, UUID_2),
            Progress(0.26, UUID_2, begin("lint: pyflakes")),
            Progress(0.28, UUID_2, REPORT),
            Check(0.5, "waiting", "progress", LINTS, None, True),
            Progress(0.30, UUID_2, END),
            Check(0.59, "waiting", "progress", LINTS, 0.3 + SETTLE),
            Check(0.3 + SETTLE, "ready", "progress", LINTS, None),
            # The next pass reuses a title: each phase is listed once.
            Created(3.0, UUID_1),
            Progress(3.0, UUID_1, begin("lint: pycodestyle")),
            Progress(3.1, UUID_1, END),
            Check(3.5, "ready", "progress", LINTS, None),
        ],
    ),
    "re-indexing: progress that begins again after ready waits again": (
        "progress",
        None,
        [
            Progress(0.1, 7, begin("Indexing")),
            Progress(0.2, 7, END),
            Check(0.5, "ready", "progress", ("Indexing",), None),
            Progress(5.0, 8, begin("Re-indexing")),
            Check(5.0, "waiting", "progress", ("Indexing", "Re-indexing"), None, active=True),
            Progress(6.0, 8, END),
            Check(6.1, "waiting", "progress", ("Indexing", "Re-indexing"), 6.0 + SETTLE),
            Check(6.0 + SETTLE, "ready", "progress", ("Indexing", "Re-indexing"), None),
        ],
    ),
    "a progress server that begins and never ends stays waiting": (
        "progress",
        None,
        [
            Created(0.1, "index"),
            Check(0.5, "waiting", "progress", (), None, active=True),
            Check(60.0, "waiting", "progress", (), None, active=True),
        ],
    ),
    "a report or end for a token never begun counts it as seen and ended": (
        "progress",
        None,
        [
            Progress(0.1, "missed", REPORT),
            Check(0.1, "waiting", "progress", (), 0.1 + SETTLE),
            Check(0.1 + SETTLE, "ready", "progress", (), None),
            Progress(0.5, "other", END),
            Check(0.6, "waiting", "progress", (), 0.5 + SETTLE),
        ],
    ),
    "values and tokens that are not work-done progress are ignored": (
        "progress",
        None,
        [
            Progress(0.1, "t", [{"partial": "result"}]),
            Progress(0.1, "t", {"kind": "middle"}),
            Progress(0.1, "t", {"title": "no kind"}),
            Progress(0.1, True, begin("bool token")),
            Progress(0.1, None, begin("null token")),
            Progress(0.1, 1.5, END),
            Created(0.1, {"token": 1}),
            Check(0.2, "waiting", "progress", (), GRACE),
            Check(GRACE, "no_signal", "none", (), None),
        ],
    ),
    "a begin without a string title is no phase": (
        "progress",
        None,
        [
            Progress(0.1, 1, begin()),
            Progress(0.1, 2, begin(42)),
            Check(0.2, "waiting", "progress", (), None, active=True),
            Progress(0.2, 1, END),
            Progress(0.2, 2, END),
            Check(0.2 + SETTLE, "ready", "progress", (), None),
        ],
    ),
    "clangd, declared none: waiting within the grace, then no_signal": (
        "none",
        None,
        [
            Check(0.0, "waiting", "none", (), GRACE),
            Check(0.999, "waiting", "none", (), GRACE),
            Check(GRACE, "no_signal", "none", (), None),
            Check(30.0, "no_signal", "none", (), None),
        ],
    ),
    "a declared none server that shows progress is judged by it at once": (
        "none",
        DIAGNOSTIC,
        [
            Registered(0.05, DIAGNOSTIC),
            Check(0.05, "ready", "registration", (), None),
            Progress(0.1, "x", begin("Loading")),
            Check(0.2, "waiting", "progress", ("Loading",), None, active=True),
            Progress(0.3, "x", END),
            Check(0.3 + SETTLE, "ready", "progress", ("Loading",), None),
        ],
    ),
    "a progress server that shows nothing gives no_signal": (
        "progress",
        None,
        [
            Registered(0.1, DIAGNOSTIC),  # no ready_registration: no signal
            Check(0.5, "waiting", "progress", (), GRACE),
            Check(1.5, "no_signal", "none", (), None),
        ],
    ),
    "a progress server with serverStatus uses serverStatus": (
        "progress",
        None,
        [
            Progress(0.1, 1, begin("Work")),
            Status(0.2, {"health": "ok", "quiescent": True}),
            Check(0.2, "ready", "server_status", ("Work",), None, active=True),
        ],
    ),
    "a progress server with a ready registration needs both": (
        "progress",
        DIAGNOSTIC,
        [
            Registered(0.1, DIAGNOSTIC),
            Check(0.1, "waiting", "progress", (), GRACE),
            Check(GRACE, "ready", "registration", (), None),
            Progress(1.1, 1, begin("Work")),
            Check(1.2, "waiting", "progress", ("Work",), None, active=True),
        ],
    ),
}


@pytest.mark.parametrize(
    ("source", "registration", "steps"), list(SCENARIOS.values()), ids=list(SCENARIOS)
)
def test_scenarios(source: str, registration: str | None, steps: list[Step]) -> None:
    """Each server's sequence gives the checks listed, at the times listed."""
    run(ReadinessTracker(source, registration, GRACE, SETTLE, 0.0), steps)


def test_times_count_from_initialized() -> None:
    """The grace is measured from ``initialized_at`` on whatever clock the caller uses."""
    tracker = ReadinessTracker("none", None, 2.0, SETTLE, 100.0)
    assert tracker.check(101.0) == ReadinessCheck("waiting", "none", (), 102.0)
    assert tracker.check(102.0) == ReadinessCheck("no_signal", "none", (), None)


def test_a_tracker_made_before_the_handshake_keeps_what_came_during_it() -> None:
    """Progress begun while ``initialize`` was being answered counts; the grace is moved
    to when ``initialized`` was sent."""
    tracker = ReadinessTracker("progress", None, 2.0, SETTLE, 0.0)
    tracker.progress("t", {"kind": "begin", "title": "indexing"}, 0.5)
    tracker.initialized(10.0)
    assert tracker.check(11.0) == ReadinessCheck("waiting", "progress", ("indexing",), None)
    tracker.progress("t", {"kind": "end"}, 11.0)
    assert tracker.check(11.0 + SETTLE) == ReadinessCheck("ready", "progress", ("indexing",), None)
    silent = ReadinessTracker("none", None, 2.0, SETTLE, 0.0)
    silent.initialized(10.0)
    assert silent.check(11.0) == ReadinessCheck("waiting", "none", (), 12.0)


@pytest.mark.parametrize(
    ("source", "registration", "grace", "settle", "match"),
    [
        ("status", None, GRACE, SETTLE, r"'status'; expected one of server_status, progress"),
        ("registration", None, GRACE, SETTLE, r"\(ready_registration\)"),
        ("progress", None, -1.0, SETTLE, r"progress_grace \(-1\.0\)"),
        ("progress", None, GRACE, -0.1, r"settle \(-0\.1\)"),
    ],
)
def test_bad_construction(
    source: str, registration: str | None, grace: float, settle: float, match: str
) -> None:
    """An unknown source, a registration source without its method, or a negative time."""
    with pytest.raises(ValueError, match=match):
        ReadinessTracker(source, registration, grace, settle, 0.0)


def test_progress_that_is_a_status_holds_nothing() -> None:
    """gopls, its workspace not loading (a module it cannot find offline): "Setting up
    workspace" ends, then "Error loading workspace" begins on a created token and stays
    open, reported on at each new attempt; named a status, it holds neither readiness nor
    the progress that holds finality, and opens no settle window."""
    tracker = ReadinessTracker(
        "progress", None, GRACE, SETTLE, 0.0, status_titles=("Error loading workspace",)
    )
    tracker.progress_created(1, 0.0)
    tracker.progress(1, begin("Setting up workspace"), 0.0)
    tracker.progress(1, END, 0.28)
    tracker.progress_created(2, 0.28)
    assert tracker.active_progress()
    tracker.progress(2, begin("Error loading workspace"), 0.28)
    assert not tracker.active_progress()
    check = tracker.check(0.28 + SETTLE)
    assert check == ReadinessCheck("ready", "progress", ("Setting up workspace",), None)
    for at in (0.7, 1.0, 1.3):
        tracker.progress(2, {"kind": "report", "message": "2 modules have errors"}, at)
        assert tracker.check(at).state == "ready"
        assert not tracker.active_progress()
    # Ended (the workspace loads), its token is no status any more; a begin of that title
    # with a bad title type is work like any other.
    tracker.progress(2, END, 1.5)
    tracker.progress(3, {"kind": "begin", "title": ["Error loading workspace"]}, 1.6)
    assert tracker.active_progress()
    # Without the title named, the same sequence keeps the server waiting.
    plain = ReadinessTracker("progress", None, GRACE, SETTLE, 0.0)
    plain.progress_created(2, 0.28)
    plain.progress(2, begin("Error loading workspace"), 0.28)
    plain.progress(2, {"kind": "report", "message": "2 modules have errors"}, 0.3)
    assert plain.check(5.0).state == "waiting"


# -- work that moves ---------------------------------------------------------------------------


def report(message: Any = None, percentage: Any = None) -> dict[str, Any]:
    value: dict[str, Any] = {"kind": "report"}
    if message is not None:
        value["message"] = message
    if percentage is not None:
        value["percentage"] = percentage
    return value


MOVES: dict[str, list[tuple[Step, bool]]] = {
    "rust-analyzer indexing: each new count moves, a repeat does not": [
        (Created(1.0, "rustAnalyzer/Indexing"), True),
        (Progress(1.1, "rustAnalyzer/Indexing", begin("Indexing")), True),
        (Progress(1.2, "rustAnalyzer/Indexing", report("1/40 (core)", 2)), True),
        (Progress(1.3, "rustAnalyzer/Indexing", report("1/40 (core)", 2)), False),
        (Progress(1.4, "rustAnalyzer/Indexing", report("1/40 (core)", 3)), True),
        (Progress(1.5, "rustAnalyzer/Indexing", report("2/40 (alloc)", 3)), True),
        (Progress(1.6, "rustAnalyzer/Indexing", END), True),
    ],
    "a report that says what the begin said does not move": [
        (
            Progress(1.0, "t", {"kind": "begin", "title": "Load", "message": "a", "percentage": 0}),
            True,
        ),
        (Progress(1.1, "t", report("a", 0)), False),
        (Progress(1.2, "t", report("b", 0)), True),
    ],
    "two tokens keep their own last report": [
        (Progress(1.0, 1, begin("A")), True),
        (Progress(1.1, 2, begin("B")), True),
        (Progress(1.2, 1, report("x")), True),
        (Progress(1.3, 2, report("x")), True),
        (Progress(1.4, 1, report("x")), False),
    ],
    "reports for a token never begun: the first and each change move, repeats do not": [
        (Progress(1.0, "lost", report("3/10")), True),
        (Progress(1.1, "lost", report("3/10")), False),
        (Progress(1.2, "lost", report("4/10")), True),
        (Progress(1.3, "other", report("4/10")), True),
        (Progress(1.4, "other", END), True),
        (Progress(1.5, "other", END), False),
    ],
    "a token begun again after its end starts afresh": [
        (Progress(1.0, 7, begin("Check")), True),
        (Progress(1.1, 7, report("1 file")), True),
        (Progress(1.2, 7, END), True),
        (Progress(1.3, 7, begin("Check")), True),
        (Progress(1.4, 7, report("1 file")), True),
    ],
    "a status and its reports move nothing; its end neither": [
        (Progress(1.0, 2, begin("Error loading workspace")), False),
        (Progress(1.1, 2, report("2 modules have errors")), False),
        (Progress(1.2, 2, END), False),
    ],
    "what is no progress moves nothing": [
        (Progress(1.0, 1.5, begin("float token")), False),
        (Progress(1.1, "t", "not an object"), False),
        (Progress(1.2, "t", {"kind": "partial"}), False),
        (Created(1.3, None), False),
    ],
    "serverStatus moves when it says something else": [
        (Status(1.0, {"health": "ok", "quiescent": False}), True),
        (Status(1.1, {"health": "ok", "quiescent": False}), False),
        (Status(1.2, {"health": "ok", "quiescent": False, "message": "indexing"}), True),
        (Status(1.3, {"health": "ok", "quiescent": True}), True),
        (Status(1.4, "not an object"), False),
    ],
    "the ready registration moves, another method does not": [
        (Registered(1.0, WATCHED), False),
        (Registered(1.1, DIAGNOSTIC), True),
    ],
}


@pytest.mark.parametrize("steps", list(MOVES.values()), ids=list(MOVES))
def test_moved_at_follows_work_that_moves(steps: list[tuple[Step, bool]]) -> None:
    """Each step moves the work (``moved_at`` becomes its time) or leaves it where it was."""
    tracker = ReadinessTracker(
        "registration", DIAGNOSTIC, GRACE, SETTLE, 0.0, status_titles=("Error loading workspace",)
    )
    assert tracker.moved_at == float("-inf")
    for step, moves in steps:
        before = tracker.moved_at
        run(tracker, [step])
        assert tracker.moved_at == (step.at if moves else before), step
