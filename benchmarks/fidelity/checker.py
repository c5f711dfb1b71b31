"""The truth of diagnostics: the server's own command line on the disk as it stands
(``basedpyright --outputjson FILES``, ``tsc --noEmit -p .``, the scripted server's
``--check``), errors only, import cycles left out.

A command line that cannot run, or runs and says something other than findings (a fatal
error, a configuration it cannot read, a TypeScript project it cannot find), is no truth:
:class:`NoTruth`, with what it said. Reports are kept by the tree's digest, so a state of the
disk is checked once however many subjects are asked about it.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from fidelity.subject import Error, Server, import_cycle
from fidelity.trees import SKIPPED, digest, language_files, snapshot

CHECK_LIMIT = 900.0
"""The longest one run of a command line may take, in seconds."""
WHOLE_TREE = "fidelity-whole-tree.tsconfig.json"
"""The configuration the whole-tree check of a TypeScript tree writes beside its own."""


class NoTruth(Exception):
    """No truth for a question: the command line could not run or said it failed, the server
    never settled, or the two witnesses disagreed."""


@dataclass(frozen=True)
class Finding:
    """One error as the command line reports it."""

    path: str
    line: int
    column: int
    rule: str
    message: str


def relative(root: Path, address: str) -> str:
    """A URI or path as a path relative to ``root`` (absolute when outside it)."""
    raw = unquote(urlparse(address).path) if address.startswith("file:") else address
    path = Path(raw)
    path = (path if path.is_absolute() else root / path).resolve()
    try:
        return path.relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


_TSC_LINE = re.compile(
    r"^(?P<file>.+?)\((?P<line>\d+),(?P<column>\d+)\): error (?P<rule>TS\d+): (?P<message>.*)$"
)
_TSC_GLOBAL = re.compile(r"^error (TS\d+): (.*)$")


def _run(argv: list[str], root: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            argv, cwd=root, capture_output=True, text=True, timeout=CHECK_LIMIT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise NoTruth(f"{Path(argv[0]).name}: {error}") from error


def _tsc(root: Path, argv: list[str]) -> list[Finding]:
    done = _run(argv, root)
    found: list[Finding] = []
    for line in done.stdout.splitlines():
        matched = _TSC_LINE.match(line)
        if matched:
            where = relative(root, matched["file"])
            found.append(
                Finding(
                    where,
                    int(matched["line"]) - 1,
                    int(matched["column"]) - 1,
                    matched["rule"],
                    matched["message"],
                )
            )
        elif _TSC_GLOBAL.match(line):
            raise NoTruth(f"tsc cannot check the tree: {line.strip()[:300]}")
    if done.returncode not in (0, 1, 2) or (done.returncode and not found):
        said = (done.stdout or done.stderr).strip()[-300:]
        raise NoTruth(f"tsc exited {done.returncode} with no finding: {said}")
    return found


def _pyright_like(root: Path, argv: list[str], asked: int) -> list[Finding]:
    done = _run(argv, root)
    if done.returncode not in (0, 1):
        said = (done.stderr or done.stdout).strip()[-300:]
        raise NoTruth(f"{Path(argv[0]).name} exited {done.returncode}: {said}")
    try:
        report = json.loads(done.stdout)
    except ValueError as error:
        said = done.stderr.strip()[-300:]
        raise NoTruth(f"{Path(argv[0]).name}: no JSON report: {said}") from error
    summary = report.get("summary") or {}
    if asked and summary.get("filesAnalyzed", asked) == 0:
        raise NoTruth(f"{Path(argv[0]).name} analyzed none of the {asked} files asked")
    found: list[Finding] = []
    for item in report.get("generalDiagnostics", []):
        if item.get("severity") != "error":
            continue
        start = (item.get("range") or {}).get("start") or {"line": 0, "character": 0}
        found.append(
            Finding(
                relative(root, item["file"]),
                int(start["line"]),
                int(start["character"]),
                str(item.get("rule") or ""),
                str(item.get("message") or ""),
            )
        )
    return found


_reports: dict[tuple[str, str], dict[str, list[Finding]]] = {}
"""What the command line said of each file, by server and state of the tree (its digest):
a file is checked once per state, whichever question asks."""
_WHOLE = "\0whole"


def findings(root: Path, server: Server, paths: list[str] | None = None) -> list[Finding]:
    """The errors the command line reports, import cycles left out: in ``paths`` (Python:
    those files named; TypeScript: the project's own check) or, with None, in every file of
    the tree's language.

    Raises:
        NoTruth: the command line could not run or said it failed.
    """
    argv = list(server.check)
    if not argv:
        raise NoTruth(f"{server.id} has no command line to check files with")
    known = _reports.setdefault((server.id, digest(snapshot(root))), {})
    whole = paths is None
    if server.language == "python":
        wanted = language_files(root, "python") if whole else list(dict.fromkeys(paths or []))
        missing = [p for p in wanted if p not in known and (root / p).is_file()]
        if missing:
            for finding in _pyright_like(root, argv + missing, len(missing)):
                known.setdefault(finding.path, []).append(finding)
            for path in missing:
                known.setdefault(path, [])
        chosen = [f for p in wanted for f in known.get(p, [])]
    else:
        scope = _WHOLE if whole else ""
        if scope not in known:
            known[scope] = _whole_typescript(root, argv) if whole else _tsc(root, argv)
        chosen = [f for f in known[scope] if whole or f.path in set(paths or [])]
    return [f for f in chosen if not import_cycle(f.rule, f.message)]


def errors(root: Path, server: Server, paths: Iterable[str]) -> frozenset[Error]:
    """The errors of ``paths`` as (file, line, column), as the scorer compares them.

    Raises:
        NoTruth: the command line could not run or said it failed.
    """
    return frozenset((f.path, f.line, f.column) for f in findings(root, server, list(paths)))


def _whole_typescript(root: Path, argv: list[str]) -> list[Finding]:
    """tsc over every TypeScript file of the tree: a configuration extending the tree's own
    (its options kept) whose ``include`` is the whole tree."""
    config = root / WHOLE_TREE
    whole = {
        "extends": "./tsconfig.json",
        "compilerOptions": {"noEmit": True, "rootDir": ".", "composite": False},
        "include": ["**/*.ts", "**/*.tsx", "**/*.mts", "**/*.cts"],
        "exclude": sorted(SKIPPED),
    }
    config.write_text(json.dumps(whole, indent=2), encoding="utf-8")
    try:
        position = argv.index("-p") + 1 if "-p" in argv else len(argv)
        return _tsc(root, [*argv[:position], WHOLE_TREE, *argv[position + 1 :]])
    finally:
        config.unlink(missing_ok=True)


def same_errors(before: list[Finding], after: list[Finding], old: str, new: str) -> bool:
    """Whether two whole-tree reports hold the same errors once ``new`` is read as ``old``
    (a rename changes names and columns on the lines it touches, never an error)."""

    def counted(found: list[Finding], rename: bool) -> Counter[tuple[str, int, str]]:
        return Counter(
            (f.path, f.line, f.message.replace(new, old) if rename else f.message) for f in found
        )

    return counted(before, False) == counted(after, True)


def described(found: list[Finding], limit: int = 6) -> str:
    """A short list of findings, for a note."""
    shown = [f"{f.path}:{f.line + 1}: {f.message.splitlines()[0][:100]}" for f in found[:limit]]
    more = f" and {len(found) - limit} more" if len(found) > limit else ""
    return "; ".join(shown) + more
