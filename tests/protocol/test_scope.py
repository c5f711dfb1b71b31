"""Which files each checker's command line checks, as its configuration says: the readers
without I/O (configuration texts in a dict). The real command lines are compared with the
check in ``tests/cli/test_scope_real.py``; these pin each rule they showed."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from adecore_lsp.protocol.workspace import jsonc
from adecore_lsp.protocol.workspace.python_scopes import narrowed
from adecore_lsp.protocol.workspace.scope import (
    Everything,
    Scope,
    folders_between,
    load_toml,
    relative,
    strings,
    table,
    why,
)
from adecore_lsp.protocol.workspace.scope_globs import (
    absolute,
    globset,
    pyright_pattern,
    rust_glob,
    split_parts,
    ts_regex,
    ts_subpattern,
)
from adecore_lsp.protocol.workspace.scope_readers import READERS, STAGES, default
from adecore_lsp.protocol.workspace.ts_imports import TsOptions
from adecore_lsp.protocol.workspace.tsconfig_scope import ts_options

Files = dict[str, str]


def reader(files: Files) -> Callable[[str], str | None]:
    def read(path: str) -> str | None:
        found = files.get(path)
        if found == "TOO LARGE":
            raise ValueError(f"{path} is larger than 1048576 bytes: not read")
        return found

    return read


def at(name: str, files: Files, folder: str = "/r", stage: int = 0) -> Scope | None:
    return STAGES[name][stage](folder, reader(files))


def scope(name: str, files: Files, folder: str = "/r", stage: int = 0) -> Scope:
    found = at(name, files, folder, stage)
    assert found is not None
    return found


def covered(found: Scope, paths: list[str], env: Callable[[str], bool] | None = None) -> set[str]:
    if env is None:
        return {path for path in paths if found.covers(path)}
    return {path for path in paths if found.covers(path, env)}


# -- JSON with comments ------------------------------------------------------------------------


def test_jsonc_reads_comments_and_trailing_commas_as_the_tools_do() -> None:
    text = (
        "\ufeff{\n"
        '  // a comment, "quoted"\n'
        '  "include": ["src", "a//b", "c/*d*/",], /* block\n comment */\n'
        '  "escaped": "say \\"hi\\" // not a comment",\n'
        '  "nested": {"x": 1, /* before */ },\n'
        '  "list": [1, 2] // the end'
    )
    value = jsonc.loads(text + "\n}")
    assert value == {
        "include": ["src", "a//b", "c/*d*/"],
        "escaped": 'say "hi" // not a comment',
        "nested": {"x": 1},
        "list": [1, 2],
    }
    assert jsonc.loads("[1, 2 // last\n]") == [1, 2]
    assert jsonc.loads('{"a": 1} /* never closed') == {"a": 1}


def test_jsonc_errors_say_where() -> None:
    with pytest.raises(ValueError, match=r"line 3 column 8"):
        jsonc.loads('{\n  "a": 1, // x\n  "b": ?\n}')
    with pytest.raises(ValueError, match="line 1"):
        jsonc.loads('{"a": "never closed')
    with pytest.raises(ValueError, match="line 1 column 4"):
        jsonc.loads("[1,")  # a comma at the end of the text is not a trailing one


DEEP = 100_000
"""How deep a repository's configuration nests to break a recursive parser (issue 35)."""


def test_a_text_nested_too_deeply_is_a_broken_one_not_a_recursion_error() -> None:
    with pytest.raises(ValueError, match="nested too deeply"):
        jsonc.loads('{"x": ' + "[" * DEEP + "]" * DEEP + "}")
    with pytest.raises(ValueError, match=r"ty\.toml is not valid TOML: nested too deeply"):
        load_toml("x = " + "[" * DEEP + "]" * DEEP + "\n", "ty.toml")


@pytest.mark.parametrize(
    ("name", "config", "stage"),
    [
        ("pyright", "/r/pyrightconfig.json", 0),
        ("basedpyright", "/r/pyproject.toml", 0),
        ("ty", "/r/ty.toml", 0),
        ("pyrefly", "/r/pyrefly.toml", 0),
        ("tsconfig", "/r/tsconfig.json", 0),
    ],
)
def test_each_reader_takes_a_too_deep_configuration_for_a_broken_one(
    name: str, config: str, stage: int
) -> None:
    if config.endswith(".json"):
        text = '{"x": ' + "[" * DEEP + "]" * DEEP + "}"
    else:
        table = "tool.basedpyright" if name == "basedpyright" else ""
        text = (f"[{table}]\n" if table else "") + "x = " + "[" * DEEP + "]" * DEEP + "\n"
    broken = scope(name, {config: text}, stage=stage)
    assert broken.error is not None
    assert "nested too deeply" in broken.error
    assert broken.config == config
    assert broken.covers("/r/other.py" if name != "tsconfig" else "/r/other.ts")


# -- globs -----------------------------------------------------------------------------------


def test_paths_are_resolved_against_the_configs_folder() -> None:
    assert absolute("/r/pkg", "../src/") == "/r/src"
    assert absolute("/r", "/abs/x") == "/abs/x"
    assert absolute("/", "//double") == "/double"


