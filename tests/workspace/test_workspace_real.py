"""The workspace against real servers: diagnostics known final, readiness, targets by name.

basedpyright (pull, registered late, slow first answer) and ruff (pull, fast) together on a
small Python project; clangd (versioned push) on C; TypeScript 7 (pull only).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adecore_lsp import (
    AmbiguousTargetError,
    LspError,
    ServerNotFoundError,
    TargetNotFoundError,
    Workspace,
)
from tests.workspace.conftest import write

pytestmark = pytest.mark.real_server

LIB = '''\
"""Greetings, with an emoji 😀 before the names."""


class Greeter:
    def greet(self, name: str) -> str:
        return "hello " + name

    def shout(self, name: str) -> str:
        return self.greet(name).upper()


def make() -> Greeter:
    return Greeter()
'''

APP = """\
import os
from lib import Greeter, make

é = "😀😀"; missing_name  # basedpyright: undefined; ruff: useless expression


def main() -> None:
    print(make().greet("world"))
    Greeter().shout("x")
"""

OTHER = """\
class Greeter:
    pass
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write(
        tmp_path / "proj",
        {"lib.py": LIB, "app.py": APP, "pyproject.toml": "[project]\nname = 'p'\n"},
    )


async def test_diagnostics_of_two_servers_are_merged_and_final(project: Path) -> None:
    async with Workspace(project, servers=["basedpyright", "ruff"]) as ws:
        report = await ws.diagnostics(["app.py"])
    assert report.complete
    assert report.reason is None
    assert report.files == {"app.py": report.files["app.py"]}
    assert report.files["app.py"].complete
    servers = {d.server for d in report.items}
    assert servers == {"basedpyright", "ruff"}
    undefined = [
        d for d in report.items if d.server == "basedpyright" and "missing_name" in d.message
    ]
    assert len(undefined) == 1
    # Columns count code points from 1: `é = "😀😀"; ` is 10 code points before the name
    # (UTF-16, which basedpyright counts in, has 12 units there).
    assert (undefined[0].line, undefined[0].column) == (4, 11)
    assert undefined[0].end_column == 11 + len("missing_name")
    assert undefined[0].severity == "error"
    assert not undefined[0].stale
    unused = [d for d in report.items if d.server == "ruff" and d.code == "F401"]
    assert [(d.line, d.column) for d in unused] == [(1, 8)]
    assert report.items == sorted(
        report.items, key=lambda d: (d.path, d.line, d.column, d.end_line, d.end_column, d.server)
    )


async def test_diagnostics_of_the_whole_root(project: Path) -> None:
    write(project, {"pkg/more.py": "import sys\n", ".venv/skipped.py": "import os\n"})
    write(project, {".gitignore": "ignored.py\n", "ignored.py": "import os\n"})
    async with Workspace(project, servers=["ruff"]) as ws:
        report = await ws.diagnostics()
    assert set(report.files) == {"app.py", "lib.py", "pkg/more.py"}
    assert report.complete
    assert {d.path for d in report.items} == {"app.py", "pkg/more.py"}


async def test_a_timeout_is_never_clean(project: Path) -> None:
    async with Workspace(project, servers=["basedpyright"]) as ws:
        report = await ws.diagnostics(["app.py"], timeout=0.05)
        assert not report.complete
        assert report.reason == "timeout"
        assert report.files["app.py"].complete is False
        assert report.files["app.py"].reason == "timeout"
        # Asked again with time to finish, the same file is final.
        again = await ws.diagnostics(["app.py"])
    assert again.complete
    assert any("missing_name" in d.message for d in again.items)


async def test_readiness(project: Path) -> None:
    async with Workspace(project, servers=["basedpyright", "ruff"]) as ws:
        based = await ws.ready("app.py", timeout=30)
        assert based.state in {"ready", "no_signal"}
        assert (await ws.ready("basedpyright")).state == "ready"
        assert (await ws.ready("basedpyright")).source == "registration"
        ruff = await ws.ready("ruff")
        # ruff shows no progress and registers nothing readiness hangs on: never a fake ready.
        assert ruff.state == "no_signal"
        assert ruff.source == "none"
        statuses = {s.id: s for s in ws.running}
    assert set(statuses) == {"basedpyright", "ruff"}
    assert all(s.pid and s.state == "running" and s.restarts == 0 for s in statuses.values())
    assert all(s.rss_bytes is None or s.rss_bytes > 1_000_000 for s in statuses.values())


