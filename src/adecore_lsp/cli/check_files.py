"""The files ``check`` covers: those :func:`.common.scope` finds, each given to the servers
whose own configuration puts it in their scope (:mod:`adecore_lsp.workspace.scopes`); a
file named on the command line goes to every server that takes it."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import ServerNotFoundError
from ..workspace import scopes
from ..workspace.workspace import Workspace
from .common import cwd_of, scope
from .output import Output

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


def check_plan(args: argparse.Namespace, ws: Workspace, output: Output) -> scopes.Plan:
    """The plan of this ``check``: a configuration that could not be read is said on
    stderr (the tool's defaults apply, as its language server reads it), and so are the
    files the servers' configurations leave out.

    Raises:
        ValueError: the configurations leave out every file found (a run that checks
            nothing never looks like a clean check).
    """
    files, named = scope(args, ws)
    cwd = cwd_of(args)
    explicit = {
        ws.paths.absolute(cwd / given)
        for given in getattr(args, "paths", None) or []
        if not (cwd / given).is_dir()
    }
    plan = scopes.plan(ws, files, explicit)
    for notice in plan.notices:
        output.warning(notice)
    if not plan.files:
        raise ValueError(
            f"nothing to check: the servers' configurations leave out every file of {named} "
            f"({_deciding(ws, files)}); name a file to check it anyway"
        )
    if plan.left_out:
        many = "s" * (plan.left_out != 1)
        output.note(
            f"{plan.left_out} file{many} of {named} left out by the servers' configurations "
            f"({_deciding(ws, files)})"
        )
    return plan


def _deciding(ws: Workspace, files: list[Path]) -> str:
    """The configurations that decided the scope of ``files``, as people name them."""
    found: dict[str, None] = {}
    reading = scopes.Scopes(ws.root)
    for path in files:
        try:
            specs = ws.server_choice.specs_for(path)
        except ServerNotFoundError:
            continue  # the check says which server is missing
        for spec in specs:
            if spec.scope is not None:
                scope_of = reading.scope(spec.scope, path.parent.as_posix())
                name = scope_of.named(ws.root.as_posix()) or f"{spec.id}'s defaults"
                found[f"{spec.id}: {name}"] = None
    return ", ".join(found)