def test_pyright_patterns() -> None:
    root, regex, deep = pyright_pattern("/r", "src/*/tests")
    assert (root, deep) == ("/r/src", False)
    assert regex.match("/r/src/a/tests")
    assert regex.match("/r/src/a/tests/t.py")
    assert not regex.match("/r/src/a/b/tests")
    root, regex, deep = pyright_pattern("/r", "**/test_?.py")
    assert (root, deep) == ("/r", True)
    assert regex.match("/r/test_a.py")
    assert regex.match("/r/x/y/test_b.py")
    assert not regex.match("/r/test_ab.py")
    _root, regex, _deep = pyright_pattern("/r", "a+b (é)")
    assert regex.match("/r/a+b (é)/x.py")
    assert not regex.match("/r/aab (é)")


def test_globset_patterns_as_ty_reads_them() -> None:
    assert globset("**").match("/any/thing")
    assert globset("**/x").match("x")
    assert globset("**/x").match("/a/b/x")
    assert globset("/r/a/**").match("/r/a/b/c")
    assert not globset("/r/a/**").match("/r/b")
    assert globset("/r/**/t.py").match("/r/t.py")
    assert globset("/r/**/t.py").match("/r/a/b/t.py")
    assert globset("/r/*.py").match("/r/a.py")
    assert not globset("/r/*.py").match("/r/x/a.py")
    assert globset("/r/?.py").match("/r/a.py")
    assert not globset("/r/?.py").match("/r/ab.py")
    assert globset("/r/[ab].py").match("/r/b.py")
    assert not globset("/r/[ab].py").match("/r/c.py")
    assert globset("/r/[!ab].py").match("/r/c.py")
    assert not globset("/r/[!a].py").match("/r/a.py")
    assert globset("/r/{src,lib}").match("/r/lib")
    assert not globset("/r/{src,lib}").match("/r/x")
    assert globset("/r/\\*").match("/r/*")
    assert not globset("/r/\\*").match("/r/a")
    assert globset("/r/end\\").match("/r/end\\")
    with pytest.raises(ValueError, match="unclosed character class"):
        globset("/r/[ab")
    with pytest.raises(ValueError, match="unclosed alternation"):
        globset("/r/{a,b")


def test_rust_glob_patterns_as_pyrefly_reads_them() -> None:
    assert rust_glob("/r/src/*.py").match("/r/src/deep/er.py")  # `*` crosses `/`
    assert rust_glob("/r/?").match("/r/x")
    assert rust_glob("/r/**/.[!/.]*/**/*").match("/r/a/.hidden/b/c.py")
    assert not rust_glob("/r/**/.[!/.]*/**/*").match("/r/a/b/c.py")
    assert split_parts("a/[!/.]*/b") == ["a", "[!/.]*", "b"]
    assert split_parts("a/[/b") == ["a", "[", "b"]
    with pytest.raises(ValueError, match="whole path part"):
        rust_glob("/r/a**/b")


def test_typescript_patterns_as_the_compiler_makes_them() -> None:
    assert ts_subpattern("src/**", "/r", "files") is None
    files = ts_regex(["src", "lib/*.ts", "?x.ts", "q/a?c.ts"], "/r", "files")
    assert files is not None
    assert files.match("/r/src/a/b.ts")
    assert files.match("/r/lib/l.ts")
    assert not files.match("/r/src/.hidden/b.ts")  # wildcards skip dot names
    assert not files.match("/r/src/node_modules/q.ts")  # and package folders
    assert not files.match("/r/lib/.l.ts")
    assert files.match("/r/ax.ts")
    assert not files.match("/r/.x.ts")
    assert files.match("/r/q/abc.ts")
    assert not files.match("/r/q/a/c.ts")
    min_js = ts_regex(["*.js"], "/r", "files")
    assert min_js is not None
    assert min_js.match("/r/a.js")
    assert not min_js.match("/r/a.min.js")
    exclude = ts_regex(["src/sub", "**/gen-*"], "/r", "exclude")
    assert exclude is not None
    assert exclude.match("/r/src/sub/x.ts")
    assert not exclude.match("/r/src/sub")
    assert exclude.match("/r/a/b/gen-x.ts")
    assert not exclude.match("/r/src/subx")
    folders = ts_regex(["src/*/tests", "a+b"], "/r", "directories")
    assert folders is not None
    assert folders.match("/r/src")
    assert folders.match("/r/src/a")
    assert folders.match("/r/a+b/c")
    assert ts_regex([], "/r", "files") is None
    assert ts_regex(["x/**"], "/r", "files") is None
    assert ts_subpattern("é/x.ts", "/r", "exclude") is not None


# -- the shared model ----------------------------------------------------------------------------


