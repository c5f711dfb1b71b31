"""Load benchmarks of LspSession: many real servers in one loop, and a steady cancellation storm.

(1) sessions: 100 ``ruff server`` processes (the ruff installed beside this Python) in one
    event loop. Each gets ``spawn_server`` + ``LspSession`` + ``initialize``, all at once;
    then each opens a small Python file and waits for the diagnostics ruff pushes (the
    session does not offer pull); then each sends the requests ruff answers (those
    ``supports()`` confirms), all at once; then all shut down. Prints the time of each phase,
    the client's peak RSS and its open file descriptors before and after.
(2) cancellations: requests at a steady 1,000 per second for 10 s to a small "silent"
    server (written to a temporary file from this script) that answers ``initialize`` and
    ``shutdown`` and nothing else, so that every request ends by ``task.cancel()`` a few
    milliseconds after it was sent. Prints, every second, the rate, the pending and
    cancelled-id tables and the RSS; at the end, the client's CPU time per cancellation,
    beside that of the same pacing loop with bare futures in place of requests.

There are no targets. The invariants are checked, and the script exits 1 when one breaks:
every process reaped, nothing left pending in any session, the file descriptors back to the
count they started at, and exactly one ``$/cancelRequest`` on the wire per cancelled request
(the silent server counts them). ``--quick`` runs 10 sessions and 1 s of cancellations.

Run ``python benchmarks/bench_load.py [sessions|cancellations|all] [--quick]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import resource
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_roundtrip import cpu_seconds, current_rss, peak_rss

from adecore_lsp import LspError, LspSession, ServerProcess, spawn_server
from adecore_lsp.protocol.wire.rpc import CANCELLED_IDS_KEPT

RUFF = Path(sys.executable).parent / "ruff"
SOURCE = "import os\n\n\ndef greet(name):\n    unused = 1\n    return 'hi ' + name\n"
"""Two lint findings (an unused import and an unused variable), so every report has content."""
REQUEST_METHODS = (
    "textDocument/codeAction",
    "textDocument/hover",
    "textDocument/formatting",
    "textDocument/documentSymbol",
)
"""Asked of each session when its server supports them (ruff has no documentSymbol)."""
CANCEL_RATE = 1_000
"""Requests per second in the cancellation workload."""
CANCEL_AFTER = 0.003
"""Seconds between sending a request and cancelling its task."""
SILENT_METHOD = "bench/neverAnswered"
STATS_METHOD = "bench/stats"

# A server that answers initialize, shutdown and bench/stats, counts everything else, and
# never answers it. Stdlib only and unbuffered, so it keeps up with a few thousand messages
# a second on one core.
SILENT_SERVER = r"""
import json
import sys

read = sys.stdin.buffer.readline
stdout = sys.stdout.buffer
requests = set()
cancels = 0
cancelled = set()
unknown = 0


def answer(request_id, result):
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode()
    stdout.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    stdout.flush()


while True:
    length = None
    while True:
        line = read()
        if not line:
            sys.exit(0)
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    message = json.loads(sys.stdin.buffer.read(length))
    method = message.get("method")
    if method == "initialize":
        answer(message["id"], {"capabilities": {}, "serverInfo": {"name": "silent"}})
    elif method == "shutdown":
        answer(message["id"], None)
    elif method == "exit":
        sys.exit(0)
    elif method == "$/cancelRequest":
        cancels += 1
        cancel_id = message["params"]["id"]
        if cancel_id not in requests:
            unknown += 1
        cancelled.add(cancel_id)
    elif method == "bench/stats":
        answer(message["id"], {
            "requests": len(requests),
            "cancels": cancels,
            "distinct": len(cancelled),
            "unknown": unknown,
        })
    elif "id" in message:
        requests.add(message["id"])
"""


@dataclass
class Invariants:
    """The checks that must hold; each broken one is kept with what was seen."""

    broken: list[str] = field(default_factory=list)

    def check(self, holds: bool, what: str) -> None:
        """Record ``what`` as broken unless it ``holds``, and say so at once."""
        if not holds:
            self.broken.append(what)
            print(f"INVARIANT BROKEN: {what}")


def open_fds() -> int:
    """How many file descriptors this process has open now."""
    return len(os.listdir("/proc/self/fd"))


def kib(size: int) -> str:
    """A byte count in KiB, with thousands separators."""
    return f"{size // 1024:,} KiB"


# -- (1) sessions ------------------------------------------------------------------------


@dataclass
class Client:
    """One ruff server, its session, and the document it opened."""

    server: ServerProcess
    session: LspSession
    uri: str
    diagnostics: asyncio.Future[Any]


async def start_client(root: Path, index: int) -> Client:
    """Spawn one ruff server, do the handshake, and listen for its document's diagnostics."""
    path = root / f"module_{index}.py"
    uri = path.as_uri()
    server = await spawn_server([str(RUFF), "server"], cwd=root)
    session = LspSession(server.transport, root_uri=root.as_uri())
    diagnostics: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def heard(params: Any) -> None:
        if params.get("uri") == uri and not diagnostics.done():
            diagnostics.set_result(params)

    session.on_diagnostics(heard)
    await session.initialize()
    return Client(server, session, uri, diagnostics)


def request_params(method: str, client: Client) -> Any:
    """Params for ``method`` about the client's document."""
    document = {"uri": client.uri}
    if method == "textDocument/codeAction":
        report = client.diagnostics.result()
        whole = {"start": {"line": 0, "character": 0}, "end": {"line": 6, "character": 0}}
        return {
            "textDocument": document,
            "range": whole,
            "context": {"diagnostics": report["diagnostics"]},
        }
    if method == "textDocument/formatting":
        return {"textDocument": document, "options": {"tabSize": 4, "insertSpaces": True}}
    if method == "textDocument/hover":
        return {"textDocument": document, "position": {"line": 3, "character": 5}}
    return {"textDocument": document}


async def timed(phase: Awaitable[Any]) -> float:
    """Wall seconds ``phase`` took."""
    began = time.perf_counter()
    await phase
    return time.perf_counter() - began


async def run_sessions(count: int, invariants: Invariants) -> None:
    """Workload (1): ``count`` ruff servers and sessions in this loop, all at once."""
    if not RUFF.exists():
        invariants.check(False, f"ruff is not installed beside {sys.executable}")
        return
    gc.collect()
    fds_before = open_fds()
    rss_before = current_rss()
    clients: list[Client] = []
    with tempfile.TemporaryDirectory(prefix="bench-load-") as folder:
        root = Path(folder)
        for index in range(count):
            (root / f"module_{index}.py").write_text(SOURCE)

        async def start_all() -> None:
            clients.extend(await asyncio.gather(*(start_client(root, i) for i in range(count))))

        started = await timed(start_all())
        fds_peak = open_fds()
        rss_running = current_rss()
        versions = {(client.session.server_info or {}).get("version") for client in clients}

        for client in clients:
            client.session.open_document(client.uri, "python", SOURCE)
        diagnosed = await timed(asyncio.gather(*(client.diagnostics for client in clients)))
        findings = sum(len(client.diagnostics.result()["diagnostics"]) for client in clients)

        calls: list[Awaitable[Any]] = []
        asked: dict[str, int] = {}
        skipped = [m for m in REQUEST_METHODS if not clients[0].session.supports(m, clients[0].uri)]
        for client in clients:
            for method in REQUEST_METHODS:
                if client.session.supports(method, client.uri):
                    asked[method] = asked.get(method, 0) + 1
                    calls.append(client.session.request(method, request_params(method, client)))
        answers: list[Any] = []

        async def ask_all() -> None:
            answers.extend(await asyncio.gather(*calls, return_exceptions=True))

        asked_time = await timed(ask_all())
        failures = [answer for answer in answers if isinstance(answer, BaseException)]

        async def stop(client: Client) -> None:
            await client.session.shutdown()
            await client.server.aclose()

        stopped = await timed(asyncio.gather(*(stop(client) for client in clients)))

    leftover = sum(len(client.session._rpc.pending) for client in clients)
    running = [client.server.pid for client in clients if client.server.returncode is None]
    # ru_maxrss is only brought up to date now and then: take the larger of it and the sample.
    peak = max(peak_rss(), rss_running)
    rss_after = current_rss()
    exit_codes = sorted({client.server.returncode for client in clients}, key=str)
    # Drop every reference to the sessions and processes before counting descriptors.
    clients.clear()
    calls.clear()
    answers.clear()
    gc.collect()
    fds_after = open_fds()

    label = ", ".join(f"{m.split('/')[-1]} x{n}" for m, n in asked.items())
    print(
        f"\n(1) sessions: {count} ruff server processes ({', '.join(map(str, versions))}), one loop"
    )
    print(f"{'phase':<58} {'wall':>8} {'per session':>12}")
    rows = [
        (f"spawn + initialize all {count} (concurrently)", started),
        (f"didOpen -> publishDiagnostics for all {count}", diagnosed),
        (f"{sum(asked.values())} requests, all in flight", asked_time),
        (f"shutdown + exit + reap all {count}", stopped),
    ]
    for name, seconds in rows:
        print(f"{name:<58} {seconds:>7.3f}s {seconds / count * 1e3:>9.2f} ms")
    print(
        f"requests: {label}; not supported by the server, not asked: {', '.join(skipped) or 'none'}"
    )
    print(f"diagnostics received: {findings} in {count} reports; request errors: {len(failures)}")
    for failure in failures[:3]:
        print(f"  {type(failure).__name__}: {failure}")
    print(
        f"client RSS: before {kib(rss_before)}, with all running {kib(rss_running)}, "
        f"peak {kib(peak)}, after {kib(rss_after)}; "
        f"exit codes {exit_codes}"
    )
    print(f"open fds: before {fds_before}, with all running {fds_peak}, after {fds_after}")
    invariants.check(not running, f"processes still running: {running}")
    invariants.check(leftover == 0, f"{leftover} requests still pending after shutdown")
    invariants.check(fds_after == fds_before, f"open fds {fds_before} before, {fds_after} after")
    invariants.check(not failures, f"{len(failures)} requests failed")


# -- (2) cancellations -------------------------------------------------------------------


@dataclass
class Second:
    """What the client looked like at the end of one second of the cancellation workload."""

    elapsed: float
    issued: int
    cancelled: int
    pending: int
    cancelled_ids: int
    rss: int
    peak: int
    cpu: float


async def run_cancellations(seconds: float, invariants: Invariants) -> None:
    """Workload (2): CANCEL_RATE requests a second, each cancelled CANCEL_AFTER after sending."""
    loop = asyncio.get_running_loop()
    baseline = await harness_cost(min(seconds, 2.0))
    with tempfile.TemporaryDirectory(prefix="bench-silent-") as folder:
        script = Path(folder) / "silent_server.py"
        script.write_text(SILENT_SERVER)
        server = await spawn_server([sys.executable, "-u", str(script)])
        session = LspSession(server.transport)
        await session.initialize()
        rpc = session._rpc
        tasks: set[asyncio.Task[Any]] = set()
        outcomes = {"cancelled": 0, "answered": 0, "failed": 0}

        def ended(task: asyncio.Task[Any]) -> None:
            tasks.discard(task)
            if task.cancelled():
                outcomes["cancelled"] += 1
            elif task.exception() is not None:
                outcomes["failed"] += 1
            else:
                outcomes["answered"] += 1

        def issue() -> None:
            task = loop.create_task(session.request(SILENT_METHOD, {"n": issued}))
            tasks.add(task)
            task.add_done_callback(ended)
            loop.call_later(CANCEL_AFTER, task.cancel)

        total = round(seconds * CANCEL_RATE)
        issued = 0
        rows: list[Second] = []
        gc.collect()
        cpu_start = cpu_seconds_self()
        began = loop.time()
        next_report = 1.0
        # Pacing by the clock: each turn issues what the schedule owes, so the rate stays
        # steady even when a sleep overshoots.
        while issued < total:
            now = loop.time() - began
            owed = min(total, int(now * CANCEL_RATE) + 1)
            while issued < owed:
                issue()
                issued += 1
            if now >= next_report:
                rows.append(snapshot(now, issued, outcomes["cancelled"], rpc, cpu_start))
                next_report += 1.0
            await asyncio.sleep(0.001)
        if tasks:
            await asyncio.wait(set(tasks))
        elapsed = loop.time() - began
        cpu = cpu_seconds_self() - cpu_start
        rows.append(snapshot(elapsed, issued, outcomes["cancelled"], rpc, cpu_start))
        pending, deadlines = dict(rpc.pending), rpc.deadline_count
        stats = await session.request(STATS_METHOD)
        await session.shutdown()
        await server.aclose()

    print(
        f"\n(2) cancellations: {total:,} requests at {CANCEL_RATE:,}/s to a silent server, "
        f"each task cancelled {CANCEL_AFTER * 1e3:g} ms after it sent"
    )
    print(
        f"{'elapsed':>8} {'issued':>8} {'cancelled':>9} {'rate/s':>7} {'pending':>7} "
        f"{'cancelled ids':>13} {'RSS now':>12} {'peak RSS':>12} {'CPU us/req':>10}"
    )
    previous = Second(0.0, 0, 0, 0, 0, 0, 0, 0.0)
    for row in rows:
        sent = row.issued - previous.issued
        span = row.elapsed - previous.elapsed
        # The last row is taken when the last tasks ended: nothing was sent since the one before.
        rate = f"{sent / span:,.0f}" if sent else "-"
        per = f"{(row.cpu - previous.cpu) / sent * 1e6:.1f}" if sent else "-"
        print(
            f"{row.elapsed:>7.2f}s {row.issued:>8,} {row.cancelled:>9,} {rate:>7} "
            f"{row.pending:>7,} {row.cancelled_ids:>13,} {kib(row.rss):>12} {kib(row.peak):>12} "
            f"{per:>10}"
        )
        previous = row
    growth = rows[-1].rss - rows[0].rss
    print(
        f"achieved {issued / elapsed:,.0f} requests/s over {elapsed:.2f} s; client CPU "
        f"{cpu * 1e6 / max(1, issued):.1f} us per request + cancellation ({cpu:.2f} s in all); "
        f"RSS {growth // 1024:+,} KiB from the first row to the last"
    )
    print(
        f"the pacing loop alone (tasks awaiting bare futures, cancelled alike): "
        f"{baseline:.1f} us per item"
    )
    print(
        f"outcomes: {outcomes}; the server saw {stats['requests']:,} requests, "
        f"{stats['cancels']:,} $/cancelRequest for {stats['distinct']:,} distinct ids "
        f"({stats['unknown']} for ids it never got); cancelled-id cap {CANCELLED_IDS_KEPT:,}"
    )
    invariants.check(
        not pending and deadlines == 0, f"{len(pending)} pending, {deadlines} deadlines"
    )
    invariants.check(
        outcomes["cancelled"] == issued, f"{outcomes['cancelled']} of {issued} ended cancelled"
    )
    invariants.check(
        stats["requests"] == issued
        and stats["cancels"] == issued
        and stats["distinct"] == issued
        and stats["unknown"] == 0,
        f"{issued} requests cancelled but the server counted {stats}",
    )
    biggest = max(row.cancelled_ids for row in rows)
    invariants.check(
        biggest <= CANCELLED_IDS_KEPT,
        f"cancelled-id table reached {biggest}, over its cap {CANCELLED_IDS_KEPT}",
    )
    invariants.check(server.returncode is not None, "the silent server was not reaped")


async def harness_cost(seconds: float) -> float:
    """CPU us per item of the pacing loop alone: a task awaiting a bare future, cancelled alike.

    The same clock, sleeps, tasks and cancel timers as the workload, without a session, so
    the difference from the workload's figure is what a request and its cancellation cost.
    """
    loop = asyncio.get_running_loop()
    total = round(seconds * CANCEL_RATE)
    tasks: list[asyncio.Task[Any]] = []
    issued = 0
    cpu_start = cpu_seconds_self()
    began = loop.time()
    while issued < total:
        owed = min(total, int((loop.time() - began) * CANCEL_RATE) + 1)
        while issued < owed:
            task = loop.create_task(_wait_forever(loop.create_future()))
            loop.call_later(CANCEL_AFTER, task.cancel)
            tasks.append(task)
            issued += 1
        await asyncio.sleep(0.001)
    await asyncio.wait(tasks)
    return (cpu_seconds_self() - cpu_start) / total * 1e6


async def _wait_forever(future: asyncio.Future[Any]) -> Any:
    return await future


def cpu_seconds_self() -> float:
    """User plus system CPU time of this process."""
    return cpu_seconds(resource.RUSAGE_SELF)


def snapshot(elapsed: float, issued: int, cancelled: int, rpc: Any, cpu_start: float) -> Second:
    """The client's tables and memory now."""
    return Second(
        elapsed=elapsed,
        issued=issued,
        cancelled=cancelled,
        pending=len(rpc.pending),
        cancelled_ids=len(rpc._cancelled),
        rss=current_rss(),
        peak=peak_rss(),
        cpu=cpu_seconds_self() - cpu_start,
    )


# -- main ----------------------------------------------------------------------------------


async def run(args: argparse.Namespace) -> Invariants:
    """Run the chosen workloads; return the invariants with whatever broke."""
    invariants = Invariants()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    workloads: list[tuple[str, Callable[[], Awaitable[None]]]] = [
        ("sessions", lambda: run_sessions(10 if args.quick else 100, invariants)),
        ("cancellations", lambda: run_cancellations(1.0 if args.quick else 10.0, invariants)),
    ]
    for name, workload in workloads:
        if args.workload in (name, "all"):
            try:
                await workload()
            except (LspError, OSError) as error:
                invariants.check(False, f"{name} failed: {error!r}")
    return invariants


def main(argv: list[str] | None = None) -> int:
    """Run the chosen workloads; exit status 1 when an invariant broke."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "workload", nargs="?", choices=["sessions", "cancellations", "all"], default="all"
    )
    parser.add_argument("--quick", action="store_true", help="10 sessions and 1 s of cancellations")
    args = parser.parse_args(argv)
    invariants = asyncio.run(run(args))
    if invariants.broken:
        print(f"\n{len(invariants.broken)} invariants broken")
        return 1
    print("\nall invariants hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
