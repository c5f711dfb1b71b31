"""An untrusted repository's own Python never runs (issue 35), and imports still resolve.

basedpyright starts its root's ``.venv/bin/python`` by itself (6 times a check), pyrefly the
nearest ``.venv``'s (once), and with the environment activated pyright runs the ``python``
on ``PATH``, jedi-language-server and pylsp ``VIRTUAL_ENV``'s (ty reads the environment
from disk and runs nothing). Here that interpreter is a marker: it leaves a line in a file,
then runs a real Python of that environment. Untrusted, the marker never runs and a
definition into a package installed only in the environment is found; trusted, each server
runs it as it always did.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import find_npm_server, find_server

from .conftest import Ran, need, no_traceback, run, write

pytestmark = pytest.mark.real_server

VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"
BASE = os.path.realpath(getattr(sys, "_base_executable", "") or sys.executable)
MARKER = """#!/bin/sh
echo "$0" >> "{log}"
exec "$(dirname "$0")/python-real" "$@"
"""
APP = 'from venvonly import greet\n\nx: int = greet("a")\n'


def repository(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose ``.venv`` holds ``venvonly`` and whose interpreter is a marker;
    the repository and the marker's log."""
    log = tmp_path / "interpreter-ran"
    root = write(tmp_path / "stranger", {"app.py": APP})
    (root / ".git").mkdir()
    environment(root / ".venv", log)
    return root, log


def environment(venv: Path, log: Path) -> Path:
    """An environment at ``venv`` holding ``venvonly``, whose interpreters are markers that
    leave a line in ``log``, then run a real Python of that environment."""
    site = venv / "lib" / VERSION / "site-packages"
    write(
        site,
        {
            "venvonly/__init__.py": 'def greet(name: str) -> str:\n    return "hi " + name\n',
            "venvonly/py.typed": "",
        },
    )
    (venv / "pyvenv.cfg").write_text(
        f"home = {os.path.dirname(BASE)}\ninclude-system-site-packages = false\n",
        encoding="utf-8",
    )
    (venv / "bin").mkdir()
    os.symlink(BASE, venv / "bin" / "python-real")
    for name in ("python", "python3", VERSION):
        shim = venv / "bin" / name
        shim.write_text(MARKER.format(log=log), encoding="utf-8")
        shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    return venv


def activated(root: Path, *after: str) -> dict[str, str]:
    """The environment of a shell that activated the repository's ``.venv`` (``after``:
    more folders on ``PATH`` behind it)."""
    bin_folder = root / ".venv" / "bin"
    return {
        "VIRTUAL_ENV": str(root / ".venv"),
        "PATH": os.pathsep.join([str(bin_folder), *after, os.environ.get("PATH", "")]),
    }


def definition(root: Path, server: str, env: dict[str, str], *trust: str) -> Ran:
    ran = run(
        "definition", "app.py:3:10", "--server", server, "--format", "json", "--no-progress",
        *trust, cwd=root, env=env,
    )  # fmt: skip
    no_traceback(ran)
    return ran


def found_in_venv(ran: Ran) -> bool:
    answer = json.loads(ran.out)
    places = answer if isinstance(answer, list) else answer.get("locations", [answer])
    return any("venvonly/__init__.py" in json.dumps(place) for place in places)


def runs(log: Path) -> int:
    return len(log.read_text(encoding="utf-8").splitlines()) if log.exists() else 0


# (server, program to need, activated): how each finds the interpreter it starts.
CASES = [
    ("basedpyright", "basedpyright-langserver", False),
    ("basedpyright", "basedpyright-langserver", True),
    ("pyrefly", "pyrefly", False),
    ("pyright", "pyright-langserver", True),
    ("jedi-language-server", "jedi-language-server", True),
    ("pylsp", "pylsp", True),
]


@pytest.mark.parametrize(("server", "program", "active"), CASES)
def test_the_repositorys_interpreter_runs_only_in_a_trusted_root(
    tmp_path: Path, server: str, program: str, active: bool
) -> None:
    extra: list[str] = []
    if server == "basedpyright":
        need(server)
    elif server == "pyright":  # from the npm prefix, as its users install it
        extra.append(os.path.dirname(find_npm_server(f"node_modules/.bin/{program}")))
    else:
        find_server(program)
    root, log = repository(tmp_path)
    env = activated(root, *extra) if active else {}
    untrusted = definition(root, server, env)
    assert untrusted.status == 0, untrusted
    assert runs(log) == 0, log.read_text(encoding="utf-8")
    assert found_in_venv(untrusted), untrusted.out
    [notice] = [line for line in untrusted.err.splitlines() if "not trusted" in line]
    assert ".venv/bin/python" in notice
    trusted = definition(root, server, env, "--trust")
    assert trusted.status == 0, trusted
    assert runs(log) >= 1  # the server's own behaviour: it started the marker
    assert found_in_venv(trusted), trusted.out
    assert "not trusted" not in trusted.err


