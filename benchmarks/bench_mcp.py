"""What the MCP server (``adecore-lsp mcp``) adds to the language servers' own time.

    python benchmarks/bench_mcp.py [--quick] [--rounds N]

The MCP server runs in this process, reached with the SDK's own client over its in-memory
JSON-RPC transport (``mcp.Client(server, mode="legacy")``: the same handshake, dispatcher, tool
argument validation, structured-content check against the output schema and text rendering as
on stdio, without the pipe), with basedpyright and ruff on a copy of the sample project. Every
message with the language servers is stamped with ``time.monotonic()`` as the workspace traces
it. Medians of ``--rounds`` calls:

1. ``diagnostics``: app.py is rewritten on disk behind the server's back (two texts in turn),
   then one call; per call, the time from the language servers' last report for the new text
   (a pull answer or a push) to the result at the client. The target is under 50 ms.
2. ``tools/list``: the round trip (no language server is asked). The target is under 30 ms.
3. ``hover`` of ``app.py#greet`` on a warm server: the round trip less the language server's
   own time (each request sent during the call to its answer). The target is under 30 ms.

The same ``tools/list`` and ``hover`` round trips over stdio (``python -m adecore_lsp.mcp`` as
a subprocess) are printed beside them, as a host sees them: pipes and JSON included.

``--quick`` makes three rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_workspace import Tap, milliseconds, servers_on_path
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

from adecore_lsp.mcp.server import build
from adecore_lsp.mcp.state import Options

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "sample_project"
SERVERS = ["basedpyright", "ruff"]
TEXTS = (
    'import os\n\n\ndef greet(name: str) -> str:\n    return f"Hello, {name}" + mesage\n',
    'import os\n\n\ndef greet(name: str) -> str:\n    message = f"Hi, {name}"\n    return mesage\n',
)
"""Two texts of app.py, written in turn (their sizes differ, so the disk check sees each)."""
DIAGNOSTICS_TARGET = 0.050
LIST_TARGET = 0.030
HOVER_TARGET = 0.030


def reports_before(tap: Tap, start: int, until: float) -> list[float]:
    """When each diagnostics report read since ``start`` (a push, or a pull's answer) came."""
    pulls: set[Any] = set()
    found = []
    for moment, direction, message in tap.events(start):
        if moment > until:
            break
        if direction == "send" and message.get("method") == "textDocument/diagnostic":
            pulls.add(message.get("id"))
        elif direction == "receive":
            pushed = message.get("method") == "textDocument/publishDiagnostics"
            if pushed or ("method" not in message and message.get("id") in pulls):
                found.append(moment)
    return found


def server_time(tap: Tap, start: int, until: float) -> float:
    """The language servers' own time since ``start``: each request sent to its answer."""
    sent: dict[Any, float] = {}
    total = 0.0
    for moment, direction, message in tap.events(start):
        if moment > until:
            break
        if direction == "send" and "method" in message and "id" in message:
            sent[message["id"]] = moment
        elif direction == "receive" and "method" not in message and message.get("id") in sent:
            total += moment - sent.pop(message["id"])
    return total


async def in_process(root: Path, rounds: int) -> dict[str, list[float]]:
    tap = Tap()
    app = build(Options(root=root, servers=SERVERS, trace=tap, log_level="ERROR"))
    names = ("diagnostics", "whole", "list", "hover", "hover_rtt")
    figures: dict[str, list[float]] = {name: [] for name in names}
    async with Client(app, mode="legacy", cache=None) as client:
        first = await client.call_tool("diagnostics", {"paths": ["app.py"]})
        if first.is_error:
            raise SystemExit(f"diagnostics failed: {first.content}")
        await client.call_tool("hover", {"target": "app.py#greet"})
        for turn in range(rounds):
            (root / "app.py").write_text(TEXTS[turn % 2], encoding="utf-8")
            start = len(tap.lines)
            began = time.monotonic()
            result = await client.call_tool("diagnostics", {"paths": ["app.py"]})
            returned = time.monotonic()
            figures["whole"].append(returned - began)
            structured = result.structured_content or {}
            if result.is_error or not structured.get("complete"):
                raise SystemExit(f"diagnostics not final: {result.content}")
            reports = reports_before(tap, start, returned)
            if not reports:
                raise SystemExit("no report came for the new text")
            figures["diagnostics"].append(returned - max(reports))
        for _ in range(rounds):
            began = time.monotonic()
            await client.session.list_tools()
            figures["list"].append(time.monotonic() - began)
        for _ in range(rounds):
            start = len(tap.lines)
            began = time.monotonic()
            hover = await client.call_tool("hover", {"target": "app.py#greet"})
            returned = time.monotonic()
            if hover.is_error:
                raise SystemExit(f"hover failed: {hover.content}")
            figures["hover_rtt"].append(returned - began)
            figures["hover"].append(returned - began - server_time(tap, start, returned))
    return figures


async def over_stdio(root: Path, rounds: int) -> dict[str, list[float]]:
    argv = ["-m", "adecore_lsp.mcp", "--root", str(root), *(f"--server={s}" for s in SERVERS)]
    parameters = StdioServerParameters(command=sys.executable, args=argv, env=dict(os.environ))
    figures: dict[str, list[float]] = {"list": [], "hover": []}
    with open(os.devnull, "w") as quiet:
        async with (
            stdio_client(parameters, errlog=quiet) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.call_tool("hover", {"target": "app.py#greet"})
            for _ in range(rounds):
                began = time.monotonic()
                await session.list_tools()
                figures["list"].append(time.monotonic() - began)
            for _ in range(rounds):
                began = time.monotonic()
                await session.call_tool("hover", {"target": "app.py#greet"})
                figures["hover"].append(time.monotonic() - began)
    return figures


def row(name: str, values: list[float], target: float | None) -> str:
    median = statistics.median(values)
    verdict = "" if target is None else ("met" if median < target else "MISSED")
    bound = "" if target is None else f"under {milliseconds(target)} ms"
    return (
        f"{name:<58} {milliseconds(median):>8} ms  (min {milliseconds(min(values))}, "
        f"max {milliseconds(max(values))})  {bound} {verdict}".rstrip()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    rounds = 3 if args.quick else args.rounds
    servers_on_path()
    for program in ("basedpyright-langserver", "ruff"):
        if shutil.which(program) is None:
            raise SystemExit(f"{program} is not installed (bash scripts/test.sh installs it)")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "sample_project"
        shutil.copytree(SAMPLE, root)
        mine = asyncio.run(in_process(root, rounds))
        shutil.copy(SAMPLE / "app.py", root / "app.py")
        piped = asyncio.run(over_stdio(root, rounds))
    print(f"adecore-lsp mcp with {' and '.join(SERVERS)}, medians of {rounds} calls")
    print(
        row(
            "(1) diagnostics: last server report to the result",
            mine["diagnostics"],
            DIAGNOSTICS_TARGET,
        )
    )
    print(row("    diagnostics: the whole call, the servers' work included", mine["whole"], None))
    print(row("(2) tools/list round trip", mine["list"], LIST_TARGET))
    print(row("(3) hover round trip less the server's own time", mine["hover"], HOVER_TARGET))
    print(row("    hover round trip, the server's time included", mine["hover_rtt"], None))
    print(row("    over stdio: tools/list round trip", piped["list"], None))
    print(row("    over stdio: hover round trip", piped["hover"], None))
    met = (
        statistics.median(mine["diagnostics"]) < DIAGNOSTICS_TARGET
        and statistics.median(mine["list"]) < LIST_TARGET
        and statistics.median(mine["hover"]) < HOVER_TARGET
    )
    print("all targets met" if met else "some target missed")


if __name__ == "__main__":
    main()
