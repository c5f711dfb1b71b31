"""What the generators of checked-in code from the LSP metaModel share.

Each generator renders a module from the metaModel's content (and its sha256, named in the
module's header); this module reads the file and runs the command line that writes the
output, or with ``--check`` fails when the checked-in output is out of date.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Render = Callable[[dict[str, Any], str], str]
"""Renders a module from the parsed metaModel and the sha256 of its bytes."""


def render_file(render: Render, meta_model_path: Path) -> str:
    """The text ``render`` makes of the metaModel file at this path."""
    raw = meta_model_path.read_bytes()
    return render(json.loads(raw), hashlib.sha256(raw).hexdigest())


def run(
    render: Render,
    *,
    description: str,
    meta_model: Path,
    output: Path,
    script: str,
    argv: list[str] | None = None,
) -> int:
    """Write (or with ``--check``, compare) the generated output; return the exit status."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--meta-model", type=Path, default=meta_model)
    parser.add_argument("--output", type=Path, default=output)
    parser.add_argument("--check", action="store_true", help="fail if the output is stale")
    args = parser.parse_args(argv)
    text = render_file(render, args.meta_model)
    target: Path = args.output
    if args.check:
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if current != text:
            print(f"{target} is out of date; run {script}", file=sys.stderr)
            return 1
        return 0
    target.write_text(text, encoding="utf-8", newline="\n")
    return 0