def test_a_scope_names_its_configuration_relative_to_the_root() -> None:
    everything = Scope("tsconfig", "/r")
    assert everything.covers("/anything.ts")
    assert everything.named("/r") is None
    assert everything.describe("/r") == {
        "config": None,
        "include": [],
        "exclude": [],
        "files": [],
        "references": [],
        "error": None,
    }
    deciding = Scope("ty", "/r/pkg", Everything(), config="/r/pkg/ty.toml", table="[src]")
    assert deciding.named("/r") == "pkg/ty.toml [src]"
    assert Scope("ty", "/o", config="/o/ty.toml").named("/r") == "/o/ty.toml"
    assert "ignore" not in deciding.describe("/r")
    assert relative("/r", "/r") == "."
    assert folders_between("/r", "/r/a/b/c.py") == ["/r", "/r/a", "/r/a/b"]


def test_configuration_values_are_checked() -> None:
    data = load_toml('[tool.x]\ny = 1\n[tool.z]\nw = "s"\n', "pyproject.toml")
    assert table(data, "tool", "x") == {"y": 1}
    assert table(data, "tool", "nothing") is None
    assert table(data, "tool", "z", "w", "deeper") is None
    with pytest.raises(ValueError, match=r"\[tool.x.y\] is not a table"):
        table(data, "tool", "x", "y")
    with pytest.raises(ValueError, match="not valid TOML"):
        load_toml("[tool", "pyproject.toml")
    with pytest.raises(ValueError, match="include must be a list of strings"):
        strings(["a", 1], "include")


# -- pyright and basedpyright ------------------------------------------------------------------

TREE = [
    "/r/top.py",
    "/r/src/pkg/a.py",
    "/r/src/pkg/ex1.py",
    "/r/src/pkg/ign.py",
    "/r/src/pkg/notes.txt",
    "/r/tests/t.py",
    "/r/typing_tests/tt.py",
    "/r/.hidden/h.py",
    "/r/node_modules/m/n.py",
    "/r/build/b.py",
    "/r/venvlike/v.py",
]


def test_pyright_include_exclude_ignore_and_its_default_excludes() -> None:
    """As basedpyright 1.40.2's command line measured: the default excludes are added to
    the configuration's own; an ignored file reports nothing, so it is not covered."""
    files = {
        "/r/pyproject.toml": (
            '[tool.pyright]\ninclude = ["src", "typing_tests", ".hidden"]\n'
            'exclude = ["src/pkg/ex*"]\nignore = ["src/pkg/ign.py"]\n'
        )
    }
    found = scope("basedpyright", files)
    assert covered(found, TREE) == {"/r/src/pkg/a.py", "/r/typing_tests/tt.py"}
    assert found.describe("/r") == {
        "config": "pyproject.toml [tool.pyright]",
        "include": ["src", "typing_tests", ".hidden"],
        "exclude": [
            "src/pkg/ex*",
            "**/node_modules",
            "**/__pycache__",
            "**/.*",
            "**/__editable__.*",
        ],
        "ignore": ["src/pkg/ign.py"],
        "error": None,
    }


def test_pyright_defaults_leave_out_environments_hidden_and_package_folders() -> None:
    found = default("basedpyright", "/r")
    assert found.config is None
    env = {"/r/venvlike"}.__contains__
    assert covered(found, TREE, env) == {
        "/r/top.py",
        "/r/src/pkg/a.py",
        "/r/src/pkg/ex1.py",
        "/r/src/pkg/ign.py",
        "/r/tests/t.py",
        "/r/typing_tests/tt.py",
        "/r/build/b.py",
    }
    assert found.covers("/r/venvlike/v.py")  # without the folder's markers


def test_pyright_walks_only_through_folders_its_pattern_admits() -> None:
    """pyright does not descend into ``src/a`` for ``src/*/tests`` (its walk tests each
    folder against the include), so ``src/a/tests/t.py`` is not checked."""
    files = {"/r/pyrightconfig.json": '{"include": ["src/*/tests", "one.py", "gone"]}'}
    found = scope("pyright", files)
    assert found.config == "/r/pyrightconfig.json"
    assert found.table is None
    assert not found.covers("/r/src/a/tests/t.py")
    assert found.covers("/r/one.py")
    deep = scope("pyright", {"/r/pyrightconfig.json": '{"include": ["src/**/tests"]}'})
    assert deep.covers("/r/src/a/b/tests/t.py")
    assert not deep.covers("/r/other/tests/t.py")


def test_pyright_adds_each_default_exclude_once() -> None:
    files = {"/r/pyrightconfig.json": '{"exclude": ["**/node_modules", "gen"]}'}
    assert scope("pyright", files).exclude == (
        "**/node_modules",
        "gen",
        "**/__pycache__",
        "**/.*",
        "**/__editable__.*",
    )


def test_pyright_skips_an_include_whose_root_is_excluded() -> None:
    files = {"/r/pyrightconfig.json": '{"include": ["src", "lib"], "exclude": ["src"]}'}
    found = scope("pyright", files)
    assert covered(found, ["/r/src/a.py", "/r/lib/b.py", "/r/lib/c.pyi"]) == {
        "/r/lib/b.py",
        "/r/lib/c.pyi",
    }


