"""Where a command runs: in the daemon (``--daemon auto|on|off``, ``$ADECORE_LSP_DAEMON``)
or in the caller's own process.

:func:`route` decides it from the raw arguments without the option parser, so that a
command sent to a running daemon imports no more than the standard library (``daemon.md``,
"Speed"). It is an early answer only: whatever it cannot read for certain (``--help``, an
abbreviated option, an option it does not know before the command) it leaves to the
parser, and the daemon hands back a command it must not run (``--trace`` spelled another
way) to run here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing on the client's path
if TYPE_CHECKING:
    from typing import Any

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

DAEMON_MODES = ("auto", "on", "off")
DAEMON_VARIABLE = "ADECORE_LSP_DAEMON"
LOCAL_ONLY = frozenset({"mcp", "daemon"})
"""Commands that always run in the caller's own process (as do --trace and --replay)."""

COMMANDS = frozenset(
    {
        "check", "hover", "definition", "references", "implementation", "type-definition",
        "callers", "callees", "symbols", "find", "rename", "format", "fix", "capabilities",
        "servers", "doctor", "trust", "mcp", "daemon",
    }
)  # fmt: skip

_WITH_VALUE = frozenset({"--root", "--server", "--command", "--timeout", "--daemon"})
_LOCAL_OPTIONS = frozenset({"--trace", "--replay"})
_FLAGS = frozenset({"--quiet", "-q", "--no-progress", "--debug", "--trust"})
_ASK_THE_PARSER = frozenset({"-h", "--help", "--version"})


def mode(given: str | None, env: Mapping[str, str] | None = None) -> str:
    """``--daemon``'s value, else ``$ADECORE_LSP_DAEMON``, else ``auto``."""
    value = given or (os.environ if env is None else env).get(DAEMON_VARIABLE) or "auto"
    return value if value in DAEMON_MODES else "auto"


def parsed_mode(args: Any, env: Mapping[str, str] | None = None) -> str:
    """The mode of a parsed command line: ``off`` for the commands that always run in
    their own process, else as :func:`mode` says."""
    if args.name in LOCAL_ONLY or args.trace or args.replay:
        return "off"
    return mode(args.daemon, env)


def route(argv: Sequence[str]) -> str | None:
    """``"auto"`` or ``"on"`` when the command may go to the daemon, ``None`` when it runs
    here or only the option parser can tell."""
    command = None
    daemon = None
    index = 0
    while index < len(argv):
        token = argv[index]
        index += 1
        if token == "--":
            break
        name, equals, _value = token.partition("=")
        if name in _ASK_THE_PARSER or name in _LOCAL_OPTIONS:
            return None
        if name in _WITH_VALUE:
            value = _value if equals else (argv[index] if index < len(argv) else None)
            index += 0 if equals else 1
            if value is None:
                return None
            if name == "--daemon":
                if value not in DAEMON_MODES:
                    return None
                daemon = value
            continue
        if token in _FLAGS:
            continue
        if command is None:
            if token.startswith("-") or token not in COMMANDS:
                return None  # an option this scan does not know: the parser says
            command = token
    if command is None or command in LOCAL_ONLY:
        return None
    chosen = mode(daemon)
    return None if chosen == "off" else chosen
