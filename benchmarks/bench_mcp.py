"""What the MCP server (``adecore-lsp mcp``) adds to the language servers' own time.

    python benchmarks/bench_mcp.py [--quick] [--rounds N] [--click [--server ID]]

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

With ``--click``, on click 8.1.7 (its sdist from PyPI, 17 files under ``src/click``, downloaded
once into build/bench) with one server (``--server``, default basedpyright; pyrefly and ty
work too), after ``diagnostics`` of ``utils.py`` and ``core.py`` and a first ``references``
(which opens every file of the root), medians of ``--rounds`` calls:

4. ``find_symbol`` of ``echo``: where the first symbol named ``echo`` is in the answer (the
   target is first), and where ``utils.py#echo`` (the function itself) is.
5. warm ``references`` of ``src/click/utils.py#echo``: the call at the client beside the
   server's own time for its ``textDocument/references`` request, and beside every request
   of the call. The target is the server's own time + 50 ms.
6. ``edit`` of ``utils.py`` (a line of ``echo``'s signature, two texts in turn), written: the
   call, the server's own time from the change to its last report (it checks every open
   file again), and that last report to the result at the client. The first edit, whose
   side before checks the files that ``references`` opened for the first time, is shown
   apart. The target
   (``changes.md``) is the server's settle window + 50 ms for a server that pushes, 50 ms
   for one whose reports are pull answers (final as they come).

``--quick`` makes three rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_workspace import Tap, milliseconds, servers_on_path
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

from adecore_lsp.mcp.server import build
from adecore_lsp.mcp.state import Options
from adecore_lsp.workspace.servers.registry import Registry

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
MARGIN = 0.050
"""What the MCP server may add to the server's own time for references, and to the last
report for an edit."""
BENCH = ROOT / "build" / "bench"
CLICK = "click-8.1.7"
ECHO = "src/click/utils.py#echo"
SIGNATURE = ("def echo(\n", "def echo(  \n")
"""Two texts of the line that opens ``echo``'s signature in utils.py, written in turn."""


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


def click_tree() -> Path:
    """click 8.1.7's sources, unpacked under build/bench (its sdist downloaded once)."""
    folder = BENCH / CLICK
    if not (folder / "src" / "click" / "utils.py").exists():
        archive = BENCH / f"{CLICK}.tar.gz"
        if not archive.exists():
            BENCH.mkdir(parents=True, exist_ok=True)
            download = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet"]
            subprocess.run(
                [*download, "--no-binary", ":all:", "--dest", str(BENCH), "click==8.1.7"],
                check=True,
            )
        with tarfile.open(archive) as tar:
            members = [m for m in tar.getmembers() if ".." not in Path(m.name).parts]
            tar.extractall(BENCH, members=members, filter="data")
    return folder


def request_time(tap: Tap, start: int, until: float, method: str) -> float:
    """The server's own time for the requests of ``method`` sent since ``start``."""
    sent: dict[Any, float] = {}
    total = 0.0
    for moment, direction, message in tap.events(start):
        if moment > until:
            break
        if direction == "send" and message.get("method") == method and "id" in message:
            sent[message["id"]] = moment
        elif direction == "receive" and "method" not in message and message.get("id") in sent:
            total += moment - sent.pop(message["id"])
    return total


def busy_time(tap: Tap, start: int, until: float) -> float:
    """How long since ``start`` some request of the client was in flight (their union),
    leaving out the requests the client cancelled: a pull given up is no answer waited for,
    and its flight would hide the client's own work done meanwhile."""
    events = tap.events(start)
    cancelled = {
        message["params"].get("id")
        for _, direction, message in events
        if direction == "send" and message.get("method") == "$/cancelRequest"
    }
    pending: set[Any] = set()
    total, since = 0.0, 0.0
    for moment, direction, message in events:
        if moment > until:
            break
        if direction == "send" and "method" in message and "id" in message:
            if message["id"] in cancelled:
                continue
            if not pending:
                since = moment
            pending.add(message["id"])
        elif direction == "receive" and "method" not in message and message.get("id") in pending:
            pending.discard(message["id"])
            if not pending:
                total += moment - since
    return total


def changed_at(tap: Tap, start: int, name: str) -> float:
    """When the change of file ``name`` went to the server (its ``didChange``)."""
    for moment, direction, message in tap.events(start):
        if (
            direction == "send"
            and message.get("method") == "textDocument/didChange"
            and message["params"]["textDocument"]["uri"].endswith("/" + name)
        ):
            return moment
    raise SystemExit(f"no didChange of {name} was sent")


