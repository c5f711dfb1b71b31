"""The harness: every chosen subject, and the two negative controls, through every scenario on
every tree, scored, as JSON.

    python benchmarks/fidelity [--quick] [--subjects NAME ...] [--tree PATH --language L]
                               [--scripted] [--json FILE] [--seed N] [--render FILE]

Without ``--tree`` it runs on the pinned trees (``--quick``: one small tree per language);
``--tree`` runs the same scenarios on any tree, choosing its questions itself (``--seed``).
``--scripted`` runs on a small generated tree with the scripted server (CI's run).
``--render FILE`` writes the table of a run's JSON into ``docs/fidelity.md``.

Exit status: 0 when this project's subjects answered every question asked right; 1 when one
of them answered a question otherwise; 2 when the run cannot be trusted (a question with no
truth, a kill that missed, a negative control scoring a right answer, a tree with nothing to
ask).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import json
import os
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fidelity import case as cases_
from fidelity import report
from fidelity.case import Case
from fidelity.checker import NoTruth
from fidelity.peers import InstallFailed
from fidelity.scenarios import COLUMNS, SCENARIOS, SubjectFactory
from fidelity.scorer import Tally
from fidelity.servers import BIN, for_language, scripted, write_scripted_tree
from fidelity.subject import Subject, SubjectFailed
from fidelity.trees import TREES, FetchFailed, fetch

SUBJECTS = {
    "adecore-lsp-mcp": "adecore_mcp",
    "adecore-lsp-cli": "adecore_cli",
    "adecore-lsp-cli-cold": "adecore_cli",
    "serena": "serena",
    "agent-lsp": "agent_lsp",
    "cli-lsp-client": "cli_lsp_client",
    "multilspy": "multilspy",
    "lsp-client": "lsp_client",
    "lsp-client-settled": "lsp_client",
    "control-empty": "controls",
    "control-honest": "controls",
}
"""Every subject, by the name its row carries, and the module of its adapter."""

CONTROLS = ["control-empty", "control-honest"]
"""The negative controls: part of every run, each must score 0 right."""
GROUPS = {"adecore-lsp": ["adecore-lsp-mcp", "adecore-lsp-cli"]}
OURS = "adecore-lsp"


def factory(name: str) -> SubjectFactory:
    """The adapter class of subject ``name``.

    Raises:
        SubjectFailed: its adapter does not import here.
    """
    try:
        module = importlib.import_module(f"fidelity.subjects.{SUBJECTS[name]}")
    except ImportError as error:
        raise SubjectFailed(f"not run: its adapter does not import: {error}") from error
    for _, value in inspect.getmembers(module, inspect.isclass):
        if issubclass(value, Subject) and value.name == name:
            made: Callable[[], Subject] = value
            return made
    raise SubjectFailed(f"not run: no adapter named {name} in {module.__name__}")


async def cases(args: argparse.Namespace, scratch: Path) -> list[Case]:
    """The trees of this run, their truth settled."""
    count = 3 if args.quick else 5
    if args.scripted:
        trees = [("scripted", write_scripted_tree(scratch / "scripted"), scripted())]
    elif args.tree:
        path = Path(args.tree).resolve()
        trees = [(path.name, path, for_language(args.language))]
    else:
        chosen = [spec for spec in TREES if spec.quick or not args.quick]
        trees = [(spec.label, fetch(spec), for_language(spec.language)) for spec in chosen]
    settled = []
    for label, pristine, server in trees:
        print(f"{label}: settling the truth with {server.id}", flush=True)
        case = await cases_.settle(label, pristine, server, args.seed, count, scratch)
        counted = ", ".join(f"{k} {v}" for k, v in cases_.counts(case).items())
        print(
            f"{label}: truth settled in {case.seconds:.0f} s: {counted};"
            f" {len(case.dropped)} candidates dropped",
            flush=True,
        )
        for note in case.notes:
            print(f"  {note}", flush=True)
        settled.append(case)
    return settled


class Row:
    """One row of the results: a subject as given the case's server, or as scored against
    the server it runs instead."""

    def __init__(self, version: str, server_note: str = "") -> None:
        self.entry: dict[str, Any] = {
            "version": version,
            "status": "measured",
            "notes": [server_note] if server_note else [],
            "failures": [],
            "not_run": [],
            "trees": {},
        }
        self.totals = {column: Tally() for column in COLUMNS}

    def add(self, label: str, column: str, tally: Tally) -> None:
        """Count a column's tally of one tree."""
        self.totals[column].merge(tally)
        self.entry["trees"].setdefault(label, {})[column] = tally.as_json()
        self.entry["notes"] += tally.notes

    def finish(self) -> dict[str, Any]:
        """The row's entry of the JSON."""
        entry = self.entry
        entry["notes"] = list(dict.fromkeys(entry["notes"]))
        entry["scenarios"] = {column: t.as_json() for column, t in self.totals.items()}
        renames = Tally()
        renames.merge(self.totals["rename_first"])
        renames.merge(self.totals["rename_after_checkout"])
        entry["scenarios"]["rename"] = renames.as_json()
        if not entry["trees"] and entry["not_run"]:
            entry["status"] = "not run: " + "; ".join(entry["not_run"])
        return entry


