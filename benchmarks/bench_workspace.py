"""Benchmark the workspace layer: how soon final diagnostics come back, and many servers at once.

(1) latency: for each server (ruff, ty and basedpyright pull; pyrefly, jedi-language-server
    and pylsp push), ``--rounds`` fresh workspaces on a small project, each with
    ``ws.diagnostics([path])`` after the open and after ``--changes`` unsaved changes
    (``ws.update``). Every message is tapped through the workspace's ``trace=``: a file
    object of this script that stamps each line with ``time.monotonic()`` as it is written,
    which the workspace does as a message is sent or read. Per call, the server's time (its
    ``didOpen`` or ``didChange`` to its first report for that version: a push, or a pull
    answer) and the client's (the server's last report before the call returned, to the
    return). The script then waits half a second for reports that come after the return (a
    push there would mean the call returned too early) and counts the pulls sent per call.
    Targets, on the median: under 20 ms for pull, and the server's settle window
    (``Registry.default().get(id).settle``) plus 20 ms for push. The whole time from the
    open or change to the return is set beside the fixed sleeps other clients use (2.5 s to
    10 s) as a ratio.
(2) servers: 20 subfolders, each with a ``pyproject.toml`` holding ``[tool.ruff]`` (a root
    marker) and one file, in one workspace with ruff told to take the nearest root
    (``roots="nearest"``; ruff's own entry takes the whole repository), so one server per
    (server id, root): all started
    at once (``ws.session_for``), the diagnostics of every file, then ``ws.aclose()``.
    Prints the time of each phase, each server's RSS (``ws.running``) and the client's, and
    checks that no process, asyncio task or file descriptor outlives the workspace; the
    script exits 1 when one does.

``--quick`` runs ruff and pyrefly for one round of one change, and three servers.

Run ``python benchmarks/bench_workspace.py [latency|servers|all] [--quick] [--rounds N]
[--changes N] [--server ID ...]``.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson
from bench_roundtrip import current_rss, peak_rss

from adecore_lsp import Registry, Workspace

LATENCY_SERVERS = ("ruff", "ty", "basedpyright", "pyrefly", "jedi-language-server", "pylsp")
QUICK_SERVERS = ("ruff", "pyrefly")
PULL_TARGET = 0.020
"""Seconds from a pull answer to the return."""
PUSH_MARGIN = 0.020
"""Seconds beyond the settle window from the last push to the return."""
LINGER = 0.5
"""Seconds to listen after a return for reports that came too late."""
FIXED_SLEEPS = (2.5, 10.0)
"""The fixed waits after didOpen that other clients use before reading diagnostics."""
SOURCE = (
    "import os\n\n\n"
    "def greet(name: str) -> int:\n"
    "    unused = 1\n"
    "    return 'hi ' + name + undefined_name\n"
)
"""An unused import, an unused variable, a wrong return type and an undefined name."""
SERVER_FILES = 20
QUICK_SERVER_FILES = 3


def servers_on_path() -> None:
    """Put the servers installed beside this Python on PATH, as an activated venv has them."""
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])


def milliseconds(seconds: float) -> str:
    return f"{seconds * 1e3:.1f}"


class Tap(io.BytesIO):
    """A trace target that keeps each line with the moment it was written."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[tuple[float, bytes]] = []

    def write(self, data: Any) -> int:
        self.lines.append((time.monotonic(), bytes(data)))
        return len(data)

    def events(self, start: int) -> list[tuple[float, str, dict[str, Any]]]:
        """The lines from index ``start`` on: (time, "send" or "receive", message)."""
        found = []
        for moment, line in self.lines[start:]:
            entry = orjson.loads(line)
            direction = entry.get("direction", entry.get("dir"))  # "dir" before 95cb385
            found.append((moment, "send" if direction == "send" else "receive", entry["message"]))
        return found


@dataclass
class Sample:
    """One ``ws.diagnostics`` call, read from the tap."""

    kind: str  # "open" or "change"
    mode: str  # "pull", "versioned push" or "unversioned push"
    server_time: float  # the didOpen or didChange to the first report for that version
    latency: float  # the last report before the return, to the return
    total: float  # the didOpen or didChange to the return
    reports: int  # reports for that version before the return
    late: int  # pushes for that version after the return
    pulls: int  # textDocument/diagnostic requests for the file after its didOpen or didChange
    items: int
    complete: bool


