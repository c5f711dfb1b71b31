"""Diagnostics known final with every kind of server, and navigation with a non-Python one.

pyrefly pushes versioned reports (each three times), jedi-language-server pushes syntax
errors, typescript-language-server pushes unversioned reports seconds after the open,
bash-language-server needs shellcheck; clangd answers targets, references, hover, outline
and rename.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adecore_lsp import Workspace
from tests.workspace.conftest import write

pytestmark = pytest.mark.real_server


@pytest.mark.parametrize(
    ("server", "files", "path", "expected"),
    [
        (
            "pyrefly",
            # Outside a project of its own, pyrefly reports no type errors.
            {"app.py": "# é😀\nx: int = 'text'\n", "pyproject.toml": "[tool.pyrefly]\n"},
            "app.py",
            [(2, 10, "error")],
        ),
        (
            "jedi-language-server",
            {"app.py": "# é😀\ndef broken(:\n    pass\n"},
            "app.py",
            None,  # syntax errors only, at a column of its own choosing: at least one, line 2
        ),
        (
            "typescript-language-server",
            {"app.ts": "// é😀\nconst s: string = 1;\n", "tsconfig.json": "{}\n"},
            "app.ts",
            [(2, 7, "error")],
        ),
        (
            "bash-language-server",
            {"run.sh": "#!/bin/bash\necho $1\n"},
            "run.sh",
            [(2, 6, "information")],
        ),
    ],
)
async def test_final_diagnostics(
    tmp_path: Path,
    server: str,
    files: dict[str, str],
    path: str,
    expected: list[tuple[int, int, str]] | None,
) -> None:
    project = write(tmp_path, files)
    async with Workspace(project, servers=[server]) as ws:
        report = await ws.diagnostics([path], timeout=60)
        assert report.complete, report.files
        assert report.files[path].complete
        found = [(d.line, d.column, d.severity) for d in report.items if d.path == path]
        if expected is None:
            assert found
            assert found[0][0] == 2
        else:
            assert found == expected
        assert {d.server for d in report.items} <= {server}
        # Asked again without a change: the same answer at once, still final.
        again = await ws.diagnostics([path], timeout=60)
        assert again.items == report.items


C_SOURCE = """\
// é😀
static int twice(int x) { return 2 * x; }

int main(void) {
    int a = twice(1);
    return twice(a);
}
"""


async def test_clangd_targets_navigation_and_rename(tmp_path: Path) -> None:
    project = write(tmp_path, {"compile_flags.txt": "-xc\n", "main.c": C_SOURCE})
    async with Workspace(project, servers=["clangd"]) as ws:
        twice = await ws.resolve("main.c#twice")
        assert (twice.kind, twice.location.line, twice.location.column) == ("function", 2, 12)
        outline = await ws.symbols("main.c")
        assert [s.name for s in outline] == ["twice", "main"]
        uses = await ws.references("main.c#twice")
        assert sorted(r.location.line for r in uses) == [5, 6]
        assert {r.container for r in uses} == {"main"}
        [definition] = await ws.definition("main.c:5:13")
        assert (definition.path, definition.line, definition.column) == ("main.c", 2, 12)
        text = await ws.hover("main.c#twice")
        assert text is not None
        assert "twice" in text
        plan = await ws.rename("main.c#twice", "double_it")
        assert plan.changed_files == ["main.c"]
        assert plan.files["main.c"].edits == 3
        applied = await ws.apply(plan)
        assert applied.written == ["main.c"]
        assert applied.delta.introduced == []
    assert (project / "main.c").read_text(encoding="utf-8") == C_SOURCE.replace(
        "twice", "double_it"
    )
