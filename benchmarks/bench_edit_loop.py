"""The edit loop at the server's speed: what an edit costs when every file is open against
when only the edited file is, what the client adds to the server's own answers, a rename
beside serena's, and the hook beside a warm check of the files an edit can break.

    python benchmarks/bench_edit_loop.py [--rounds N] [--quick] [--no-serena] [--no-hook]

click 8.1.7 (its sdist from PyPI, 71 Python files; unpacked once into build/bench) and
basedpyright, through the MCP server in this process (the SDK's own client over its
in-memory transport, as ``bench_mcp.py``), every message with the server stamped as the
workspace traces it. Two workspaces on two copies of the tree, warm, their calls in turns,
each timed call once both workspaces' servers rest (under a tenth of a core for 0.2 s, 5 s
at most: an agent's calls come seconds apart, and a server still checking the other
workspace's last change would take a core from the call):

- **all open**: a ``diagnostics`` of the whole root first (every file open, its answers
  final), and every file kept open;
- **one open**: only the edited file open before each measured call (the files a call opens
  for its question are closed after it; the bench closes any other before the next call).

Three workloads, ``--rounds`` calls each (after one call of each to warm up), in each
workspace:

1. a one-line edit: a word of ``echo``'s docstring in ``src/click/utils.py``, two texts in
   turn;
2. an edit that breaks callers in files the session never opened: ``strip_ansi`` of
   ``src/click/_compat.py`` given a second, required parameter (its callers in
   ``_termui_impl.py``, ``termui.py`` and ``utils.py`` break), then put back;
3. ``apply_rename`` of ``src/click/utils.py#echo`` to ``echo_`` and back.

For each: the call's median wall time in each workspace and their ratio (all open / one open;
target at most 1.3), and what the client added to the server's own answers: the call less the
time some request of it was with the server (the union of each request's flight, the
rename and the pulls of the affected set; target at most 150 ms).

Beside them (``--no-serena`` leaves it out): serena's ``rename_symbol`` of ``echo`` in
``src/click/utils.py`` on a third copy, the same server, in the same run (the fidelity
harness installs serena under build/fidelity/peers); the target is ``apply_rename`` within
3x of it, its check of what the rename broke included.

And (``--no-hook`` leaves it out) the hook as Claude Code runs it, whole processes through a
daemon of the bench's own: after each edit of ``strip_ansi``'s signature in ``_compat.py``
(breaking its callers, then putting it back), ``adecore-lsp hook claude-code PostToolUse``
beside a warm ``adecore-lsp --daemon on check`` of the files the edit can break (its affected
set, the file and those that import it), first with only what the hook opened, then after a
``check`` of the whole root opened every file in the daemon. The target is the hook within the
check + 150 ms, whatever the daemon has open.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench_mcp import busy_time, click_tree
from bench_workspace import Tap, servers_on_path
from bench_workspace_scale import process_tree_cpu
from mcp import Client

from adecore_lsp.mcp.server import build
from adecore_lsp.mcp.state import Options, State
from adecore_lsp.workspace.checks.tree_imports import TreeImports

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "build" / "bench" / "edit-loop"
SERVER = "basedpyright"
UTILS = "src/click/utils.py"
COMPAT = "src/click/_compat.py"
DOCSTRING = (
    "    used instead of :func:`print` because it provides better support\n",
    "    used instead of :func:`print` because it gives better support\n",
)
BREAK = ("def strip_ansi(value: str) -> str:", "def strip_ansi(value: str, keep: bool) -> str:")
ECHO = "src/click/utils.py#echo"
RATIO_TARGET = 1.3
ADDED_TARGET = 0.150
SERENA_TARGET = 3.0
HOOK_MARGIN = 0.150
FIXTURE = ROOT / "tests" / "fixtures" / "hooks" / "claude-code__PostToolUse.json"


def fresh_copy(name: str) -> Path:
    """A copy of click's tree of its own, as the sdist has it."""
    source = click_tree()
    target = BENCH / name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)
    return target


