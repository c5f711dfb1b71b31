"""When a wait for final diagnostics stops waiting for a server, without I/O or a clock.

The timeout of a check bounds a server's silence, not its work (``workspace-api.md``,
"Diagnostics that are known final"). A server that takes ten minutes over a large tree while
it answers is waited for; one that says nothing is not. Per server, the wait stops at the
earlier of two bounds:

- **silent**: ``timeout`` seconds went by with nothing new from the server since the later of
  the start of the round and the last new thing: no pull answered, no report on a file of
  the check, no progress that moved (:attr:`ReadinessTracker.moved_at`, which leaves out a
  report repeating its token's last one: a server stuck repeating itself is silent).
- **unanswered**: ``UNANSWERED_TIMES`` times ``timeout`` went by while the server kept its
  progress moving but gave no file of the check its first report for its current text
  (:attr:`DiagnosticsFinality.answered_at`). Work that ends in answers is never cut short;
  work that never does (a loop of progress, of refreshes) is bounded all the same. Ten times
  the timeout: a server that indexes for minutes before its first answer (rust-analyzer on a
  large workspace) is waited for under the default 60 s, and a wait never lasts unbounded.

A caller that cannot wait past a moment of its own (an MCP call, which a host's tool timeout
ends) gives it as ``until``: the wait stops there too, work or not (**deadline**), and the
caller answers with what is final by then.

A check may wait in rounds (a batch of files at a time). A server the check stopped waiting
for is not waited for again in a later round of the same check until it shows what it
lacked: one stopped as silent until it says something new, one stopped as unanswered until
it answers a file. A server that went silent costs one timeout per check, not one per batch.

Times are arguments, seconds on any monotonic clock; servers are keys of any hashable kind.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

# Internal to the library: nothing here is public API (the workspace layer wraps it).
__all__: list[str] = []

UNANSWERED_TIMES = 10
"""How many timeouts a server may keep working without a first answer for any file."""

Why = Literal["silent", "unanswered", "deadline"]
"""Which bound stopped a wait (see the module's docstring)."""

Key = TypeVar("Key", bound=Hashable)


@dataclass(frozen=True)
class Stop:
    """When the wait stops waiting for a server (``at``) unless it says something new
    before, by which bound (``why``), and the longest it allows (``after`` seconds)."""

    at: float
    why: Why
    after: float


class SilenceBounds(Generic[Key]):
    """The bounds of one check's waits, per server; see the module's docstring.

    Args:
        timeout: seconds of silence after which a server is not waited for.
        began: when the first round began.
        until: when the caller stops waiting whatever the servers do; None for never.

    Raises:
        ValueError: a negative ``timeout``, or ``until`` before ``began``.
    """

    __slots__ = ("_began", "_deadline", "_given_up", "_stopped", "timeout")

    def __init__(self, timeout: float, began: float, until: float | None = None) -> None:
        if timeout < 0:
            raise ValueError(f"timeout ({timeout}) must not be negative")
        if until is not None and until < began:
            raise ValueError(f"until ({until}) must not come before began ({began})")
        self.timeout = timeout
        self._began = began
        self._deadline = None if until is None else Stop(until, "deadline", until - began)
        self._given_up: dict[Key, tuple[Stop, float]] = {}
        """Per server stopped for, its stop and when it was last heard (silent) or last
        answered a file first (unanswered) then."""
        self._stopped: dict[Key, Stop] = {}
        """Per server stopped for in this check, the last stop (to say why)."""

    def begin(self, now: float) -> None:
        """A new round of asking begins at ``now`` (the next batch of files is open): the
        servers that were stopped for are not waited for again unless they speak."""
        self._began = now

    def stop(self, server: Key, heard_at: float, answered_at: float) -> Stop:
        """When to stop waiting for ``server``, last heard at ``heard_at`` (a report, an
        answer, progress that moved) and last answering a file first at ``answered_at``.

        A server stopped for earlier in the check keeps its stop, which has passed, until it
        shows what it lacked: something new heard (silent) or a new first answer (unanswered).
        """
        earlier = self._given_up.get(server)
        if earlier is not None:
            stop, then = earlier
            if (heard_at if stop.why == "silent" else answered_at) <= then:
                return stop
            del self._given_up[server]
        silent = max(self._began, heard_at) + self.timeout
        unanswered_after = self.timeout * UNANSWERED_TIMES
        unanswered = max(self._began, answered_at) + unanswered_after
        stop = (
            Stop(unanswered, "unanswered", unanswered_after)
            if unanswered < silent
            else Stop(silent, "silent", self.timeout)
        )
        if self._deadline is not None and self._deadline.at < stop.at:
            return self._deadline
        return stop

    def gave_up(self, server: Key, stop: Stop, heard_at: float, answered_at: float) -> None:
        """The wait stopped waiting for ``server`` by ``stop`` (it had passed while some of
        the server's documents were not final), with what :meth:`stop` was given for it."""
        self._given_up[server] = (stop, heard_at if stop.why == "silent" else answered_at)
        self._stopped[server] = stop

    def stopped(self) -> dict[Key, Stop]:
        """Every server this check stopped waiting for, with its last stop: to say why."""
        return dict(self._stopped)
