"""The options of an :class:`~adecore_lsp.LspSession` and the states it goes through."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .protocol.capabilities.client_capabilities import POSITION_ENCODINGS
from .protocol.wire.states import SessionState
from .types import JSONObject

__all__ = [
    "ApplyEditHandler",
    "ConfigurationHandler",
    "LspSessionOptions",
    "SessionState",
    "ShowMessageHandler",
]


class DefaultValue:
    """The type of :data:`DEFAULT`: a keyword left to its default (a deadline, ``process_id``)."""

    def __repr__(self) -> str:
        return "<default>"


DEFAULT = DefaultValue()
"""Stands for "as the session's options say" where ``None`` means something else."""

ConfigurationHandler = Callable[[JSONObject], Any]
"""Answers one ``ConfigurationItem`` (``{"section": ..., "scopeUri": ...}``); may be async."""

ApplyEditHandler = Callable[[JSONObject], Any]
"""Applies a ``workspace/applyEdit`` and returns an ``ApplyWorkspaceEditResult``; may be async."""

Confirm = Callable[[JSONObject], bool | Awaitable[bool]]
"""Asked about each ``ChangeAnnotation`` that ``needsConfirmation`` (``apply_edit``); plain or
async, it returns whether to apply the changes the annotation marks."""

ShowMessageHandler = Callable[[JSONObject], Any]
"""Answers a ``window/showMessageRequest`` with one of its actions or ``None``; may be async."""


@dataclass
class LspSessionOptions:
    """Everything a session is configured with; the keywords of ``LspSession(...)``.

    The first ten are the specification's; the rest are this library's own.
    """

    root_uri: str | None = None
    """The workspace root, a URI; also the one workspace folder unless others are given."""
    workspace_folders: Sequence[JSONObject] | None = None
    """``WorkspaceFolder`` objects (``uri`` and ``name``); by default made from ``root_uri``."""
    client_info: JSONObject | None = None
    """The ``clientInfo`` the server sees; by default ``adecore-lsp`` and its version."""
    initialization_options: Any = None
    """The ``initializationOptions`` of the handshake, left out when None."""
    configuration: Mapping[str, Any] | None = None
    """Settings sent after the handshake and used to answer ``workspace/configuration``."""
    timeout: float | None = 30.0
    """The deadline of a request in seconds; ``0`` or ``None`` turns it off."""
    snippet_support: bool = False
    """Whether completion items may be snippets."""
    on_configuration: ConfigurationHandler | None = None
    """Answers each configuration item instead of ``configuration``."""
    on_apply_edit: ApplyEditHandler | None = None
    """Applies a server's ``workspace/applyEdit``; without it such requests are refused."""
    on_show_message: ShowMessageHandler | None = None
    """Answers a ``window/showMessageRequest``; without it the answer is ``None``."""
    position_encodings: Sequence[str] = POSITION_ENCODINGS
    """The position encodings offered, most wanted first; ``utf-16`` is always added."""
    capabilities: Mapping[str, Any] | None = None
    """Client capabilities merged over the ones the session builds (to add or override)."""
    pull_diagnostics: bool = False
    """Pull diagnostics (``textDocument/diagnostic``) for open documents and deliver them through
    ``on_diagnostics``, like pushed ones."""
    process_id: int | None = field(default_factory=os.getpid)
    """The ``processId`` of the handshake; servers may exit when that process dies."""
    shutdown_timeout: float = 5.0
    """How long ``shutdown()`` waits for the server's answer to ``shutdown``."""
    refresh_window: float = 0.05
    """Refresh requests within this many seconds are announced once."""
    apply_edits: bool = False
    """Answer the server's ``workspace/applyEdit`` with :meth:`LspSession.apply_edit` (all or
    nothing; changes that need confirmation refused); an ``on_apply_edit`` given wins."""
    registration_grace: float = 1.0
    """Seconds after the handshake in which a feature call for a method the server does not
    support yet waits for it to be registered (servers register many just after)."""
