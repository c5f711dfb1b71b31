"""Bad input to a workspace: missing, binary and outside files, positions past the end,
targets that match nothing or several, malformed targets, a bad configuration, a server
that is not installed. Each error names what was wrong, and the same workspace answers the
next good call.

ruff is the real server where one is needed (it is on PATH through the conftest); targets by
name need document symbols, which the scripted server gives.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import (
    AmbiguousTargetError,
    FileStatus,
    ServerNotFoundError,
    ServerSpec,
    TargetNotFoundError,
    Workspace,
)
from tests.workspace.conftest import write
from tests.workspace.test_scripted import scripted

real_server = pytest.mark.real_server

APP = "import os\n\nx = 1\nprint(x)\n"
"""Four lines; ruff reports the unused import on the first."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write(tmp_path / "proj", {"app.py": APP, "pyproject.toml": "[project]\nname = 'p'\n"})


async def still_answers(ws: Workspace) -> None:
    """The workspace is unharmed: a good call gets its full answer."""
    report = await ws.diagnostics(["app.py"])
    assert report.complete, report.files
    assert [(d.path, d.line, d.code) for d in report.items] == [("app.py", 1, "F401")]


# -- files that are not there, not text, or elsewhere --------------------------------------------


@real_server
async def test_a_file_that_does_not_exist_is_named(project: Path) -> None:
    write(project, {"pkg/inner.py": "y = 2\n"})
    async with Workspace(project, servers=["ruff"]) as ws:
        with pytest.raises(ValueError, match=r"nope\.py is not a file"):
            await ws.diagnostics(["nope.py"])
        await still_answers(ws)
        with pytest.raises(ValueError, match=r"nope\.py is not a file"):
            await ws.open("nope.py")
        await still_answers(ws)
        with pytest.raises(ValueError, match=r"nope\.py is not a file"):
            await ws.resolve("nope.py:1")
        with pytest.raises(ValueError, match=r"nope\.py is not a file"):
            await ws.definition("nope.py:1:1")
        with pytest.raises(ValueError, match=r"nope\.py is not a file"):
            await ws.ready("nope.py", timeout=1)
        with pytest.raises(ValueError, match=r"pkg/nope\.py is not a file"):
            await ws.symbols("pkg/nope.py")
        # A folder stands for its files.
        folder = await ws.diagnostics(["pkg"])
        assert list(folder.files) == ["pkg/inner.py"]
        # One missing file among good ones fails the call, naming the missing one.
        with pytest.raises(ValueError, match=r"gone\.py is not a file"):
            await ws.diagnostics(["app.py", "gone.py"])
        await still_answers(ws)


@real_server
async def test_a_file_that_is_not_utf8_text_is_named(project: Path) -> None:
    (project / "latin1.py").write_bytes("name = 'café'\n".encode("latin-1"))
    (project / "image.py").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    async with Workspace(project, servers=["ruff"]) as ws:
        for name in ("latin1.py", "image.py"):
            # Not checked, said so: the other files are checked (workspace-api.md reasons).
            report = await ws.diagnostics([name, "app.py"])
            assert report.files[name] == FileStatus(False, "not_utf8")
            assert report.files["app.py"].complete
            assert not report.complete
            assert report.reason == "not_utf8"
            await still_answers(ws)
            with pytest.raises(ValueError, match=rf"{name} is not UTF-8 text"):
                await ws.open(name)
            with pytest.raises(ValueError, match=rf"{name}"):
                await ws.resolve(f"{name}:1")
            await still_answers(ws)
        assert [s.state for s in ws.running] == ["running"]


@real_server
async def test_a_file_outside_the_root_keeps_its_absolute_path(
    project: Path, tmp_path: Path
) -> None:
    outside = write(tmp_path, {"outside.py": "import sys\n"}) / "outside.py"
    async with Workspace(project, servers=["ruff"]) as ws:
        for given in ("../outside.py", str(outside)):
            report = await ws.diagnostics([given])
            assert report.complete, report.files
            assert list(report.files) == [str(outside)]
            assert [(d.path, d.line, d.code) for d in report.items] == [(str(outside), 1, "F401")]
        with pytest.raises(ValueError, match=r"not a file"):
            await ws.diagnostics(["../elsewhere.py"])
        with pytest.raises(ValueError, match=rf"{outside}:9 is outside the file"):
            await ws.resolve(f"{outside}:9")
        await still_answers(ws)