class Side:
    """One workspace of the comparison: its MCP client, trace and root."""

    def __init__(self, name: str, root: Path, client: Any, tap: Tap, state: State) -> None:
        self.name = name
        self.root = root
        self.client = client
        self.tap = tap
        self.state = state
        self.calls: dict[str, list[float]] = {}
        self.added: dict[str, list[float]] = {}
        self.notes: dict[str, Any] = {}
        self.refused: list[str] = []
        """Renames refused (the server renamed the declaring file alone; issue 36)."""
        self.others: list[Side] = []
        """Every side of the run, this one too: a call is timed once their servers rest."""

    def server_pids(self) -> list[int]:
        workspace = self.state._workspace
        if workspace is None:
            return []
        found = (handle.status().pid for handle in workspace.server_choice.handles)
        return [pid for pid in found if pid is not None]

    async def call(self, workload: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if workload:
            await quiet(self.others)
        start = len(self.tap.lines)
        began = time.monotonic()
        result = await self.client.call_tool(tool, arguments)
        returned = time.monotonic()
        found: dict[str, Any] = result.structured_content or {}
        text = " ".join(getattr(part, "text", "") for part in result.content)
        if result.is_error and tool == "apply_rename" and "is refused" in text:
            self.refused.append(text)
            print(f"  ({self.name} {workload or 'back'}: refused: {text[:200]})")
            return {}
        if result.is_error or not found.get("applied"):
            raise SystemExit(f"{self.name}: {tool} failed: {result.content}")
        if not found.get("complete"):
            print(f"  ({self.name} {workload}: incomplete, not reached {found.get('not_reached')})")
        if workload:
            took = returned - began
            self.calls.setdefault(workload, []).append(took)
            self.added.setdefault(workload, []).append(took - busy_time(self.tap, start, returned))
            self.notes[workload] = (len(found.get("checked", [])), len(found.get("introduced", [])))
        return found

    def only(self, *kept: str) -> None:
        """Close every open file but ``kept`` (the one-open side, before a call)."""
        workspace = self.state._workspace
        if workspace is None:
            return
        keep = {workspace.paths.absolute(path) for path in kept}
        for _uri, known in list(workspace.open_files.items()):
            if known.path not in keep:
                workspace.open_files.close(known.path)


QUIET = 0.2
"""Seconds of next to no CPU the servers take before a timed call (at most QUIET_WAIT)."""
QUIET_WAIT = 5.0


async def quiet(sides: list[Side]) -> None:
    """Until the servers of every side rest: a server still checking what the last call of
    either workspace changed takes one of the two cores from the timed call (an agent's
    calls come seconds apart; the two workspaces side by side are the bench's own doing)."""
    pids = [pid for side in sides for pid in side.server_pids()]
    ends = time.monotonic() + QUIET_WAIT
    used = sum(process_tree_cpu(pid) for pid in pids)
    while time.monotonic() < ends:
        await asyncio.sleep(QUIET)
        now = sum(process_tree_cpu(pid) for pid in pids)
        if now - used < QUIET / 10:
            return
        used = now


def replaced(root: Path, path: str, old: str, new: str) -> None:
    """Check that ``old`` is there to be replaced (the bench's texts follow click 8.1.7)."""
    if old not in (root / path).read_text(encoding="utf-8"):
        raise SystemExit(f"{path} does not hold {old!r}: not click 8.1.7?")


async def workloads(sides: list[Side], rounds: int) -> None:
    def one_open(side: Side, *kept: str) -> None:
        if side.name == "one open":
            side.only(*kept)

    async def each(name: str, step: Callable[[Side, int], Awaitable[None]]) -> None:
        for turn in range(rounds + 1):
            for side in sides if turn % 2 else list(reversed(sides)):
                await step(side, turn)
                if not turn:  # the warm-up call is not counted
                    side.calls[name], side.added[name] = [], []

    async def docstring(side: Side, turn: int) -> None:
        one_open(side, UTILS)
        old, new = DOCSTRING[turn % 2], DOCSTRING[(turn + 1) % 2]
        edits = [{"old": old, "new": new}]
        await side.call("one-line edit", "edit", {"path": UTILS, "edits": edits})

    async def breaking(side: Side, turn: int) -> None:
        one_open(side, COMPAT)
        found = await side.call(
            "edit breaking callers",
            "edit",
            {"path": COMPAT, "edits": [{"old": BREAK[0], "new": BREAK[1]}]},
        )
        broken = {item["path"] for item in found["introduced"]} - {COMPAT}
        side.notes["broken"] = sorted(broken)
        one_open(side, COMPAT)
        await side.call("", "edit", {"path": COMPAT, "edits": [{"old": BREAK[1], "new": BREAK[0]}]})

    async def rename(side: Side, turn: int) -> None:
        one_open(side, UTILS)
        forth = {"target": ECHO, "new_name": "echo_"}
        done = await side.call("apply_rename", "apply_rename", forth)
        if not done:
            return  # refused: nothing was written, nothing to put back
        one_open(side, UTILS)
        back = {"target": "src/click/utils.py#echo_", "new_name": "echo"}
        await side.call("", "apply_rename", back)

    for side in sides:
        replaced(side.root, UTILS, DOCSTRING[0], DOCSTRING[1])
        replaced(side.root, COMPAT, BREAK[0], BREAK[1])
    await each("one-line edit", docstring)
    await each("edit breaking callers", breaking)
    await each("apply_rename", rename)


async def mcp_part(rounds: int) -> list[Side]:
    sides: list[Side] = []
    async with contextlib.AsyncExitStack() as stack:
        for name in ("all open", "one open"):
            root = fresh_copy(name.replace(" ", "-"))
            tap = Tap()
            states: list[State] = []
            app = build(
                Options(root=root, servers=[SERVER], trace=tap, log_level="ERROR", timeout=60),
                states,
            )
            client = await stack.enter_async_context(Client(app, mode="legacy", cache=None))
            paths = None if name == "all open" else [UTILS]
            first = await client.call_tool("diagnostics", {"paths": paths} if paths else {})
            if first.is_error:
                raise SystemExit(f"diagnostics failed: {first.content}")
            sides.append(Side(name, root, client, tap, states[0]))
        for side in sides:
            side.others = sides
        await workloads(sides, rounds)
    return sides


async def serena_part(rounds: int) -> list[float] | str:
    """serena's ``rename_symbol`` of ``echo`` and back, timed, on a copy of its own."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from fidelity.servers import for_language
    from fidelity.subject import SubjectFailed
    from fidelity.subjects.serena import Serena

    root = fresh_copy("serena")
    subject = Serena()
    times: list[float] = []
    try:
        await subject.start(root, for_language("python"))
        for turn in range(rounds + 1):
            for old, new in (("echo", "echo_"), ("echo_", "echo")):
                arguments = {"name_path": old, "relative_path": UTILS, "new_name": new}
                began = time.monotonic()
                await subject._call("rename_symbol", arguments)
                if old == "echo" and turn:
                    times.append(time.monotonic() - began)
    except SubjectFailed as error:
        return str(error)
    finally:
        await subject.stop()
    return times


# -- the hook -----------------------------------------------------------------------------------


def env_of(folder: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["ADECORE_LSP_RUNTIME_DIR"] = str(folder / "runtime")
    env["XDG_STATE_HOME"] = str(folder / "state")
    return env


def process(argv: list[str], root: Path, env: dict[str, str], given: str = "") -> float:
    began = time.perf_counter()
    done = subprocess.run(
        argv, cwd=root, env=env, input=given, capture_output=True, text=True, timeout=300
    )
    took = time.perf_counter() - began
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv[3:6])} failed ({done.returncode}): {done.stderr[-800:]}")
    return took


def hook_part(rounds: int) -> dict[str, list[float]]:
    root = fresh_copy("hook")
    (root / "adecore-lsp.toml").write_text(f'servers = ["{SERVER}"]\n', encoding="utf-8")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run(
            ["git", "-c", "user.name=b", "-c", "user.email=b@b", *args],
            cwd=root,
            check=True,
            capture_output=True,
        )
    folder = Path(tempfile.mkdtemp(prefix="bench-edit-loop-"))
    (folder / "runtime").mkdir(mode=0o700)
    env = env_of(folder)
    cli = [sys.executable, "-m", "adecore_lsp"]
    tree = TreeImports(root)
    tree.refresh()
    dependents = tree.dependents([str(root / COMPAT)])
    affected = [COMPAT, *(Path(path).relative_to(root).as_posix() for path in dependents)]
    figures: dict[str, list[float]] = {}
    path = root / COMPAT
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    try:
        process([*cli, "--daemon", "on", "check", COMPAT], root, env)  # the daemon, warm
        for state in ("what the hook opened", "every file open"):
            if state == "every file open":
                process([*cli, "--daemon", "on", "check"], root, env)
            for turn in range(2 * rounds + 2):
                old, new = BREAK[turn % 2], BREAK[(turn + 1) % 2]
                path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1))
                if turn % 2:
                    # The check after the same kind of edit (its server's own time included).
                    checked = process([*cli, "--daemon", "on", "check", *affected], root, env)
                    if turn > 1:
                        figures.setdefault(f"check, {state}", []).append(checked)
                    continue
                data = dict(fixture, session_id="bench", cwd=str(root), tool_name="Edit")
                data["tool_input"] = {"file_path": str(path), "old_string": old, "new_string": new}
                hooked = process(
                    [*cli, "hook", "claude-code", "PostToolUse"], root, env, json.dumps(data)
                )
                if turn > 1:
                    figures.setdefault(f"hook, {state}", []).append(hooked)
    finally:
        subprocess.run([*cli, "daemon", "stop"], cwd=root, env=env, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
    figures["affected"] = [float(len(affected))]
    return figures


# -- the report ---------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.0f} ms"


def spread(values: list[float]) -> str:
    """The least and the most of ``values``, for beside their median (a rename's added share
    swings with where a full garbage collection falls)."""
    return f"[{round(min(values) * 1000)}-{round(max(values) * 1000)}]"


def report(
    sides: list[Side], serena: list[float] | str | None, hook: dict[str, list[float]] | None
) -> None:
    if not sides:
        report_hook(hook)
        return
    every, one = sides
    print(
        "| workload | all open | one open | all / one (target ≤ 1.3) | added, all open | "
        "added, one open (target ≤ 150 ms) | files checked, introduced |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in every.calls:
        if not every.calls[name] or not one.calls[name]:
            # The side that answered still has its figures; the ratio has no other side.
            cells = [
                f"{ms(statistics.median(side.calls[name]))} (added "
                f"{ms(statistics.median(side.added[name]))})"
                if side.calls[name]
                else "every call refused (below)"
                for side in sides
            ]
            print(f"| {name} | {cells[0]} | {cells[1]} | no ratio | | | |")
            continue
        a, b = statistics.median(every.calls[name]), statistics.median(one.calls[name])
        added_a, added_b = statistics.median(every.added[name]), statistics.median(one.added[name])
        ratio = a / b
        mark = "met" if ratio <= RATIO_TARGET else "not met"
        added_mark = "met" if max(added_a, added_b) <= ADDED_TARGET else "not met"
        checked, introduced = one.notes.get(name, (0, 0))
        spread_a, spread_b = spread(every.added[name]), spread(one.added[name])
        print(
            f"| {name} | {ms(a)} | {ms(b)} | **{ratio:.2f}x** ({mark}) | {ms(added_a)} "
            f"{spread_a} | {ms(added_b)} {spread_b} ({added_mark}) | {checked}, {introduced} |"
        )
    print(f"\ncallers broken by the edit of {COMPAT}: {', '.join(one.notes.get('broken', []))}")
    for side in sides:
        if side.refused:
            print(f"{side.name}: {len(side.refused)} renames refused, as: {side.refused[0][:300]}")
    if serena is not None:
        if isinstance(serena, str):
            print(f"\nserena: {serena}")
        else:
            theirs = statistics.median(serena)
            renames = [
                statistics.median(side.calls["apply_rename"])
                for side in sides
                if side.calls["apply_rename"]  # a side whose every rename was refused: none
            ] or [0.0]
            ours, worst = min(renames), max(renames)
            print(
                f"\napply_rename {ms(ours)}-{ms(worst)} vs serena's rename_symbol {ms(theirs)}: "
                f"**{worst / theirs:.2f}x** (target ≤ {SERENA_TARGET:g}x: "
                f"{'met' if worst / theirs <= SERENA_TARGET else 'not met'})"
            )
    report_hook(hook)


def report_hook(hook: dict[str, list[float]] | None) -> None:
    if hook is not None:
        print(f"\nhook, affected set of {int(hook['affected'][0])} files:")
        print("| daemon | hook | check of the affected files | hook - check (target ≤ 150 ms) |")
        print("| --- | --- | --- | --- |")
        for state in ("what the hook opened", "every file open"):
            hooked = statistics.median(hook[f"hook, {state}"])
            checked = statistics.median(hook[f"check, {state}"])
            mark = "met" if hooked - checked <= HOOK_MARGIN else "not met"
            print(f"| {state} | {ms(hooked)} | {ms(checked)} | {ms(hooked - checked)} ({mark}) |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="two rounds, no serena, no hook")
    parser.add_argument("--no-serena", action="store_true")
    parser.add_argument("--no-hook", action="store_true")
    parser.add_argument("--only-hook", action="store_true", help="the hook's part alone")
    args = parser.parse_args()
    rounds = 2 if args.quick else args.rounds
    servers_on_path()
    if args.only_hook:
        report([], None, hook_part(rounds))
        return
    sides = asyncio.run(mcp_part(rounds))
    serena = None if args.quick or args.no_serena else asyncio.run(serena_part(rounds))
    hook = None if args.quick or args.no_hook else hook_part(rounds)
    report(sides, serena, hook)


if __name__ == "__main__":
    main()
