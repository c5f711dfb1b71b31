"""A stranger's repository whose files lead out of it through symbolic links: a pull request
that commits ``creds.py -> ~/.aws/credentials``, a linked folder, a linked notebook. The
outside files hold words that must never appear in anything the tool prints or answers.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

__all__ = ["INSIDE", "LEFT_OUT", "NAMED", "WORDS", "commit", "leaked", "stranger_with_links"]

WORDS = ("LEAKEDKEYWORD", "LEAKEDSECRETWORD", "LEAKEDCELLWORD", "leaked_value")
"""Words of the outside files only: in any output, they show a file outside was read."""

NAMED = ("creds.py", "linkdir/secret.py", "sub/creds2.py", "nb.ipynb", "linkdir")
"""Paths inside the root, as written, whose real path lies outside it."""

LEFT_OUT = ("creds.py", "nb.ipynb", "sub/creds2.py")
"""What a listing of the whole root leaves out and counts (the linked folder's files are
never listed: a listing enters no linked folder)."""

INSIDE = "inside.py"
"""A link to a file inside the root: read as ever."""


def _notebook(source: str) -> str:
    cell: dict[str, object] = {"cell_type": "code", "metadata": {}, "source": [source]}
    cell |= {"outputs": [], "execution_count": None}
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    metadata = {"kernelspec": kernel, "language_info": {"name": "python"}}
    return json.dumps({"cells": [cell], "metadata": metadata, "nbformat": 4, "nbformat_minor": 5})


def stranger_with_links(base: Path, *, git: bool) -> Path:
    """``base/repo`` (its real path), with links out to ``base/outside``; a git repository
    with everything committed when ``git``."""
    outside = base / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "credentials").write_text(
        "[default]\naws_access_key_id = LEAKEDKEYWORD\n", encoding="utf-8"
    )
    (outside / "dir" / "secret.py").write_text(
        "import os\n\n\ndef LEAKEDSECRETWORD():\n    return leaked_value\n", encoding="utf-8"
    )
    (outside / "nb.ipynb").write_text(_notebook("import os\nprint(LEAKEDCELLWORD)\n"))
    root = base / "repo"
    (root / "sub").mkdir(parents=True)
    (root / "a.py").write_text("import sys\n\nvalue = undefined_here\n", encoding="utf-8")
    (root / "sub" / "b.py").write_text("import json\n", encoding="utf-8")
    (root / "creds.py").symlink_to(outside / "credentials")
    (root / "sub" / "creds2.py").symlink_to(Path("..", "..", "outside", "credentials"))
    (root / "linkdir").symlink_to(outside / "dir", target_is_directory=True)
    (root / "nb.ipynb").symlink_to(outside / "nb.ipynb")
    (root / INSIDE).symlink_to("a.py")
    if git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        commit(root, "the pull request")
    return root.resolve()


def commit(root: Path, message: str) -> None:
    """Everything in ``root`` committed."""
    who = ["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), *who, "commit", "-q", "-m", message], check=True)


def leaked(*outputs: object) -> list[str]:
    """The outside files' words found in ``outputs`` (text, or anything JSON shows)."""
    found = []
    for output in outputs:
        shown = output if isinstance(output, str) else json.dumps(output, default=str)
        found += [word for word in WORDS if word in shown]
    return found
