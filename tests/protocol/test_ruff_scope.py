"""ruff's scope without I/O (configuration texts in a dict): each rule its command line and
language server showed (compared with the real ones in ``tests/cli/test_scope_real.py``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from adecore_lsp.protocol.workspace.ruff_scope import (
    RUFF_DEFAULT_EXCLUDES,
    RuffMatcher,
    ScopeOf,
    left_out,
    ruff_at,
    ruff_default,
)
from adecore_lsp.protocol.workspace.scope import Scope, why
from adecore_lsp.protocol.workspace.scope_globs import ruff_glob

Files = dict[str, str]


def reader(files: Files) -> Callable[[str], str | None]:
    def read(path: str) -> str | None:
        found = files.get(path)
        if found == "TOO LARGE":
            raise ValueError(f"{path} is larger than 1048576 bytes: not read")
        return found

    return read


def nearest(files: Files, top: str = "/r") -> ScopeOf:
    """The scope of the nearest configuration at or above a folder, as the workspace finds
    it (up to ``top``), else ruff's defaults at ``top``."""

    def scope_of(folder: str) -> Scope:
        current = folder
        while True:
            found = ruff_at(current, reader(files))
            if found is not None:
                return found
            if current == top:
                return ruff_default(top)
            current = current.rsplit("/", 1)[0] or "/"

    return scope_of


def why_out(files: Files, path: str, start: str | None = "/r") -> str | None:
    found = left_out(path, start, nearest(files))
    return None if found is None else found[1]


def test_ruff_globs_cross_slashes_read_braces_and_escapes() -> None:
    assert ruff_glob("*.py").match("/r/a/b.py")
    assert ruff_glob("a?c").match("a/c")
    assert ruff_glob("/r/**/gen").match("/r/gen")
    assert ruff_glob("/r/**/gen").match("/r/x/y/gen")
    assert ruff_glob("{a,b}.py").match("b.py")
    assert not ruff_glob("{a,b}.py").match("c.py")
    assert ruff_glob(r"\*.py").match("*.py")
    assert not ruff_glob(r"\*.py").match("x.py")
    with pytest.raises(ValueError, match="unclosed alternation"):
        ruff_glob("{a,b")


def test_a_folder_prefers_dot_ruff_toml_then_ruff_toml_then_pyproject_with_its_table() -> None:
    files = {
        "/r/.ruff.toml": 'extend-exclude = ["dot"]\n',
        "/r/ruff.toml": 'extend-exclude = ["plain"]\n',
        "/r/pyproject.toml": '[tool.ruff]\nextend-exclude = ["py"]\n',
    }
    scope = ruff_at("/r", reader(files))
    assert scope is not None
    assert scope.config == "/r/.ruff.toml"
    del files["/r/.ruff.toml"]
    scope = ruff_at("/r", reader(files))
    assert scope is not None
    assert scope.config == "/r/ruff.toml"
    del files["/r/ruff.toml"]
    scope = ruff_at("/r", reader(files))
    assert scope is not None
    assert scope.config == "/r/pyproject.toml"
    assert scope.named("/r") == "pyproject.toml"  # as people name it: ruff has one table
    assert ruff_at("/r", reader({"/r/pyproject.toml": "[project]\nname = 'p'\n"})) is None
    assert ruff_at("/r", reader({})) is None


def test_default_excludes_match_any_folder_of_that_name_and_exclude_replaces_them() -> None:
    assert "dist" in RUFF_DEFAULT_EXCLUDES
    assert "build" not in RUFF_DEFAULT_EXCLUDES
    assert why_out({}, "/r/pkg/dist/a.py") == "default exclude"
    assert why_out({}, "/r/build/a.py") is None  # ruff 0.17 walks build/
    assert why_out({"/r/ruff.toml": "line-length = 90\n"}, "/r/dist/a.py") == "default exclude"
    files = {"/r/ruff.toml": 'exclude = ["gen"]\n'}
    assert why_out(files, "/r/pkg/dist/a.py") is None
    assert why_out(files, "/r/x/gen/a.py") == "exclude"


def test_extend_exclude_is_relative_to_its_configuration_or_a_base_name() -> None:
    files = {"/r/pyproject.toml": '[tool.ruff]\nextend-exclude = ["examples/sample", "gen.py"]\n'}
    assert why_out(files, "/r/examples/sample/app.py") == "extend-exclude"
    assert why_out(files, "/r/other/examples/sample/app.py") is None
    assert why_out(files, "/r/deep/gen.py") == "extend-exclude"  # a base name anywhere
    assert why_out(files, "/r/gen.pyi") is None


