"""Roots without I/O: the folder each server runs from for a file by its registry policy, and
the repository a command stands in, from file names and configuration texts in a dict. The
real servers' answers on monorepos are in ``tests/cli/test_monorepo.py``."""

from __future__ import annotations

import pytest

from adecore_lsp.protocol.workspace.roots import (
    POLICIES,
    Marker,
    check_policy,
    is_workspace,
    markers,
    repository_root,
    server_root,
)

GIT = object()
"""A folder (``.git``): it exists, and has no text."""


class FakeTree:
    """Files by path: a text, or :data:`GIT` for what exists without one."""

    def __init__(self, files: dict[str, object]) -> None:
        self.files = files
        self.read_paths: list[str] = []

    def exists(self, path: str) -> bool:
        return path in self.files

    def read(self, path: str) -> str | None:
        self.read_paths.append(path)
        found = self.files.get(path)
        return found if isinstance(found, str) else None


UV = {
    "/r/pyproject.toml": '[project]\nname = "r"\n[tool.uv.workspace]\nmembers = ["packages/*"]\n',
    "/r/packages/a/pyproject.toml": '[project]\nname = "a"\n[tool.pyright]\nstrict = ["src"]\n',
    "/r/packages/b/pyproject.toml": '[project]\nname = "b"\n',
    "/r/packages/c/pyrightconfig.json": '{ // c\n "typeCheckingMode": "basic", }\n',
    "/r/.git": GIT,
}

PYRIGHT = markers(["pyrightconfig.json", "pyproject.toml[tool.pyright]"])


def chain(*folders: str) -> list[str]:
    return list(folders)