async def test_targets_by_position_name_path_and_bare_name(project: Path) -> None:
    async with Workspace(project, servers=["basedpyright"]) as ws:
        greet = await ws.resolve("lib.py#Greeter/greet")
        assert (greet.name, greet.name_path, greet.kind, greet.container) == (
            "greet",
            "Greeter/greet",
            "method",
            "Greeter",
        )
        assert (greet.location.path, greet.location.line, greet.location.column) == ("lib.py", 5, 9)
        assert greet.range_lines == (5, 6)
        by_line = await ws.resolve("lib.py:6")
        assert by_line.name_path == "Greeter/greet"
        assert (await ws.resolve("Greeter/shout")).location.line == 8
        assert (await ws.resolve(greet.location)).name_path == "Greeter/greet"
        write(project, {"other.py": OTHER})
        with pytest.raises(AmbiguousTargetError) as ambiguous:
            await ws.resolve("Greeter")
        assert sorted(c[1] for c in ambiguous.value.candidates) == [
            "lib.py#Greeter",
            "other.py#Greeter",
        ]
        assert "lib.py#Greeter" in str(ambiguous.value)
        with pytest.raises(TargetNotFoundError, match="no symbol Greeter/wave"):
            await ws.resolve("lib.py#Greeter/wave")
        with pytest.raises(TargetNotFoundError, match="NoSuchThing"):
            await ws.resolve("NoSuchThing")
        with pytest.raises(ValueError, match=r"lib\.py has 13 lines"):
            await ws.resolve("lib.py:99")
        with pytest.raises(ValueError, match="not a file"):
            await ws.resolve("nowhere.py:1")


async def test_navigation(project: Path) -> None:
    async with Workspace(project, servers=["basedpyright"]) as ws:
        [definition] = await ws.definition("app.py:8:18")
        assert (definition.path, definition.line, definition.column) == ("lib.py", 5, 9)
        assert definition.complete if hasattr(definition, "complete") else True
        uses = await ws.references("lib.py#Greeter/greet", context=1)
        assert uses.complete
        assert sorted((r.location.path, r.location.line) for r in uses) == [
            ("app.py", 8),
            ("lib.py", 9),
        ]
        inside = {r.location.path: r.container for r in uses}
        assert inside == {"app.py": "main", "lib.py": "Greeter/shout"}
        app_use = next(r for r in uses if r.location.path == "app.py")
        assert app_use.context == (
            "def main() -> None:",
            '    print(make().greet("world"))',
            '    Greeter().shout("x")',
        )
        with_declaration = await ws.references("lib.py#Greeter/greet", include_declaration=True)
        assert len(with_declaration) == 3
        outline = await ws.symbols("lib.py")
        assert [s.name for s in outline] == ["Greeter", "make"]
        assert [c.name_path for c in outline[0].children] == ["Greeter/greet", "Greeter/shout"]
        assert (await ws.symbols("lib.py", depth=1))[0].children == []
        found = await ws.find("Greeter")
        assert any(s.name == "Greeter" and s.location.path == "lib.py" for s in found)
        callers = await ws.callers("lib.py#Greeter/greet")
        assert sorted(s.name for s in callers) == ["main", "shout"]
        callees = await ws.callees("lib.py#Greeter/shout")
        assert "greet" in {s.name for s in callees}
        text = await ws.hover("lib.py#make")
        assert text is not None
        assert "Greeter" in text


