"""Outside a git work tree, a root's listing leaves out what git would leave out: the same tree
listed by the library without ``.git`` and by ``git ls-files --exclude-standard`` inside a
fresh repository gives the same files, for anchored, ``*``, ``**``, negated and folder-only
patterns in nested ``.gitignore`` files."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adecore_lsp.workspace.disk.gitignore import _any_of, read_ignore_file
from adecore_lsp.workspace.disk.listing import root_files, tree_stock

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="compares with git")

IGNORES = {
    ".gitignore": (
        "# pydantic's: only the root's test files\n/test*.py\n"
        "*.log\n!important.log\n"
        "out/\n"  # folders only: a file named out stays
        "docs/**/*.tmp\n"
        "**/gen\n"
        "data/*\n!data/keep.csv\n"
        "logs/\n!logs/kept.log\n"  # a file in an ignored folder cannot be kept
        "\\#literal\n"
        "trailing\\ \n"
        "spaces   \n"  # trailing spaces are not part of the pattern
        "a/**/b.py\n"
        "file[12].py\n"
        "*.md\n"
        "doc/*.txt\n"
    ),
    "sub/.gitignore": "/local.py\n*.txt\n!keep.txt\ndeep/\n",
    "sub/nested/.gitignore": "!*.log\nother*\n!README.md\n",
}

FILES = [
    *("test_a.py", "tests/test_b.py", "sub/test_c.py", "testing/x.py"),
    *("app.log", "important.log", "sub/x/app.log", "sub/nested/n.log", "sub/nested/more/m.log"),
    *("out/x.py", "sub/out/y.py", "sub/deeper/out"),
    *("docs/a/b/c.tmp", "docs/c.tmp", "docs/c.py", "other/docs/c.tmp"),
    *("gen/x.py", "sub/gen/y.py", "sub/x/gen", "generated/z.py"),
    *("data/a.csv", "data/keep.csv", "data/more/b.csv", "sub/data/c.csv"),
    *("logs/kept.log", "logs/x.py"),
    *("#literal", "trailing ", "trailing", "spaces", "spaces  x"),
    *("a/b.py", "a/x/y/b.py", "a/c.py", "x/a/b.py"),
    *("file1.py", "file2.py", "file3.py", "sub/file1.py"),
    *("README.md", "sub/README.md", "sub/nested/README.md", "sub/nested/deep/README.md"),
    *("doc/a.txt", "doc/more/b.txt", "sub/doc/c.txt"),
    *("sub/local.py", "sub/nested/local.py", "sub/n.txt", "sub/keep.txt", "sub/nested/keep.txt"),
    *("sub/deep/z.py", "sub/nested/deep/z.py", "sub/nested/other1.py", "other2.py"),
    "app.py",
]


def git_listing(root: Path) -> list[str]:
    """What git lists of ``root`` as a fresh repository: every file it does not ignore."""
    home = root.parent / "home"
    home.mkdir(exist_ok=True)
    env = {
        **os.environ,
        **{"HOME": str(home), "XDG_CONFIG_HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"},
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    out = subprocess.run(
        ["git", "ls-files", "-z", "--others", "--exclude-standard"],
        cwd=root,
        env=env,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return sorted(name for name in out.split("\0") if name)


def make_tree(root: Path, ignores: dict[str, str], files: list[str]) -> None:
    for name, text in ignores.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x = 1\n", encoding="utf-8")


def our_listing(root: Path) -> list[str]:
    return sorted(path.relative_to(root).as_posix() for path in root_files(root, bool))


def stock_listing(root: Path) -> list[str]:
    return sorted(Path(path).relative_to(root).as_posix() for path in tree_stock(root))


def test_the_listing_outside_git_is_gits_listing(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    make_tree(root, IGNORES, FILES)
    ours = our_listing(root)
    stock = stock_listing(root)
    theirs = git_listing(root)
    assert ours == theirs
    assert stock == theirs
    # What the patterns are for, spelled out (git agrees with each, above).
    kept = {"tests/test_b.py", "sub/test_c.py", "sub/deeper/out", "sub/nested/n.log"}
    kept |= {"data/keep.csv", "sub/nested/local.py", "sub/nested/README.md"}
    dropped = {"test_a.py", "sub/out/y.py", "sub/x/app.log", "logs/kept.log", "sub/local.py"}
    dropped |= {"sub/nested/deep/README.md"}
    assert kept <= set(ours)
    assert not dropped & set(ours)


@pytest.mark.parametrize(
    ("ignores", "files"),
    [
        # Only what is listed: everything ignored, every folder and every .py kept again.
        ({".gitignore": "*\n!*/\n!*.py\n"}, ["top.py", "src/a.py", "src/b.txt", "src/d/c.py"]),
        # A folder kept by a nested file's `!d/` does not keep a file the root ignores.
        ({".gitignore": "*.py\n", "f/.gitignore": "!d/\n"}, ["f/d/x.py", "f/d/y.txt"]),
        # A folder kept again (`!x/`) keeps nothing an earlier folder pattern ignores in it.
        ({".gitignore": "d/\nx/\n!x/\n"}, ["x/d/a.py", "x/b.py"]),
        # `d/**` ignores what is in d, not d: a file in it can be kept again, unlike `d/`.
        ({".gitignore": "d/**\n!d/keep.txt\ne/\n!e/keep.txt\n"}, ["d/keep.txt", "e/keep.txt"]),
        # Lines git cannot use are skipped, not fatal.
        ({".gitignore": "[z-a]\nlone\\\n!\n*.log\n"}, ["a.log", "a.py", "lone\\"]),
    ],
)
def test_hard_cases_list_as_git_lists(
    tmp_path: Path, ignores: dict[str, str], files: list[str]
) -> None:
    root = tmp_path / "tree"
    make_tree(root, ignores, files)
    assert our_listing(root) == git_listing(root)


def test_a_folder_named_under_ignores_files_above_it(tmp_path: Path) -> None:
    """``root_files(under=...)`` reads the ``.gitignore`` files of the folders above ``under``."""
    root = tmp_path / "tree"
    make_tree(root, IGNORES, FILES)
    under = [p.relative_to(root).as_posix() for p in root_files(root, bool, root / "sub")]
    assert under == [name for name in git_listing(root) if name.startswith("sub/")]


def test_a_git_folder_git_cannot_read_keeps_its_own_excludes(tmp_path: Path) -> None:
    """A root with a ``.git`` folder git refuses (here: not a repository at all) still leaves
    out what its ``.git/info/exclude`` names, as git would."""
    root = tmp_path / "tree"
    make_tree(root, {".git/info/exclude": "*.log\n", "sub/.gitignore": "!keep.log\n"}, [])
    make_tree(root, {}, ["app.py", "app.log", "sub/keep.log", "sub/other.log"])
    assert our_listing(root) == ["app.py", "sub/.gitignore", "sub/keep.log"]


def test_one_search_rules_out_only_what_no_pattern_matches(tmp_path: Path) -> None:
    """The one expression that rules most paths out gives the verdicts the patterns give one
    by one, and is not built where it could not say the same."""
    root = tmp_path / "tree"
    make_tree(root, IGNORES, FILES)
    whole = read_ignore_file(root / ".gitignore", str(root))
    assert whole is not None
    assert whole.any_pattern is not None
    one_by_one = dataclasses.replace(whole, any_pattern=None)
    paths = [(str(root / name), False) for name in FILES]
    paths += [(str(root / name).rsplit("/", 1)[0], True) for name in FILES if "/" in name]
    verdicts = [whole.verdict(path, is_folder) for path, is_folder in paths]
    assert verdicts == [one_by_one.verdict(path, is_folder) for path, is_folder in paths]
    assert {None, True, False} == set(verdicts)
    assert _any_of([re.compile("a", re.IGNORECASE)]) is None
    assert _any_of([re.compile("[(?P<d>]+(?P<d>/)")]) is None


PARTS = st.sampled_from(["a", "b", "ab", "test_x.py", "x.log", "keep.py", "c.txt"])
PATTERNS = st.sampled_from(
    [
        *("a", "/a", "a/", "/a/", "b/a", "a/b", "*.py", "/*.py", "test*", "/test*.py"),
        *("**/b", "a/**", "a/**/c.txt", "**/a/*.log", "*", "!*/", "*/", "[ab]", "a?"),
        *("!a", "!*.py", "!/b", "!keep.py", "!a/", "!**/x.log", "b/*", "!b/keep.py", "*.log"),
        *("**", "/**", "**/", "a/**/", "!a/**", "!b/", "!/a/", "a/*/", "!a/*", "[!a]*"),
        *("!**/b/", "b/**/*.py", "*/b", "!*/b", "a/**/b/", "[z-a]", "\\", "!", "# a"),
    ]
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    files=st.lists(st.lists(PARTS, min_size=1, max_size=4), min_size=1, max_size=12),
    ignores=st.dictionaries(
        st.sampled_from(["", "a", "b", "a/b", "ab", "a/a", "b/a/b"]),
        st.lists(PATTERNS, min_size=1, max_size=5),
        min_size=1,
        max_size=3,
    ),
)
def test_any_mix_of_patterns_lists_as_git_lists(
    tmp_path_factory: pytest.TempPathFactory, files: list[list[str]], ignores: dict[str, list[str]]
) -> None:
    root = tmp_path_factory.mktemp("mix") / "tree"
    ignore_files = {
        f"{folder}/.gitignore".lstrip("/"): "\n".join(ps) for folder, ps in ignores.items()
    }
    names = ["/".join(parts) for parts in files]
    # A path cannot be both a file and a folder: keep the first of two that collide.
    kept: list[str] = []
    for name in names:
        if not any(
            name == other or name.startswith(other + "/") or other.startswith(name + "/")
            for other in [*kept, *(n.rsplit("/", 1)[0] for n in ignore_files if "/" in n)]
        ):
            kept.append(name)
    make_tree(root, ignore_files, kept)
    assert our_listing(root) == git_listing(root)