def test_a_marker_with_a_key_parses_and_prints_as_written() -> None:
    """``name[dotted.key]`` is a file that must hold that table; a bare name any such file."""
    assert Marker.parse("pyproject.toml[tool.basedpyright]") == Marker(
        "pyproject.toml", ("tool", "basedpyright")
    )
    assert str(Marker.parse("pyproject.toml[tool.basedpyright]")) == (
        "pyproject.toml[tool.basedpyright]"
    )
    assert Marker.parse("go.work") == Marker("go.work")
    assert str(Marker("go.work")) == "go.work"
    assert Marker.parse("package.json[workspaces]").key == ("workspaces",)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "is a file name"),
        ("a/b.toml", "is a file name"),
        ("x.toml[", "is a file name"),
        ("x.toml[a][b]", "is a file name"),
        ("x.toml[a..b]", "dotted.words"),
        ("x.toml[a b]", "dotted.words"),
        ("setup.cfg[metadata]", "neither TOML nor JSON"),
    ],
)
def test_a_marker_that_is_not_a_file_name_and_key_is_refused(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        Marker.parse(text)


def test_a_marker_holds_only_when_its_file_parses_and_has_the_key() -> None:
    """A bare pyproject.toml, one that does not parse, and none at all hold no
    ``[tool.pyright]``; JSON with comments is read as pyright and TypeScript read it."""
    marker = Marker.parse("pyproject.toml[tool.pyright]")
    assert marker.holds(UV["/r/packages/a/pyproject.toml"])  # type: ignore[arg-type]
    assert not marker.holds(UV["/r/packages/b/pyproject.toml"])  # type: ignore[arg-type]
    assert not marker.holds("[tool.pyright\n")
    assert not marker.holds(None)
    assert not marker.holds('tool = "pyright"\n')  # a value, not a table: nothing below it
    assert Marker("go.mod").holds(None)
    assert Marker.parse("package.json[workspaces]").holds('{"workspaces": [], // x\n}')
    assert not Marker.parse("package.json[workspaces]").holds("[1, 2]")
    # A text nested deeper than the parsers go (issue 35) holds nothing either.
    deep = 100_000
    assert not marker.holds("[tool.pyright]\nx = " + "[" * deep + "]" * deep + "\n")
    assert not Marker.parse("tsconfig.json[references]").holds("[" * deep + "]" * deep)


def test_policies_are_checked() -> None:
    assert check_policy("workspace") == "workspace"
    assert set(POLICIES) == {"repository", "workspace", "configuration", "nearest"}
    with pytest.raises(ValueError, match="roots must be one of repository, workspace"):
        check_policy("single")


def test_configuration_splits_only_where_the_servers_configuration_is() -> None:
    """basedpyright's root for a file of a package with ``[tool.pyright]`` is the package;
    for a uv member whose pyproject.toml has none, the workspace's root (no new process)."""
    tree = FakeTree(UV)
    a = chain("/r/packages/a/src/alpha", "/r/packages/a/src", "/r/packages/a", "/r/packages", "/r")
    b = chain("/r/packages/b/src", "/r/packages/b", "/r/packages", "/r")
    c = chain("/r/packages/c", "/r/packages", "/r")
    assert server_root("configuration", PYRIGHT, a, tree) == "/r/packages/a"
    assert server_root("configuration", PYRIGHT, b, tree) == "/r"
    assert server_root("configuration", PYRIGHT, c, tree) == "/r/packages/c"
    assert server_root("nearest", markers(["pyproject.toml"]), b, tree) == "/r/packages/b"


def test_repository_is_the_workspace_root_whatever_the_markers() -> None:
    tree = FakeTree(UV)
    folders = chain("/r/packages/a", "/r/packages", "/r")
    assert server_root("repository", PYRIGHT, folders, tree) == "/r"
    assert tree.read_paths == []  # nothing was looked at
    assert server_root("nearest", (), folders, tree) == "/r"


def test_workspace_tiers_a_go_work_covers_the_modules_below_it() -> None:
    """gopls: the nearest go.work wins over a nearer go.mod; a go.mod no go.work covers is
    its own root; no marker at all: the workspace's root."""
    tree = FakeTree(
        {
            "/r/work/go.work": "go 1.19\n",
            "/r/work/app/go.mod": "module app\n",
            "/r/lone/go.mod": "module lone\n",
        }
    )
    gopls = markers(["go.work", "go.mod"])
    app = chain("/r/work/app/cmd", "/r/work/app", "/r/work", "/r")
    lone = chain("/r/lone/x", "/r/lone", "/r")
    elsewhere = chain("/r/docs", "/r")
    assert server_root("workspace", gopls, app, tree) == "/r/work"
    assert server_root("workspace", gopls, lone, tree) == "/r/lone"
    assert server_root("workspace", gopls, elsewhere, tree) == "/r"
    assert server_root("configuration", gopls, elsewhere, tree) == "/r"


def test_the_repository_is_the_outermost_workspace_below_git() -> None:
    """From inside a package, the root is the uv workspace's folder, not the package's."""
    tree = FakeTree(UV)
    folders = chain("/r/packages/b/src", "/r/packages/b", "/r/packages", "/r", "/")
    assert repository_root(folders, tree) == "/r"


def test_without_a_workspace_file_the_nearest_git_folder_is_the_root() -> None:
    tree = FakeTree({"/r/.git": GIT, "/r/pkg/pyproject.toml": '[project]\nname = "x"\n'})
    assert repository_root(chain("/r/pkg", "/r", "/"), tree) == "/r"


def test_a_workspace_above_the_nearest_git_is_another_repository() -> None:
    """A submodule (its own ``.git``) inside a workspace is a repository of its own."""
    tree = FakeTree({**UV, "/r/vendor/lib/.git": GIT})
    assert repository_root(chain("/r/vendor/lib/src", "/r/vendor/lib", "/r/vendor"), tree) == (
        "/r/vendor/lib"
    )


def test_without_git_the_outermost_workspace_file_or_nothing() -> None:
    tree = FakeTree({"/w/go.work": "go 1.19\n", "/w/outer/pnpm-workspace.yaml": "packages: []\n"})
    assert repository_root(chain("/w/outer/app", "/w/outer", "/w", "/"), tree) == "/w"
    assert repository_root(chain("/elsewhere", "/"), tree) is None


@pytest.mark.parametrize(
    ("name", "text", "workspace"),
    [
        ("pyproject.toml", '[tool.uv.workspace]\nmembers = ["a"]\n', True),
        ("pyproject.toml", '[tool.uv]\ndev-dependencies = ["x"]\n', False),
        ("package.json", '{"name": "m", "workspaces": ["packages/*"]}', True),
        ("package.json", '{"name": "m"}', False),
        ("tsconfig.json", '{"files": [], "references": [{"path": "x"}]}', True),
        ("tsconfig.json", '{"references": [{"path": "x"}]}', False),
        ("tsconfig.json", '{"files": [], "references": []}', False),
        ("tsconfig.json", '{"files": [], "references": {"path": "x"}}', False),
        ("Cargo.toml", '[workspace]\nmembers = ["a"]\n', True),
        ("Cargo.toml", '[package]\nname = "a"\n', False),
        ("go.work", "go 1.21\n", True),
        ("pnpm-workspace.yaml", "packages: []\n", True),
        ("go.mod", "module x\n", False),
    ],
)
def test_each_kind_of_workspace_file(name: str, text: str, workspace: bool) -> None:
    tree = FakeTree({f"/w/{name}": text})
    assert is_workspace("/w", tree) is workspace
