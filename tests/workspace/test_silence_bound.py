"""``Workspace.diagnostics(timeout=...)`` bounds a server's silence, not its work.

Against the scripted server (a real subprocess): one that answers each pull slowly is waited
for well past the timeout, as long as no gap between two answers reaches it; one that never
answers its pulls is given up once the timeout has passed, its files ``"timeout"``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from adecore_lsp import ServerSpec, Workspace
from adecore_lsp.workspace.checks.checking import ANSWER_BY
from tests.workspace.conftest import write
from tests.workspace.test_scripted import item, scripted

NAMES = [f"f{index}.txt" for index in range(8)]


def project(root: Path) -> Path:
    return write(root / "proj", dict.fromkeys(NAMES, "some text\n"))


async def test_a_server_that_answers_slowly_finishes_past_the_timeout(tmp_path: Path) -> None:
    # Eight pulls, 0.2 s each, one at a time: 1.6 s of work under a 0.5 s timeout.
    spec = scripted({"pull": [item("slow finding")], "pull_delay": 0.2})
    async with Workspace(project(tmp_path), servers=[spec]) as ws:
        began = time.monotonic()
        report = await ws.diagnostics(NAMES, timeout=0.5)
        took = time.monotonic() - began
    assert took >= 8 * 0.2
    assert report.complete
    assert report.reason is None
    assert {path: status.complete for path, status in report.files.items()} == dict.fromkeys(
        NAMES, True
    )
    assert sorted(d.path for d in report.items) == NAMES
    assert {d.message for d in report.items} == {"slow finding"}


async def test_a_server_that_never_answers_its_pulls_is_given_up(tmp_path: Path) -> None:
    ordinals = list(range(1, 40))
    silent = {"textDocument/diagnostic": ordinals}
    spec = scripted({"pull": [], "silent": silent, "document_symbols": {"*": []}})
    async with Workspace(project(tmp_path), servers=[spec]) as ws:
        began = time.monotonic()
        report = await ws.diagnostics(NAMES, timeout=0.5)
        took = time.monotonic() - began
        # The pulls left unanswered were given up (cancelled): the server answers the
        # next call at once.
        assert list(await ws.symbols(NAMES[0])) == []
    assert 0.5 <= took < 3
    assert not report.complete
    assert report.reason == "timeout"
    assert {status.reason for status in report.files.values()} == {"timeout"}
    assert report.items == []


async def test_a_caller_that_must_answer_by_a_moment_gets_what_is_final_then(
    tmp_path: Path,
) -> None:
    """An MCP call sets ``ANSWER_BY``: a server whose progress keeps moving (waited for ten
    timeouts otherwise) is given up on then, for every wait for diagnostics in the task."""
    moving = Path(__file__).parents[1] / "cli" / "scripted_lsp.py"
    spec = ServerSpec(
        id="busy",
        command=[sys.executable, str(moving), "moving-progress"],
        languages={".txt": "text"},
    )
    async with Workspace(project(tmp_path), servers=[spec]) as ws:
        began = time.monotonic()
        token = ANSWER_BY.set(began + 1.5)
        try:
            report = await ws.diagnostics(NAMES[:2], timeout=1.0)
        finally:
            ANSWER_BY.reset(token)
        took = time.monotonic() - began
    assert 1.5 <= took < 4
    assert {status.reason for status in report.files.values()} == {"timeout"}
