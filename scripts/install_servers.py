"""Install the real language servers the tests drive that cannot live in the project's venv.

The PyPI servers that fit beside the library come with the ``servers`` extra. This script adds
the ones that need a place of their own, under ``build/servers/`` (ignored by git):

- ``jedi-pygls1``: jedi-language-server 0.41.4 on pygls 1, the WebSocket server that sends
  text frames (the current pygls 2 generation sends binary frames).

Each install is skipped when its marker file says it is already there. Run with the
project's venv Python: ``.venv/bin/python scripts/install_servers.py``.
"""

from __future__ import annotations

import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVERS = ROOT / "build" / "servers"


@dataclass(frozen=True)
class PythonServerSet:
    """A venv of its own holding pinned PyPI packages."""

    name: str
    requirements: tuple[str, ...]

    @property
    def folder(self) -> Path:
        return SERVERS / self.name

    @property
    def marker(self) -> Path:
        return self.folder / ".installed"

    def wanted(self) -> str:
        return "\n".join(self.requirements) + "\n"

    def install(self) -> None:
        if self.marker.exists() and self.marker.read_text() == self.wanted():
            return
        print(f"installing {self.name}: {' '.join(self.requirements)}", flush=True)
        venv.create(self.folder, with_pip=True, clear=True)
        python = self.folder / "bin" / "python"
        subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                *self.requirements,
            ],
            check=True,
        )
        self.marker.write_text(self.wanted())


PYTHON_SETS = (PythonServerSet("jedi-pygls1", ("jedi-language-server==0.41.4", "websockets>=11")),)


def main() -> int:
    SERVERS.mkdir(parents=True, exist_ok=True)
    for server_set in PYTHON_SETS:
        server_set.install()
    return 0


if __name__ == "__main__":
    sys.exit(main())
