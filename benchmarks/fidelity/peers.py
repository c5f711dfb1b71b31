"""Install a peer from the package registries into a throwaway folder of its own, pinned by
version: never into the project's environment. ``build/fidelity/peers/NAME`` (kept between
runs; delete it to install afresh)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT / "build" / "fidelity" / "peers"


class InstallFailed(Exception):
    """The peer did not install here: the reason, as the installer said it."""


def _run(argv: list[str], timeout: float) -> None:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise InstallFailed(f"{argv[0]}: {error}") from error
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise InstallFailed(f"{' '.join(argv[:4])}...: " + " / ".join(tail))


def venv(name: str, requirements: list[str], python: str = "python3") -> Path:
    """The Python of a venv of its own holding ``requirements`` (made on first use).

    Raises:
        InstallFailed: no such Python here, or pip refused.
    """
    folder = PEERS / name
    interpreter = folder / "bin" / "python"
    stamp = folder / ".installed"
    wanted = "\n".join(requirements)
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == wanted:
        return interpreter
    base = shutil.which(python)
    if base is None:
        raise InstallFailed(f"no {python} on this machine")
    shutil.rmtree(folder, ignore_errors=True)
    _run([base, "-m", "venv", str(folder)], 300)
    _run([str(interpreter), "-m", "pip", "install", "-q", *requirements], 1200)
    stamp.write_text(wanted, encoding="utf-8")
    return interpreter


def npm(name: str, package: str) -> Path:
    """The ``node_modules`` folder of an npm prefix of its own holding ``package``
    (``name@version``, made on first use).

    Raises:
        InstallFailed: no npm here, or npm refused.
    """
    folder = PEERS / name
    stamp = folder / ".installed"
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == package:
        return folder / "node_modules"
    if shutil.which("npm") is None:
        raise InstallFailed("no npm on this machine")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    _run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(folder), package], 1200)
    stamp.write_text(package, encoding="utf-8")
    return folder / "node_modules"