# -- positions past the end ------------------------------------------------------------------------


@real_server
async def test_a_position_past_the_end_names_it_and_what_the_file_has(project: Path) -> None:
    async with Workspace(project, servers=["ruff"]) as ws:
        with pytest.raises(
            ValueError, match=r"app\.py:99 is outside the file: app\.py has 4 lines"
        ):
            await ws.resolve("app.py:99")
        # One past the last line is past the end too (the empty text after the last \n is
        # no line).
        with pytest.raises(ValueError, match=r"app\.py:5 is outside the file: app\.py has 4 lines"):
            await ws.definition("app.py:5")
        await still_answers(ws)
        with pytest.raises(
            ValueError, match=r"app\.py:1:999 is outside the line: line 1 of app\.py has 9 columns"
        ):
            await ws.resolve("app.py:1:999")
        # The column just after the last character is the line's end, and is allowed; the one
        # after it is not.
        with pytest.raises(ValueError, match=r"app\.py:1:11 is outside the line"):
            await ws.hover("app.py:1:11")
        assert await ws.hover("app.py:1:10") is None
        with pytest.raises(ValueError, match=r"line 2 of app\.py has 0 columns"):
            await ws.hover("app.py:2:2")
        await still_answers(ws)


# -- malformed targets -----------------------------------------------------------------------------


@real_server
@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("app.py:0", "the line must be a positive integer"),
        ("app.py:1:0", "the column must be a positive integer"),
        ("app.py#", "no name after '#'"),
        ("#main", "no path before '#'"),
        ("app.py#Greeter//greet", "a name path needs a name between every two '/'"),
        ("app.py#greet[x]", r"\[x\] must be \[k\]"),
        ("app.py", "it names a file"),
        ("", "it is empty"),
        ("Greeter::greet", "a name path puts '/' between names"),
        ("app.py:1:2:3", "more numbers than a line and a column"),
    ],
)
async def test_a_malformed_target_is_a_value_error(project: Path, target: str, why: str) -> None:
    async with Workspace(project, servers=["ruff"]) as ws:
        with pytest.raises(ValueError, match=why) as bad:
            await ws.resolve(target)
        assert f"bad target {target!r}" in str(bad.value)
        await still_answers(ws)


# -- targets that match nothing, or several -------------------------------------------------------


def _range(first: int, last: int) -> dict[str, Any]:
    return {"start": {"line": first, "character": 0}, "end": {"line": last, "character": 3}}


def _symbol(name: str, kind: int, line: int, last: int, **more: Any) -> dict[str, Any]:
    at = {
        "start": {"line": line, "character": 4},
        "end": {"line": line, "character": 4 + len(name)},
    }
    return {"name": name, "kind": kind, "range": _range(line, last), "selectionRange": at, **more}


OUTLINE_A = [
    _symbol(
        "Greeter",
        5,
        0,
        5,
        children=[
            _symbol("greet", 6, 1, 2),
            _symbol("greet", 6, 3, 4),  # an overload
            _symbol("shout", 6, 5, 5),
        ],
    ),
    _symbol("make", 12, 7, 8),
]
OUTLINE_B = [_symbol("Greeter", 5, 0, 1)]
TEXT_A = "".join(f"line {n} of a\n" for n in range(1, 11))
TEXT_B = "class Greeter\n  pass\n"


def _hit(name: str, file: str, line: int) -> dict[str, Any]:
    where = {"uri": f"$ROOT/{file}", "range": _range(line, line)}
    return {"name": name, "kind": 5, "location": where}


SYMBOLS_CONFIG = {
    "document_symbols": {"a.txt": OUTLINE_A, "b.txt": OUTLINE_B},
    "workspace_symbols": [
        _hit("Greeter", "a.txt", 0),
        _hit("Greeter", "b.txt", 0),
        _hit("make", "a.txt", 7),
        _hit("shout", "a.txt", 5),
    ],
    "diagnostics": [{"delay": 0.01, "items": []}],
}


