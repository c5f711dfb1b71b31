"""Install the real language servers the tests drive that cannot live in the project's venv.

The PyPI servers that fit beside the library come with the ``servers`` extra. This script adds
the ones that need a place of their own, under ``build/servers/`` (ignored by git):

- ``jedi-pygls1``: jedi-language-server 0.41.4 on pygls 1, the WebSocket server that sends
  text frames (the current pygls 2 generation sends binary frames).
- ``npm``: the npm servers at exact versions, in one npm prefix (``node_modules/.bin``
  holds their commands): typescript-language-server with TypeScript 5.9, TypeScript 7
  (native) under the alias ``ts7``, yaml-language-server, bash-language-server,
  vscode-langservers-extracted and pyright. Skipped, saying why, when ``npm`` is missing.
- from Debian, each when its programs are not on PATH, ``apt-get`` is there and we are root
  (skipped, saying why, otherwise): ``shellcheck`` (bash-language-server's diagnostics), and
  ``gopls`` with ``golang-go`` (gopls needs the go command; Debian bookworm's gopls is
  0.5.0, its Go 1.19).

Each install is skipped when its marker file says it is already there, so a second run
takes well under a second. Timings are printed. Run with the project's venv Python:
``.venv/bin/python scripts/install_servers.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import venv
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVERS = ROOT / "build" / "servers"


@dataclass(frozen=True)
class ServerSet:
    """Pinned packages in a folder of their own under build/servers, with a marker file.

    The marker holds what was installed; an install whose marker matches is skipped.
    """

    name: str
    packages: tuple[str, ...]

    @property
    def folder(self) -> Path:
        return SERVERS / self.name

    @property
    def marker(self) -> Path:
        return self.folder / ".installed"

    def wanted(self) -> str:
        return "\n".join(self.packages) + "\n"

    def install(self) -> str:
        """Install unless the marker matches; say what happened (or why not)."""
        if self.marker.exists() and self.marker.read_text() == self.wanted():
            return "already installed"
        skipped = self.unavailable()
        if skipped:
            return skipped
        print(f"installing {self.name}: {' '.join(self.packages)}", flush=True)
        if self.folder.exists():
            shutil.rmtree(self.folder)  # a clean start: no leftovers of other versions
        self.folder.mkdir(parents=True)
        self.populate()
        self.marker.write_text(self.wanted())
        return "installed"

    def unavailable(self) -> str:
        """Why this set cannot be installed here, or "" when it can."""
        return ""

    def populate(self) -> None:
        raise NotImplementedError


class PythonServerSet(ServerSet):
    """A venv of its own holding pinned PyPI packages."""

    def populate(self) -> None:
        venv.create(self.folder, with_pip=True)
        python = self.folder / "bin" / "python"
        quiet = ["--quiet", "--disable-pip-version-check"]
        subprocess.run([str(python), "-m", "pip", "install", *quiet, *self.packages], check=True)


class NpmServerSet(ServerSet):
    """An npm prefix holding exactly pinned packages (``name@version`` or aliases)."""

    def unavailable(self) -> str:
        if shutil.which("npm") is None:
            return "skipped: npm is not on PATH (the npm server tests will fail in CI)"
        return ""

    def populate(self) -> None:
        # A package.json of its own keeps npm from walking up to another project.
        (self.folder / "package.json").write_text('{"private": true}\n')
        options = ["--no-audit", "--no-fund", "--save-exact", "--loglevel=error"]
        npm = shutil.which("npm") or "npm"
        subprocess.run(
            [npm, "install", "--prefix", str(self.folder), *options, *self.packages], check=True
        )


PYTHON_SETS = (PythonServerSet("jedi-pygls1", ("jedi-language-server==0.41.4", "websockets>=11")),)

NPM_SETS = (
    NpmServerSet(
        "npm",
        (
            # 5.3.0 is the newest that runs on node 20 (6.x needs node >= 22.22).
            "typescript-language-server@5.3.0",
            # typescript-language-server needs tsserver.js, which TypeScript 7 no longer has.
            "typescript@5.9.3",
            # TypeScript 7 (native): tests run its platform package's binary directly.
            "ts7@npm:typescript@7.0.2",
            # 1.25.0 is the newest that runs on node 20 (2.x needs node >= 22.13).
            "yaml-language-server@1.25.0",
            "bash-language-server@5.8.1",
            "vscode-langservers-extracted@4.10.0",
            # pyright itself (basedpyright comes from PyPI): the interpreter it starts.
            "pyright@1.1.414",
        ),
    ),
)


@dataclass(frozen=True)
class DebianPackages:
    """Debian packages that put ``programs`` on PATH; installed with apt-get when one is
    missing and we may, never failing the script."""

    name: str
    programs: tuple[str, ...]
    packages: tuple[str, ...]

    def install(self) -> str:
        missing = [program for program in self.programs if shutil.which(program) is None]
        if not missing:
            return "already on PATH"
        command = f"apt-get install -y {' '.join(self.packages)}"
        apt = shutil.which("apt-get")
        if apt is None:
            return f"skipped: no apt-get here (install {' and '.join(missing)} another way)"
        if not hasattr(os, "geteuid") or os.geteuid() != 0:
            return f"skipped: not root (run: sudo {command})"
        install = ["install", "-y", "-q", "--no-install-recommends", *self.packages]
        if _apt(apt, install) != 0:
            # A fresh image has no package lists yet.
            _apt(apt, ["update", "-q"])
            if _apt(apt, install) != 0:
                return f"failed: {command} did not succeed"
        still = [program for program in self.programs if shutil.which(program) is None]
        if still:
            return f"failed: {' and '.join(still)} still not on PATH"
        return "installed"


DEBIAN_SETS = (
    DebianPackages("shellcheck", ("shellcheck",), ("shellcheck",)),
    DebianPackages("gopls", ("gopls", "go"), ("gopls", "golang-go")),
)


def _apt(apt: str, arguments: list[str]) -> int:
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    return subprocess.run([apt, *arguments], stdout=subprocess.DEVNULL, env=environment).returncode


def timed(name: str, step: Callable[[], str]) -> None:
    """Run one install step and print what happened and how long it took."""
    start = time.perf_counter()
    outcome = step()
    print(f"{name}: {outcome} ({time.perf_counter() - start:.1f} s)", flush=True)


def main() -> int:
    start = time.perf_counter()
    SERVERS.mkdir(parents=True, exist_ok=True)
    for python_set in PYTHON_SETS:
        timed(python_set.name, python_set.install)
    for npm_set in NPM_SETS:
        timed(npm_set.name, npm_set.install)
    for debian_set in DEBIAN_SETS:
        timed(debian_set.name, debian_set.install)
    print(f"servers ready in {time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