def test_a_nested_project_its_parent_excludes_is_walked_only_from_inside() -> None:
    files = {
        "/r/pyproject.toml": '[tool.ruff]\nextend-exclude = ["examples/sample"]\n',
        "/r/examples/sample/pyproject.toml": "[tool.ruff]\nline-length = 100\n",
    }
    path = "/r/examples/sample/app.py"
    # `ruff check` from the repository: the parent's exclusion skips the folder ...
    assert why_out(files, path, "/r") == "extend-exclude"
    assert why_out(files, path, "/r/examples") == "extend-exclude"
    # ... from the project itself, or given the file, its own configuration decides.
    assert why_out(files, path, "/r/examples/sample") is None
    assert why_out(files, path, None) is None
    found = left_out(path, "/r", nearest(files))
    assert found is not None
    assert found[0].config == "/r/pyproject.toml"


def test_the_language_server_judges_the_folders_above_up_to_the_configuration() -> None:
    files = {"/r/ruff.toml": 'extend-exclude = ["tests"]\n'}
    # `ruff check tests/unit` lints it, but the server leaves out a file of an excluded
    # folder: nothing lints it, so it is left out.
    assert why_out(files, "/r/tests/unit/t.py", "/r/tests/unit") == "extend-exclude"
    assert why_out(files, "/r/tests/unit/t.py", None) == "extend-exclude"
    # The folders above the configuration's own are not judged by it.
    files = {"/r/sub/ruff.toml": 'extend-exclude = ["r"]\n'}
    assert why_out(files, "/r/sub/a.py", None) is None


def test_include_applies_to_a_walk_and_not_to_a_file_named() -> None:
    files = {"/r/ruff.toml": 'include = ["src/**/*.py"]\nextend-include = ["*.pyw"]\n'}
    assert why_out(files, "/r/src/a.py") is None
    assert why_out(files, "/r/scripts/s.py") == "include"
    assert why_out(files, "/r/scripts/s.pyw") is None
    assert why_out(files, "/r/scripts/s.py", None) is None
    assert why_out({}, "/r/a.pyi") is None
    assert why_out({}, "/r/a.txt") == "include"


def test_lint_exclude_leaves_a_file_out_of_linting() -> None:
    files = {"/r/pyproject.toml": '[tool.ruff.lint]\nexclude = ["legacy/*"]\n'}
    assert why_out(files, "/r/legacy/a.py", None) == "lint.exclude"
    assert why_out(files, "/r/new/a.py", None) is None


def test_extend_chains_configurations_each_relative_to_its_own_file() -> None:
    files = {
        "/r/pkg/ruff.toml": 'extend = "../base.toml"\nextend-exclude = ["mine"]\n',
        "/r/base.toml": (
            'extend-exclude = ["theirs"]\nforce-exclude = true\n[lint]\nexclude = ["old"]\n'
        ),
    }
    scope = ruff_at("/r/pkg", reader(files))
    assert scope is not None
    assert scope.exclude[-2:] == ("theirs", "mine")
    assert why_out(files, "/r/pkg/mine/a.py", None) == "extend-exclude"
    assert why_out(files, "/r/pkg/theirs/a.py", None) == "extend-exclude"
    assert why_out(files, "/r/pkg/x/old", None) == "lint.exclude"
    assert isinstance(scope.matcher, RuffMatcher)
    assert scope.matcher.force
    child = {**files, "/r/pkg/ruff.toml": 'extend = "../base.toml"\nexclude = []\n'}
    assert why_out(child, "/r/pkg/dist/a.py", None) is None  # its own exclude replaced


@pytest.mark.parametrize(
    ("files", "error"),
    [
        ({"/r/ruff.toml": 'extend = "ruff.toml"\n'}, "extend /r/ruff.toml again (a circle)"),
        ({"/r/ruff.toml": 'extend = "gone.toml"\n'}, "extend /r/gone.toml, which does not exist"),
        ({"/r/ruff.toml": "force-exclude = 1\n"}, "force-exclude must be true or false"),
        ({"/r/ruff.toml": "exclude = [1]\n"}, "exclude must be a list of strings"),
        ({"/r/ruff.toml": "extend-exclude = 'a'\n"}, "extend-exclude must be a list of strings"),
        ({"/r/ruff.toml": "lint = 3\n"}, "[lint] is not a table"),
        ({"/r/ruff.toml": "x = [\n"}, "ruff.toml is not valid TOML"),
        ({"/r/ruff.toml": "TOO LARGE"}, "larger than"),
    ],
)
def test_a_broken_configuration_falls_back_to_the_defaults_saying_why(
    files: Files, error: str
) -> None:
    scope = ruff_at("/r", reader(files))
    assert scope is not None
    assert scope.config == "/r/ruff.toml"
    assert scope.error is not None
    assert error in scope.error
    assert scope.exclude == RUFF_DEFAULT_EXCLUDES


def test_why_names_the_key_and_a_ruff_scope_covers_what_its_server_lints() -> None:
    scope = ruff_at("/r", reader({"/r/ruff.toml": 'extend-exclude = ["gen.py"]\n'}))
    assert scope is not None
    assert scope.covers("/r/a.py")
    assert not scope.covers("/r/gen.py")
    assert why(scope, "/r/gen.py") == "extend-exclude"
    assert scope.describe("/r")["include"] == ["*.py", "*.pyi", "*.ipynb", "**/pyproject.toml"]