async def run_subject(
    name: str, runs: list[Case], scratch: Path, own_cases: dict[tuple[str, str], Case]
) -> dict[str, dict[str, Any]]:
    """One subject's rows of the JSON (a second row when it runs a server of its own on some
    tree), printing each tree's scores as they come."""
    made: list[Subject] = []
    try:
        adapter = factory(name)
        version = await adapter().version()
    except (SubjectFailed, InstallFailed) as error:
        text = str(error) if str(error).startswith("not run") else f"not run: {error}"
        row = Row("unknown")
        row.entry["not_run"].append(text.removeprefix("not run: "))
        return {name: row.finish()}

    def make() -> Subject:
        made.append(adapter())
        return made[-1]

    rows: dict[str, Row] = {}
    for case in runs:
        try:
            own = await adapter().own_server(case.server)
        except (SubjectFailed, InstallFailed) as error:
            rows.setdefault(name, Row(version)).entry["not_run"].append(f"{case.label}: {error}")
            continue
        row_name, asked, note = name, case, ""
        if own is not None:
            row_name = f"{name} ({own.id})"
            key = (case.label, own.id)
            if key not in own_cases:
                print(f"{case.label}: settling {own.id}'s own truth for {name}", flush=True)
                try:
                    own_cases[key] = await cases_.settle_for(case, own, scratch)
                except NoTruth as error:
                    row = rows.setdefault(row_name, Row(version))
                    row.entry["failures"].append(f"{case.label}: {own.id}'s own truth: {error}")
                    continue
            asked = own_cases[key]
            note = (
                f"scored against {own.id}'s own settled truth: it cannot be given {case.server.id}"
            )
        row = rows.setdefault(row_name, Row(version, note))
        await _run_case(name, make, asked, row, scratch)
    said = dict.fromkeys(str(getattr(s, "note", "")) for s in made)
    finished = {}
    for row_name, row in (rows or {name: Row(version)}).items():
        row.entry["notes"] = [n for n in said if n] + row.entry["notes"]
        finished[row_name] = row.finish()
    return finished


async def _run_case(name: str, make: SubjectFactory, case: Case, row: Row, scratch: Path) -> None:
    for scenario, play in SCENARIOS.items():
        folder = Path(tempfile.mkdtemp(dir=scratch))
        began = time.monotonic()
        try:
            outcome = await play(make, case, folder)
        except (SubjectFailed, InstallFailed, asyncio.TimeoutError) as error:
            text = str(error) or "did not start in time"
            row.entry["not_run"].append(f"{case.label}: {scenario}: {text}")
            print(f"  {name:22} {case.label:16} {scenario:16} not run: {text}", flush=True)
            continue
        except Exception as error:  # an adapter's bug is the harness's failure, not a score
            where = traceback.extract_tb(error.__traceback__)[-1]
            text = (
                f"{case.label}: {scenario}: {type(error).__name__}: {error}"
                f" ({Path(where.filename).name}:{where.lineno})"
            )
            row.entry["failures"].append(text)
            print(f"  HARNESS FAILURE: {name}: {text}", flush=True)
            continue
        row.entry["failures"] += outcome.failures
        row.entry["notes"] += outcome.notes
        for column, tally in outcome.tallies.items():
            if tally.asked or tally.not_asked:
                row.add(case.label, column, tally)
                print(
                    f"  {name:22} {case.label:16} {column:22} {report.counted(tally.as_json())}"
                    f" ({time.monotonic() - began:.0f} s)",
                    flush=True,
                )


def chosen_subjects(names: list[str] | None) -> list[str]:
    """The subjects named (groups expanded), in the table's order, and the negative controls;
    every subject by default."""
    if not names:
        return list(SUBJECTS)
    wanted: list[str] = []
    for name in names:
        for one in GROUPS.get(name, [name]):
            if one not in SUBJECTS:
                raise SystemExit(f"unknown subject {one!r}: one of {', '.join(SUBJECTS)}")
            wanted.append(one)
    return list(dict.fromkeys(wanted + CONTROLS))