@pytest.fixture
def texts(tmp_path: Path) -> Path:
    return write(tmp_path / "texts", {"a.txt": TEXT_A, "b.txt": TEXT_B})


async def good_target(ws: Workspace) -> None:
    make = await ws.resolve("a.txt#make")
    assert (make.name_path, make.kind, make.location.line, make.location.column) == (
        "make",
        "function",
        8,
        5,
    )


async def test_a_target_that_matches_nothing_says_what_there_is(texts: Path) -> None:
    spec = scripted(SYMBOLS_CONFIG, progress_grace=0.2)
    async with Workspace(texts, servers=[spec]) as ws:
        with pytest.raises(TargetNotFoundError, match=r"a\.txt has no symbol Greeter/gret") as miss:
            await ws.resolve("a.txt#Greeter/gret")
        assert "the closest: Greeter/greet" in str(miss.value)
        assert miss.value.target == "a.txt#Greeter/gret"
        await good_target(ws)
        with pytest.raises(
            TargetNotFoundError, match="so \\[2\\] is out of range: use \\[0\\] to \\[1\\]"
        ):
            await ws.resolve("a.txt#Greeter/greet[2]")
        with pytest.raises(TargetNotFoundError, match=r"b\.txt has no symbol make"):
            await ws.resolve("b.txt#make")
        # A line that no symbol holds.
        with pytest.raises(TargetNotFoundError, match=r"no symbol of a\.txt holds a\.txt:10"):
            await ws.resolve("a.txt:10")
        # A bare name that no workspace/symbol hit has exactly.
        with pytest.raises(TargetNotFoundError, match="no symbol named Nothing was found"):
            await ws.resolve("Nothing")
        with pytest.raises(TargetNotFoundError, match="no symbol named Greeter/wave"):
            await ws.resolve("Greeter/wave")
        await good_target(ws)
        assert (await ws.diagnostics(["a.txt"])).complete


async def test_a_target_that_matches_several_lists_them(texts: Path) -> None:
    spec = scripted(SYMBOLS_CONFIG, progress_grace=0.2)
    async with Workspace(texts, servers=[spec]) as ws:
        with pytest.raises(AmbiguousTargetError) as overloads:
            await ws.resolve("a.txt#Greeter/greet")
        assert [(kind, path, where.line) for kind, path, where in overloads.value.candidates] == [
            ("method", "a.txt#Greeter/greet[0]", 2),
            ("method", "a.txt#Greeter/greet[1]", 4),
        ]
        message = str(overloads.value)
        assert "a.txt#Greeter/greet[0]" in message
        assert "a.txt#Greeter/greet[1]" in message
        await good_target(ws)
        # [k] picks one of them.
        second = await ws.resolve("a.txt#Greeter/greet[1]")
        assert (second.name_path, second.location.line, second.range_lines) == (
            "Greeter/greet",
            4,
            (4, 5),
        )
        # A bare name found in two files.
        with pytest.raises(AmbiguousTargetError) as two_files:
            await ws.resolve("Greeter")
        assert sorted(path for _kind, path, _where in two_files.value.candidates) == [
            "a.txt#Greeter",
            "b.txt#Greeter",
        ]
        assert "b.txt#Greeter" in str(two_files.value)
        assert (await ws.resolve("make")).location.path == "a.txt"
        assert (await ws.resolve("Greeter/shout")).location.line == 6
        await good_target(ws)


async def test_names_without_the_methods_that_find_them(texts: Path) -> None:
    # A server with neither document nor workspace symbols.
    spec = scripted({"diagnostics": [{"delay": 0.01, "items": []}]}, progress_grace=0.2)
    async with Workspace(texts, servers=[spec]) as ws:
        with pytest.raises(
            TargetNotFoundError, match=r"no server for a\.txt gives document symbols"
        ):
            await ws.resolve("a.txt#make")
        with pytest.raises(
            TargetNotFoundError, match=r"no server for a\.txt gives document symbols"
        ):
            await ws.resolve("a.txt:1")
        with pytest.raises(
            TargetNotFoundError, match="no server of this workspace answers workspace/symbol"
        ):
            await ws.resolve("make")
        assert (await ws.diagnostics(["a.txt"])).complete