async def test_the_disk_is_the_truth(project: Path) -> None:
    async with Workspace(project, servers=["ruff"]) as ws:
        first = await ws.diagnostics(["app.py"])
        assert any(d.code == "F401" for d in first.items)
        # Someone else (an agent's own edit tool, git) changes the file.
        (project / "app.py").write_text(APP.replace("import os\n", ""), encoding="utf-8")
        os.utime(project / "app.py", ns=(1, 1))
        second = await ws.diagnostics(["app.py"])
        assert not any(d.code == "F401" for d in second.items)
        # An update not saved wins over the disk until it is saved.
        await ws.update("app.py", APP)
        third = await ws.diagnostics(["app.py"])
        assert any(d.code == "F401" for d in third.items)


async def test_edit_returns_the_delta_with_moved_lines_forgiven(project: Path) -> None:
    async with Workspace(project, servers=["ruff"]) as ws:
        await ws.diagnostics(["app.py"])
        new_text = '"""A docstring pushes everything down."""\n' + APP.replace(
            "from lib import Greeter, make\n", "from lib import Greeter, make\nimport sys\n"
        )
        delta = await ws.edit("app.py", new_text)
    assert [d.message.splitlines()[0] for d in delta.introduced] == ["`sys` imported but unused"]
    assert delta.resolved == []
    moved = [d for d in delta.unchanged if d.code == "F401"]
    assert [(d.line, d.message.splitlines()[0]) for d in moved] == [(2, "`os` imported but unused")]
    assert (project / "app.py").read_text(encoding="utf-8") == new_text


async def test_c_with_clangd_and_typescript_with_tsc(tmp_path: Path) -> None:
    project = write(
        tmp_path,
        {
            "compile_flags.txt": "-xc\n",
            "main.c": "// é😀\nint main(void) { return undeclared; }\n",
            "app.ts": "const s: string = 1;\n",
        },
    )
    async with Workspace(project, servers=["clangd", "tsc"]) as ws:
        report = await ws.diagnostics(["main.c", "app.ts"])
    assert report.complete, report.files
    c_errors = [d for d in report.items if d.path == "main.c"]
    assert [(d.line, d.column, d.server) for d in c_errors] == [(2, 25, "clangd")]
    ts_errors = [d for d in report.items if d.path == "app.ts"]
    assert [(d.line, d.column, d.server) for d in ts_errors] == [(1, 7, "tsc")]


async def test_missing_server_and_unsupported_file(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        patch.setenv("PATH", str(tmp_path / "empty"))
        async with Workspace(project, servers=["zuban"]) as ws:
            with pytest.raises(ServerNotFoundError, match="pip install zuban"):
                await ws.diagnostics(["app.py"])
    write(project, {"notes.xyz": "hello\n"})
    async with Workspace(project, servers=["ruff"]) as ws:
        report = await ws.diagnostics(["notes.xyz"])
        assert not report.complete
        assert report.reason == "unsupported"
        with pytest.raises(LspError, match="textDocument/definition"):
            await ws.definition("app.py:2:6")


async def test_trace_has_every_message(project: Path, tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    async with Workspace(project, servers=["ruff"], trace=trace) as ws:
        await ws.diagnostics(["app.py"])
    lines = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert {line["server"] for line in lines} == {"ruff"}
    sent = [line["message"].get("method") for line in lines if line["direction"] == "send"]
    assert sent[0] == "initialize"
    assert "textDocument/didOpen" in sent
    assert sent[-1] == "exit"
    assert any(line["direction"] == "receive" and "result" in line["message"] for line in lines)
    assert all(isinstance(line["time"], float) for line in lines)


def test_servers_end_with_an_interrupted_program(project: Path) -> None:
    """Ctrl-C in the middle of a call: the program ends, and so does every server it ran."""
    script = f"""
import asyncio, os, signal, sys
from adecore_lsp import Workspace

async def main() -> None:
    async with Workspace({str(project)!r}, servers=["ruff"]) as ws:
        await ws.diagnostics(["app.py"])
        print(ws.running[0].pid, flush=True)
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.sleep(30)

asyncio.run(main())
"""
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode != 0
    assert "KeyboardInterrupt" in result.stderr
    pid = int(result.stdout.split()[0])
    time.sleep(0.2)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