def read_sample(
    tap: Tap, start: int, uri: str, returned: float, kind: str, items: int, complete: bool
) -> Sample:
    """What the messages since ``start`` say about the call that returned at ``returned``."""
    sent = 0.0
    version: int | None = None
    pull_ids: set[Any] = set()
    reports: list[float] = []
    late = 0
    versioned = False
    pulled = False
    for moment, direction, message in tap.events(start):
        method = message.get("method")
        params = message.get("params")
        document = params.get("textDocument", {}) if isinstance(params, dict) else {}
        if direction == "send":
            if method in ("textDocument/didOpen", "textDocument/didChange"):
                if document.get("uri") == uri:
                    sent, version = moment, document.get("version")
                    pull_ids.clear()
                    reports.clear()
                    late = 0
            elif method == "textDocument/diagnostic" and document.get("uri") == uri:
                pull_ids.add(message["id"])
        elif method is None and message.get("id") in pull_ids and "result" in message:
            if moment <= returned:
                reports.append(moment)
                pulled = True
        elif method == "textDocument/publishDiagnostics" and isinstance(params, dict):
            if params.get("uri") != uri:
                continue
            pushed_version = params.get("version")
            if pushed_version is not None and pushed_version != version:
                continue
            versioned = versioned or pushed_version is not None
            if moment <= returned:
                reports.append(moment)
            else:
                late += 1
    mode = "pull" if pulled else "versioned push" if versioned else "unversioned push"
    if not reports:
        raise RuntimeError(f"no report for {uri} version {version} before the return")
    return Sample(
        kind,
        mode,
        server_time=reports[0] - sent,
        latency=returned - reports[-1],
        total=returned - sent,
        reports=len(reports),
        late=late,
        pulls=len(pull_ids),
        items=items,
        complete=complete,
    )


async def server_rounds(server: str, rounds: int, changes: int) -> list[Sample]:
    """``rounds`` fresh workspaces with ``server``: the open and ``changes`` changes each."""
    samples: list[Sample] = []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as name:
            root = Path(name)
            (root / "pyproject.toml").write_text("[project]\nname = 'bench'\n", encoding="utf-8")
            (root / "app.py").write_text(SOURCE, encoding="utf-8")
            tap = Tap()
            async with Workspace(root, servers=[server], trace=tap) as ws:
                uri = ws.paths.uri(root / "app.py")
                text = SOURCE
                for change in range(changes + 1):
                    start = len(tap.lines)
                    if change:
                        text += f"value_{change} = undefined_{change}\n"
                        await ws.update("app.py", text)
                    report = await ws.diagnostics(["app.py"])
                    returned = time.monotonic()
                    await asyncio.sleep(LINGER)
                    kind = "change" if change else "open"
                    samples.append(
                        read_sample(
                            tap, start, uri, returned, kind, len(report.items), report.complete
                        )
                    )
    return samples


def target_of(server: str, mode: str) -> float:
    if mode == "pull":
        return PULL_TARGET
    return Registry.default().get(server).settle + PUSH_MARGIN


def run_latency(servers: list[str], rounds: int, changes: int) -> None:
    """Workload (1): print a row per server and kind of call, and the verdicts."""
    registry = Registry.default()
    print(f"(1) latency of final diagnostics: {rounds} rounds, the open and {changes} changes each")
    header = (
        f"  {'server':22} {'call':6} {'mode':16} {'n':>3} {'server: first report':>21}"
        f" {'last report -> return':>22} {'target':>7} {'open -> return':>15}"
        f" {'2.5 s / ours':>12} {'10 s / ours':>11} {'pulls':>5} {'late':>4}"
    )
    print(header)
    print("  " + " " * 50 + "median / max ms        median / max ms        ms     median ms")
    verdicts: list[str] = []
    for server in servers:
        spec = registry.get(server)
        if registry.which(spec) is None:
            print(f"  {server:22} not installed ({spec.install}); skipped")
            continue
        samples = asyncio.run(server_rounds(server, rounds, changes))
        for kind in ("open", "change"):
            chosen = [s for s in samples if s.kind == kind]
            if not chosen:
                continue
            modes = sorted({s.mode for s in chosen})
            mode = modes[0] if len(modes) == 1 else "/".join(modes)
            target = target_of(server, chosen[0].mode)
            first = [s.server_time for s in chosen]
            latency = [s.latency for s in chosen]
            total = statistics.median(s.total for s in chosen)
            pulls = max(s.pulls for s in chosen)
            late = sum(s.late for s in chosen)
            print(
                f"  {server:22} {kind:6} {mode:16} {len(chosen):3}"
                f" {milliseconds(statistics.median(first)):>10} / {milliseconds(max(first)):>8}"
                f" {milliseconds(statistics.median(latency)):>11} / {milliseconds(max(latency)):>8}"
                f" {milliseconds(target):>7} {milliseconds(total):>15}"
                f" {FIXED_SLEEPS[0] / total:11.1f}x {FIXED_SLEEPS[1] / total:10.1f}x"
                f" {pulls:5} {late:4}"
            )
            incomplete = sum(not s.complete for s in chosen)
            if incomplete:
                verdicts.append(f"{server} {kind}: {incomplete} calls not complete")
            median = statistics.median(latency)
            worst = max(latency)
            verdict = "met" if median < target else "MISSED"
            also = "" if worst < target else f" (max {milliseconds(worst)} ms is over)"
            verdicts.append(
                f"{server} {kind}: median {milliseconds(median)} ms, target under"
                f" {milliseconds(target)} ms: {verdict}{also}"
            )
    print("  pulls: most textDocument/diagnostic requests sent for the file per call;")
    print("  late: pushes for the version after the call returned, over every call")
    for line in verdicts:
        print(f"  {line}")


