"""Go through gopls (Debian's, installed by ``scripts/install_servers.py``): ``check`` of a Go
module and of a ``go.work`` tree finds what ``go vet`` finds, and ``servers`` and ``check``'s
summary line say gopls' version as a version."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.cli.conftest import run, tool_env, write
from tests.integration.conftest import find_server

pytestmark = pytest.mark.real_server

MODULE = {
    "go.mod": "module example.com/demo\n\ngo 1.19\n",
    "main.go": (
        'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar count int = "three"\n'
        "\tfmt.Println(count)\n}\n"
    ),
    "report/report.go": (
        'package report\n\nimport "fmt"\n\n// Show prints a count.\nfunc Show(count int) {\n'
        '\tfmt.Printf("%s items\\n", count)\n}\n'
    ),
}
"""A module with a compiler error in one package and a vet finding (printf) in another."""

WORKSPACE = {
    "go.work": "go 1.19\n\nuse (\n\t./app\n\t./lib\n)\n",
    "lib/go.mod": "module example.com/lib\n\ngo 1.19\n",
    "lib/lib.go": (
        "package lib\n\n// Area is the area of a rectangle.\n"
        "func Area(width, height int) int {\n\treturn width * height\n}\n"
    ),
    "app/go.mod": "module example.com/app\n\ngo 1.19\n",
    "app/main.go": (
        'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/lib"\n)\n\n'
        "func main() {\n\tfmt.Println(lib.Area(2))\n}\n"
    ),
}
"""Two modules of one go.work: app calls lib's function with an argument too few."""

VET_LINE = re.compile(
    r"^(?:vet: )?(?:\./)?(?P<path>[^:\s]+\.go):(?P<line>\d+):(?P<column>\d+): (?P<message>.*)$"
)


@pytest.fixture(autouse=True)
def _gopls() -> None:
    find_server("gopls")
    find_server("go")


def go_vet(module: Path) -> list[tuple[str, int, int, str]]:
    """What ``go vet ./...`` finds in ``module``: path (from ``module``), line, column and the
    first line of the message, in that order."""
    ran = subprocess.run(
        ["go", "vet", "./..."],
        cwd=module,
        env=tool_env({"GOPROXY": "off", "GOFLAGS": ""}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode != 0, ran  # each tree here has findings
    found = []
    for line in ran.stderr.splitlines():
        matched = VET_LINE.match(line)
        if matched:
            place = (matched["path"], int(matched["line"]), int(matched["column"]))
            found.append((*place, matched["message"]))
    return sorted(found)


def checked(ran_out: str, under: str = "") -> list[tuple[str, int, int, str]]:
    """The findings of a ``check --format json`` output, as :func:`go_vet` gives them (the
    paths of those under ``under``, from there)."""
    found = []
    for item in json.loads(ran_out)["diagnostics"]:
        if item["path"].startswith(under):
            path = item["path"][len(under) :]
            found.append((path, item["line"], item["column"], item["message"]))
    return sorted(found)


def same_findings(
    ours: list[tuple[str, int, int, str]], vet: list[tuple[str, int, int, str]]
) -> None:
    """The same places, and each of our messages starts as vet's (gopls adds a link)."""
    assert [place[:3] for place in ours] == [place[:3] for place in vet], (ours, vet)
    for mine, theirs in zip(ours, vet, strict=True):
        assert mine[3].startswith(theirs[3]), (mine, theirs)


def test_a_module_checked_finds_what_go_vet_finds(tmp_path: Path) -> None:
    root = write(tmp_path / "demo", MODULE)
    ran = run("check", "--format", "json", "--no-progress", cwd=root)
    assert ran.status == 1, ran
    document = json.loads(ran.out)
    assert document["complete"] is True, ran
    assert [(d["path"], d["severity"]) for d in document["diagnostics"]] == [
        ("main.go", "error"),
        ("report/report.go", "warning"),
    ]
    vet = go_vet(root)
    assert len(vet) == 2
    same_findings(checked(ran.out), vet)


def test_a_go_work_tree_checked_finds_what_go_vet_finds_in_each_module(tmp_path: Path) -> None:
    root = write(tmp_path / "work", WORKSPACE)
    ran = run("check", "--format", "json", "--no-progress", cwd=root)
    assert ran.status == 1, ran
    assert json.loads(ran.out)["complete"] is True, ran
    vet = go_vet(root / "app")
    assert [place[:3] for place in vet] == [("main.go", 10, 24)]
    same_findings(checked(ran.out, "app/"), vet)
    assert checked(ran.out, "lib/") == []
    # From inside the module, the same finding: the root is the go.work's folder, the
    # repository (one gopls for it), so the JSON path is the same as from there.
    inside = run("check", "--format", "json", "--no-progress", cwd=root / "app")
    assert inside.status == 1, inside
    same_findings(checked(inside.out, "app/"), vet)
    assert checked(inside.out, "app/") == checked(ran.out, "app/")


def test_a_workspace_that_does_not_load_is_checked_without_waiting_out_the_timeout(
    tmp_path: Path,
) -> None:
    """app requires lib at a version, as modules of a go.work often do: offline, gopls
    cannot load the module graph and keeps a progress "Error loading workspace" open until
    it can. Once wrong: that progress held every report, and the check ran into its timeout
    (exit 3, every file "not final")."""
    requires = "module example.com/app\n\ngo 1.19\n\nrequire example.com/lib v0.0.0\n"
    root = write(tmp_path / "work", {**WORKSPACE, "app/go.mod": requires})
    started = time.monotonic()
    ran = run("check", "--format", "json", "--timeout", "30", "--no-progress", cwd=root)
    assert ran.status == 1, ran
    assert time.monotonic() - started < 20, ran
    document = json.loads(ran.out)
    assert document["complete"] is True, ran
    found = {(d["path"], d["line"], d["source"]) for d in document["diagnostics"]}
    # One gopls at the go.work's folder: each go.mod says why the workspace does not load.
    # (It then reports nothing about main.go, whose compiler error go vet finds: a gopls
    # rooted in the module alone said it; docs/servers.md notes it.)
    assert ("app/go.mod", 1, "go list") in found
    assert ("lib/go.mod", 1, "go list") in found
    lookup = [d for d in document["diagnostics"] if d["path"] == "app/go.mod"]
    assert "example.com/lib@v0.0.0" in lookup[0]["message"]


def gopls_says() -> str:
    """gopls' version as ``gopls version -json`` says it (``v`` dropped)."""
    printed = subprocess.run(
        ["gopls", "version", "-json"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    info = json.loads(printed)
    version = info.get("Version") or info.get("version") or info["Main"]["Version"]
    assert isinstance(version, str)
    return version.removeprefix("v")


def test_gopls_version_is_a_version_in_servers_and_the_summary_line(tmp_path: Path) -> None:
    version = gopls_says()
    assert version
    assert not re.search(r"[\s{}\"]", version), version
    listed = run("servers", "--format", "json")
    assert listed.status == 0, listed
    gopls = next(item for item in json.loads(listed.out) if item["id"] == "gopls")
    assert gopls["version"] == version
    table = run("servers")
    row = next(line for line in table.out.splitlines() if line.startswith("gopls "))
    assert row.split()[-2] == version, row
    root = write(tmp_path / "demo", MODULE)
    ran = run("check", "--no-progress", cwd=root)
    assert ran.out.splitlines()[-1] == f"1 error, 1 warning in 3 files (gopls {version})", ran
