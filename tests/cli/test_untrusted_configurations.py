"""A server's own configuration that names a program runs nothing in an untrusted root
(issue 35).

pyrefly reads its configuration files itself, and runs what some keys name whatever a
client gives it: each case here names a marker script, which leaves a line in a file when
run. Trusted, pyrefly runs it (once a check: what was measured); untrusted, pyrefly is not
started, the file is not final, and the reason names the file and the key, with what to do.
pyrefly reads the configuration of every file it meets (those it indexes, those an import
leads to), so one anywhere in the root keeps it from starting. basedpyright's ``venvPath``
and ``venv`` and ty's ``environment.python`` name an environment read from disk: nothing
runs, trusted or not.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import find_server

from .conftest import need, no_traceback, run, run_jobs, write

pytestmark = pytest.mark.real_server

VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"
BASE = os.path.realpath(getattr(sys, "_base_executable", "") or sys.executable)
ADVICE = "run `adecore-lsp trust` in the project (or pass --trust) to allow them"
SITE = f".venv/lib/{VERSION}/site-packages"

# (case, files of the repository, the configuration and key the reason names)
CASES = [
    (
        "python-interpreter-path",
        {"pyrefly.toml": 'python-interpreter-path = "./evil"\n'},
        "pyrefly.toml python-interpreter-path",
    ),
    (
        "python-interpreter",
        {".pyrefly.toml": 'python-interpreter = "./evil"\n'},
        ".pyrefly.toml python-interpreter",
    ),
    (
        "python_interpreter",
        {"pyproject.toml": '[tool.pyrefly]\npython_interpreter = "./evil"\n'},
        "pyproject.toml [tool.pyrefly] python_interpreter",
    ),
    (
        "python-interpreter-find-command",
        {"pyrefly.toml": 'python-interpreter-find-command = ["./find"]\n'},
        "pyrefly.toml python-interpreter-find-command",
    ),
    (
        "fallback-python-interpreter-name",
        {"pyrefly.toml": 'fallback-python-interpreter-name = "./evil"\n'},
        "pyrefly.toml fallback-python-interpreter-name",
    ),
    (
        "conda-environment",
        {"pyrefly.toml": 'conda-environment = "base"\n'},
        "pyrefly.toml conda-environment",
    ),
    (
        "build-system",
        {"pyrefly.toml": '[build-system]\ntype = "custom"\ncommand = ["./evil"]\n'},
        "pyrefly.toml build-system",
    ),
    (
        "mypy.ini",
        {"mypy.ini": "[mypy]\npython_executable = ./evil\n"},
        "mypy.ini python_executable",
    ),
    (
        "tool.mypy",
        {"pyproject.toml": '[tool.mypy]\npython_executable = "./evil"\n'},
        "pyproject.toml [tool.mypy] python_executable",
    ),
    (
        "nested",
        {"sub/pyrefly.toml": 'python-interpreter-path = "../evil"\n', "sub/m.py": "y = 1\n"},
        "sub/pyrefly.toml python-interpreter-path",
    ),
    (
        "site-packages",
        {
            f"{SITE}/pkg/__init__.py": "def f() -> int:\n    return 1\n",
            f"{SITE}/pkg/pyrefly.toml": 'python-interpreter-path = "{root}/evil"\n',
        },
        f"{SITE}/pkg/pyrefly.toml python-interpreter-path",
    ),
]


def executable(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def tools(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A ``conda`` marker on PATH, outside every repository: the environment of the runs,
    and the marker's log."""
    folder = tmp_path / "tools"
    folder.mkdir()
    log = tmp_path / "conda-ran"
    executable(folder / "conda", f'#!/bin/sh\necho conda >> "{log}"\necho \'{{"envs": []}}\'\n')
    return {"PATH": os.pathsep.join([str(folder), os.environ.get("PATH", "")])}, log


