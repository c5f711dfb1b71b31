"""Whether a language server is ready, judged from the signals it sends, without I/O or a clock.

Servers say they are done in different ways, and some say nothing at all. The registry names,
per server, the *declared source* of its readiness:

- ``"server_status"``: rust-analyzer's ``experimental/serverStatus``; ready while the latest
  status says ``quiescent: true``.
- ``"progress"``: work-done progress; ready when every token begun since the start (a
  ``window/workDoneProgress/create`` counts as begun) has ended, and none began within
  ``settle`` seconds of the last end.
- ``"registration"``: a dynamic registration that marks the server ready, such as
  basedpyright's and pyright's ``textDocument/diagnostic``; ready once it was registered.
- ``"none"``: the server is known to send none of these.

A server that has shown no signal of any kind ``progress_grace`` seconds after ``initialized``
gives ``"no_signal"``, never a ready it cannot know; before that it is ``"waiting"``.

**Loaded once ready.** The settle window bridges the gaps between the phases of a server's
loading. A server whose declared source is not its progress, once seen ready (a check
answered ready, or a signal came while it was), has loaded: its progress from then on is
work on something else, analysing a changed file or answering a request (basedpyright
reports "Finding references" for each ``textDocument/references`` and "N files to analyze"
after each pull). That progress holds readiness while it runs, but its end opens no settle
window: else every call would wait out the window that the previous call's own requests
opened (1.5 s for basedpyright), a timer and no work. A server declared ``"progress"`` says
by its progress that it is loading, also after it was ready (re-indexing in phases): its
settle window stays.

**Progress that is a status.** A server may keep a progress open as a status rather than
for work: gopls begins "Error loading workspace" when its workspace does not load (a module
it cannot find offline) and ends it only once it does, reporting on it at each new attempt.
Titles the registry names so (``status_titles``) hold nothing: their tokens are neither
active nor ended, and their reports open no settle window.

Signals of another kind than the declared one count too, by these rules:

1. A ``serverStatus``, once one has come, decides alone, whatever the declared source: it is the
   only signal by which a server itself says it is done, the others are inferences.
2. Otherwise every kind that has shown itself must agree: a registration server that also
   reports progress is ready only when registered *and* its progress has ended and settled.
3. Before ``progress_grace`` has passed, a declared source that has not shown itself yet is
   waited for, even when other signals already look ready; after that, the signals that did
   show are used (a declared "server_status" server that never sent one, but whose progress
   ended, is ready by its progress).

**Work that moves.** :attr:`ReadinessTracker.moved_at` is when the server last showed its
work moving, for a wait that bounds a server's silence rather than its work
(:mod:`.silence`): a progress token created, begun or ended, a report that says something
else than its token's last one (another ``message`` or ``percentage``), a ``serverStatus``
other than the last, the registration that marks it ready. A report repeating the last one
says the server is there, not that it gets anywhere: a server stuck repeating itself is
silent. Progress that is a status moves nothing.

Time is an argument: every feed and every query takes ``now``, seconds on any monotonic clock.
:meth:`ReadinessTracker.check` says when its answer may change without new input
(``recheck_at``), so a waiter sleeps exactly that long. The async workspace layer feeds the
tracker from the session's notifications and turns a wait that never ends into ``timed_out``.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal, TypeGuard, cast, get_args

# Internal to the library: nothing here is public API (the workspace layer wraps it).
__all__: list[str] = []

ReadinessState = Literal["ready", "waiting", "no_signal"]
"""What :meth:`ReadinessTracker.check` answers."""

ReadinessSource = Literal["server_status", "progress", "registration", "none"]
"""A kind of readiness signal; ``"none"`` for no signal."""

ProgressToken = int | str
"""A ``ProgressToken`` of LSP."""

SOURCES: tuple[str, ...] = get_args(ReadinessSource)

_INFERRED: tuple[ReadinessSource, ...] = ("progress", "registration")
"""The kinds that must all agree when no ``serverStatus`` came, in the order that names one."""


@dataclass(frozen=True)
class ReadinessCheck:
    """The answer of :meth:`ReadinessTracker.check` at one moment.

    ``source`` is the kind of signal the answer rests on: for ``"waiting"`` before any signal,
    the declared source being waited for; ``"none"`` with ``"no_signal"``. ``phases`` are the
    progress titles seen since the start, in order of first appearance, each once.
    ``recheck_at`` is when the answer may change without new input (the end of a settle
    window or of ``progress_grace``); None when only new input can change it. It is never
    late, and may come early: an answer rechecked then can be the same.
    """

    state: ReadinessState
    source: ReadinessSource
    phases: tuple[str, ...]
    recheck_at: float | None


def _is_token(token: object) -> TypeGuard[ProgressToken]:
    """True for an ``int`` or ``str`` token (a ``bool`` is not one), the only kinds LSP has."""
    return type(token) is int or type(token) is str


class ReadinessTracker:
    """The readiness of one server, fed with its signals; see the module docstring.

    Args:
        source: the declared source, one of :data:`SOURCES`.
        ready_registration: the method whose registration marks the server ready (required
            with ``source="registration"``; may be given with another source, and then counts
            as a signal of another kind). Registrations of other methods are no signal.
        progress_grace: seconds after ``initialized_at`` within which a server that shows no
            signal is waited for; after them it is ``"no_signal"``.
        settle: seconds without a new progress token after the last one ended.
        initialized_at: when ``initialized`` was sent.
        status_titles: titles of progress the server keeps open as a status, not for
            work (see "Progress that is a status").

    Raises:
        ValueError: an unknown source, ``"registration"`` without ``ready_registration``, or a
            negative ``progress_grace`` or ``settle``.
    """

    __slots__ = (
        "_active",
        "_grace",
        "_grace_end",
        "_last_end",
        "_last_orphan",
        "_last_reports",
        "_last_status",
        "_loaded",
        "_phases",
        "_progress_seen",
        "_quiescent",
        "_ready_registration",
        "_registered",
        "_settle",
        "_source",
        "_status",
        "_status_titles",
        "moved_at",
    )

    def __init__(
        self,
        source: str,
        ready_registration: str | None,
        progress_grace: float,
        settle: float,
        initialized_at: float,
        status_titles: Collection[str] = (),
    ) -> None:
        if source not in SOURCES:
            raise ValueError(
                f"unknown readiness source {source!r}; expected one of {', '.join(SOURCES)}"
            )
        if source == "registration" and ready_registration is None:
            raise ValueError(
                'readiness source "registration" needs the method whose registration marks '
                "the server ready (ready_registration)"
            )
        if progress_grace < 0 or settle < 0:
            raise ValueError(
                f"progress_grace ({progress_grace}) and settle ({settle}) must not be negative"
            )
        self._source = cast(ReadinessSource, source)
        self._ready_registration = ready_registration
        self._settle = settle
        self._grace = progress_grace
        self._grace_end = initialized_at + progress_grace
        self._active: set[ProgressToken] = set()
        """Tokens begun (or created) and not ended."""
        self._status_titles = frozenset(status_titles)
        self._status: set[ProgressToken] = set()
        """Tokens begun with a status title and not ended: their reports hold nothing."""
        self._progress_seen = False
        self._last_end = float("-inf")
        """When a token last ended; -inf before any did, so no settle window is open."""
        self._phases: dict[str, None] = {}
        """Progress titles in order of first appearance (a dict keeps order and uniqueness)."""
        self._quiescent: bool | None = None
        """``quiescent`` of the latest serverStatus; None before one came."""
        self._registered = False
        self._loaded = False
        """Whether the server was once seen ready (see "Loaded once ready")."""
        self.moved_at = float("-inf")
        """When the server last showed its work moving (see "Work that moves"); -inf before
        it did. Read it, never write it."""
        self._last_reports: dict[ProgressToken, tuple[object, object]] = {}
        """Per token begun and not ended, the ``message`` and ``percentage`` it last said."""
        self._last_orphan: tuple[ProgressToken, object, object, object] | None = None
        """The last report or end for a token not active (its begin missed): a repeat moves
        nothing."""
        self._last_status: object = None
        """The params of the last ``serverStatus``; None before one came."""

    # -- feeds ----------------------------------------------------------------------------

    def initialized(self, now: float) -> None:
        """``initialized`` was sent at ``now``: the grace counts from then. A tracker made
        before the handshake keeps what the server showed during it (a ``$/progress`` begun
        before ``initialize`` was answered)."""
        self._grace_end = now + self._grace

    def progress_created(self, token: object, now: float) -> None:
        """The server sent ``window/workDoneProgress/create`` for ``token``: it counts as begun.

        A token that is not an ``int`` or ``str`` is ignored. ``now`` is taken so that every
        feed has the same shape; a begin starts no window.
        """
        if _is_token(token):
            self._seen_ready(now)
            self._begin(token)
            self.moved_at = now

    def progress(self, token: object, value: object, now: float) -> None:
        """The server sent ``$/progress`` with ``token`` and ``value``.

        ``begin`` makes the token active and records its ``title`` as a phase; ``end`` ends
        it at ``now``. A ``report`` for an active token changes nothing, and one for a token
        never begun counts the token as seen and ended (its begin may have been missed). A
        value that is not an object or has another ``kind`` (a partial result, say), and a
        token that is not an ``int`` or ``str``, are ignored. Each of the others moves the
        work (:attr:`moved_at`), but a status's and a report repeating its token's last one.
        """
        if not _is_token(token) or not isinstance(value, dict):
            return
        self._seen_ready(now)
        kind = value.get("kind")
        title = value.get("title")
        said = (value.get("message"), value.get("percentage"))
        if kind == "begin" and isinstance(title, str) and title in self._status_titles:
            # A status, not work: the token (created as work, maybe) holds nothing.
            self._progress_seen = True
            self._active.discard(token)
            self._last_reports.pop(token, None)
            self._status.add(token)
        elif token in self._status:
            if kind == "end":
                self._status.discard(token)
        elif kind == "begin":
            self._begin(token)
            self._last_reports[token] = said
            self.moved_at = now
            if isinstance(title, str):
                self._phases.setdefault(title, None)
        elif kind == "report" and token in self._active:
            if self._last_reports.get(token) != said:
                self._last_reports[token] = said
                self.moved_at = now
        elif kind in ("end", "report"):
            # An end of an active token; else one not begun (or ended before): its begin
            # may have been missed, and only what is not a repeat of the last one moves.
            orphan = (token, kind, *said)
            if token in self._active or orphan != self._last_orphan:
                self.moved_at = now
            if token not in self._active:
                self._last_orphan = orphan
            self._progress_seen = True
            self._active.discard(token)
            self._last_reports.pop(token, None)
            self._last_end = now

    def server_status(self, params: object, now: float) -> None:
        """The server sent rust-analyzer's ``experimental/serverStatus`` with ``params``.

        Only ``quiescent`` matters: ``true`` is ready, whatever ``health`` says (an unhealthy
        but quiescent server will not get any further by waiting). Params without a boolean
        ``quiescent`` are ignored. A status other than the last moves the work.
        """
        if isinstance(params, dict):
            if params != self._last_status:
                self._last_status = dict(params)
                self.moved_at = now
            quiescent = params.get("quiescent")
            if type(quiescent) is bool:
                self._quiescent = quiescent

    def registered(self, method: str, now: float) -> None:
        """The server registered ``method`` dynamically.

        Only ``ready_registration`` is a signal, and it is never undone: pyright registers
        its methods a second time under new ids and then unregisters the first ones.
        """
        if method == self._ready_registration:
            self._seen_ready(now)
            self._registered = True
            self.moved_at = now

    def _seen_ready(self, now: float) -> None:
        """Before a signal is taken: if the server was ready until it came, it has loaded."""
        if not self._loaded and self._check(now).state == "ready":
            self._loaded = True

    def _begin(self, token: ProgressToken) -> None:
        self._progress_seen = True
        self._active.add(token)

    # -- queries --------------------------------------------------------------------------

    def active_progress(self) -> bool:
        """True while some progress token has begun (or was created) and not ended."""
        return bool(self._active)

    def check(self, now: float) -> ReadinessCheck:
        """Whether the server is ready at ``now``, on what signal, and when to look again
        (a server seen ready once has loaded: see the module's docstring)."""
        answer = self._check(now)
        if answer.state == "ready":
            self._loaded = True
        return answer

    def _check(self, now: float) -> ReadinessCheck:
        phases = tuple(self._phases)
        if self._quiescent is not None:
            state: ReadinessState = "ready" if self._quiescent else "waiting"
            return ReadinessCheck(state, "server_status", phases, None)
        shown = [kind for kind in _INFERRED if self._shown(kind)]
        in_grace = now < self._grace_end
        if not shown:
            if in_grace:
                return ReadinessCheck("waiting", self._source, phases, self._grace_end)
            return ReadinessCheck("no_signal", "none", phases, None)
        if self._source != "none" and self._source not in shown and in_grace:
            return ReadinessCheck("waiting", self._source, phases, self._grace_end)
        source = self._source if self._source in shown else shown[0]
        if self._progress_seen:
            if self._active:
                return ReadinessCheck("waiting", source, phases, None)
            loaded = self._loaded and self._source != "progress"
            settled = float("-inf") if loaded else self._last_end + self._settle
            if now < settled:
                return ReadinessCheck("waiting", source, phases, settled)
        return ReadinessCheck("ready", source, phases, None)

    def _shown(self, kind: ReadinessSource) -> bool:
        """Whether a signal of ``kind`` (progress or registration) has come."""
        return self._progress_seen if kind == "progress" else self._registered