async def on_click(root: Path, server: str, rounds: int) -> dict[str, list[float]]:
    tap = Tap()
    app = build(Options(root=root, servers=[server], trace=tap, log_level="ERROR"))
    names = ("rank", "refs", "refs_own", "refs_busy", "edit", "edit_own", "edit_after", "first")
    figures: dict[str, list[float]] = {name: [] for name in names}
    utils = root / "src" / "click" / "utils.py"
    async with Client(app, mode="legacy", cache=None) as client:
        paths = ["src/click/utils.py", "src/click/core.py"]
        first = await client.call_tool("diagnostics", {"paths": paths})
        if first.is_error:
            raise SystemExit(f"diagnostics failed: {first.content}")
        found = await client.call_tool("find_symbol", {"query": "echo"})
        items = (found.structured_content or {})["items"]
        targets = [item["target"] for item in items]
        exact = [number for number, item in enumerate(items, 1) if item["name"] == "echo"]
        figures["rank"] += [float(exact[0] if exact else 0), float(len(items))]
        figures["rank"].append(float(targets.index(ECHO) + 1 if ECHO in targets else 0))
        await client.call_tool("references", {"target": ECHO})  # opens the root's files
        for _ in range(rounds):
            start = len(tap.lines)
            began = time.monotonic()
            result = await client.call_tool("references", {"target": ECHO})
            returned = time.monotonic()
            if result.is_error or not (result.structured_content or {}).get("total"):
                raise SystemExit(f"references failed: {result.content}")
            figures["refs"].append(returned - began)
            figures["refs_own"].append(
                request_time(tap, start, returned, "textDocument/references")
            )
            figures["refs_busy"].append(busy_time(tap, start, returned))
        original = utils.read_text(encoding="utf-8")
        try:
            for turn in range(rounds + 1):  # the first edit checks the files opened cold
                old, new = SIGNATURE[turn % 2], SIGNATURE[(turn + 1) % 2]
                start = len(tap.lines)
                began = time.monotonic()
                arguments = {"path": "src/click/utils.py", "edits": [{"old": old, "new": new}]}
                result = await client.call_tool("edit", arguments)
                returned = time.monotonic()
                edited = result.structured_content or {}
                if result.is_error or not edited.get("applied") or not edited.get("complete"):
                    raise SystemExit(f"edit failed: {result.content}")
                reports = reports_before(tap, start, returned)
                if turn == 0:
                    figures["first"] += [returned - began, busy_time(tap, start, returned)]
                    continue
                if not reports:
                    continue
                figures["edit"].append(returned - began)
                figures["edit_own"].append(max(reports) - changed_at(tap, start, "utils.py"))
                figures["edit_after"].append(returned - max(reports))
        finally:
            utils.write_text(original, encoding="utf-8")
    return figures


def click_rows(server: str, figures: dict[str, list[float]], rounds: int) -> list[str]:
    """The table of ``--click``: each figure beside the server's own time, as a ratio."""
    spec = Registry.default().get(server)
    pushes = not spec.pull_diagnostics and server not in ("basedpyright", "pyright", "ty")
    settle = spec.settle if pushes else 0.0
    refs, own, busy, edit, edit_own, after = (
        statistics.median(figures[name])
        for name in ("refs", "refs_own", "refs_busy", "edit", "edit_own", "edit_after")
    )
    first, total, definition = (int(value) for value in figures["rank"])
    lines = [
        f"adecore-lsp mcp with {server} on click 8.1.7, medians of {rounds} calls",
        f"(4) find_symbol echo: of {total} answers, the first named echo is number "
        f"{first or 'none'} ({'met' if first == 1 else 'MISSED'}: target 1), {ECHO} "
        f"number {definition or 'none'}",
        row("(5) references: the call at the client", figures["refs"], None),
        row("    the server's own time (textDocument/references)", figures["refs_own"], None),
        row("    every request of the call in flight", figures["refs_busy"], None),
        f"    call / server's references = {refs / own:.2f}x, call - server's = "
        f"{milliseconds(refs - own)} ms (target under {milliseconds(MARGIN)} ms: "
        f"{'met' if refs - own < MARGIN else 'MISSED'}), call - every request = "
        f"{milliseconds(refs - busy)} ms",
        row("(6) edit: the call at the client", figures["edit"], None),
        row("    the server's own time, the change to its last report", figures["edit_own"], None),
        row(
            "    the last report to the result",
            figures["edit_after"],
            settle + MARGIN,
        ),
        f"    call / server's own = {edit / edit_own:.2f}x, call - server's = "
        f"{milliseconds(edit - edit_own)} ms; target: the last report + "
        f"{milliseconds(settle + MARGIN)} ms ({'met' if after < settle + MARGIN else 'MISSED'})",
        f"    the first edit (the files references opened, never checked, checked before and "
        f"after): {milliseconds(figures['first'][0])} ms, requests in flight "
        f"{milliseconds(figures['first'][1])} ms",
    ]
    return lines


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
    parser.add_argument("--click", action="store_true", help="(4)-(6) on click 8.1.7")
    parser.add_argument("--server", default="basedpyright", help="the server of --click")
    args = parser.parse_args()
    rounds = 3 if args.quick else args.rounds
    servers_on_path()
    if args.click:
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder) / "click"
            shutil.copytree(click_tree() / "src", root / "src")
            (root / "pyproject.toml").write_text('[project]\nname = "click"\nversion = "0"\n')
            figures = asyncio.run(on_click(root, args.server, rounds))
        print("\n".join(click_rows(args.server, figures, rounds)))
        return
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