def test_pyright_reads_pyrightconfig_before_pyproject_and_its_own_table() -> None:
    both = {
        "/r/pyrightconfig.json": '{"include": ["a"]}',
        "/r/pyproject.toml": '[tool.pyright]\ninclude = ["b"]\n',
    }
    assert scope("pyright", both).include == ("a",)
    based_only = {"/r/pyproject.toml": '[tool.basedpyright]\ninclude = ["b"]\n'}
    assert at("pyright", based_only) is None  # pyright reads no [tool.basedpyright]
    assert scope("basedpyright", based_only).named("/r") == "pyproject.toml [tool.basedpyright]"
    assert at("pyright", {"/r/pyproject.toml": '[project]\nname = "p"\n'}) is None
    assert at("pyright", {}) is None


def test_basedpyright_refuses_both_tables_and_falls_back_to_its_defaults() -> None:
    files = {"/r/pyproject.toml": '[tool.pyright]\ninclude=["a"]\n[tool.basedpyright]\n'}
    found = scope("basedpyright", files)
    assert found.error is not None
    assert "both" in found.error
    assert found.config == "/r/pyproject.toml"
    assert found.covers("/r/anything/x.py")  # the defaults: everything
    assert scope("pyright", files).include == ("a",)


def test_pyright_broken_configurations_fall_back_to_the_defaults_saying_why() -> None:
    broken = scope("pyright", {"/r/pyrightconfig.json": '{"include": ["src" "x"]}'})
    assert broken.error is not None
    assert "line 1" in broken.error
    assert broken.covers("/r/other.py")
    not_object = scope("pyright", {"/r/pyrightconfig.json": "[1]"})
    assert not_object.error == "/r/pyrightconfig.json does not hold a JSON object"
    toml = scope("pyright", {"/r/pyproject.toml": "[tool.pyright\n"})
    assert toml.error is not None
    assert "not valid TOML" in toml.error
    large = scope("pyright", {"/r/pyrightconfig.json": "TOO LARGE"})
    assert large.error is not None
    assert "larger than" in large.error


def test_pyright_extends_each_key_replaced_relative_to_its_own_file() -> None:
    files = {
        "/r/pkg/pyrightconfig.json": '{"extends": "../base.json", "exclude": ["gen"]}',
        "/r/base.json": '{"extends": "./more/pyproject.toml", "include": ["lib"], "ignore": 3}',
        "/r/more/pyproject.toml": (
            '[tool.pyright]\nignore = ["x.py", 7]\nextends = "../last.toml"\n'
        ),
        "/r/last.toml": "[tool.other]\nx = 1\n",
    }
    found = scope("pyright", files, "/r/pkg")
    assert found.include == ("lib",)
    assert found.ignore == ("x.py",)
    assert covered(
        found, ["/r/lib/a.py", "/r/lib/gen/b.py", "/r/pkg/gen/c.py", "/r/more/x.py"]
    ) == {
        "/r/lib/a.py",
        "/r/lib/gen/b.py",
    }
    missing = scope("pyright", {"/r/pyrightconfig.json": '{"extends": "gone.json"}'})
    assert missing.error is not None
    assert "does not exist" in missing.error
    circle = {
        "/r/pyrightconfig.json": '{"extends": "a.json"}',
        "/r/a.json": '{"extends": "pyrightconfig.json"}',
    }
    assert "circle" in str(scope("pyright", circle).error)
    odd = {"/r/pyrightconfig.json": '{"extends": "a.json"}', "/r/a.json": "[]"}
    assert scope("pyright", odd).include == (".",)
    assert scope("pyright", odd).covers("/r/x.py")


# -- ty ----------------------------------------------------------------------------------------


def test_ty_include_exclude_negation_and_default_excludes() -> None:
    """As ty 1.0.0 measured: ``!`` re-includes a file, ``dist`` stays excluded though
    included (a default exclude), ``build`` is checked."""
    files = {
        "/r/pyproject.toml": (
            '[tool.ty.src]\ninclude = ["src", "typing_tests", "build", "dist"]\n'
            'exclude = ["src/pkg/ex*", "!src/pkg/ex1.py"]\n'
        )
    }
    found = scope("ty", files)
    assert covered(found, [*TREE, "/r/src/pkg/ex2.py", "/r/dist/d.py"]) == {
        "/r/src/pkg/a.py",
        "/r/src/pkg/ex1.py",
        "/r/src/pkg/ign.py",
        "/r/src/pkg/notes.txt",
        "/r/typing_tests/tt.py",
        "/r/build/b.py",
    }
    assert found.named("/r") == "pyproject.toml [tool.ty.src]"
    assert found.exclude[-2:] == ("src/pkg/ex*", "!src/pkg/ex1.py")
    assert not found.covers("/elsewhere/x.py")


