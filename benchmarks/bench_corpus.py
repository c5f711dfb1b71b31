"""``adecore-lsp check`` of 26 PyPI sdists against ruff's and basedpyright's own command lines.

    python benchmarks/bench_corpus.py [--only NAME,...] [--servers ruff,basedpyright]
                                      [--targets root,folder,file] [--quick] [--keep DIR]

Each tree is a pinned sdist that ships its own configuration (``[tool.ruff]``,
``[tool.pyright]``; hatchling ships neither, and is here for its ``cli/build`` package),
fetched once with ``pip download --no-binary`` and unpacked in a temporary folder, outside
this repository (whose ``.gitignore`` must not apply). For each tree, server and target (the
tree's root; its tests folder; one test file named), in the tree's root:

- the server's own command line: ``ruff check --output-format json --no-cache --no-fix
  [PATH]`` (``--no-fix``: some trees set ``fix = true``) and ``ruff check --show-files`` for
  its files; ``basedpyright --outputjson [PATH]``, which counts its files;
- ``adecore-lsp check --server ID --format json --daemon off --timeout 3600 [PATH]``;

and the findings of both as (path, line, column, code): ruff's all, basedpyright's errors,
warnings and informations (its command line prints no hints), less ``reportImportCycles``,
which basedpyright's language server reports or not depending on the order it checks files
in. A row is equal when both sides found the same findings in the same files. For a
difference, the findings only one side has (a few of them, and their codes), and the
files only one side checked. Times are wall seconds of each side, and their ratio.

``--quick`` runs a small tree written here (no network), for the smoke test.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(tempfile.gettempdir()) / "adecore-lsp-bench-corpus"
"""Outside this repository, whose ``.gitignore`` ignores ``build/`` and would apply to a
tree under it."""
BIN = Path(sys.executable).parent
PIP_DOWNLOAD = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q"]
CHECK = [sys.executable, "-m", "adecore_lsp", "check", "--format", "json", "--no-progress"]
CHECK += ["--daemon", "off", "--timeout", "3600"]

TREES = {
    # configured for basedpyright (pyright's table) and ruff
    "attrs": "attrs==26.1.0",
    "click": "click==8.5.1",
    "flask": "flask==3.1.3",
    "itsdangerous": "itsdangerous==2.2.0",
    "jinja2": "jinja2==3.1.6",
    "markupsafe": "markupsafe==3.0.4",
    "pydantic": "pydantic==2.14.4",
    "pytest": "pytest==9.2.0",
    "requests": "requests==2.34.2",
    "trio": "trio==0.35.0",
    "werkzeug": "werkzeug==3.1.9",
    # configured for ruff
    "anyio": "anyio==4.16.0",
    "build": "build==1.6.1",
    "cattrs": "cattrs==26.2.1",
    "fastapi": "fastapi==0.165.0",
    "httpcore": "httpcore==1.0.9",
    "httpx": "httpx==0.29.0",
    "idna": "idna==3.21",
    "packaging": "packaging==26.4",
    "pluggy": "pluggy==1.7.0",
    "pydantic-settings": "pydantic-settings==2.16.3",
    "starlette": "starlette==1.10.0",
    "structlog": "structlog==26.1.0",
    "textual": "textual==8.2.8",
    "uvicorn": "uvicorn==0.55.0",
    # neither: the defaults, and a package named ``build``
    "hatchling": "hatchling==1.33.0",
}
NAMED = {"pydantic": "pydantic/mypy.py", "httpcore": "tests/_sync/test_connection.py"}
"""The file named for a tree where the first test file says less: pydantic's ``[tool.pyright]
exclude`` names ``pydantic/mypy.py`` (``basedpyright pydantic/mypy.py`` checks nothing);
httpcore's ``[tool.ruff] exclude`` names ``tests/_sync`` (``ruff check`` of a file named
lints it all the same, ``ruff server`` never does)."""
IGNORED_RULES = {"reportImportCycles"}

Finding = tuple[str, int, int, str]


@dataclass
class Side:
    """One side of a pair: its findings, files (a set, or a count), exit status and time."""

    findings: set[Finding]
    files: set[str] | int
    status: int
    seconds: float
    left_out: dict[str, str] = field(default_factory=dict)
    complete: bool = True
    error: str = ""
    names: dict[str, str] = field(default_factory=dict)
    """ruff's rule names by code, as its JSON gives both (its server may give the name)."""

    @property
    def file_count(self) -> int:
        return self.files if isinstance(self.files, int) else len(self.files)