def test_an_untrusted_check_resolves_the_environments_imports_and_runs_nothing(
    tmp_path: Path,
) -> None:
    need("basedpyright")
    root, log = repository(tmp_path)
    ran = run("check", "--server", "basedpyright", "--format", "json", "--no-progress", cwd=root)
    no_traceback(ran)
    assert runs(log) == 0, log.read_text(encoding="utf-8")
    found = [(d["line"], d["code"]) for d in json.loads(ran.out)["diagnostics"]]
    # The import resolves (no reportMissingImports), so greet's str is checked against int.
    assert found == [(3, "reportAssignmentType")], ran.out
    assert ran.status == 1


def test_a_sitecustomize_or_pth_code_of_the_environment_never_runs(tmp_path: Path) -> None:
    """The environment's folders are on our interpreter's path, but site runs none of their
    code: not a ``sitecustomize`` module, not an ``import`` line of a ``.pth`` file."""
    need("basedpyright")
    root, log = repository(tmp_path)
    site = root / ".venv" / "lib" / VERSION / "site-packages"
    evil = tmp_path / "evil-ran"
    code = f"open({str(evil)!r}, 'a').write('ran')\n"
    (site / "sitecustomize.py").write_text(code, encoding="utf-8")
    (site / "usercustomize.py").write_text(code, encoding="utf-8")
    (site / "evil.pth").write_text(f"import os; {code}", encoding="utf-8")
    ran = definition(root, "basedpyright", {})
    assert found_in_venv(ran), ran.out
    assert runs(log) == 0
    assert not evil.exists()


def test_pyrefly_starts_no_environment_of_an_untrusted_root_below_or_beside_it(
    tmp_path: Path,
) -> None:
    """pyrefly finds ``venv`` and ``env`` as it finds ``.venv``, and an environment for each
    project below its root (a folder holding a ``pyproject.toml``): in an untrusted root it
    is given an interpreter in any case, so none of them runs."""
    find_server("pyrefly")
    log = tmp_path / "interpreter-ran"
    root = write(
        tmp_path / "stranger",
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            "app.py": APP,
            "sub/pyproject.toml": "",
            "sub/m.py": APP,
        },
    )
    environment(root / "venv", log)
    environment(root / "sub" / ".venv", log)
    ran = run("check", "--server", "pyrefly", "--format", "json", "--no-progress", cwd=root)
    no_traceback(ran)
    assert ran.status == 0, ran
    [notice] = [line for line in ran.err.splitlines() if "not trusted" in line]
    assert "venv/bin/python" in notice
    asked = definition(root, "pyrefly", {})
    assert found_in_venv(asked), asked.out  # ours carries the root's venv's packages
    assert runs(log) == 0, log.read_text(encoding="utf-8")
    trusted = run(
        "check", "--server", "pyrefly", "--format", "json", "--no-progress", "--trust", cwd=root
    )
    assert trusted.status == 0, trusted
    assert sorted(set(log.read_text(encoding="utf-8").split())) == [
        str(root / "sub/.venv/bin/python"),
        str(root / "venv/bin/python"),
    ]  # pyrefly's own behaviour: both environments' interpreters ran


def test_an_untrusted_project_nested_in_a_trusted_root_starts_no_interpreter_of_its_own(
    tmp_path: Path,
) -> None:
    """The root is trusted (``adecore-lsp trust``); a project nested in it, with its own
    ``[tool.adecore-lsp]``, is not: the interpreter of its ``.venv`` never runs, for
    basedpyright rooted at the project (it holds a pyright configuration) nor for pyrefly
    (which finds an environment for each project below its root). basedpyright gets ours,
    carrying the project's packages."""
    need("basedpyright")
    find_server("pyrefly")
    log = tmp_path / "interpreter-ran"
    root = write(
        tmp_path / "repo",
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            "pyproject.toml": "[tool.adecore-lsp]\n",
            "top.py": "x = 1\n",
            "examples/sample/pyproject.toml": "[tool.adecore-lsp]\n[tool.pyright]\n",
            "examples/sample/app.py": APP,
        },
    )
    environment(root / "examples" / "sample" / ".venv", log)
    assert run("trust", root).status == 0
    where = "examples/sample/app.py:3:10"
    asked = {
        server: run("definition", where, "--server", server, "--format", "json", cwd=root)
        for server in ("basedpyright", "pyrefly")
    }
    for ran in asked.values():
        no_traceback(ran)
        assert ran.status == 0, ran
    assert runs(log) == 0, log.read_text(encoding="utf-8")
    assert found_in_venv(asked["basedpyright"]), asked["basedpyright"].out
    for server in ("basedpyright", "pyrefly"):
        trusted = run("definition", where, "--server", server, "--trust", cwd=root)
        assert trusted.status == 0, trusted
    ran_here = set(log.read_text(encoding="utf-8").split())
    assert ran_here == {str(root / "examples/sample/.venv/bin/python")}  # trusted: they ran