def test_ty_reads_ty_toml_first_and_its_pattern_forms() -> None:
    files = {
        "/r/ty.toml": (
            '[src]\ninclude = ["./lib/", "pkg/**", "/abs/x.py", "../up"]\n'
            'exclude = ["lib/gen/", "lib/skip.py", "pkg/deep/**", "\\\\!bang"]\n'
        ),
        "/r/pyproject.toml": '[tool.ty.src]\ninclude = ["other"]\n',
    }
    found = scope("ty", files)
    assert found.named("/r") == "ty.toml [src]"
    paths = [
        "/r/lib/a.py",
        "/r/lib",
        "/r/lib/gen/b.py",
        "/r/lib/skip.py",
        "/r/pkg/deep/c.py",
        "/r/pkg/deep",
        "/r/pkg/e.py",
        "/r/other/o.py",
    ]
    assert covered(found, paths) == {"/r/lib/a.py", "/r/pkg/deep", "/r/pkg/e.py"}
    bare = scope("ty", {"/r/ty.toml": "[rules]\n"})
    assert bare.covers("/r/any/x.py")
    assert not bare.covers("/r/.venv/x.py")
    assert scope("ty", {"/r/pyproject.toml": "[tool.ty]\n"}).covers("/r/a.py")
    assert at("ty", {"/r/pyproject.toml": "[project]\n"}) is None
    assert at("ty", {}) is None


def test_ty_refuses_a_bad_pattern_as_its_command_line_does() -> None:
    found = scope("ty", {"/r/ty.toml": '[src]\ninclude = ["src/**a"]\n'})
    assert found.error is not None
    assert "whole path part" in found.error
    assert found.covers("/r/other/x.py")  # the defaults
    excluded = scope("ty", {"/r/ty.toml": '[src]\nexclude = ["!a**"]\n'})
    assert excluded.error is not None


# -- pyrefly -----------------------------------------------------------------------------------


def test_pyrefly_project_includes_and_excludes() -> None:
    """As pyrefly 1.5.0's ``dump-config`` listed them."""
    files = {
        "/r/pyproject.toml": (
            "[tool.pyrefly]\n"
            'project-includes = ["src", "typing_tests", "build", "venvlike", "src/pkg/ex*"]\n'
            'project-excludes = ["src/pkg/ex*"]\n'
        )
    }
    found = scope("pyrefly", files)
    assert covered(found, [*TREE, "/r/src/.x/y.py", "/r/src/pkg/.dot.py"]) == {
        "/r/src/pkg/a.py",
        "/r/src/pkg/ign.py",
        "/r/typing_tests/tt.py",
        "/r/build/b.py",
        "/r/venvlike/v.py",
    }
    assert found.describe("/r")["exclude"] == [
        "src/pkg/ex*",
        "**/node_modules",
        "**/__pycache__",
        "**/venv/**",
        "**/.[!/.]*/**",
    ]


def test_pyrefly_toml_first_its_defaults_and_its_switches() -> None:
    files = {
        "/r/pyrefly.toml": (
            'project-includes = ["pkg/**", "one.py", "**/"]\n'
            "disable-project-excludes-heuristics = true\n"
        ),
        "/r/pyproject.toml": '[tool.pyrefly]\nproject-includes = ["other"]\n',
    }
    found = scope("pyrefly", files)
    assert found.named("/r") == "pyrefly.toml"
    assert found.exclude == ()
    assert covered(found, ["/r/pkg/.h/a.py", "/r/one.py", "/r/venv/x.py", "/r/a.txt"]) == {
        "/r/pkg/.h/a.py",
        "/r/one.py",
        "/r/venv/x.py",
    }
    assert default("pyrefly", "/r").include == ("**/*.py*",)
    assert not default("pyrefly", "/r").covers("/r/venv/lib/x.py")
    outside = scope("pyrefly", {"/r/pyrefly.toml": 'project-includes = ["/abs/*.py"]\n'})
    assert outside.covers("/abs/a.py")
    assert not outside.covers("/abs/.h/b.py")
    assert at("pyrefly", {"/r/pyproject.toml": "[project]\n"}) is None
    assert at("pyrefly", {}) is None
    bad = scope("pyrefly", {"/r/pyrefly.toml": "disable-project-excludes-heuristics = 1\n"})
    assert bad.error == "disable-project-excludes-heuristics must be true or false"