def tree(name: str) -> Path:
    """The unpacked sdist of ``name`` (downloaded the first time)."""
    requirement = TREES[name]
    BENCH.mkdir(parents=True, exist_ok=True)
    archives = BENCH / "archives"
    pinned = requirement.split("==")[1]
    found = [a for a in archives.glob("*.tar.gz") if _sdist_of(a, name, pinned)]
    if not found:
        subprocess.run(
            [*PIP_DOWNLOAD, "--dest", str(archives), requirement], check=True, capture_output=True
        )
        found = [a for a in archives.glob("*.tar.gz") if _sdist_of(a, name, pinned)]
    archive = found[0]
    folder = BENCH / "trees" / archive.name.removesuffix(".tar.gz")
    if not (folder / "pyproject.toml").exists():
        with tarfile.open(archive) as tar:
            members = [m for m in tar.getmembers() if ".." not in Path(m.name).parts]
            tar.extractall(folder.parent, members=members, filter="data")
    return folder


def _sdist_of(archive: Path, name: str, version: str) -> bool:
    canonical = name.replace("-", "_").lower()
    return archive.name.lower() in (f"{canonical}-{version}.tar.gz", f"{name}-{version}.tar.gz")


def environment() -> dict[str, str]:
    """This environment's programs first (both sides find the same ``python``), no daemon."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADECORE_LSP")}
    env.update(PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", NO_COLOR="1")
    return env


def run(argv: list[str], root: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    began = time.perf_counter()
    done = subprocess.run(argv, cwd=root, capture_output=True, text=True, env=environment())
    return done, time.perf_counter() - began


def relative(path: str, root: Path) -> str:
    return Path(path).resolve().relative_to(root.resolve()).as_posix()


def ruff_cli(root: Path, paths: list[str]) -> Side:
    """``ruff check``'s findings and the files it checks (``pyproject.toml`` aside, which
    it lints for RUF200 and the registry's ruff does not take)."""
    done, seconds = run(
        [str(BIN / "ruff"), "check", "--output-format", "json", "--no-cache", "--no-fix", *paths],
        root,
    )
    if done.returncode not in (0, 1):
        return Side(set(), set(), done.returncode, seconds, error=done.stderr.strip()[-300:])
    document = json.loads(done.stdout)
    findings = {
        (
            relative(d["filename"], root),
            d["location"]["row"],
            d["location"]["column"],
            d["code"] or "syntax",
        )
        for d in document
    }
    names = {d["name"]: d["code"] for d in document if d.get("code") and d.get("name")}
    shown, _ = run([str(BIN / "ruff"), "check", "--show-files", "--no-cache", *paths], root)
    files = {
        relative(line, root)
        for line in shown.stdout.splitlines()
        if line.strip() and not line.endswith("pyproject.toml")
    }
    return Side(findings, files, done.returncode, seconds, names=names)


