"""The server registry: the packaged data, preference order, lookup on disk, project files.

Executables are fake shell scripts in a temporary folder with ``PATH`` pointed at it, so the
results do not depend on what this machine has installed; one test uses the real ruff.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

import pytest

import adecore_lsp.workspace.disk.executables as executables
from adecore_lsp.errors import ServerNotFoundError
from adecore_lsp.workspace.servers.registry import Registry, ServerSpec

REQUIRED_COMMANDS = {
    "ruff": ["ruff", "server"],
    "ty": ["ty", "server"],
    "pyrefly": ["pyrefly", "lsp"],
    "zuban": ["zuban", "server"],
    "basedpyright": ["basedpyright-langserver", "--stdio"],
    "pyright": ["pyright-langserver", "--stdio"],
    "pylsp": ["pylsp"],
    "jedi-language-server": ["jedi-language-server"],
    "clangd": ["clangd"],
    "ccls": ["ccls"],
    "typescript-language-server": ["typescript-language-server", "--stdio"],
    "tsc": ["tsc", "--lsp", "--stdio"],
    "gopls": ["gopls"],
    "rust-analyzer": ["rust-analyzer"],
    "bash-language-server": ["bash-language-server", "start"],
    "yaml-language-server": ["yaml-language-server", "--stdio"],
    "vscode-json-language-server": ["vscode-json-language-server", "--stdio"],
    "vscode-css-language-server": ["vscode-css-language-server", "--stdio"],
    "vscode-html-language-server": ["vscode-html-language-server", "--stdio"],
    "fortls": ["fortls", "--disable_autoupdate"],
    "tombi": ["tombi", "lsp"],
    "cmake-language-server": ["cmake-language-server"],
    "esbonio": ["esbonio", "server"],
}

PULL_SERVERS = {
    "ruff",
    "ty",
    "zuban",
    "basedpyright",
    "pyright",
    "tombi",
    "vscode-json-language-server",
    "vscode-css-language-server",
    "vscode-html-language-server",
    "tsc",
    "rust-analyzer",
    "esbonio",
}

PYTHON_ORDER = [
    "basedpyright",
    "pyright",
    "ty",
    "pyrefly",
    "zuban",
    "pylsp",
    "ruff",
    "jedi-language-server",
]


def make_executable(folder: Path, name: str) -> Path:
    """A shell script that does nothing, marked executable."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def path_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder that is all of ``PATH``, and an empty scripts folder for the running
    Python (which ``which`` also looks in)."""
    folder = tmp_path / "path"
    folder.mkdir()
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    real = sysconfig.get_path
    monkeypatch.setattr(
        sysconfig,
        "get_path",
        lambda name, *a, **k: str(scripts) if name == "scripts" else real(name, *a, **k),
    )
    # Looked up once a process: the lookup itself is replaced too.
    monkeypatch.setattr(executables, "scripts_folder", lambda: str(scripts))
    return folder


@pytest.fixture
def registry() -> Registry:
    return Registry.default()


def ids(specs: list[ServerSpec]) -> list[str]:
    return [spec.id for spec in specs]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# The packaged data


def test_the_default_registry_has_every_required_server_with_its_command(
    registry: Registry,
) -> None:
    """Each required id is there, with the command the servers were measured with."""
    for server_id, command in REQUIRED_COMMANDS.items():
        spec = registry.get(server_id)
        assert spec.command == command, server_id
        assert spec.install, server_id
        assert spec.description, server_id
        assert spec.languages, server_id
        assert spec.root_markers, server_id


def test_every_entry_of_the_data_is_a_valid_spec(registry: Registry) -> None:
    """Loading builds every entry through ServerSpec, so the checks ran; ids are unique."""
    assert len(registry) == len(set(registry.ids)) >= len(REQUIRED_COMMANDS)
    for spec in registry:
        assert dataclasses.replace(spec) == spec
        assert spec.settle >= 0
        assert spec.progress_grace >= 0


def test_the_data_carries_what_was_measured(registry: Registry) -> None:
    """Pull, readiness, options, env and sidecars as the research measured them."""
    assert {spec.id for spec in registry if spec.pull_diagnostics} == PULL_SERVERS
    for server_id in ("basedpyright", "pyright"):
        spec = registry.get(server_id)
        assert (spec.readiness, spec.ready_registration) == (
            "registration",
            "textDocument/diagnostic",
        )
        assert spec.settle > registry.get("ruff").settle
    assert registry.get("rust-analyzer").readiness == "server_status"
    assert registry.get("ccls").initialization_options == {"cache": {"directory": ""}}
    assert registry.get("gopls").env == {"GOPROXY": "off"}
    assert "shellcheck" in registry.get("bash-language-server").sidecars
    assert registry.get("vscode-css-language-server").empty_configuration
    assert not registry.get("ruff").empty_configuration
    assert any("UTF-8 bytes" in note for note in registry.get("pylsp").notes)
    assert registry.get("cmake-language-server").language_id("CMakeLists.txt") == "cmake"


def test_default_gives_independent_registries(registry: Registry) -> None:
    """Changing a spec's dict from one default() cannot reach the next caller."""
    registry.get("ccls").initialization_options["cache"]["directory"] = "/tmp"  # type: ignore[index]
    registry.get("ruff").notes.append("changed")
    again = Registry.default()
    assert again is not registry
    assert again.get("ccls").initialization_options == {"cache": {"directory": ""}}
    assert "changed" not in again.get("ruff").notes