def test_pyrefly_reads_mypy_and_pyright_configurations_when_it_has_none() -> None:
    """As pyrefly 1.5.0 does in an unconfigured project (its ``dump-config``):
    ``(^src/pkg/ex1\\.py$|ign)`` leaves out ex1.py and ign.py."""
    mypy_ini = {
        "/r/mypy.ini": "[mypy]\nfiles = src, typing_tests\nexclude = (^src/pkg/ex1\\.py$|ign)\n",
        "/r/pyrightconfig.json": '{"include": ["other"]}',
    }
    found = scope("pyrefly", mypy_ini, stage=1)
    assert found.named("/r") == "mypy.ini"
    assert covered(found, TREE) == {"/r/src/pkg/a.py", "/r/typing_tests/tt.py"}
    assert found.exclude[:2] == ("**/src/pkg/ex1.py", "**/ign*")
    pyright_json = scope(
        "pyrefly", {"/r/pyrightconfig.json": '{"include": ["typing_tests"]}'}, stage=1
    )
    assert covered(pyright_json, TREE) == {"/r/typing_tests/tt.py"}
    in_pyproject = {
        "/r/pyproject.toml": (
            '[tool.mypy]\nfiles = ["src"]\nexclude = ["(?x)\\n  ^src/pkg/ign  # why\\n", "docs/"]\n'
            '[tool.pyright]\ninclude = ["tests"]\n'
        )
    }
    mypy_table = scope("pyrefly", in_pyproject, stage=1)
    assert mypy_table.named("/r") == "pyproject.toml [tool.mypy]"
    assert mypy_table.exclude[:2] == ("**/src/pkg/ign*", "**/docs/")
    pyright_table = {"/r/pyproject.toml": '[tool.pyright]\ninclude = ["tests"]\nexclude = []\n'}
    assert covered(scope("pyrefly", pyright_table, stage=1), TREE) == {"/r/tests/t.py"}
    # A bare pyproject.toml is no configuration: the search goes on above it.
    assert at("pyrefly", {"/r/pyproject.toml": "[project]\n"}, stage=1) is None
    assert at("pyrefly", {}, stage=1) is None
    no_section = scope("pyrefly", {"/r/mypy.ini": "[other]\n"}, stage=1)
    assert no_section.include == ("**/*.py*",)
    odd = scope("pyrefly", {"/r/mypy.ini": "[mypy]\nexclude = (a|b[0-9]|.+\\.py|)\n"}, stage=1)
    assert odd.exclude[:2] == ("**/a*", "**/*.py")


def test_pyrefly_broken_fallbacks_say_why() -> None:
    assert "mypy.ini is not valid" in str(
        scope("pyrefly", {"/r/mypy.ini": "nonsense"}, stage=1).error
    )
    not_object = scope("pyrefly", {"/r/pyrightconfig.json": "1"}, stage=1)
    assert not_object.error == "pyrightconfig.json does not hold a JSON object"
    bad_files = scope("pyrefly", {"/r/pyproject.toml": "[tool.mypy]\nfiles = 3\n"}, stage=1)
    assert bad_files.error is not None
    assert "files must be a list" in bad_files.error


# -- tsconfig --------------------------------------------------------------------------------

TS_TREE = [
    "/r/src/a.ts",
    "/r/src/sub/b.ts",
    "/r/src/.hid/h.ts",
    "/r/tests/t.ts",
    "/r/lib/l.ts",
    "/r/out/o.ts",
    "/r/src/j.js",
    "/r/src/x.min.ts",
    "/r/src/types.d.ts",
    "/r/node_modules/m/index.ts",
]


def test_tsconfig_include_exclude_and_typescript_files_only() -> None:
    """As ``tsc --listFilesOnly`` (5.9.3 and 7.0.2) listed them."""
    files = {
        "/r/tsconfig.json": (
            '{\n  // c\n  "compilerOptions": {"noEmit": true, "outDir": "out",},\n'
            '  "include": ["src", "lib/*.ts"],\n  "exclude": ["src/sub"],\n}'
        )
    }
    found = scope("tsconfig", files)
    assert covered(found, TS_TREE) == {
        "/r/src/a.ts",
        "/r/lib/l.ts",
        "/r/src/x.min.ts",
        "/r/src/types.d.ts",
    }
    assert found.describe("/r") == {
        "config": "tsconfig.json",
        "include": ["src", "lib/*.ts"],
        "exclude": ["src/sub"],
        "files": [],
        "references": [],
        "error": None,
    }


def test_tsconfig_defaults_out_dir_and_javascript() -> None:
    found = scope(
        "tsconfig",
        {"/r/tsconfig.json": '{"compilerOptions": {"outDir": "out", "declarationDir": 3}}'},
    )
    assert found.include == ("**/*",)
    assert found.exclude == ("/r/out",)
    assert found.describe("/r")["exclude"] == ["out"]
    assert covered(found, TS_TREE) == {
        "/r/src/a.ts",
        "/r/src/sub/b.ts",
        "/r/tests/t.ts",
        "/r/lib/l.ts",
        "/r/src/x.min.ts",
        "/r/src/types.d.ts",
    }
    allow = scope("tsconfig", {"/r/tsconfig.json": '{"compilerOptions": {"checkJs": true}}'})
    assert allow.covers("/r/src/j.js")
    jsconfig = scope("tsconfig", {"/r/jsconfig.json": "{}"})
    assert jsconfig.covers("/r/src/j.js")
    assert jsconfig.named("/r") == "jsconfig.json"
    assert at("tsconfig", {}) is None
    none = default("tsconfig", "/r")
    assert none.config is None
    assert none.covers("/r/anything.js")