def basedpyright_cli(root: Path, paths: list[str]) -> Side:
    """``basedpyright``'s errors, warnings and informations, and how many files it checked."""
    done, seconds = run([str(BIN / "basedpyright"), "--outputjson", *paths], root)
    try:
        document = json.loads(done.stdout)
    except json.JSONDecodeError:
        return Side(set(), 0, done.returncode, seconds, error=(done.stdout + done.stderr)[-300:])
    findings = {
        (
            relative(d["file"], root),
            d["range"]["start"]["line"] + 1,
            d["range"]["start"]["character"] + 1,
            d.get("rule") or "",
        )
        for d in document["generalDiagnostics"]
        if d["severity"] in ("error", "warning", "information")
        and d.get("rule") not in IGNORED_RULES
    }
    return Side(findings, document["summary"]["filesAnalyzed"], done.returncode, seconds)


def ours(server: str, root: Path, paths: list[str]) -> Side:
    """``check --server ID``'s findings (hints aside for basedpyright), files and left-out
    files."""
    done, seconds = run([*CHECK, "--server", server, *paths], root)
    try:
        document = json.loads(done.stdout)
    except json.JSONDecodeError:
        return Side(set(), set(), done.returncode, seconds, error=done.stderr.strip()[-300:])
    findings = {
        (d["path"], d["line"], d["column"], d["code"] or ("syntax" if server == "ruff" else ""))
        for d in document["diagnostics"]
        if (server == "ruff" or d["severity"] != "hint") and d["code"] not in IGNORED_RULES
    }
    return Side(
        findings,
        set(document["files"]),
        done.returncode,
        seconds,
        left_out=document.get("left_out", {}),
        complete=document["complete"],
        error="" if document["complete"] else str(document["reason"]),
    )


def targets(root: Path, name: str, wanted: list[str]) -> list[tuple[str, list[str]]]:
    """The runs of a tree: its root, its tests folder, one test file named."""
    folder = next((f for f in ("tests", "testing", "test") if (root / f).is_dir()), None)
    chosen: list[tuple[str, list[str]]] = []
    if "root" in wanted:
        chosen.append(("root", []))
    if "folder" in wanted and folder:
        chosen.append((folder, [folder]))
    if "file" in wanted:
        named = NAMED.get(name)
        if named is None and folder:
            tests = sorted((root / folder).rglob("test_*.py"))
            named = tests[0].relative_to(root).as_posix() if tests else None
        if named:
            chosen.append((named, [named]))
    return chosen


def examples(findings: set[Finding]) -> str:
    codes = Counter(code or "?" for *_, code in findings).most_common(4)
    counted = ", ".join(f"{code} {count}" for code, count in codes)
    first = sorted(findings)[:3]
    shown = ", ".join(f"{path}:{line}:{col} {code}" for path, line, col, code in first)
    return f"{len(findings)} ({counted}): {shown}"


def compare(
    name: str, server: str, target: str, cli: Side, mine: Side
) -> tuple[bool, str, list[str]]:
    """Whether a pair is equal, its row, and the lines that explain a difference."""
    named = {f for f in mine.findings if f[3] in cli.names}
    mine.findings = (mine.findings - named) | {(*f[:3], cli.names[f[3]]) for f in named}
    same_files = (
        cli.files == mine.files if isinstance(cli.files, set) else cli.file_count == mine.file_count
    )
    equal = cli.findings == mine.findings and same_files and not cli.error and mine.complete
    ratio = mine.seconds / cli.seconds if cli.seconds else float("inf")
    row = (
        f"{name:<18} {server:<13} {target[:28]:<28} "
        f"{f'{len(cli.findings)} in {cli.file_count}':>14} "
        f"{f'{len(mine.findings)} in {mine.file_count}':>14} {'yes' if equal else 'NO':>5} "
        f"{cli.seconds:7.1f} {mine.seconds:7.1f} {ratio:6.2f}"
    )
    notes = []
    if cli.error:
        notes.append(f"the command line failed ({cli.status}): {cli.error}")
    if not mine.complete or mine.error:
        said = "incomplete" if not mine.complete else "says"
        notes.append(f"check (exit {mine.status}) {said}: {mine.error}")
    if mine.left_out:
        reasons = Counter(mine.left_out.values()).most_common(2)
        reasons = Counter(mine.left_out.values()).most_common(3)
        notes.append("check says: " + "; ".join(f"{n} files {why}" for why, n in reasons))
    if named:
        shown = sorted({f[3] for f in named})[:3]
        notes.append(f"check names {len(named)} findings by rule name ({', '.join(shown)})")
    if only := mine.findings - cli.findings:
        notes.append(f"only ours: {examples(only)}")
    if only := cli.findings - mine.findings:
        notes.append(f"only theirs: {examples(only)}")
    if isinstance(cli.files, set) and isinstance(mine.files, set):
        if extra := sorted(mine.files - cli.files):
            notes.append(f"files only ours checked: {len(extra)}: {', '.join(extra[:3])}")
        if missing := sorted(cli.files - mine.files):
            notes.append(f"files only theirs checked: {len(missing)}: {', '.join(missing[:3])}")
    elif not same_files:
        notes.append(f"files: theirs {cli.file_count}, ours {mine.file_count}")
    return equal, row, notes