# -- many servers ------------------------------------------------------------------------------


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def process_state(pid: int) -> str | None:
    """The state letter of process ``pid`` (``Z``: a zombie not reaped); None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


async def many_servers(count: int) -> list[str]:
    """Workload (2): ``count`` ruff servers, one per subfolder; what leaked (empty: nothing)."""
    broken: list[str] = []
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        paths = []
        for k in range(count):
            folder = root / f"project_{k:02d}"
            folder.mkdir()
            (folder / "pyproject.toml").write_text(
                f"[project]\nname = 'p{k}'\n\n[tool.ruff]\n", encoding="utf-8"
            )
            (folder / "main.py").write_text(SOURCE, encoding="utf-8")
            paths.append(f"project_{k:02d}/main.py")
        tasks_before = asyncio.all_tasks()
        fds_before = open_fds()
        rss_before = current_rss()
        began = time.monotonic()
        per_folder = replace(Registry.default().get("ruff"), roots="nearest")
        ws = Workspace(root, servers=[per_folder])
        try:
            await asyncio.gather(*(ws.session_for(path) for path in paths))
            started = time.monotonic()
            report = await ws.diagnostics(paths)
            queried = time.monotonic()
            statuses = ws.running
            fds_during = open_fds()
            rss_during = current_rss()
        finally:
            await ws.aclose()
        closed = time.monotonic()
        fds_after = open_fds()
        tasks_left = asyncio.all_tasks() - tasks_before
        await asyncio.sleep(0.1)
        tasks_later = asyncio.all_tasks() - tasks_before
    pids = [status.pid for status in statuses if status.pid is not None]
    roots = {status.root for status in statuses}
    sizes = [status.rss_bytes or 0 for status in statuses]
    print(f"(2) {count} ruff servers in one workspace, one per subfolder ({len(roots)} roots)")
    print(f"  start all (session_for)   {milliseconds(started - began):>9} ms")
    print(
        f"  diagnostics of {count} files  {milliseconds(queried - started):>9} ms"
        f"  ({len(report.items)} diagnostics, complete: {report.complete})"
    )
    print(f"  aclose                    {milliseconds(closed - queried):>9} ms")
    mib = 1024 * 1024
    print(
        f"  server RSS                 median {statistics.median(sizes) / mib:.1f} MiB,"
        f" max {max(sizes) / mib:.1f} MiB, all {sum(sizes) / mib:.1f} MiB"
    )
    print(
        f"  client RSS                 {rss_before / mib:.1f} MiB before,"
        f" {rss_during / mib:.1f} MiB with all running, ru_maxrss {peak_rss() / mib:.1f} MiB"
    )
    print(
        f"  file descriptors           {fds_before} before, {fds_during} running, {fds_after} after"
    )
    alive = [f"{pid} ({state})" for pid in pids if (state := process_state(pid)) is not None]
    print(
        f"  processes                  {len(pids)} started ({len(set(pids))} distinct pids),"
        f" {len(alive)} left after aclose"
    )
    names = sorted(task.get_name() + " " + repr(task.get_coro()) for task in tasks_left)
    print(
        f"  asyncio tasks              {len(tasks_left)} more than before right after aclose,"
        f" {len(tasks_later)} after 0.1 s"
    )
    for task_name in names:
        print(f"    {task_name}")
    if len(pids) != count or len(set(pids)) != count:
        broken.append(f"{len(set(pids))} distinct server pids for {count} roots")
    if not report.complete:
        broken.append(f"the diagnostics were not complete: {report.reason}")
    if alive:
        broken.append(f"server processes left running: {alive}")
    if tasks_later:
        broken.append(f"{len(tasks_later)} asyncio tasks left")
    if fds_after != fds_before:
        broken.append(f"file descriptors {fds_before} before, {fds_after} after")
    return broken


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("workload", nargs="?", choices=["latency", "servers", "all"], default="all")
    parser.add_argument("--quick", action="store_true", help="a tiny run, for a smoke test")
    parser.add_argument("--rounds", type=int, default=7, help="fresh workspaces per server")
    parser.add_argument("--changes", type=int, default=3, help="changes after the open per round")
    parser.add_argument("--server", action="append", help="a server id for (1) (repeatable)")
    parser.add_argument("--servers", type=int, default=SERVER_FILES, help="servers in (2)")
    arguments = parser.parse_args()
    servers_on_path()
    broken: list[str] = []
    if arguments.workload in ("latency", "all"):
        quick = arguments.quick
        servers = arguments.server or list(QUICK_SERVERS if quick else LATENCY_SERVERS)
        rounds = 1 if quick else arguments.rounds
        changes = 1 if quick else arguments.changes
        run_latency(servers, rounds, changes)
    if arguments.workload in ("servers", "all"):
        count = QUICK_SERVER_FILES if arguments.quick else arguments.servers
        broken = asyncio.run(many_servers(count))
        for line in broken:
            print(f"  BROKEN: {line}")
        if not broken:
            print("  nothing leaked")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
