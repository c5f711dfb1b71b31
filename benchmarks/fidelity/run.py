"""The harness: every chosen subject through every scenario on every tree, scored, as JSON.

    python benchmarks/fidelity [--quick] [--subjects NAME ...] [--tree PATH --language L]
                               [--scripted] [--json FILE] [--seed N] [--render FILE]

Without ``--tree`` it runs on the pinned trees (``--quick``: one small tree per language);
``--tree`` runs the same scenarios on any tree, choosing its questions itself (``--seed``).
``--scripted`` runs on a small generated tree with the scripted server (CI's run).
``--render FILE`` writes the table of a run's JSON into ``docs/fidelity.md``.
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fidelity import questions, report, truth
from fidelity.peers import InstallFailed
from fidelity.scenarios import SCENARIOS, Case, SubjectFactory
from fidelity.scorer import Tally
from fidelity.servers import BIN, for_language, scripted, write_scripted_tree
from fidelity.subject import Server, Subject, SubjectFailed
from fidelity.trees import TREES, FetchFailed, fetch, git, source_files, workspace

SUBJECTS = {
    "adecore-lsp-mcp": "adecore_mcp",
    "adecore-lsp-cli": "adecore_cli",
    "adecore-lsp-cli-cold": "adecore_cli",
    "serena": "serena",
    "agent-lsp": "agent_lsp",
    "cli-lsp-client": "cli_lsp_client",
    "multilspy": "multilspy",
    "lsp-client": "lsp_client",
}
"""Every subject, by the name its row carries, and the module of its adapter."""

GROUPS = {"adecore-lsp": ["adecore-lsp-mcp", "adecore-lsp-cli"]}


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


def _case(label: str, pristine: Path, server: Server, seed: int, count: int) -> Case:
    files = source_files(pristine, server.language)
    symbols = questions.symbols(pristine, files, server.language, count, seed)
    if not symbols:
        raise truth.NoTruth(
            f"{label}: no {server.language} definition used from another file"
            f" among its {len(files)} source files: nothing to ask"
        )
    breaking = questions.break_of(pristine, files, server.language, seed)
    taken = {q.name for q in symbols} | ({breaking.name} if breaking else set())
    pool = questions.symbols(pristine, files, server.language, 50, seed + 7)
    others = [q for q in pool if q.name not in taken] + [q for q in pool if q.name in taken]
    renames = others[: max(1, count - 1)]

    def make(into: Path) -> Path:
        root = workspace(pristine, into)
        if breaking is not None:
            path = root / breaking.path
            text = path.read_text(encoding="utf-8")
            path.write_text(text.replace(breaking.old, breaking.new, 1), encoding="utf-8")
            git(root, "commit", "-q", "-am", "broken")
            git(root, "tag", "broken")
            git(root, "checkout", "-q", "base")
        return root

    return Case(label, pristine, server, symbols, renames, breaking, {}, make)


async def _settle_case(case: Case, scratch: Path) -> None:
    root = case.make_workspace(scratch / f"truth-{case.label.replace(' ', '-')}")
    case.references = await truth.references(root, case.server, case.symbols)


def cases(args: argparse.Namespace, scratch: Path) -> list[Case]:
    """The trees of this run, as cases (their truth still to settle)."""
    count = 3 if args.quick else 5
    if args.scripted:
        tree = write_scripted_tree(scratch / "scripted")
        return [_case("scripted", tree, scripted(), args.seed, count)]
    if args.tree:
        path = Path(args.tree).resolve()
        return [_case(path.name, path, for_language(args.language), args.seed, count)]
    chosen = [spec for spec in TREES if spec.quick or not args.quick]
    return [
        _case(spec.label, fetch(spec), for_language(spec.language), args.seed, count)
        for spec in chosen
    ]


async def run_subject(name: str, runs: list[Case], scratch: Path) -> dict[str, Any]:
    """One subject's entry of the JSON, printing each tree's scores as they come."""
    entry: dict[str, Any] = {"version": "unknown", "status": "measured", "notes": []}
    totals = {scenario: Tally() for scenario in SCENARIOS}
    trees: dict[str, Any] = {}
    reasons: list[str] = []
    made: list[Subject] = []

    def make() -> Subject:
        made.append(adapter())
        return made[-1]

    try:
        adapter = factory(name)
        entry["version"] = await adapter().version()
    except (SubjectFailed, InstallFailed) as error:
        entry["status"] = str(error) if str(error).startswith("not run") else f"not run: {error}"
        return {**entry, "scenarios": {s: t.as_json() for s, t in totals.items()}, "trees": {}}
    for case in runs:
        per_tree: dict[str, Any] = {}
        for scenario, play in SCENARIOS.items():
            folder = Path(tempfile.mkdtemp(dir=scratch))
            began = time.monotonic()
            try:
                outcome = await play(make, case, folder)
            except (SubjectFailed, InstallFailed, asyncio.TimeoutError) as error:
                text = str(error) or "did not start in time"
                reasons.append(f"{case.label}: {text}")
                print(f"  {name:22} {case.label:16} {scenario:16} not run: {text}", flush=True)
                break
            totals[scenario].merge(outcome.tally)
            per_tree[scenario] = outcome.tally.as_json()
            entry["notes"] += outcome.notes + [f"wrong: {w}" for w in outcome.tally.wrongs]
            entry["notes"] += [f"honest: {h}" for h in outcome.tally.honests]
            entry["notes"] = list(dict.fromkeys(entry["notes"]))
            tally = outcome.tally
            print(
                f"  {name:22} {case.label:16} {scenario:16} {tally.right} right {tally.honest}"
                f" honest {tally.wrong} wrong of {tally.asked}"
                f" ({time.monotonic() - began:.0f} s)",
                flush=True,
            )
        if per_tree:
            trees[case.label] = per_tree
    if not trees:
        entry["status"] = "not run: " + "; ".join(reasons)
    else:
        entry["notes"] += [f"not run on {reason}" for reason in reasons]
    said = dict.fromkeys(str(getattr(s, "note", "")) for s in made)
    entry["notes"] = [n for n in said if n] + entry["notes"]
    entry["scenarios"] = {s: t.as_json() for s, t in totals.items()}
    entry["trees"] = trees
    return entry


def chosen_subjects(names: list[str] | None) -> list[str]:
    """The subjects named (groups expanded), in the table's order; every one by default."""
    if not names:
        return list(SUBJECTS)
    wanted: list[str] = []
    for name in names:
        for one in GROUPS.get(name, [name]):
            if one not in SUBJECTS:
                raise SystemExit(f"unknown subject {one!r}: one of {', '.join(SUBJECTS)}")
            wanted.append(one)
    return list(dict.fromkeys(wanted))


