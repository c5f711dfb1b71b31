"""The real trees the scenarios run on: fetched from the package registries by pinned version,
unpacked once into a cache, copied afresh for each subject into a git repository tagged
``base`` (the tree as published).

A tree of the user's own (``--tree PATH --language ...``) takes the same road: copied, never
touched in place. A TypeScript tree with no ``tsconfig.json`` of its own gets the harness's
(:data:`TSCONFIG`) in the copy, and the run says so.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from fidelity.peers import ROOT

CACHE = ROOT / "build" / "fidelity" / "trees"

SKIPPED = {".git", "node_modules", "dist", "build", "__pycache__", ".venv", ".tox"}
"""Folders a copy leaves out: built output, installed packages, another repository."""

TSCONFIG = {
    "compilerOptions": {
        "strict": True,
        "target": "es2020",
        "module": "esnext",
        "moduleResolution": "bundler",
        "lib": ["es2020", "dom"],
        "noEmit": True,
        "skipLibCheck": True,
    },
    "include": ["**/*.ts", "**/*.tsx"],
    "exclude": ["node_modules", "dist", "build"],
}
"""Written into the copy of a TypeScript tree that has no ``tsconfig.json`` of its own (npm
packages rarely ship one): every ``.ts`` file checked strictly, as a package's build would."""
TSCONFIG_NOTE = "no tsconfig.json of its own: the harness wrote one (strict, every .ts file)"

LANGUAGE_SUFFIXES = {"python": (".py", ".pyi"), "typescript": (".ts", ".tsx", ".mts", ".cts")}
IGNORED_PARTS = {".git", "__pycache__", "node_modules", ".mypy_cache", ".ruff_cache"}
FETCHED = "fetched v2"
"""The cache's marker: a tree fetched by an older harness (which wrote a tsconfig.json into
the cache) is fetched again."""


@dataclass(frozen=True)
class TreeSpec:
    """A pinned tree: where it comes from and what language it is checked as."""

    name: str
    language: str
    registry: str
    """``pypi`` (an sdist) or ``npm`` (a package tarball that ships its ``.ts`` sources)."""
    version: str
    quick: bool
    """Part of ``--quick`` (one small tree per language)."""

    @property
    def label(self) -> str:
        """``name version``, as the tables print it."""
        return f"{self.name} {self.version}"


TREES = (
    TreeSpec("tomli", "python", "pypi", "2.0.1", quick=True),
    TreeSpec("click", "python", "pypi", "8.1.7", quick=False),
    TreeSpec("immer", "typescript", "npm", "10.1.1", quick=True),
    TreeSpec("mobx", "typescript", "npm", "6.12.0", quick=False),
)


class FetchFailed(Exception):
    """The tree could not be fetched from its registry."""


def _run(argv: list[str], cwd: Path | None = None, timeout: float = 600) -> str:
    done = subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        raise FetchFailed(f"{' '.join(argv[:3])}: {(done.stderr or done.stdout).strip()[-300:]}")
    return done.stdout


def _unpack(archive: Path, into: Path) -> None:
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")


def fetch(spec: TreeSpec) -> Path:
    """The pristine tree of ``spec``, downloaded and unpacked on first use.

    Raises:
        FetchFailed: the registry refused or is out of reach.
    """
    target = CACHE / f"{spec.name}-{spec.version}"
    marker = target / ".fetched"
    if marker.is_file() and marker.read_text(encoding="utf-8") == FETCHED:
        return target
    shutil.rmtree(target, ignore_errors=True)
    with tempfile.TemporaryDirectory() as name:
        scratch = Path(name)
        if spec.registry == "pypi":
            pip = [str(ROOT / ".venv" / "bin" / "python"), "-m", "pip", "download", "--no-deps"]
            _run([*pip, "--no-binary", ":all:", f"{spec.name}=={spec.version}", "-d", name])
        else:
            _run(["npm", "pack", "--silent", f"{spec.name}@{spec.version}"], cwd=scratch)
        archives = [p for p in scratch.iterdir() if p.name.endswith((".tar.gz", ".tgz"))]
        if len(archives) != 1:
            raise FetchFailed(f"{spec.label}: no single archive downloaded ({archives})")
        unpacked = scratch / "unpacked"
        _unpack(archives[0], unpacked)
        (top,) = list(unpacked.iterdir())
        copy_tree(top, target)
    marker.write_text(FETCHED, encoding="utf-8")
    return target


