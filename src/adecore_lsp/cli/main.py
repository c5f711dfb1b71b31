"""``adecore-lsp``: the workspace layer in the shell, for people, CI jobs and coding agents.

This module parses the command line (:mod:`.parser`, the standard library's
:mod:`argparse`) and sends the command where it runs: through a
running daemon (:mod:`adecore_lsp.daemon.client`, which imports the standard library only),
or in this process (:mod:`.local`); both run the same executor (:mod:`.executor`), so the
answers are the same either way. Only what a command uses is imported, so ``--version``,
``--help`` and a command sent to the daemon start at once. Results go to stdout, progress
and errors to stderr; the exit status is 0 clean, 1 findings (or pending changes), 2 a
usage error or a failure, 3 incomplete.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .modes import parsed_mode, route

# Internal to the library: the command line is the public face of this module.
__all__: list[str] = []


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    given = list(sys.argv[1:] if argv is None else argv)
    # A command the daemon may run goes there before the option parser is even imported.
    early = route(given)
    if early is not None:
        from ..daemon.client import run_in_daemon

        status = run_in_daemon(given, early)
        if status is not None:
            return status
    from .parser import parse

    args = parse(given)
    if isinstance(args, int):
        return args
    if args.name == "daemon":
        from ..daemon.commands import daemon_command

        return daemon_command(args)
    if args.name == "agents":
        from .agents_setup import run_agents

        return run_agents(args)
    if args.name == "hook":
        from .hook_front import run_hook

        return run_hook(args, given)
    if args.name == "mcp":
        from .mcp_command import run_mcp

        return run_mcp(args)
    late = parsed_mode(args)
    if early is None and late != "off":
        from ..daemon.client import run_in_daemon

        status = run_in_daemon(given, late)
        if status is not None:
            return status
    from .local import run_local

    return run_local(args)


def entry() -> None:
    """The console script."""
    raise SystemExit(main())
