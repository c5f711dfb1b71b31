"""Whether a document's diagnostics for its current version are final, without I/O or a clock.

A server never says "these are all the diagnostics"; the client has to infer it, and each way
a server reports needs its own rule (``workspace-api.md``, "Diagnostics that are known final"):

- **pull**: a pull answer for the current version is final at once.
- **versioned push**: a report with the current version arrived, the server's progress has
  ended, and ``settle`` seconds passed with no other report for that version. The window
  starts at the later of the last report and the end of progress, since a server often
  pushes its full report just after its analysis ends. Each new report for the version
  restarts the window and replaces the items (pyrefly repeats each report three times within
  a few ms; basedpyright has sent an empty report first and the real one later, with the same
  version).
- **final push** (``push_final``, registry data for servers measured to push each document's
  whole report once they have analysed it, as ruff does for notebook cells): a versioned
  report for the current version is final at once, unless other files changed after it
  came (then the versioned-push rule applies until the next report).
- **unversioned push**: the first report after the open or change, then ``settle`` seconds
  with no further report; a later report restarts the window and replaces the items. Progress
  does not hold it up (zuban, ccls, fortls, tsls, yaml and json push unversioned).

Each report is judged by its own kind, so gopls, whose first report is unversioned and later
ones versioned, gets the unversioned rule for the first and the versioned one afterwards.

**Versions.** ``expect`` moves a document to a new version; nothing received for an earlier
version counts after that, but the items last known are kept, to be returned as stale when
the wait for the new version ends without a final answer (a timeout never reads as clean).
A report for an earlier version than the current one never counts either; it replaces those
stale items when it is not older than the report they came from (a late report tells more
than an earlier one). A versioned report for a *later* version than the client sent is
dropped entirely: it is about a text the client never sent (pyrefly reports an empty ``v3``
on close), and taking it as last known would read as clean. Reports about a document that is
not expected, including the ones servers send after ``didClose`` (gopls, fortls and
rust-analyzer send non-empty ones), are dropped.

**Pull and push together.** One tracker is kept per server. A server in pull mode may push
too (rust-analyzer pushes cargo check's results beside its pulls; ruff answers pulls and
pushes the same findings): the last push for the current version is kept beside the pull
answer, and the final items are the pull's followed by those of the push's that the pull
does not hold already (same range, severity, code, source and message): each distinct
diagnostic once. Pushes do not make a pull-mode document final, and its finality does not
wait for them. A pull answer for the current version is final in push mode too: it is the
server's whole answer for that text.

**Other files.** When other files change (:meth:`others_changed`), a document's own text is
the same but its diagnostics may not be: a pull answer is wanted again, and a push is taken
as final only a settle window after the change (the server's new reports come first).

**Silence.** Some servers send nothing when a change leaves a file's diagnostics as they were
(typescript-language-server for a file that stays clean). Silence is never read as clean:
:meth:`silent_since` says since when a document has heard nothing for its current version,
so that the workspace can ask such a server directly and feed the answer as a pull.

**Quiet when unchanged.** gopls sends nothing when a change leaves a document's report equal
to the last one it delivered for that document (its own code keeps a "delivered" report per
file and skips an equal one): measured, an open whose report came after the next change was
sent, and no report for that change at all. For such a server (``quiet_when_unchanged``), a
document with nothing for its current version, once the server has been quiet for the settle
window (after the later of the change, its last report about any file, the end of its
progress and the last change of other files), is final with the last report the server
delivered for it, whatever its version. A document the server never reported on stays
waiting: its silence may mean that no one checked it.

**Heard and answered.** A wait bounds a server's silence, not its work (:mod:`.silence`):
:attr:`~DiagnosticsFinality.heard_at` is when the server last said something about an
expected document (a push, a pull answer, for any version) or asked for its diagnostics
again (a refresh), and
:attr:`~DiagnosticsFinality.answered_at` when an expected document last got its *first*
report for its current version (or since other files changed). A server that answers again
and again about the same documents (a refresh after a refresh) is heard, but answers nothing
new.

Final is judged at ``now``, not latched: a new report for the same version, or progress that
begins again before a versioned report, makes a final document wait again, since the server
is sending, or may send, a newer answer.

The order of the calls is what counts, not the times given to them: call :meth:`expect` when
the ``didOpen`` or ``didChange`` is sent, before anything the server answers to it can be
read. The async workspace layer feeds the tracker and sleeps until :meth:`next_recheck`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# Internal to the library: nothing here is public API (the workspace layer wraps it).
__all__: list[str] = []

Mode = Literal["pull", "push", "push_final"]
"""How the server delivers a document's diagnostics (``push_final``: each versioned push
for the current version is the server's whole answer, final at once)."""