# Preference order and installed-first


def test_python_servers_come_type_checkers_first_and_jedi_last(
    registry: Registry, path_dir: Path
) -> None:
    """With every Python server installed, for_path gives the registry's preference order."""
    for spec in registry:
        if spec.language_id("a.py"):
            make_executable(path_dir, spec.command[0])
    assert ids(registry.for_path("a.py")) == PYTHON_ORDER
    assert ids(registry.for_path("pkg/stub.pyi")) == PYTHON_ORDER
    # A notebook is Python's (its kernel's language is read when it is opened).
    assert ids(registry.for_path("analysis.ipynb")) == PYTHON_ORDER
    assert registry.get("ruff").language_id("analysis.ipynb") == "python"
    assert registry.get("clangd").language_id("analysis.ipynb") is None
    assert registry.get("ruff").language_id(".ipynb") is None


def test_how_each_server_takes_notebooks_is_data(registry: Registry) -> None:
    """Measured per server: sync or joined, cell pulls and pushes, IPython lines."""
    table = {
        spec.id: (spec.notebooks, spec.notebook_cell_pulls, spec.ipython)
        for spec in registry
        if spec.language_id("x.ipynb")
    }
    assert table["ruff"] == ("sync", True, True)
    assert registry.get("ruff").notebook_cell_pushes_final
    assert table["basedpyright"] == ("sync", False, True)
    assert table["pyright"][0] == "joined"
    assert all(table[name][2] is False for name in ("jedi-language-server", "pylsp", "zuban"))
    with pytest.raises(ValueError, match="notebooks"):
        ServerSpec(id="x", command=["x"], notebooks="sometimes")


def test_installed_servers_come_first_each_group_in_order(
    registry: Registry, path_dir: Path
) -> None:
    """Only jedi and ruff installed: they lead, then the rest in preference order."""
    make_executable(path_dir, "jedi-language-server")
    make_executable(path_dir, "ruff")
    expected_rest = [i for i in PYTHON_ORDER if i not in ("ruff", "jedi-language-server")]
    assert ids(registry.for_path("a.py")) == ["ruff", "jedi-language-server", *expected_rest]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("main.c", ["clangd", "ccls"]),
        ("x.hpp", ["clangd", "ccls"]),
        ("app.ts", ["typescript-language-server", "tsc"]),
        ("app.jsx", ["typescript-language-server", "tsc"]),
        ("main.go", ["gopls"]),
        ("go.mod", ["gopls"]),
        ("lib.rs", ["rust-analyzer"]),
        ("run.sh", ["bash-language-server"]),
        ("ci.yml", ["yaml-language-server"]),
        ("data.json", ["vscode-json-language-server"]),
        ("site.scss", ["vscode-css-language-server"]),
        ("index.html", ["vscode-html-language-server"]),
        ("solver.f90", ["fortls"]),
        ("pyproject.toml", ["tombi"]),
        ("sub/CMakeLists.txt", ["cmake-language-server"]),
        ("index.rst", ["esbonio"]),
        ("README", []),
        ("notes.txt", []),
    ],
)
def test_for_path_by_extension_and_exact_name(
    registry: Registry, path_dir: Path, path: str, expected: list[str]
) -> None:
    """Nothing installed: every server for the file, in the registry's order."""
    assert ids(registry.for_path(path)) == expected