async def main_async(args: argparse.Namespace, subjects: list[str]) -> dict[str, Any]:
    """Settle the truth of every tree, then run every subject."""
    with tempfile.TemporaryDirectory(prefix="fidelity-") as name:
        scratch = Path(name)
        runs = await cases(args, scratch)
        result: dict[str, Any] = {
            "trees": [case.label for case in runs],
            "quick": bool(args.quick),
            "seed": args.seed,
            "questions": {case.label: cases_.counts(case) for case in runs},
            "truth_seconds": {case.label: round(case.seconds, 1) for case in runs},
            "dropped": {case.label: case.dropped for case in runs},
            "tree_notes": [note for case in runs for note in case.notes],
            "subjects": {},
        }
        own_cases: dict[tuple[str, str], Case] = {}
        for subject in subjects:
            began = time.monotonic()
            try:
                rows = await run_subject(subject, runs, scratch, own_cases)
            except Exception as error:  # the harness's own bug: said, and the run goes on
                text = f"{type(error).__name__}: {error}"
                rows = {subject: {**Row("unknown").finish(), "status": f"not run: {text}"}}
                rows[subject]["failures"].append(text)
                traceback.print_exc()
            for row in rows.values():
                row["seconds"] = round(time.monotonic() - began, 1)
            result["subjects"].update(rows)
            if args.json:
                partial = json.dumps({**result, "partial": True}, indent=2, sort_keys=True)
                Path(args.json).write_text(partial + "\n", encoding="utf-8")
        for (label, server_id), other in own_cases.items():
            result["dropped"][f"{label} ({server_id})"] = other.dropped
        return result


def verdict(result: dict[str, Any]) -> tuple[int, list[str]]:
    """The run's exit status and why: 2 when the run cannot be trusted, 1 when one of this
    project's subjects answered a question asked otherwise than right, else 0."""
    why: list[str] = []
    for name, entry in result["subjects"].items():
        for failure in entry.get("failures", []):
            why.append(f"{name}: harness failure: {failure}")
        if name in CONTROLS:
            scored = report.totals(entry)
            if scored["right"] or not scored["asked"]:
                why.append(
                    f"{name}: a negative control scored {scored['right']} right of"
                    f" {scored['asked']} asked ({entry['status']})"
                )
    if why:
        return 2, why
    for name, entry in result["subjects"].items():
        if not name.startswith(OURS):
            continue
        scored = report.totals(entry)
        if scored["right"] < scored["asked"] or entry["not_run"] or not scored["asked"]:
            why.append(f"{name}: {scored['right']} right of {scored['asked']} asked")
    return (1 if why else 0), why


def _interrupted(number: int, frame: object) -> None:
    """SIGTERM as Ctrl-C: the run unwinds, and each subject's ``stop`` ends its processes."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """The command line (exit status: see the module)."""
    parser = argparse.ArgumentParser(prog="fidelity", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="one small tree per language")
    parser.add_argument("--subjects", nargs="+", help="subjects or groups (adecore-lsp)")
    parser.add_argument("--tree", help="a tree of your own")
    parser.add_argument("--language", choices=["python", "typescript"])
    parser.add_argument("--scripted", action="store_true", help="the scripted server's tree")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--render", help="write this run's JSON as docs/fidelity.md's table")
    args = parser.parse_args(argv)
    if args.render:
        report.render(json.loads(Path(args.render).read_text(encoding="utf-8")))
        return 0
    if args.tree and not args.language:
        parser.error("--tree needs --language python|typescript")
    if args.tree and not Path(args.tree).is_dir():
        parser.error(f"--tree {args.tree}: not a folder")
    subjects = chosen_subjects(args.subjects)
    # Every subject, the truth and the harness's own client see one environment: the
    # project's servers and their Python first on PATH (basedpyright resolves imports with
    # the ``python`` it finds there, so two environments would be two truths).
    os.environ["PATH"] = os.pathsep.join([str(BIN), os.environ.get("PATH", os.defpath)])
    signal.signal(signal.SIGTERM, _interrupted)
    began = time.monotonic()
    try:
        result = asyncio.run(main_async(args, subjects))
    except (FetchFailed, NoTruth) as error:
        print(f"fidelity: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fidelity: interrupted; every subject started was stopped", file=sys.stderr)
        return 130
    result["seconds"] = round(time.monotonic() - began, 1)
    status, why = verdict(result)
    result["exit_status"] = status
    text = json.dumps(result, indent=2, sort_keys=True)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    print(report.summary(result))
    for line in why:
        print(f"fidelity: {line}", file=sys.stderr)
    return status
