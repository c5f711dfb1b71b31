"""Which keys of pyrefly's own configuration make it run a program (issue 35), read from
the configuration its scope found, as pyrefly takes it: ``pyrefly.toml``, then
``.pyrefly.toml``, then ``[tool.pyrefly]``; without one, the mypy configuration it reads in
their place. ``tests/cli/test_untrusted_configurations.py`` runs pyrefly on each key."""

from __future__ import annotations

import pytest

from adecore_lsp.protocol.workspace.config_programs import pyrefly_programs
from adecore_lsp.protocol.workspace.scope import Scope
from adecore_lsp.protocol.workspace.scope_readers import STAGES

ROOT = "/r"


def scope_of(files: dict[str, str], folder: str = ROOT) -> tuple[Scope, dict[str, str]]:
    """The scope pyrefly's readers find for ``folder`` among ``files`` (name -> text)."""
    texts = {f"{ROOT}/{name}": text for name, text in files.items()}
    for stage in STAGES["pyrefly"]:
        found = stage(folder, texts.get)
        if found is not None:
            return found, texts
    return Scope("pyrefly", folder), texts


def programs(files: dict[str, str]) -> tuple[str, ...]:
    found, texts = scope_of(files)
    return pyrefly_programs(found, texts.get)


@pytest.mark.parametrize(
    ("files", "keys"),
    [
        ({"pyrefly.toml": 'python-interpreter-path = "./evil"\n'}, ("python-interpreter-path",)),
        (
            {"pyrefly.toml": 'python-interpreter = "./e"\nconda-environment = "x"\n'},
            ("python-interpreter", "conda-environment"),
        ),
        (
            {".pyrefly.toml": 'python_interpreter = "./evil"\n'},
            ("python_interpreter",),
        ),
        (
            {"pyrefly.toml": '[build-system]\ntype = "custom"\ncommand = ["./evil"]\n'},
            ("build-system",),
        ),
        (
            {"pyrefly.toml": 'python-interpreter-find-command = ["./find"]\n'},
            ("python-interpreter-find-command",),
        ),
        (
            {"pyrefly.toml": 'fallback-python-interpreter-name = "./evil"\n'},
            ("fallback-python-interpreter-name",),
        ),
        # Keys that run nothing: a search path, the interpreter query skipped, a sub-config
        # (pyrefly takes no interpreter from one: measured), an unknown spelling.
        (
            {
                "pyrefly.toml": 'search-path = ["x"]\nskip-interpreter-query = true\n'
                'python_interpreter_path = "./evil"\n'
                '[[sub-config]]\nmatches = "*"\npython-interpreter-path = "./evil"\n'
            },
            (),
        ),
        ({"pyproject.toml": '[tool.pyrefly]\nbuild-system.type = "buck"\n'}, ("build-system",)),
        ({"pyproject.toml": '[tool.mypy]\npython_executable = "./evil"\n'}, ("python_executable",)),
        ({"pyproject.toml": "[tool.pyright]\n"}, ()),
        ({"mypy.ini": "[mypy]\npython_executable = ./evil\n"}, ("python_executable",)),
        ({"mypy.ini": "[mypy-pkg.*]\nignore_errors = True\n"}, ()),
        ({"pyrightconfig.json": '{"venvPath": ".", "venv": "evil"}'}, ()),
        ({}, ()),
    ],
)
def test_the_keys_that_name_a_program(files: dict[str, str], keys: tuple[str, ...]) -> None:
    assert programs(files) == keys


def test_pyrefly_takes_its_own_files_in_order() -> None:
    """``pyrefly.toml`` wins over ``.pyrefly.toml``, which wins over ``[tool.pyrefly]`` and
    over a mypy configuration (measured: the program of the one taken ran)."""
    evil = 'python-interpreter-path = "./evil"\n'
    assert programs({"pyrefly.toml": "[errors]\n", ".pyrefly.toml": evil}) == ()
    assert programs({".pyrefly.toml": evil, "pyproject.toml": "[tool.pyrefly]\n"}) == (
        "python-interpreter-path",
    )
    assert programs({".pyrefly.toml": "", "pyproject.toml": f"[tool.pyrefly]\n{evil}"}) == ()
    both = '[tool.pyrefly]\n[tool.mypy]\npython_executable = "./evil"\n'
    assert programs({"pyproject.toml": both}) == ()  # mypy's is read only without pyrefly's
    assert programs({"pyrefly.toml": "", "mypy.ini": "[mypy]\npython_executable = e\n"}) == ()
    found, _ = scope_of({".pyrefly.toml": "[errors]\n"})
    assert found.config == f"{ROOT}/.pyrefly.toml"


def test_a_file_this_parser_cannot_read_is_searched_for_the_keys() -> None:
    """pyrefly's parser may read what this one does not (a TOML 1.1 inline table over
    lines): such a file names each key written in it as a word."""
    multi_line = 'build-system = {\n  type = "custom",\n  command = ["./evil"],\n}\n'
    assert programs({"pyrefly.toml": multi_line}) == ("build-system",)
    assert programs({"pyrefly.toml": "= python-interpreter-paths"}) == ()
    # A pyproject.toml that cannot be read: both tables' keys count.
    broken = '[tool.pyrefly\nconda-environment = "x"\n[tool.mypy]\npython_executable = "e"\n'
    assert programs({"pyproject.toml": broken}) == ("conda-environment", "python_executable")
    assert programs({"mypy.ini": "python_executable = ./evil\n"}) == ("python_executable",)


def test_a_configuration_that_is_not_a_table_names_nothing() -> None:
    found = Scope("pyrefly", ROOT, config=f"{ROOT}/pyproject.toml", table="[tool.pyrefly]")
    assert pyrefly_programs(found, {f"{ROOT}/pyproject.toml": "tool = 3\n"}.get) == ()
    gone: dict[str, str] = {}
    assert pyrefly_programs(found, gone.get) == ()  # gone since the scope was read