MODES: tuple[Mode, ...] = ("pull", "push", "push_final")


@dataclass(frozen=True)
class FinalityStatus:
    """What is known of one document's diagnostics at one moment.

    ``items`` are the items that made it final; when it is not final, the items known for
    the current version (a report whose window is still open), or else the last items known
    from an earlier version. ``stale`` is True when it is not final and no report for the
    current version has come, so ``items`` (possibly empty) describe an earlier text or
    nothing. ``recheck_at`` is when a settle window ends and the answer may change without new
    input; None when only new input can change it.
    """

    final: bool
    items: list[Any]
    stale: bool
    recheck_at: float | None


@dataclass
class _Document:
    version: int
    mode: Mode
    pulled: list[Any] | None = None
    """The pull answer's items for ``version``; None before one came."""
    pushed: list[Any] | None = None
    """The last pushed items that counted for ``version``; None before one came."""
    pushed_at: float = 0.0
    versioned: bool = False
    """Whether the last push that counted carried a version (then progress must end)."""
    known: list[Any] = field(default_factory=list)
    """The last items known from an earlier version."""
    known_version: int | None = None
    """The version ``known`` came from; None while nothing is known."""
    expected_at: float = 0.0
    """When the client sent ``version``."""
    answered: bool = False
    """Whether a report for ``version`` came (since other files last changed)."""

    def current(self) -> list[Any] | None:
        """The items received for ``version``, pull's then those of the push's the pull does
        not hold (each distinct diagnostic once); None when nothing came."""
        if self.pulled is None and self.pushed is None:
            return None
        if not self.pulled or not self.pushed:
            return [*(self.pulled or ()), *(self.pushed or ())]
        held = {_identity(item) for item in self.pulled}
        return [*self.pulled, *(item for item in self.pushed if _identity(item) not in held)]

    def older(self, version: int, items: list[Any]) -> None:
        """A report for an earlier ``version``: it counts for nothing, but may be last known."""
        if self.known_version is None or version >= self.known_version:
            self.known = list(items)
            self.known_version = version


def _identity(item: Any) -> Any:
    """What makes two diagnostics the same one: range, severity, code, source, message."""
    if not isinstance(item, dict):
        return repr(item)
    where = item.get("range")
    start = where.get("start", {}) if isinstance(where, dict) else {}
    end = where.get("end", {}) if isinstance(where, dict) else {}
    return (
        start.get("line"),
        start.get("character"),
        end.get("line"),
        end.get("character"),
        item.get("severity"),
        repr(item.get("code")),
        item.get("source"),
        item.get("message"),
    )