def copy_tree(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target``, leaving out :data:`SKIPPED` folders and symlinks that
    point outside it."""

    def ignored(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if n in SKIPPED or n == ".fetched"}

    shutil.copytree(source, target, ignore=ignored, symlinks=False)


def read_text(path: Path) -> str:
    """``path``'s UTF-8 text with its line ends as on disk (``read_text`` would turn ``\\r\\n``
    into ``\\n``, and a truth or a write built on it would change lines nobody edited)."""
    return path.read_bytes().decode("utf-8")


def write_text(path: Path, text: str) -> None:
    """Write ``text`` as UTF-8, byte for byte (no line-end translation)."""
    path.write_bytes(text.encode("utf-8"))


def git(root: Path, *arguments: str) -> str:
    """Run git in ``root`` with a fixed identity and no user configuration."""
    env_free = [
        "git",
        "-c",
        "user.name=fidelity",
        "-c",
        "user.email=fidelity@localhost",
        "-c",
        "commit.gpgsign=false",
        "-c",
        "init.defaultBranch=main",
        *arguments,
    ]
    return _run(env_free, cwd=root)


def source_files(root: Path, language: str) -> list[str]:
    """The tree's source files of ``language``, relative with ``/``, sorted (tests and
    declaration files left out: the questions are about the package's own code)."""
    suffixes = (".py",) if language == "python" else (".ts", ".tsx")
    found = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        parts = set(relative.split("/"))
        if not path.is_file() or parts & SKIPPED or relative.endswith(".d.ts"):
            continue
        if parts & {"tests", "test", "__tests__", "docs", "examples"}:
            continue
        if path.suffix in suffixes:
            found.append(relative)
    return found


def language_files(root: Path, language: str) -> list[str]:
    """Every file of ``language`` in the tree, tests, examples and declarations included (the
    places a use can be), relative with ``/``, sorted; built output and installed packages
    left out."""
    suffixes = LANGUAGE_SUFFIXES[language]
    found = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        parts = relative.parts
        if set(parts) & (SKIPPED | IGNORED_PARTS) or any(p.startswith(".") for p in parts[:-1]):
            continue
        if path.suffix in suffixes and path.is_file() and not path.is_symlink():
            found.append(relative.as_posix())
    return found


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the tree and its bytes (repository, cache and hidden tool folders left
    out)."""
    files = {}
    for path in root.rglob("*"):
        relative_path = path.relative_to(root)
        parts = relative_path.parts
        if not path.is_file() or IGNORED_PARTS & set(parts):
            continue
        if any(part.startswith(".") for part in parts[:-1]):
            continue
        files[relative_path.as_posix()] = path.read_bytes()
    return files


def digest(files: dict[str, bytes]) -> str:
    """One hash of a snapshot: equal trees, equal digests."""
    hashed = hashlib.sha256()
    for path in sorted(files):
        hashed.update(path.encode() + b"\0" + hashlib.sha256(files[path]).digest())
    return hashed.hexdigest()


def own_tsconfig(root: Path, language: str) -> str | None:
    """Write the harness's :data:`TSCONFIG` into a TypeScript tree that has none; what the run
    should say about it (None when nothing was written)."""
    if language != "typescript" or (root / "tsconfig.json").is_file():
        return None
    (root / "tsconfig.json").write_text(json.dumps(TSCONFIG, indent=2) + "\n", encoding="utf-8")
    return TSCONFIG_NOTE


def workspace(pristine: Path, into: Path, language: str = "python") -> Path:
    """A git repository at ``into`` holding a copy of ``pristine`` (with the harness's
    tsconfig.json where a TypeScript tree has none), committed as ``base``."""
    copy_tree(pristine, into)
    own_tsconfig(into, language)
    git(into, "init", "-q")
    git(into, "add", "-A")
    git(into, "commit", "-q", "-m", "base")
    git(into, "tag", "base")
    return into