@pytest.mark.parametrize(
    ("server_id", "path", "language_id"),
    [
        ("cmake-language-server", "CMakeLists.txt", "cmake"),
        ("cmake-language-server", "cmake/Find.cmake", "cmake"),
        ("vscode-json-language-server", "tsconfig.json", "jsonc"),
        ("vscode-json-language-server", "a/.eslintrc.json", "json"),
        ("typescript-language-server", "types/x.d.ts", "typescript"),
        ("bash-language-server", ".bashrc", "shellscript"),
        ("clangd", "a.h", "c"),
        ("clangd", "a.C", "cpp"),
        ("clangd", "a.c", "c"),
        ("ruff", "A.PY", None),
        ("ruff", "py", None),
        ("gopls", "go.mod", "go.mod"),
    ],
)
def test_language_id_exact_name_first_then_extension_case_sensitive(
    registry: Registry, server_id: str, path: str, language_id: str | None
) -> None:
    """The exact file name first, then the extension, case-sensitive."""
    assert registry.get(server_id).language_id(path) == language_id
    assert registry.get(server_id).language_id(Path(path)) == language_id


def test_a_longer_extension_wins_over_a_shorter_one() -> None:
    """``a.d.ts`` is taken by ``.d.ts`` before ``.ts``."""
    spec = ServerSpec("x", ["x"], languages={".d.ts": "decl", ".ts": "typescript"})
    assert spec.language_id("a.d.ts") == "decl"
    assert spec.language_id("a.ts") == "typescript"


# which and require


def test_which_finds_a_command_on_path_and_none_when_missing(
    registry: Registry, path_dir: Path
) -> None:
    """On PATH it is found, by spec or by id; a missing one is None."""
    ruff = make_executable(path_dir, "ruff")
    assert registry.which(registry.get("ruff")) == str(ruff)
    assert registry.which("ruff") == str(ruff)
    assert registry.which(registry.get("gopls")) is None
    assert registry.which("gopls", root=path_dir.parent) is None


def test_which_ignores_a_file_that_is_not_executable(registry: Registry, path_dir: Path) -> None:
    """A file on PATH without the execute bit is not a server."""
    (path_dir / "ruff").write_text("not a program")
    assert registry.which("ruff") is None


def test_the_roots_venv_and_node_modules_win_over_path(
    registry: Registry, path_dir: Path, tmp_path: Path
) -> None:
    """root/.venv/bin first, then root/node_modules/.bin, then PATH."""
    root = tmp_path / "project"
    make_executable(path_dir, "ruff")
    venv_ruff = make_executable(root / ".venv" / "bin", "ruff")
    node_ruff = make_executable(root / "node_modules" / ".bin", "ruff")
    assert registry.which("ruff", root, trusted=True) == str(venv_ruff)
    venv_ruff.unlink()
    assert registry.which("ruff", root, trusted=True) == str(node_ruff)
    node_ruff.unlink()
    assert registry.which("ruff", root, trusted=True) == str(path_dir / "ruff")
    node_pyright = make_executable(root / "node_modules" / ".bin", "pyright-langserver")
    assert registry.which("pyright", str(root), trusted=True) == str(node_pyright)


def test_for_path_counts_servers_in_the_root_as_installed(
    registry: Registry, path_dir: Path, tmp_path: Path
) -> None:
    """A server in the root's .venv leads for_path there, and only there."""
    make_executable(tmp_path / ".venv" / "bin", "pyrefly")
    assert ids(registry.for_path("a.py", root=tmp_path, trusted=True))[0] == "pyrefly"
    assert ids(registry.for_path("a.py"))[0] == "basedpyright"