def quick_tree() -> Path:
    """A small tree that ships its configuration, written here: ruff leaves ``gen`` out,
    pyright's ``include`` names ``src`` only, a package named ``build``."""
    root = BENCH / "trees" / "quick"
    shutil.rmtree(root, ignore_errors=True)
    files = {
        "pyproject.toml": (
            '[project]\nname = "quick"\nversion = "0"\n\n'
            '[tool.ruff]\nextend-exclude = ["gen"]\n\n'
            '[tool.ruff.lint]\nselect = ["F", "E"]\n\n'
            '[tool.pyright]\ninclude = ["src"]\n'
        ),
        "src/quick/__init__.py": "import os\n",
        "src/quick/build/__init__.py": "x: int = 'one'\n",
        "tests/test_quick.py": "import sys\n\n\ndef test_it() -> None:\n    y: str = 1\n",
        "gen/made.py": "import json\n",
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(TREES))
    parser.add_argument("--servers", default="ruff,basedpyright")
    parser.add_argument("--targets", default="root,folder,file")
    parser.add_argument("--quick", action="store_true", help="a small tree written here")
    parser.add_argument("--keep", help="write each pair's findings here (JSON), to read later")
    args = parser.parse_args()
    print(f"{'tree':<18} {'server':<13} {'target':<28} {'CLI':>14} {'check':>14} {'equal':>5}")
    print(f"{'':<75}  CLI s check s  ratio", flush=True)
    names = ["quick"] if args.quick else args.only.split(",")
    pairs = equal = 0
    for name in names:
        root = quick_tree() if args.quick else tree(name)
        for server in args.servers.split(","):
            for target, paths in targets(root, name, args.targets.split(",")):
                cli = ruff_cli(root, paths) if server == "ruff" else basedpyright_cli(root, paths)
                mine = ours(server, root, paths)
                same, row, notes = compare(name, server, target, cli, mine)
                pairs += 1
                equal += same
                print(row, flush=True)
                for note in notes:
                    print(f"    {note}", flush=True)
                if args.keep:
                    keep(Path(args.keep), name, server, target, cli, mine)
    print(f"{equal} of {pairs} pairs equal")
    return 0


def keep(folder: Path, name: str, server: str, target: str, cli: Side, mine: Side) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    slug = f"{name}-{server}-{target.replace('/', '_')}.json"
    document: dict[str, object] = {"tree": name, "server": server, "target": target}
    document |= {
        side: {
            "findings": sorted(s.findings),
            "files": sorted(s.files) if isinstance(s.files, set) else s.files,
            "left_out": s.left_out,
            "status": s.status,
            "seconds": s.seconds,
            "error": s.error,
        }
        for side, s in (("cli", cli), ("ours", mine))
    }
    (folder / slug).write_text(json.dumps(document, indent=1))


if __name__ == "__main__":
    raise SystemExit(main())
