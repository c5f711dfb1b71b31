"""A session's states and the events that move it, as one table.

In the style of h11's ``_state.py``: every legal move is a row of :data:`TRANSITIONS`, and
anything else is refused with the reason a person needs. The session in
:mod:`adecore_lsp.session` applies events; it never assigns a state itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum

from ...errors import ErrorCodes, LspError

# Internal to the library but for SessionState, which adecore_lsp re-exports.
__all__ = ["SessionState"]


class SessionState(str, Enum):
    """Where a session is in its life; it only moves forward."""

    NEW = "new"
    INITIALIZING = "initializing"
    READY = "ready"
    CLOSING = "closing"
    CLOSED = "closed"

    def __str__(self) -> str:
        return self.value


class SessionEvent(str, Enum):
    """What happens to a session."""

    INITIALIZE = "initialize"
    """``initialize()`` was called: the handshake starts."""
    INITIALIZED = "initialized"
    """The server's ``InitializeResult`` was accepted."""
    SHUTDOWN = "shutdown"
    """``shutdown()`` asks the server to shut down."""
    CLOSE = "close"
    """The connection is gone: closed by us, by the server, or by a failed handshake."""

    def __str__(self) -> str:
        return self.value


_S = SessionState
_E = SessionEvent

TRANSITIONS: Mapping[SessionState, Mapping[SessionEvent, SessionState]] = {
    _S.NEW: {_E.INITIALIZE: _S.INITIALIZING, _E.CLOSE: _S.CLOSED},
    _S.INITIALIZING: {_E.INITIALIZED: _S.READY, _E.CLOSE: _S.CLOSED},
    _S.READY: {_E.SHUTDOWN: _S.CLOSING, _E.CLOSE: _S.CLOSED},
    _S.CLOSING: {_E.CLOSE: _S.CLOSED},
    _S.CLOSED: {},
}
"""state -> event -> next state. A closed session does not start again."""


class SessionLifecycle:
    """The state of one session, moved only through :data:`TRANSITIONS`."""

    __slots__ = ("state",)

    def __init__(self) -> None:
        self.state = SessionState.NEW
        """The current state; read it, move it with :meth:`process`."""

    def process(self, event: SessionEvent) -> SessionState:
        """Apply ``event`` and return the new state; an illegal move raises :class:`LspError`."""
        next_state = TRANSITIONS[self.state].get(event)
        if next_state is None:
            raise self.refusal(str(event))
        self.state = next_state
        return next_state

    def refusal(self, what: str) -> LspError:
        """The error for trying ``what`` (a method, an event) in the current state."""
        state = self.state
        if state is SessionState.CLOSED or state is SessionState.CLOSING:
            return LspError(
                ErrorCodes.InvalidRequest,
                f"cannot {what}: the session is {state.value}, and a closed session does not "
                "start again; make a new LspSession",
            )
        if state is SessionState.READY:
            return LspError(ErrorCodes.InvalidRequest, f"cannot {what}: the session is ready")
        return LspError(
            ErrorCodes.ServerNotInitialized,
            f"cannot {what}: the session is {state.value}; await initialize() first",
        )