def test_tsconfig_files_alone_and_files_outside_the_project() -> None:
    files = {"/r/tsconfig.json": '{"files": ["src/a.ts", "../shared/s.ts"], "references": 3}'}
    found = scope("tsconfig", files)
    assert covered(found, [*TS_TREE, "/shared/s.ts"]) == {"/r/src/a.ts", "/shared/s.ts"}
    wide = scope(
        "tsconfig", {"/r/app/tsconfig.json": '{"include": ["../shared/*.ts", "/*.ts"]}'}, "/r/app"
    )
    assert covered(wide, ["/r/shared/s.ts", "/r/shared/x/t.ts", "/r/app/a.ts", "/top.ts"]) == {
        "/r/shared/s.ts",
        "/top.ts",
    }
    one_file = scope("tsconfig", {"/r/tsconfig.json": '{"include": ["lib/one.ts"]}'})
    assert covered(one_file, ["/r/lib/one.ts", "/r/lib/two.ts", "/r/x.ts"]) == {"/r/lib/one.ts"}


def test_tsconfig_files_are_entry_points_whose_imports_are_checked() -> None:
    """tsc -p checks what the files of ``files`` import, again and again (through ``paths``
    too), whatever ``include`` and ``exclude`` say; never a package in node_modules."""
    files = {
        "/r/tsconfig.json": (
            '{"files": ["src/main.ts"], "exclude": ["src/helper.ts"],'
            ' "compilerOptions": {"paths": {"@lib/*": ["./lib/*"]}}}'
        ),
        "/r/src/main.ts": (
            'import { h } from "./helper";\nimport { d } from "@lib/deep";\n'
            'import "react";\nimport "./main";\nimport "./big";\nimport "./js";\n'
        ),
        "/r/src/helper.ts": 'export * from "./leaf";\n',
        "/r/src/leaf.ts": 'import { h } from "./helper";\n',
        "/r/lib/deep.ts": "export const d = 1;\n",
        "/r/src/big.ts": "TOO LARGE",
        "/r/src/js.js": "export {};\n",
        "/r/node_modules/react/index.d.ts": "export {};\n",
        "/r/src/other.ts": "export {};\n",
    }
    found = scope("tsconfig", files)
    assert covered(found, [path for path in files if path.endswith((".ts", ".js"))]) == {
        "/r/src/main.ts",
        "/r/src/helper.ts",
        "/r/src/leaf.ts",
        "/r/lib/deep.ts",
        "/r/src/big.ts",  # there, too large to read: its imports are not followed
    }


def test_tsconfig_options_give_base_url_and_paths_relative_to_each_file() -> None:
    files = {
        "/r/app/tsconfig.json": '{"extends": "../base.json", "compilerOptions": {"baseUrl": "."}}',
        "/r/base.json": '{"compilerOptions": {"paths": {"@x/*": ["x/*", 3], "bad": "y"}}}',
        "/r/plain/tsconfig.json": '{"compilerOptions": {"paths": {"@p": ["./p.ts"]}}}',
        "/r/broken/tsconfig.json": "[1]",
    }
    read = reader(files)
    assert ts_options("/r/app/tsconfig.json", read) == TsOptions(
        "/r/app", (("@x/*", ("/r/app/x/*",)),)
    )
    assert ts_options("/r/plain/tsconfig.json", read) == TsOptions(
        None, (("@p", ("/r/plain/p.ts",)),)
    )
    assert ts_options("/r/broken/tsconfig.json", read) == TsOptions()
    assert ts_options("/r/none/tsconfig.json", read) == TsOptions()


def test_tsconfig_extends_paths_and_packages_relative_to_each_file() -> None:
    files = {
        "/r/app/tsconfig.json": (
            '{"extends": ["../base", "@org/cfg/tsconfig.json", "preset", 7],'
            ' "compilerOptions": "x", "exclude": ["${configDir}/gen"]}'
        ),
        "/r/base.json": '{"include": ["src"], "compilerOptions": {"outDir": "out"}}',
        "/r/node_modules/@org/cfg/tsconfig.json": '{"compilerOptions": {"allowJs": true}}',
        "/r/node_modules/preset/tsconfig.json": "{}",
    }
    found = scope("tsconfig", files, "/r/app")
    assert found.include == ("src",)
    assert covered(found, ["/r/src/a.ts", "/r/src/j.js", "/r/app/gen/g.ts", "/r/app/src/x.ts"]) == {
        "/r/src/a.ts",
        "/r/src/j.js",
    }
    json_name = {
        "/r/tsconfig.json": '{"extends": "base/strict.json"}',
        "/node_modules/base/strict.json": '{"include": ["only"]}',
    }
    assert scope("tsconfig", json_name).include == ("only",)
    missing = scope("tsconfig", {"/r/app/tsconfig.json": '{"extends": "nothing"}'}, "/r/app")
    assert missing.error == "extends nothing: no such file from /r/app"
    assert missing.describe("/r")["error"] == "extends nothing: no such file from app"
    circle = {
        "/r/tsconfig.json": '{"extends": "./a.json"}',
        "/r/a.json": '{"extends": "./tsconfig.json"}',
    }
    assert "extends it again" in str(scope("tsconfig", circle).error)
    assert "does not hold" in str(scope("tsconfig", {"/r/tsconfig.json": "[]"}).error)


