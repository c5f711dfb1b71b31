"""The commands of ``adecore-lsp``, by name: each a thin call of the workspace and its output.

Each takes the parsed arguments, the output and the workspace, and returns the exit status:
0 clean, 1 findings (or pending changes), 3 incomplete (it wins over 1). Failures raise;
:mod:`.run` turns them into a message and status 2. The commands live in modules by what
they do: :mod:`.check`, :mod:`.navigate` (reading), :mod:`.edits` and :mod:`.inspect`.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from functools import partial

from ..workspace.workspace import Workspace
from . import check, edits, hook, inspect, navigate
from .output import Output

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

Command = Callable[[argparse.Namespace, Output, Workspace], Awaitable[int]]

COMMANDS: dict[str, Command] = {
    "check": check.check,
    "hover": navigate.hover,
    "definition": partial(navigate.places, kind="definition"),
    "references": partial(navigate.places, kind="references"),
    "implementation": partial(navigate.places, kind="implementation"),
    "type-definition": partial(navigate.places, kind="type_definition"),
    "callers": partial(navigate.places, kind="callers"),
    "callees": partial(navigate.places, kind="callees"),
    "symbols": navigate.symbols,
    "find": navigate.find,
    "rename": edits.rename,
    "format": edits.format,
    "fix": edits.fix,
    "capabilities": inspect.capabilities,
    "doctor": inspect.doctor,
    "hook": hook.hook,
}
"""The commands that run on a workspace (``servers``, ``trust`` and ``mcp`` need none)."""
