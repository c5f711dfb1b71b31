"""The language servers the scenarios use, as the project's own files install them, and the
small tree the scripted server runs on in CI."""

from __future__ import annotations

import sys
from pathlib import Path

from fidelity.peers import ROOT
from fidelity.subject import Server

BIN = ROOT / ".venv" / "bin"
NPM = ROOT / "build" / "servers" / "npm" / "node_modules"
HERE = Path(__file__).resolve().parent


def for_language(language: str) -> Server:
    """basedpyright for Python, typescript-language-server (and the ``tsc`` of the same
    TypeScript it runs) for TypeScript."""
    if language == "python":
        return Server(
            "basedpyright",
            "python",
            (str(BIN / "basedpyright-langserver"), "--stdio"),
            (str(BIN / "basedpyright"), "--outputjson"),
        )
    if language == "typescript":
        tsc = NPM / "typescript" / "bin" / "tsc"
        return Server(
            "typescript-language-server",
            "typescript",
            (str(NPM / ".bin" / "typescript-language-server"), "--stdio"),
            ("node", str(tsc), "--noEmit", "-p", ".", "--pretty", "false"),
        )
    raise ValueError(f"no server for {language!r}: python or typescript")


def scripted() -> Server:
    """The scripted server (:mod:`fidelity.scripted_server`) and its own command line."""
    script = str(HERE / "scripted_server.py")
    return Server(
        "scripted",
        "python",
        (sys.executable, script),
        (sys.executable, script, "--check"),
    )


SCRIPTED_TREE = {
    "pkg/__init__.py": "",
    "pkg/core.py": (
        "def helper(value):\n    return value + 1\n\n\n"
        "class Engine:\n    def run(self, value):\n        return helper(value)\n\n\n"
        "def compute(value):\n    return Engine().run(helper(value))\n\n\n"
        "def scale(value):\n    return value * 2\n\n\n"
        "class Settings:\n    level = 1\n"
    ),
    "pkg/api.py": (
        "from .core import Engine, helper, scale\n\n\n"
        "def start(value):\n    engine = Engine()\n"
        "    return engine.run(helper(scale(value)))\n\n\n"
        "def finish(value):\n    return scale(value) - 1\n"
    ),
    "pkg/cli.py": (
        "from .api import finish, start\nfrom .core import Settings, compute\n\n\n"
        "def main():\n    return start(Settings.level) + compute(2) + finish(3)\n"
    ),
}
"""A package of three modules that use each other's names: the scripted server's tree."""


def write_scripted_tree(folder: Path) -> Path:
    """Write :data:`SCRIPTED_TREE` under ``folder``; returns ``folder``."""
    for relative, text in SCRIPTED_TREE.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder
