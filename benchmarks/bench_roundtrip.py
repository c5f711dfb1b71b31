"""Benchmark request round trips through LspSession against the fastest loop that could do them.

Every round trip goes over stdio to a small C echo server (``echo_server.c``, compiled here
with ``cc -O2`` into ``build/``). Our path is ``spawn_server`` + ``LspSession`` after
``initialize``, with the session's default deadline (30 s) on, as a user has it. The ceiling
is a bare asyncio loop in the same run against the same server: its pipes joined to the loop
with ``connect_read_pipe`` / ``connect_write_pipe``, hand-written ``Content-Length`` framing
(``bytes.find`` + ``orjson``), and a dict of futures keyed by id. Both read the server's
stdout 64 KiB at a time, and both take each chunk in the turn of the loop that read it.
Each workload runs N rounds (default 21); in each, the two run back to back, in turns, each
with a fresh server. It prints both clients' best rounds (requests per second, wall and CPU
time) and the ratio ours / bare of each round; the targets apply to the median of those:

(1) sequential: one ``await session.request(...)`` after the other, client and server
    pinned to one CPU. Target: at most 1.4x.
(2) inflight: the same number of requests with 256 in flight (256 tasks, each awaiting
    requests in a loop). Target: at most 1.8x.
(3) soak: 1,000,000 requests through one session, 256 in flight, printing the peak and the
    current RSS every tenth of the way. Target: no growth after the first tenth.

Run ``python benchmarks/bench_roundtrip.py [sequential|inflight|soak|all] [--quick] [--runs N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import orjson

from adecore_lsp import LspSession, spawn_server
from adecore_lsp.transports.pipes import READ_SIZE

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "benchmarks" / "echo_server.c"
BINARY = ROOT / "build" / "echo_server"
IN_FLIGHT = 256
TARGETS = {"sequential": 1.4, "inflight": 1.8}
# Ratios to the same bare loop measured for other clients on this kind of machine.
REFERENCES = {
    "sequential": "vscode-jsonrpc 1.82x, pygls 17x",
    "inflight": "vscode-jsonrpc 3.6x, pygls 56x",
}
METHOD = "textDocument/hover"
PARAMS = {
    "textDocument": {"uri": "file:///home/user/project/src/module.py"},
    "position": {"line": 120, "character": 8},
}
DEFAULT_RUNS = 21
"""Rounds per workload, each running both clients back to back. On a shared machine noise
comes in bursts; the median of this many per-round ratios moves little from run to run."""
OTHER_TIMER = False
"""With ``--other-timer``: both clients run with one more asyncio timer armed, as a loop that
also runs a WebSocket keepalive (20 s, websockets' default ping interval) has."""
OTHER_TIMER_SECONDS = 20.0
MAX_GROWTH_BYTES = 1024 * 1024
"""The soak fails if the current RSS grows by more than this after warm-up."""


class Client(Protocol):
    """What a workload needs: one request, awaited."""

    async def request(self, method: str, params: Any = None) -> Any: ...


Workload = Callable[[Client, int], Awaitable[None]]


def build_server() -> Path:
    """Compile the echo server into build/ unless it is already newer than its source."""
    if BINARY.exists() and BINARY.stat().st_mtime >= SOURCE.stat().st_mtime:
        return BINARY
    BINARY.parent.mkdir(exist_ok=True)
    compiler = os.environ.get("CC", "cc")
    subprocess.run([compiler, "-O2", "-o", str(BINARY), str(SOURCE)], check=True)
    return BINARY


def server_command(cpu: int | None) -> list[str]:
    """The echo server's command line, pinned to ``cpu`` with taskset when one is given."""
    if cpu is None or shutil.which("taskset") is None:
        # Without taskset the server still inherits the client's affinity when pinned.
        return [str(BINARY)]
    return ["taskset", "-c", str(cpu), str(BINARY)]


@contextmanager
def pinned(cpu: int | None) -> Iterator[None]:
    """Run the client on ``cpu`` alone (and the servers it starts, which inherit it)."""
    if cpu is None:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def first_cpu() -> int | None:
    """The CPU to pin to, or None where affinity cannot be set."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    return min(os.sched_getaffinity(0))


# -- the ceiling -----------------------------------------------------------------------


class _BareProtocol(asyncio.Protocol):
    """Stdout straight to a find/int/loads loop that resolves futures by id."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.futures: dict[int, asyncio.Future[Any]] = {}
        self.buffer = b""
        self.closed: asyncio.Future[None] = loop.create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if hasattr(transport, "max_size"):
            transport.max_size = READ_SIZE  # the same read size as spawn_server, for fairness

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer + data if self.buffer else data
        futures = self.futures
        find = buffer.find
        loads = orjson.loads
        size = len(buffer)
        pos = 0
        while True:
            end = find(b"\r\n\r\n", pos)
            if end < 0:
                break
            start = end + 4
            stop = start + int(buffer[pos + 16 : end])
            if stop > size:
                break
            message = loads(buffer[start:stop])
            futures.pop(message["id"]).set_result(message.get("result"))
            pos = stop
        self.buffer = buffer[pos:]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


class BareClient:
    """The simplest fast correct client: no deadlines, no checks, no listeners.

    The server runs under ``subprocess.Popen`` and its pipes are joined to the event loop
    with ``connect_read_pipe`` and ``connect_write_pipe``, so each chunk of stdout reaches
    the protocol in the turn of the loop that read it.
    """

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        stdin: asyncio.WriteTransport,
        stdout: asyncio.ReadTransport,
        protocol: _BareProtocol,
    ) -> None:
        self._process = process
        self._stdin = stdin
        self._stdout = stdout
        self._protocol = protocol
        self._futures = protocol.futures
        self._next_id = 0
        self._loop = asyncio.get_running_loop()

    @classmethod
    async def start(cls, command: list[str]) -> BareClient:
        """Start the server and do the handshake."""
        loop = asyncio.get_running_loop()
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        assert process.stdin is not None
        assert process.stdout is not None
        protocol = _BareProtocol(loop)
        stdout, _ = await loop.connect_read_pipe(lambda: protocol, process.stdout)
        stdin, _ = await loop.connect_write_pipe(asyncio.Protocol, process.stdin)
        client = cls(process, stdin, stdout, protocol)
        await client.request("initialize", {"processId": None, "capabilities": {}})
        client.notify("initialized", {})
        return client

    def _write(self, message: dict[str, Any]) -> None:
        body = orjson.dumps(message)
        self._stdin.write(b"Content-Length: %d\r\n\r\n%b" % (len(body), body))

    def notify(self, method: str, params: Any = None) -> None:
        """Send a notification."""
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: Any = None) -> Any:
        """Send a request and wait for its result."""
        self._next_id = request_id = self._next_id + 1
        future = self._loop.create_future()
        self._futures[request_id] = future
        self._write({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return await future

    async def stop(self) -> None:
        """Shut the server down and wait for it to exit."""
        await self.request("shutdown")
        self.notify("exit")
        self._stdin.close()
        await self._protocol.closed
        self._stdout.close()
        await asyncio.get_running_loop().run_in_executor(None, self._process.wait)


# -- ours ------------------------------------------------------------------------------


class OurClient:
    """spawn_server + LspSession with its defaults (a 30 s deadline per request)."""

    def __init__(self, server: Any, session: LspSession) -> None:
        self._server = server
        self._session = session
        self.request = session.request

    @property
    def read_size(self) -> int | None:
        """How many bytes the event loop reads from the server's stdout at a time."""
        pipe = self._server._subprocess_transport.get_pipe_transport(1)
        return getattr(pipe, "max_size", None)

    @classmethod
    async def start(cls, command: list[str]) -> OurClient:
        """Start the server and do the handshake."""
        server = await spawn_server(command)
        session = LspSession(server.transport)
        await session.initialize()
        return cls(server, session)

    async def stop(self) -> None:
        """Shut the session down and stop the server."""
        await self._session.shutdown()
        await self._server.aclose()


# -- workloads -------------------------------------------------------------------------


async def sequential(client: Client, count: int) -> None:
    """``count`` requests, each sent when the one before it was answered."""
    request = client.request
    for _ in range(count):
        await request(METHOD, PARAMS)


async def in_flight(client: Client, count: int) -> None:
    """``count`` requests from IN_FLIGHT tasks, each awaiting its requests in a loop."""
    request = client.request

    async def worker(share: int) -> None:
        for _ in range(share):
            await request(METHOD, PARAMS)

    share, extra = divmod(count, IN_FLIGHT)
    await asyncio.gather(*(worker(share + (i < extra)) for i in range(IN_FLIGHT)))


def cpu_seconds(who: int) -> float:
    """User plus system CPU time of this process or of its reaped children."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


async def timed(
    start: Callable[[list[str]], Awaitable[Any]],
    command: list[str],
    workload: Workload,
    count: int,
) -> tuple[float, float]:
    """Start a client and server, run ``workload`` once; return wall and CPU seconds.

    The CPU time is the client's during the workload plus the server's whole life (read
    once it has been reaped), so other processes on the machine barely change it.
    """
    children = cpu_seconds(resource.RUSAGE_CHILDREN)
    client = await start(command)
    other_timer = None
    if OTHER_TIMER:
        # What a realistic loop has armed anyway: a keepalive ping, an application's tick.
        other_timer = asyncio.get_running_loop().call_later(OTHER_TIMER_SECONDS, lambda: None)
    try:
        gc.collect()
        began = time.perf_counter()
        own = cpu_seconds(resource.RUSAGE_SELF)
        await workload(client, count)
        wall = time.perf_counter() - began
        own = cpu_seconds(resource.RUSAGE_SELF) - own
    finally:
        if other_timer is not None:
            other_timer.cancel()
        await client.stop()
    return wall, own + cpu_seconds(resource.RUSAGE_CHILDREN) - children


async def compare(
    workload: Workload, count: int, runs: int, cpu: int | None
) -> dict[str, list[tuple[float, float]]]:
    """Wall and CPU time of each client in each of ``runs`` rounds, taking turns in each.

    The client that goes first alternates from round to round, so neither always runs
    after the other (warm caches, a server just exited).
    """
    command = server_command(cpu)
    starts: dict[str, Callable[[list[str]], Awaitable[Any]]] = {
        "bare": BareClient.start,
        "ours": OurClient.start,
    }
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in starts}
    with pinned(cpu):
        for round_number in range(runs):
            order = list(starts.items())
            if round_number % 2:
                order.reverse()
            for name, start in order:
                times[name].append(await timed(start, command, workload, count))
    return times


def report(title: str, count: int, times: dict[str, list[tuple[float, float]]], key: str) -> bool:
    """Print both clients' best times and the ratios; True if the target is met.

    Each round runs the two clients back to back, so the ratio of one round compares them
    under the same conditions; the target applies to the median of those ratios. On a
    shared machine, noise comes in bursts that can outlast a round, so the best round of
    one client may fall in a quiet spell the other never had: the ratio of the two bests is
    printed too, beside the CPU time (client and server together), which is what the wall
    time would be on an idle machine when both share one CPU.
    """
    bare = (min(wall for wall, _ in times["bare"]), min(used for _, used in times["bare"]))
    ours = (min(wall for wall, _ in times["ours"]), min(used for _, used in times["ours"]))
    target = TARGETS[key]
    print(f"\n{title}: {count:,} requests, best round of each")
    print(
        f"{'client':<34} {'time':>8} {'req/s':>8} {'us/req':>7} {'ratio':>6}"
        f"  {'CPU us/req':>10} {'ratio':>6}"
    )
    rows = [("bare asyncio + orjson (ceiling)", bare), ("spawn_server + LspSession", ours)]
    for name, (wall, used) in rows:
        print(
            f"{name:<34} {wall:>7.3f}s {count / wall:>8,.0f} {wall / count * 1e6:>7.1f} "
            f"{wall / bare[0]:>5.2f}x  {used / count * 1e6:>10.1f} {used / bare[1]:>5.2f}x"
        )
    paired = sorted(o[0] / b[0] for o, b in zip(times["ours"], times["bare"], strict=True))
    median = statistics.median(paired)
    print(
        f"ratio per round: median {median:.2f}x (target <= {target}x), "
        f"from {paired[0]:.2f}x to {paired[-1]:.2f}x over {len(paired)} rounds"
    )
    print(f"reference ratios to the same ceiling: {REFERENCES[key]}")
    return median <= target


async def run_sequential(count: int, runs: int) -> bool:
    """Workload (1): one request at a time, client and server on one CPU."""
    cpu = first_cpu()
    times = await compare(sequential, count, runs, cpu)
    pin = "unpinned" if cpu is None else f"client and server on CPU {cpu}"
    return report(f"(1) sequential, {pin}", count, times, "sequential")


async def run_inflight(count: int, runs: int) -> bool:
    """Workload (2): IN_FLIGHT requests at a time, unpinned."""
    times = await compare(in_flight, count, runs, None)
    return report(f"(2) {IN_FLIGHT} in flight", count, times, "inflight")


# -- soak ------------------------------------------------------------------------------


def current_rss() -> int:
    """The resident set size of this process now, in bytes (from /proc/self/statm)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def peak_rss() -> int:
    """The peak resident set size of this process, in bytes (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


async def run_soak(count: int) -> bool:
    """Workload (3): ``count`` requests through one session; memory every tenth of the way."""
    step = count // 10
    client = await OurClient.start(server_command(None))
    request = client.request
    done = 0
    began = time.perf_counter()
    # (requests, seconds, peak RSS, RSS now, objects the GC tracks)
    rows: list[tuple[int, float, int, int, int]] = []

    async def worker(share: int) -> None:
        nonlocal done
        for _ in range(share):
            await request(METHOD, PARAMS)
            done += 1
            if done % step == 0:
                elapsed = time.perf_counter() - began
                rows.append((done, elapsed, peak_rss(), current_rss(), len(gc.get_objects())))

    try:
        share, extra = divmod(count, IN_FLIGHT)
        await asyncio.gather(*(worker(share + (i < extra)) for i in range(IN_FLIGHT)))
    finally:
        await client.stop()
    print(f"\n(3) soak: {count:,} requests through one session, {IN_FLIGHT} in flight")
    header = ("requests", 10), ("elapsed", 9), ("req/s", 9), ("peak RSS", 12), ("RSS now", 12)
    print(" ".join(f"{name:>{width}}" for name, width in header), f"{'objects':>8}")
    for requests, elapsed, peak, now, objects in rows:
        print(
            f"{requests:>10,} {elapsed:>8.2f}s {requests / elapsed:>9,.0f} "
            f"{peak // 1024:>9,} KiB {now // 1024:>8,} KiB {objects:>8,}"
        )
    # The first tenth is the warm-up: caches, free lists and tables reach their size there.
    growth = rows[-1][3] - rows[0][3]
    peak_growth = rows[-1][2] - rows[0][2]
    print(
        f"growth after the first tenth: RSS {growth // 1024:+,} KiB, "
        f"peak {peak_growth // 1024:+,} KiB (target: under {MAX_GROWTH_BYTES // 1024:,} KiB)"
    )
    return growth <= MAX_GROWTH_BYTES and peak_growth <= MAX_GROWTH_BYTES


async def run(args: argparse.Namespace) -> bool:
    """Run the chosen workloads; True if every target is met."""
    runs = args.runs or (2 if args.quick else DEFAULT_RUNS)
    count = 2_000 if args.quick else 20_000
    probe = await OurClient.start(server_command(None))
    read_size = probe.read_size
    await probe.stop()
    print(
        f"Python {sys.version.split()[0]}, orjson {orjson.__version__}, {runs} rounds; "
        f"stdout read size: ours {read_size} B, bare {READ_SIZE} B"
    )
    met = []
    if args.workload in ("sequential", "all"):
        met.append(await run_sequential(count, runs))
    if args.workload in ("inflight", "all"):
        met.append(await run_inflight(count, runs))
    if args.workload in ("soak", "all"):
        met.append(await run_soak(50_000 if args.quick else 1_000_000))
    return all(met)


def main(argv: list[str] | None = None) -> int:
    """Run the chosen workloads; exit status 0 even when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "workload", nargs="?", choices=["sequential", "inflight", "soak", "all"], default="all"
    )
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument(
        "--runs", type=int, default=None, help=f"N rounds (default {DEFAULT_RUNS}, quick 2)"
    )
    parser.add_argument(
        "--other-timer",
        action="store_true",
        help="arm one more asyncio timer during each workload, as a realistic loop has",
    )
    args = parser.parse_args(argv)
    global OTHER_TIMER
    OTHER_TIMER = args.other_timer
    build_server()
    met = asyncio.run(run(args))
    print("\nall targets met" if met else "\nsome targets missed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