async def main_async(args: argparse.Namespace, subjects: list[str]) -> dict[str, Any]:
    """Settle the truth of every tree, then run every subject."""
    with tempfile.TemporaryDirectory(prefix="fidelity-") as name:
        scratch = Path(name)
        runs = cases(args, scratch)
        for case in runs:
            print(f"{case.label}: settling the truth ({len(case.symbols)} symbols)", flush=True)
            await _settle_case(case, scratch)
        result: dict[str, Any] = {
            "trees": [case.label for case in runs],
            "quick": bool(args.quick),
            "seed": args.seed,
            "subjects": {},
        }
        for subject in subjects:
            result["subjects"][subject] = await run_subject(subject, runs, scratch)
        return result


def _interrupted(number: int, frame: object) -> None:
    """SIGTERM as Ctrl-C: the run unwinds, and each subject's ``stop`` ends its processes."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """The command line; exit 1 when a subject of this project gave a wrong answer."""
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
    try:
        result = asyncio.run(main_async(args, subjects))
    except (FetchFailed, truth.NoTruth) as error:
        print(f"fidelity: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fidelity: interrupted; every subject started was stopped", file=sys.stderr)
        return 130
    text = json.dumps(result, indent=2, sort_keys=True)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    print(report.summary(result))
    ours = [e for n, e in result["subjects"].items() if n.startswith("adecore-lsp")]
    return 1 if any(s["wrong"] for e in ours for s in e["scenarios"].values()) else 0