# -- configuration and servers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "text", "named"),
    [
        ("adecore-lsp.toml", "[server.ruff]\nbogus = 1\n", r"adecore-lsp\.toml.*'bogus'"),
        (
            "pyproject.toml",
            "[project]\nname = 'p'\n[tool.adecore-lsp.server.ruff]\nbogus = 1\n",
            r"pyproject\.toml.*'bogus'",
        ),
        ("adecore-lsp.toml", "[server.ruff]\nsettle = 'slow'\n", r"adecore-lsp\.toml.*settle"),
        (
            "adecore-lsp.toml",
            "servers = ['no-such-server']\n",
            r"adecore-lsp\.toml.*no-such-server",
        ),
        ("adecore-lsp.toml", "[server.my-lsp]\nlanguages = { '.my' = 'my' }\n", r"needs a command"),
        ("adecore-lsp.toml", "[server.ruff\n", r"adecore-lsp\.toml"),
    ],
)
def test_a_bad_configuration_is_a_value_error_naming_file_and_field(
    project: Path, file: str, text: str, named: str
) -> None:
    write(project, {file: text})
    with pytest.raises(ValueError, match=named):
        Workspace(project)
    (project / file).unlink()
    write(project, {"pyproject.toml": "[project]\nname = 'p'\n"})
    Workspace(project)  # fixed, it is taken


def test_a_root_that_is_not_a_folder_or_an_unknown_server_id(project: Path) -> None:
    with pytest.raises(ValueError, match=r"the workspace root .*nowhere is not a folder"):
        Workspace(project / "nowhere")
    with pytest.raises(ValueError, match=r"app\.py is not a folder"):
        Workspace(project / "app.py")
    with pytest.raises(
        ValueError, match=r"no language server has the id 'rufff'; known ids: .*ruff"
    ):
        Workspace(project, servers=["rufff"])


@real_server
async def test_paths_are_normalised_to_one_spelling(project: Path) -> None:
    write(project, {"pkg/inner.py": "import sys\n"})
    async with Workspace(project, servers=["ruff"]) as ws:
        for given in ("pkg/../app.py", "./app.py", str(project / "pkg" / ".." / "app.py")):
            report = await ws.diagnostics([given])
            assert list(report.files) == ["app.py"]
            assert [d.path for d in report.items] == ["app.py"]
        inner = await ws.diagnostics(["pkg/./inner.py"])
        assert [d.path for d in inner.items] == ["pkg/inner.py"]


@real_server
async def test_a_server_that_is_not_installed_fails_fast_with_its_hint(project: Path) -> None:
    write(project, {"notes.txt": "notes\n"})
    missing = ServerSpec(
        "nothere",
        ["no-such-lsp-binary"],
        languages={".py": "python"},
        install="pip install nothere",
    )
    texts = scripted({"diagnostics": [{"delay": 0.01, "items": []}]}, progress_grace=0.2)
    async with Workspace(project, servers=[missing, texts]) as ws:
        for call in (
            lambda: ws.diagnostics(["app.py"]),
            lambda: ws.open("app.py"),
            lambda: ws.ready("app.py", timeout=5),
            lambda: ws.session_for("app.py"),
        ):
            began = time.monotonic()
            with pytest.raises(ServerNotFoundError, match="pip install nothere") as not_found:
                await call()
            assert time.monotonic() - began < 1
            assert "nothere" in str(not_found.value)
            assert "no-such-lsp-binary" in str(not_found.value)
            assert not_found.value.server == "nothere"
            # The same workspace answers for the files of the server that is there.
            report = await ws.diagnostics(["notes.txt"])
            assert report.complete, report.files
        # The whole root: only the files an installed server takes.
        report = await ws.diagnostics()
        assert report.complete, report.files
        assert list(report.files) == ["notes.txt"]
        assert [s.id for s in ws.running] == ["scripted"]