def test_tsc_prefers_the_native_binary_over_the_node_shim(
    registry: Registry, path_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """node_modules/.bin/tsc spawns the native server as a child; the binary is run instead."""
    monkeypatch.setattr("platform.machine", lambda: "x86_64")
    monkeypatch.setattr(sys, "platform", "linux")
    shim = make_executable(tmp_path / "node_modules" / ".bin", "tsc")
    assert registry.which("tsc", tmp_path, trusted=True) == str(shim)
    native = make_executable(
        tmp_path / "node_modules" / "@typescript" / "typescript-linux-x64" / "lib", "tsc"
    )
    assert registry.which("tsc", tmp_path, trusted=True) == str(native)
    assert registry.which("tsc") is None


def test_an_absolute_command_is_used_as_it_is(path_dir: Path, tmp_path: Path) -> None:
    """An absolute command is not looked up elsewhere: it exists or the server is missing."""
    program = make_executable(tmp_path / "opt", "my-lsp")
    make_executable(tmp_path / ".venv" / "bin", "my-lsp")
    registry = Registry([ServerSpec("mine", [str(program)], languages={".my": "my"})])
    assert registry.which("mine", tmp_path, trusted=True) == str(program)
    program.unlink()
    assert registry.which("mine", tmp_path, trusted=True) is None
    with pytest.raises(ServerNotFoundError, match="is not an executable file"):
        registry.require("mine")


def test_a_relative_command_with_a_slash_is_relative_to_the_root(
    path_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tools/my-lsp`` is found under the root, else under the working directory."""
    program = make_executable(tmp_path / "tools", "my-lsp")
    registry = Registry([ServerSpec("mine", ["tools/my-lsp", "--stdio"])])
    assert registry.which("mine", tmp_path, trusted=True) == str(program)
    monkeypatch.chdir(tmp_path)
    assert registry.which("mine") == str(program)
    monkeypatch.chdir(path_dir)
    assert registry.which("mine") is None


def test_require_returns_the_executable(registry: Registry, path_dir: Path) -> None:
    """require gives what which finds."""
    ruff = make_executable(path_dir, "ruff")
    assert registry.require("ruff") == str(ruff)


def test_require_names_the_server_and_its_install_hint(
    registry: Registry, path_dir: Path, tmp_path: Path
) -> None:
    """A missing server fails fast, saying which one, where it looked and how to install it."""
    with pytest.raises(ServerNotFoundError) as caught:
        registry.require(registry.get("bash-language-server"), root=tmp_path, trusted=True)
    message = str(caught.value)
    assert "bash-language-server is not installed" in message
    assert "npm install bash-language-server" in message
    assert str(tmp_path / ".venv" / "bin") in message
    assert "node_modules" in message
    assert caught.value.server == "bash-language-server"
    # An untrusted root's own folders are not looked in, so they are not named either.
    with pytest.raises(ServerNotFoundError) as untrusted:
        registry.require(registry.get("bash-language-server"), root=tmp_path, trusted=False)
    assert "node_modules" not in str(untrusted.value)
    assert "on PATH or in" in str(untrusted.value)
    with pytest.raises(ServerNotFoundError, match=r"no zuban on PATH.*pip install zuban"):
        registry.require("zuban")


def test_an_unknown_id_is_a_value_error_listing_the_known_ids(registry: Registry) -> None:
    """get, which and require of an unknown id say so and list the ids there are."""
    with pytest.raises(ValueError, match=r"'nope'.*known ids: basedpyright, pyright, ty"):
        registry.get("nope")
    with pytest.raises(ValueError, match="'nope'"):
        registry.which("nope")
    with pytest.raises(ValueError, match="known ids: none"):
        Registry().get("ruff")


# The real servers of this machine


def test_the_real_ruff_resolves(monkeypatch: pytest.MonkeyPatch) -> None:
    """ruff is installed beside this Python; the default registry finds it on PATH."""
    bin_dir = Path(sys.executable).parent
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    found = Registry.default().which(Registry.default().get("ruff"))
    assert found is not None
    assert Path(found).name.startswith("ruff")
    assert os.access(found, os.X_OK)


def test_requiring_a_server_that_is_not_here_is_fast(path_dir: Path, tmp_path: Path) -> None:
    """gopls is not installed here: require fails at once, starting nothing."""
    registry = Registry.default()
    started = time.perf_counter()
    with pytest.raises(ServerNotFoundError, match=r"gopls.*apt-get install gopls"):
        registry.require("gopls", root=tmp_path)
    assert time.perf_counter() - started < 0.5


# Registry basics


def test_iteration_length_membership_and_repr() -> None:
    """A registry iterates its specs in order and answers ``in`` by id or by spec."""
    first = ServerSpec("a", ["a"])
    tuple_command: Any = ("b", "--stdio")  # a tuple is accepted and stored as a list
    second = ServerSpec("b", tuple_command)
    registry = Registry([first, second])
    assert list(registry) == [first, second]
    assert len(registry) == 2
    assert registry.ids == ["a", "b"]
    assert "a" in registry
    assert first in registry
    assert ServerSpec("a", ["other"]) not in registry
    assert "c" not in registry
    assert 3 not in registry
    assert repr(registry) == "Registry(['a', 'b'])"


def test_a_registry_refuses_duplicate_ids_and_non_specs() -> None:
    """Ids are unique in a registry, and it holds only specs."""
    with pytest.raises(ValueError, match="two servers have the id 'a'"):
        Registry([ServerSpec("a", ["a"]), ServerSpec("a", ["b"])])
    with pytest.raises(ValueError, match="ServerSpec objects"):
        Registry(["ruff"])  # type: ignore[list-item]


# ServerSpec


def test_a_spec_copies_its_inputs_and_stores_lists() -> None:
    """Tuples become lists, and changing the caller's lists or dicts leaves the spec alone."""
    command = ["x", "--stdio"]
    settings: dict[str, Any] = {"x": {"level": 1}}
    tuples: dict[str, Any] = {"root_markers": (".git",), "notes": ("n",)}
    spec = ServerSpec("x", command, settings=settings, **tuples)
    command.append("changed")
    settings["x"]["level"] = 2
    assert spec.command == ["x", "--stdio"]
    assert spec.settings == {"x": {"level": 1}}
    assert spec.root_markers == [".git"]
    assert spec.notes == ["n"]
    encodings: Any = ("utf-8",)
    assert ServerSpec("y", ["y"], position_encodings=encodings).position_encodings == ["utf-8"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.id = "z"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "field_name"),
    [
        ({"id": "", "command": ["x"]}, "id"),
        ({"id": 3, "command": ["x"]}, "id"),
        ({"command": []}, "command"),
        ({"command": "x --stdio"}, "command"),
        ({"command": ["x", 1]}, "command"),
        ({"command": ["x"], "root_markers": [""]}, "root_markers"),
        ({"command": ["x"], "languages": {".x": 1}}, "languages"),
        ({"command": ["x"], "languages": [".x"]}, "languages"),
        ({"command": ["x"], "env": {"A": 1}}, "env"),
        ({"command": ["x"], "settings": []}, "settings"),
        ({"command": ["x"], "initialization_options": "x"}, "initialization_options"),
        ({"command": ["x"], "pull_diagnostics": 1}, "pull_diagnostics"),
        ({"command": ["x"], "install": None}, "install"),
        ({"command": ["x"], "settle": -0.1}, "settle"),
        ({"command": ["x"], "settle": math.nan}, "settle"),
        ({"command": ["x"], "settle": True}, "settle"),
        ({"command": ["x"], "settle": "1"}, "settle"),
        ({"command": ["x"], "progress_grace": -1}, "progress_grace"),
        ({"command": ["x"], "shutdown_timeout": -1}, "shutdown_timeout"),
        ({"command": ["x"], "readiness": "soon"}, "readiness"),
        ({"command": ["x"], "readiness": "registration"}, "ready_registration"),
        ({"command": ["x"], "ready_registration": ""}, "ready_registration"),
        ({"command": ["x"], "position_encodings": "utf-8"}, "position_encodings"),
        ({"command": ["x"], "executables": [3]}, "executables"),
        ({"command": ["x"], "roots": "single"}, "roots"),
        ({"command": ["x"], "root_markers": ["setup.cfg[metadata]"]}, "root_markers"),
        ({"command": ["x"], "navigation_waits": "yes"}, "navigation_waits"),
        ({"command": ["x"], "files_listed_logs": "Found *"}, "files_listed_logs"),
    ],
)
def test_a_bad_spec_field_is_a_value_error_naming_it(
    kwargs: dict[str, Any], field_name: str
) -> None:
    """Each bad value is a ValueError naming the field and the server's id."""
    kwargs = {"id": "srv", **kwargs}
    with pytest.raises(ValueError, match=field_name) as caught:
        ServerSpec(**kwargs)
    if field_name != "id":
        assert "'srv'" in str(caught.value)


def test_every_field_but_id_and_command_has_a_default() -> None:
    """``ServerSpec(id, command)`` is enough; the contract's fields lead, in order."""
    spec = ServerSpec("x", ["x"])
    assert (spec.readiness, spec.settle, spec.progress_grace) == ("progress", 0.3, 1.0)
    assert spec.initialization_options is None
    assert spec.position_encodings is None
    assert spec.shutdown_timeout is None
    names = [f.name for f in dataclasses.fields(ServerSpec)]
    assert names[:3] == ["id", "command", "languages"]
    assert names.index("notes") == names.index("description") + 1


# Project configuration

PYPROJECT = """
[project]
name = "demo"

[tool.adecore-lsp]
servers = ["my-lsp", "ruff"]

[tool.adecore-lsp.server.ruff]
settings = { lineLength = 100, lint = { select = ["E"] } }
settle = 0.1

[tool.adecore-lsp.server.ty]
settings = { ty = { experimental = true } }

[tool.adecore-lsp.server.my-lsp]
command = ["my-lsp", "--stdio"]
languages = { ".my" = "mylang", ".py" = "python" }
"""


def test_a_pyproject_table_overrides_adds_and_chooses_servers(
    tmp_path: Path, path_dir: Path
) -> None:
    """Overrides replace fields, merge settings deeply, and a new server leads for its files."""
    base = Registry(
        [
            ServerSpec(
                "ruff",
                ["ruff", "server"],
                languages={".py": "python"},
                settings={"lineLength": 88, "lint": {"preview": True}},
            ),
            ServerSpec("ty", ["ty", "server"], languages={".py": "python"}),
        ]
    )
    write(tmp_path / "pyproject.toml", PYPROJECT)
    registry, servers = base.for_project(tmp_path)
    assert servers == ["my-lsp", "ruff"]
    ruff = registry.get("ruff")
    assert ruff.settings == {"lineLength": 100, "lint": {"preview": True, "select": ["E"]}}
    assert ruff.settle == 0.1
    assert ruff.command == ["ruff", "server"]
    assert registry.get("ty").settings == {"ty": {"experimental": True}}
    mine = registry.get("my-lsp")
    assert mine.command == ["my-lsp", "--stdio"]
    assert mine.language_id("a.my") == "mylang"
    assert registry.ids == ["my-lsp", "ruff", "ty"]
    assert ids(registry.for_path("a.py")) == ["my-lsp", "ruff", "ty"]
    assert base.get("ruff").settings["lineLength"] == 88


def test_an_adecore_lsp_toml_is_read_at_its_top_level_and_wins(
    tmp_path: Path, registry: Registry
) -> None:
    """With both files, adecore-lsp.toml is the explicit one and the pyproject is not read."""
    write(tmp_path / "pyproject.toml", '[tool.adecore-lsp]\nservers = ["pylsp"]\n')
    write(
        tmp_path / "adecore-lsp.toml",
        'servers = ["pyrefly"]\n[server.pyrefly]\ncommand = ["pyrefly", "lsp", "--verbose"]\n',
    )
    configured, servers = registry.for_project(tmp_path)
    assert servers == ["pyrefly"]
    assert configured.get("pyrefly").command == ["pyrefly", "lsp", "--verbose"]
    assert configured.ids == registry.ids


@pytest.mark.parametrize(
    "files",
    [
        {},
        {"pyproject.toml": '[project]\nname = "x"\n'},
        {"pyproject.toml": "[tool.ruff]\nline-length = 100\n"},
    ],
)
def test_no_configuration_gives_the_same_registry_and_no_list(
    tmp_path: Path, registry: Registry, files: dict[str, str]
) -> None:
    """No file, or a pyproject without the table: the registry as it is, and no list."""
    for name, text in files.items():
        write(tmp_path / name, text)
    assert registry.for_project(tmp_path) == (registry, None)


def test_a_configuration_without_servers_gives_no_list(tmp_path: Path, registry: Registry) -> None:
    """Overrides alone leave the choice of servers to the workspace."""
    write(tmp_path / "adecore-lsp.toml", "[server.ruff]\nsettle = 0.0\n")
    configured, servers = registry.for_project(tmp_path)
    assert servers is None
    assert configured.get("ruff").settle == 0.0


@pytest.mark.parametrize(
    ("file_name", "text", "expected"),
    [
        (
            "pyproject.toml",
            "[tool.adecore-lsp]\nserver = 1\nservrs = []\n",
            "'tool.adecore-lsp.servrs'",
        ),
        ("adecore-lsp.toml", "colour = true\n", r"unknown field 'colour' in the top level"),
        (
            "pyproject.toml",
            "[tool.adecore-lsp.server.ruff]\nsetings = {}\n",
            r"\[tool.adecore-lsp.server.ruff\]: unknown field 'setings'",
        ),
        (
            "adecore-lsp.toml",
            "[server.ruff]\nroot-markers = ['x']\n",
            r"\[server.ruff\]: unknown field 'root-markers' \(did you mean 'root_markers'\?\)",
        ),
        ("adecore-lsp.toml", "[server.ruff]\nid = 'x'\n", "unknown field 'id'"),
        ("adecore-lsp.toml", "servers = ['ruff', 'nope']\n", "servers names 'nope'"),
        ("adecore-lsp.toml", "servers = ['ruff', 'ruff']\n", "servers names 'ruff' twice"),
        ("adecore-lsp.toml", "servers = [\n", "not valid TOML"),
        ("pyproject.toml", "[tool.adecore-lsp\n", "not valid TOML"),
        ("adecore-lsp.toml", "servers = 'ruff'\n", "servers must be a list of server ids"),
        ("adecore-lsp.toml", "servers = [1]\n", "servers must be a list of server ids"),
        ("pyproject.toml", "[tool]\nadecore-lsp = 1\n", "tool.adecore-lsp must be a table"),
        ("adecore-lsp.toml", "server = 'ruff'\n", "server must hold one table per server"),
        ("adecore-lsp.toml", "server.ruff = 1\n", "server.ruff must be a table of fields"),
        ("adecore-lsp.toml", "[server.ruff]\nsettings = 1\n", r"settings must be a table"),
        ("adecore-lsp.toml", "[server.ruff]\nsettle = 'fast'\n", r"\[server.ruff\]: .*settle"),
        ("adecore-lsp.toml", "[server.ruff]\ncommand = []\n", r"command must not be empty"),
        (
            "pyproject.toml",
            "[tool.adecore-lsp.server.new]\nlanguages = {'.n' = 'n'}\n",
            r"\[tool.adecore-lsp.server.new\]: .*needs a command",
        ),
        ("adecore-lsp.toml", "[server.new]\ncommand = 'new'\n", r"server.new\]: .*command"),
    ],
)
def test_a_bad_project_file_is_a_value_error_naming_file_and_field(
    tmp_path: Path, registry: Registry, file_name: str, text: str, expected: str
) -> None:
    """Every bad project file is a ValueError naming the file and the field."""
    path = write(tmp_path / file_name, text)
    with pytest.raises(ValueError, match=expected) as caught:
        registry.for_project(tmp_path)
    assert str(path) in str(caught.value)


def test_a_toml_syntax_error_keeps_its_cause(tmp_path: Path, registry: Registry) -> None:
    """The TOML parser's error is chained, so its line and column stay visible."""
    write(tmp_path / "adecore-lsp.toml", "servers = [\n")
    with pytest.raises(ValueError, match=r"adecore-lsp\.toml") as caught:
        registry.for_project(tmp_path)
    assert caught.value.__cause__ is not None


def test_an_unreadable_project_file_is_a_value_error(tmp_path: Path, registry: Registry) -> None:
    """A file that is not UTF-8 is a ValueError naming it."""
    (tmp_path / "adecore-lsp.toml").write_bytes(b"servers = ['\xff']\n")
    with pytest.raises(ValueError, match=r"adecore-lsp\.toml"):
        registry.for_project(tmp_path)


@pytest.mark.parametrize(
    "name",
    [
        "a.py",
        "b.pyi",
        "c.d.ts",
        "d.test.ts",
        "CMakeLists.txt",
        "Makefile",
        ".bashrc",
        ".py",
        "nb.ipynb",
        "x.C",
        "x.c",
        "x.h",
        "noext",
        "weird.",
        "a.b.c.go",
    ],
)
def test_the_servers_taking_a_name_are_the_specs_whose_languages_take_it(name: str) -> None:
    """Registry.taking remembers by the part of the name that decides, and agrees with
    each spec's language_id whatever name came first."""
    registry = Registry.default()
    expected = tuple(spec for spec in registry if spec.language_id(name) is not None)
    # Another name with the same extensions asked first must not change the answer.
    registry.taking("other" + name[name.find(".", 1) :] if name.find(".", 1) > 0 else "zz")
    assert registry.taking(name) == expected
    assert registry.taking(name) is registry.taking(name)