def test_a_solution_tsconfig_covers_its_referenced_projects() -> None:
    files = {
        "/r/tsconfig.json": (
            '{"files": [], "references": [{"path": "./packages/x"},'
            ' {"path": "packages/y/tsconfig.json"}, {"path": "packages/x"}, {"nopath": 1}, "bad"]}'
        ),
        "/r/packages/x/tsconfig.json": '{"include": ["src"]}',
        "/r/packages/y/tsconfig.json": '{"references": [{"path": "../.."}], "include": ["lib"]}',
    }
    found = scope("tsconfig", files)
    paths = [
        "/r/packages/x/src/a.ts",
        "/r/packages/y/lib/b.ts",
        "/r/packages/y/src/c.ts",
        "/r/s.ts",
    ]
    assert covered(found, paths) == {"/r/packages/x/src/a.ts", "/r/packages/y/lib/b.ts"}
    assert found.describe("/r")["references"] == [
        "packages/x/tsconfig.json",
        "packages/y/tsconfig.json",
    ]
    missing = scope("tsconfig", {"/r/tsconfig.json": '{"references": [{"path": "gone"}]}'})
    assert missing.error is not None
    assert "references gone" in missing.error
    many = {
        "/r/tsconfig.json": '{"references": ['
        + ",".join(f'{{"path": "p{i}"}}' for i in range(40))
        + "]}"
    }
    many.update({f"/r/p{i}/tsconfig.json": "{}" for i in range(40)})
    assert "more than 32 referenced projects" in str(scope("tsconfig", many).error)


def test_every_reader_has_defaults() -> None:
    for name in READERS:
        assert default(name, "/r").config is None


# -- why a file is left out, and paths given ----------------------------------------------------


def test_why_names_the_key_that_leaves_a_file_out() -> None:
    files = {
        "/r/pyproject.toml": (
            '[tool.pyright]\ninclude = ["src", "lib"]\nexclude = ["src/gen", "lib/x.py"]\n'
            'ignore = ["src/ign.py"]\n'
        )
    }
    found = scope("basedpyright", files)
    env = {"/r/src/env"}.__contains__
    assert why(found, "/r/src/a.py", env) is None
    assert why(found, "/r/src/ign.py", env) == "ignore"
    assert why(found, "/r/src/gen/g.py", env) == "exclude"
    assert why(found, "/r/lib/x.py", env) == "exclude"
    assert why(found, "/r/src/.hidden/h.py", env) == "exclude"  # a folder on the way
    assert why(found, "/r/src/env/e.py", env) == "environment"
    assert why(found, "/r/tests/t.py", env) == "include"
    walks = scope("pyright", {"/r/pyrightconfig.json": '{"include": ["src/*/tests"]}'})
    assert why(walks, "/r/src/a/x.py") == "include"
    excluded_root = scope(
        "pyright", {"/r/pyrightconfig.json": '{"include": ["a"], "exclude": ["a"]}'}
    )
    assert why(excluded_root, "/r/a/b.py") == "exclude"
    ty = scope("ty", {"/r/ty.toml": '[src]\ninclude = ["src"]\nexclude = ["src/gen/", "x.py"]\n'})
    assert why(ty, "/r/src/gen/g.py") == "exclude"
    assert why(ty, "/r/x.py") == "exclude"
    assert why(ty, "/r/tests/t.py") == "include"
    assert why(ty, "/other/t.py") == "include"
    pyrefly = scope("pyrefly", {"/r/pyrefly.toml": 'project-excludes = ["gen.py"]\n'})
    assert why(pyrefly, "/r/gen.py") == "project-excludes"
    assert why(pyrefly, "/r/notes.txt") == "project-includes"
    tsconfig = scope("tsconfig", {"/r/tsconfig.json": '{"include": ["src"]}'})
    assert why(tsconfig, "/r/src/a.ts") is None
    assert why(tsconfig, "/r/other/a.ts") == "include and exclude"


def test_pyright_given_paths_replace_include_and_keep_exclude() -> None:
    """``basedpyright tests`` checks tests/ that include leaves out; ``basedpyright
    gen.py`` checks nothing when exclude names it (measured, basedpyright 1.40)."""
    files = {
        "/r/pyproject.toml": (
            '[tool.pyright]\ninclude = ["src"]\nexclude = ["gen.py", "ex"]\nignore = ["ig.py"]\n'
        )
    }
    found = scope("basedpyright", files)
    tests = narrowed(found, "/r/tests")
    assert tests.include == ("/r/tests",)
    assert tests.covers("/r/tests/t.py")
    assert not tests.covers("/r/src/a.py")
    assert why(narrowed(found, "/r/gen.py"), "/r/gen.py") == "exclude"
    assert why(narrowed(found, "/r/ex"), "/r/ex/e.py") == "exclude"
    assert why(narrowed(found, "/r/ex/e.py"), "/r/ex/e.py") == "exclude"
    assert why(narrowed(found, "/r/ig.py"), "/r/ig.py") == "ignore"
    other = scope("ty", {"/r/ty.toml": "[src]\n"})
    assert narrowed(other, "/r/tests") is other
