"""The files ``check`` covers: those :func:`.common.scope` finds, each given to the servers
whose own command line, given the same paths, checks it
(:mod:`adecore_lsp.workspace.servers.scopes`); what the servers' configurations leave out is
counted on stderr, never taken as clean."""

from __future__ import annotations

import argparse

from ..workspace.checks import scope_plan
from ..workspace.workspace import Workspace
from .common import scope
from .output import Output

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

SHOWN_LEFT_OUT = 5
"""How many files left out are named when every file is (the rest are counted)."""


def check_plan(args: argparse.Namespace, ws: Workspace, output: Output) -> scope_plan.Plan:
    """The plan of this ``check``: a configuration that could not be read is said on
    stderr (the tool's defaults apply, as its language server reads it), and so is how
    many files each server's configuration leaves out, and why.

    Raises:
        ValueError: the configurations leave out every file found (a run that checks
            nothing never looks like a clean check).
    """
    found = scope(args, ws, output)
    plan = scope_plan.plan(ws, found.files, found.named, found.origins)
    for notice in plan.notices:
        output.warning(notice)
    if not plan.files:
        names = [ws.paths.relative(path) for path in list(plan.left_out)[:SHOWN_LEFT_OUT]]
        more = len(plan.left_out) - len(names)
        listed = ", ".join(names) + (f" and {more} more" if more > 0 else "")
        reasons = "; ".join(dict.fromkeys(plan.left_out.values()))
        raise ValueError(
            f"nothing to check: every file of {found.described} is left out ({listed}: "
            f"{reasons}); no server checks them"
        )
    for line in plan.said():
        output.note(line)
    return plan
