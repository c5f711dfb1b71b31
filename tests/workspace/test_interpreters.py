"""The interpreter an untrusted root's Python server is given (issue 35): which environment
the server would start an interpreter of, its folders read from disk, and the environment
of ours that carries them (``tests/cli/test_untrusted_interpreter.py`` runs the servers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import Registry
from adecore_lsp.workspace.servers.interpreters import (
    Interpreter,
    environment_started,
    interpreter_for,
    interpreter_inside,
    our_interpreter,
    search_paths,
)
from adecore_lsp.workspace.servers.session_options import session_options

VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"


def venv(folder: Path) -> Path:
    """An environment at ``folder``: its ``pyvenv.cfg`` and ``site-packages``."""
    (folder / "lib" / VERSION / "site-packages").mkdir(parents=True)
    (folder / "pyvenv.cfg").write_text("home = /nowhere\n", encoding="utf-8")
    return folder


def site_of(folder: Path) -> Path:
    return folder / "lib" / VERSION / "site-packages"


def test_each_source_finds_the_environment_the_server_would_start(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    venv(root / ".venv")
    active = venv(tmp_path / "active")
    (active / "bin").mkdir()
    (active / "bin" / "python3").write_text("#!/bin/sh\n")
    (active / "bin" / "python3").chmod(0o755)
    env = {"VIRTUAL_ENV": str(active), "PATH": str(active / "bin")}
    assert environment_started([".venv"], root, env) == root / ".venv"
    assert environment_started([".venv"], root / "pkg", env) is None  # its root's only
    assert environment_started(["venv above"], root / "pkg", env) == root / ".venv"
    assert environment_started(["VIRTUAL_ENV"], root, env) == active
    assert environment_started(["CONDA_PREFIX"], root, env) is None
    assert environment_started(["CONDA_PREFIX"], root, {"CONDA_PREFIX": str(active)}) == active
    assert environment_started(["PATH"], root, env) == active
    assert environment_started(["PATH"], root, {"PATH": str(tmp_path / "none")}) is None
    assert environment_started(["VIRTUAL_ENV", ".venv"], root, {}) == root / ".venv"
    assert environment_started([], root, env) is None


def test_the_folders_are_read_from_disk_and_only_inside_the_root(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    environment = venv(root / ".venv")
    site = site_of(environment)
    (root / "src").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (site / "editable.pth").write_text(
        "# a comment\n\n../../../../src\n" + f"{outside}\n" + "import os; os.system('x')\n"
        "no-such-folder\n",
        encoding="utf-8",
    )
    assert search_paths(environment, [root]) == (str(site), str(root / "src"))
    # A site-packages whose real place is outside the root is not read.
    linked = root / "linked"
    linked.mkdir()
    (linked / "lib" / VERSION).mkdir(parents=True)
    os.symlink(outside, linked / "lib" / VERSION / "site-packages")
    assert search_paths(linked, [root]) == ()
    # lib64 linked to lib is one folder, read once.
    os.symlink("lib", environment / "lib64")
    assert search_paths(environment, [root]) == (str(site), str(root / "src"))


def test_an_environment_outside_the_root_is_the_users_own(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    active = venv(tmp_path / "active")
    env = {"VIRTUAL_ENV": str(active)}
    assert interpreter_for(["VIRTUAL_ENV"], root, [root], env, carries_paths=True) is None
    assert interpreter_inside(["VIRTUAL_ENV"], root, env) is None
    assert interpreter_for([".venv"], root, [root], {}, carries_paths=True) is None
    inner = venv(root / ".venv")
    found = interpreter_for([".venv"], root, [root], {}, carries_paths=False)
    assert found is not None
    assert found.environment == inner
    assert found.paths == (str(site_of(inner)),)
    assert interpreter_inside([".venv"], root, {}) == os.path.join(".venv", "bin", "python")


def test_our_interpreter_carries_the_folders_and_runs_none_of_their_code(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project-site"
    (project / "pkg").mkdir(parents=True)
    marker = tmp_path / "ran"
    code = f"open({str(marker)!r}, 'a').write('ran')\n"
    (project / "sitecustomize.py").write_text(code, encoding="utf-8")
    (project / "usercustomize.py").write_text(code, encoding="utf-8")
    (project / "evil.pth").write_text(f"import os; {code}", encoding="utf-8")
    executable = our_interpreter([str(project)])
    assert executable == our_interpreter([str(project)])  # made once
    assert Path(executable).is_relative_to(Path(os.environ["XDG_STATE_HOME"]))
    for flags in (["-I"], []):
        shown = subprocess.run(
            [executable, *flags, "-c", "import sys, json; print(json.dumps(sys.path))"],
            capture_output=True,
            text=True,
            cwd=project,
            check=True,
        ).stdout
        ours = str(Path(executable).parents[1])
        path = json.loads(shown)
        assert str(project) in path
        # Nothing else installed anywhere: the standard library, our folder, the project's.
        assert [entry for entry in path if "site-packages" in entry] == [
            f"{ours}/lib/{VERSION}/site-packages"
        ]
    assert not marker.exists()
    bare = our_interpreter([])
    assert bare != executable
    assert (
        str(project)
        not in subprocess.run(
            [bare, "-I", "-c", "import sys; print(sys.path)"], capture_output=True, text=True
        ).stdout
    )


def test_the_state_folder_unwritable_gives_the_python_adecore_lsp_runs_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "file"))
    base = os.path.realpath(getattr(sys, "_base_executable", "") or sys.executable)
    assert our_interpreter(["/x"]) == base


@pytest.mark.parametrize(
    ("server", "where"),
    [
        ("basedpyright", ("configuration", "python", "pythonPath")),
        ("pyright", ("configuration", "python", "pythonPath")),
        ("pyrefly", ("configuration", "python", "pythonPath")),
        ("pylsp", ("configuration", "pylsp", "plugins", "jedi", "environment")),
        ("jedi-language-server", ("initialization_options", "workspace", "environmentPath")),
    ],
)
def test_the_server_is_told_where_its_spec_says(server: str, where: tuple[str, ...]) -> None:
    spec = Registry.default().get(server)
    given = Interpreter("/ours/bin/python", Path("/r/.venv"), ("/r/.venv/site", "/r/src"))
    options = session_options(
        spec, Path("/r"), [Path("/r")], timeout=1, declares_pulls=False,
        apply_edit=lambda _params: {}, interpreter=given,
    )  # fmt: skip
    value: Any = options
    for key in where:
        value = value[key]
    assert value == "/ours/bin/python"
    if spec.interpreter_paths is not None:
        field, _, key = spec.interpreter_paths.partition(".")
        paths = options["configuration" if field == "settings" else field]
        for part in key.split("."):
            paths = paths[part]
        assert paths == ["/r/.venv/site", "/r/src"]
    # The spec itself is not changed, and without an interpreter nothing is said.
    assert "pythonPath" not in str(spec.settings)
    plain = session_options(
        spec, Path("/r"), [Path("/r")], timeout=1, declares_pulls=False,
        apply_edit=lambda _params: {},
    )  # fmt: skip
    assert "/ours/bin/python" not in str(plain)


def test_extra_paths_already_given_come_first() -> None:
    from dataclasses import replace

    spec = Registry.default().get("pylsp")
    spec = replace(spec, settings={"pylsp": {"plugins": {"jedi": {"extra_paths": ["/mine"]}}}})
    given = Interpreter("/ours/bin/python", Path("/r/.venv"), ("/r/site",))
    options = session_options(
        spec, Path("/r"), [Path("/r")], timeout=1, declares_pulls=False,
        apply_edit=lambda _params: {}, interpreter=given,
    )  # fmt: skip
    jedi = options["configuration"]["pylsp"]["plugins"]["jedi"]
    assert jedi == {"extra_paths": ["/mine", "/r/site"], "environment": "/ours/bin/python"}