class DiagnosticsFinality:
    """Per document URI, whether one server's diagnostics for its current version are final.

    ``settle`` is the settle window of versioned pushes and the quiet window of unversioned
    ones, in seconds (the server's spec sets it from what was measured).
    ``quiet_when_unchanged``: the server sends nothing when a report would equal the last it
    delivered for the document (see "Quiet when unchanged").

    Raises:
        ValueError: a negative ``settle``.
    """

    __slots__ = (
        "_changed_at",
        "_delivered",
        "_documents",
        "_generation",
        "_last_push_at",
        "_progress",
        "_progress_ended_at",
        "_quiet",
        "answered_at",
        "heard_at",
        "settle",
    )

    def __init__(self, settle: float, *, quiet_when_unchanged: bool = False) -> None:
        if settle < 0:
            raise ValueError(f"settle ({settle}) must not be negative")
        self.settle = settle
        self._quiet = quiet_when_unchanged
        self._documents: dict[str, _Document] = {}
        self._delivered: dict[str, list[Any]] = {}
        """The last report pushed about each URI, any version, expected or not (kept only
        for a server quiet when unchanged: its silence repeats it)."""
        self._progress = False
        self._progress_ended_at = float("-inf")
        self._last_push_at = float("-inf")
        self._changed_at = float("-inf")
        self._generation = 0
        self.heard_at = float("-inf")
        """When the server last reported on an expected document or asked for its
        diagnostics again, -inf before it did (see "Heard and answered"). Read it, never
        write it."""
        self.answered_at = float("-inf")
        """When an expected document last got its first report for its current version, -inf
        before one did (see "Heard and answered"). Read it, never write it."""

    # -- feeds ----------------------------------------------------------------------------

    def expect(self, uri: str, version: int, now: float, mode: Mode) -> None:
        """The client opened or changed ``uri`` to ``version``; final diagnostics are wanted.

        A new version drops what was received for the old one, keeping its items as the last
        known ones. The same version again keeps what was received for it and only takes the
        new ``mode`` (a second wait for the same text). ``now`` is taken so that every feed
        has the same shape; the rules count from the order of the calls.

        Raises:
            ValueError: ``mode`` is not ``"pull"`` or ``"push"``.
        """
        if mode not in MODES:
            raise ValueError(
                f'unknown diagnostics mode {mode!r}; expected "pull", "push" or "push_final"'
            )
        document = self._documents.get(uri)
        if document is None:
            self._documents[uri] = _Document(version, mode, expected_at=now)
            return
        if document.version != version:
            current = document.current()
            if current is not None:
                document.known, document.known_version = current, document.version
            document.version = version
            document.pulled = document.pushed = None
            document.versioned = False
            document.answered = False
            document.expected_at = now
        document.mode = mode

    def pushed(self, uri: str, version: int | None, items: list[Any], now: float) -> None:
        """The server published ``items`` for ``uri`` at ``now``, with ``version`` or without.

        An unversioned report, or one with the current version, counts for the current
        version: it replaces the pushed items and restarts the window. An earlier version
        counts for nothing (it may become the last known items); a later one, and any report
        about a document not expected, is dropped.
        """
        self._last_push_at = now
        document = self._documents.get(uri)
        if self._quiet and (document is None or version is None or version <= document.version):
            self._delivered[uri] = list(items)  # what the server holds as delivered
        if document is None:
            return
        self.heard_at = now
        if version is None or version == document.version:
            self._answered(document, now)
            document.pushed = list(items)
            document.pushed_at = now
            document.versioned = version is not None
        elif version < document.version:
            document.older(version, items)

    @property
    def generation(self) -> int:
        """How many times answers were made outdated (:meth:`refreshed`): taken when a pull
        is sent, and given back with its answer."""
        return self._generation

    def pulled(
        self,
        uri: str,
        version: int,
        items: list[Any],
        now: float,
        generation: int | None = None,
    ) -> bool:
        """The server answered a pull of ``uri`` made for ``version`` with ``items``; whether
        the answer made the document final.

        For the current version it is final at once, unless the pull was sent before the
        answers were last made outdated (``generation``, :attr:`generation` when it was
        sent, is older: a ``workspace/diagnostic/refresh`` came while it was on its way, and
        basedpyright's answer then lacks what it found meanwhile): such an answer is kept as
        the last known items, and the document wants another pull. For an earlier version
        it counts for nothing (it may become the last known items); a later version, or a
        document not expected, is dropped.
        """
        document = self._documents.get(uri)
        if document is None:
            return False
        self.heard_at = now
        if version == document.version:
            self._answered(document, now)
        if version == document.version and generation in (None, self._generation):
            document.pulled = list(items)
            return True
        if version <= document.version:
            document.older(version, items)
        return False

    def progress_active(self, active: bool, now: float) -> None:
        """The server's work-done progress began (``True``) or ended (``False``) at ``now``.

        Versioned pushes wait for it to end, then for a settle window after the end. Only a
        change counts: telling again that it ended does not move the end.
        """
        if self._progress and not active:
            self._progress_ended_at = now
        self._progress = active

    def refreshed(self, now: float | None = None) -> None:
        """The server asked for its diagnostics again (``workspace/diagnostic/refresh``:
        something else changed, a file it imports was deleted): a pull answer no longer
        makes a document final; it is kept as the last known items until the next pull,
        and an answer to a pull sent before now makes nothing final either. ``now``, when
        given, is when the server asked: it is heard then (it works on the diagnostics)."""
        if now is not None:
            self.heard_at = now
        self._generation += 1
        for document in self._documents.values():
            if document.pulled is not None:
                document.known = document.current() or []
                document.known_version = document.version
                document.pulled = None

    def others_changed(self, now: float) -> None:
        """Files this server sees changed at ``now`` (another document's text, files on
        disk it watches): every document's diagnostics may change without its own text
        changing. A pull answer no longer makes a document final (as after
        :meth:`refreshed`); a pushed report is final again only once the settle window
        after ``now`` has passed, so that the server's reports on the change come first."""
        self.refreshed()
        self._changed_at = now
        for document in self._documents.values():
            document.answered = False

    def _answered(self, document: _Document, now: float) -> None:
        """A report for ``document``'s current version came at ``now``: the first one counts."""
        if not document.answered:
            document.answered = True
            self.answered_at = now

    def closed(self, uri: str) -> None:
        """The client closed ``uri``: everything about it goes, and later reports are dropped."""
        self._documents.pop(uri, None)

    # -- queries --------------------------------------------------------------------------

    def status(self, uri: str, now: float) -> FinalityStatus:
        """Whether ``uri``'s diagnostics for its current version are final at ``now``.

        A document not expected (or closed) is not final, stale, with no items.
        """
        document = self._documents.get(uri)
        if document is None:
            return FinalityStatus(False, [], True, None)
        return self._status(uri, document, now)

    def silent_since(self, uri: str) -> tuple[int, float] | None:
        """``(version, since when)`` while nothing at all has come for ``uri``'s current
        version: since the later of when it was sent, the server's last report about any
        file and the end of its progress (a server still reporting on other files is not
        silent about this one yet). None once something came, while progress is active,
        or for a document not expected."""
        document = self._documents.get(uri)
        if document is None or document.current() is not None or self._progress:
            return None
        since = max(document.expected_at, self._last_push_at, self._progress_ended_at)
        return document.version, since

    def pending(self, now: float) -> list[str]:
        """The URIs expected and not final at ``now``, in the order they were first expected."""
        return [
            uri
            for uri, document in self._documents.items()
            if not self._status(uri, document, now).final
        ]

    def next_recheck(self, now: float) -> float | None:
        """The earliest ``recheck_at`` over every document at ``now``; None when there is none.

        An async waiter sleeps until then, or until new input, whichever comes first.
        """
        times = [
            status.recheck_at
            for status in (
                self._status(uri, document, now) for uri, document in self._documents.items()
            )
            if status.recheck_at is not None
        ]
        return min(times, default=None)

    def _status(self, uri: str, document: _Document, now: float) -> FinalityStatus:
        current = document.current()
        if current is None:
            return self._quiet_status(uri, document, now)
        if document.pulled is not None:
            return FinalityStatus(True, current, False, None)
        if document.mode == "pull":
            # Pushes alone never make a pull-mode document final: its pull answer does.
            return FinalityStatus(False, current, False, None)
        if (
            document.mode == "push_final"
            and document.versioned
            and document.pushed_at >= self._changed_at
        ):
            return FinalityStatus(True, current, False, None)
        start = max(document.pushed_at, self._changed_at)
        if document.versioned:
            if self._progress:
                return FinalityStatus(False, current, False, None)
            start = max(start, self._progress_ended_at)
        end = start + self.settle
        if now >= end:
            return FinalityStatus(True, current, False, None)
        return FinalityStatus(False, current, False, end)

    def _quiet_status(self, uri: str, document: _Document, now: float) -> FinalityStatus:
        """Nothing came for the current version: waiting, unless the server is quiet when
        unchanged, has reported on the document before and has been quiet for the settle
        window (then its last report stands)."""
        delivered = self._delivered.get(uri)
        if delivered is None or document.mode == "pull" or self._progress:
            return FinalityStatus(False, list(document.known), True, None)
        start = max(
            document.expected_at, self._last_push_at, self._progress_ended_at, self._changed_at
        )
        end = start + self.settle
        if now >= end:
            return FinalityStatus(True, list(delivered), False, None)
        return FinalityStatus(False, list(document.known), True, end)