def repository(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    """A repository holding ``files`` and the marker scripts they name (``evil``, an
    interpreter; ``find``, which prints one); the root and the markers' log."""
    log = tmp_path / "ran"
    root = tmp_path / "stranger"
    texts = {name: text.replace("{root}", str(root)) for name, text in files.items()}
    write(root, {".git/HEAD": "ref: refs/heads/main\n", "app.py": "import os\n", **texts})
    if (root / ".venv").is_dir():
        (root / ".venv" / "pyvenv.cfg").write_text(f"home = {os.path.dirname(BASE)}\n")
        (root / ".venv" / "bin").mkdir()
        os.symlink(BASE, root / ".venv" / "bin" / "python")
    executable(root / "evil", f'#!/bin/sh\necho evil >> "{log}"\nexec "{BASE}" "$@"\n')
    executable(root / "find", f'#!/bin/sh\necho find >> "{log}"\necho "{BASE}"\n')
    return root, log


def runs(log: Path) -> int:
    return len(log.read_text(encoding="utf-8").splitlines()) if log.exists() else 0


def check(root: Path, *trust: str) -> tuple[str, list[str]]:
    return (
        str(root),
        ["check", "app.py", "--server", "pyrefly", "--format", "json", "--no-progress", *trust],
    )


def made(tmp_path: Path) -> tuple[dict[str, tuple[Path, Path]], dict[str, str]]:
    """Each case's repository and the log of the marker it names; the runs' environment."""
    env, conda_log = tools(tmp_path)
    found = {}
    for case, files, _ in CASES:
        root, log = repository(tmp_path / case, files)
        found[case] = (root, conda_log if case == "conda-environment" else log)
    return found, env


def test_a_configuration_naming_a_program_keeps_pyrefly_from_starting(tmp_path: Path) -> None:
    find_server("pyrefly")
    repositories, env = made(tmp_path)
    untrusted = run_jobs(
        {case: check(root) for case, (root, _) in repositories.items()}, env=env, workers=4
    )
    for case, _files, named in CASES:
        log = repositories[case][1]
        ran = untrusted[case]
        no_traceback(ran)
        assert runs(log) == 0, (case, log.read_text(encoding="utf-8"))
        assert ran.status == 3, (case, ran)
        report = json.loads(ran.out)
        assert report["diagnostics"] == [], case
        reason = report["files"]["app.py"]["reason"]
        assert reason == (
            f"pyrefly was not started: {named} names a program pyrefly would run, "
            f"in a root that is not trusted; {ADVICE}"
        ), case
        assert reason in ran.err  # said on stderr too


def test_trusted_pyrefly_runs_what_its_configuration_names(tmp_path: Path) -> None:
    """The measurement the refusal rests on: each key makes pyrefly run its program."""
    find_server("pyrefly")
    repositories, env = made(tmp_path)
    trusted = run_jobs(
        {case: check(root, "--trust") for case, (root, _) in repositories.items()},
        env=env,
        workers=3,
    )
    for case, (_root, log) in repositories.items():
        no_traceback(trusted[case])
        assert runs(log) >= 1, (case, trusted[case])


def test_a_question_to_pyrefly_says_why_it_was_not_started(tmp_path: Path) -> None:
    find_server("pyrefly")
    root, log = repository(tmp_path, {"pyrefly.toml": 'python-interpreter-path = "./evil"\n'})
    ran = run("definition", "app.py:1:8", "--server", "pyrefly", "--no-progress", cwd=root)
    no_traceback(ran)
    assert runs(log) == 0
    assert ran.status == 2
    assert ran.err.strip() == (
        "adecore-lsp: error: pyrefly was not started: pyrefly.toml python-interpreter-path "
        f"names a program pyrefly would run, in a root that is not trusted; {ADVICE}"
    )


APP = 'from venvonly import greet\n\nx: int = greet("a")\n'


@pytest.mark.parametrize(
    ("server", "config"),
    [
        ("basedpyright", {"pyrightconfig.json": '{"venvPath": "envs", "venv": "evil"}'}),
        ("ty", {"ty.toml": '[environment]\npython = "envs/evil"\n'}),
    ],
)
def test_an_environment_named_by_basedpyright_or_ty_is_read_not_run(
    tmp_path: Path, server: str, config: dict[str, str]
) -> None:
    """Trusted even, the environment their configuration names is read from disk: a
    definition into a package installed only there is found, and its interpreter (a
    marker) never runs."""
    need(server)
    log = tmp_path / "ran"
    site = f"envs/evil/lib/{VERSION}/site-packages"
    root = write(
        tmp_path / "stranger",
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            "app.py": APP,
            f"{site}/venvonly/__init__.py": "def greet(name: str) -> str:\n    return name\n",
            f"{site}/venvonly/py.typed": "",
            "envs/evil/pyvenv.cfg": f"home = {os.path.dirname(BASE)}\n",
            **config,
        },
    )
    (root / "envs/evil/bin").mkdir()
    for name in ("python", "python3", VERSION):
        executable(
            root / "envs/evil/bin" / name, f'#!/bin/sh\necho ran >> "{log}"\nexec "{BASE}" "$@"\n'
        )
    ran = run(
        "definition", "app.py:3:10", "--server", server, "--format", "json", "--no-progress",
        "--trust", cwd=root,
    )  # fmt: skip
    no_traceback(ran)
    assert ran.status == 0, ran
    assert "venvonly/__init__.py" in ran.out
    assert runs(log) == 0
