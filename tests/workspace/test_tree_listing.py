"""A question about every file lists the root's files once: the listing made to open them
(``prepare_whole``) is the one a rename or a search for references then asks each package's
server of, while it is fresh; an older one is made again (files may have come since)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import Workspace
from adecore_lsp.workspace.questions import across_roots
from adecore_lsp.workspace.questions.outlines import Whole
from tests.integration.conftest import find_server


class Lister:
    """A workspace as ``tree_files`` needs it: the root's files, counted."""

    def __init__(self, files: list[Path]) -> None:
        self.files = files
        self.listings = 0

    def root_files(self) -> list[Path]:
        self.listings += 1
        return list(self.files)


def test_a_fresh_listing_is_taken_and_an_old_one_made_again() -> None:
    ws: Any = Lister([Path("/r/new.py"), Path("/r/old.py")])
    listed = (Path("/r/old.py"),)
    fresh = Whole(True, None, False, listed, time.monotonic())
    assert across_roots.tree_files(ws, fresh)() == [Path("/r/old.py")]
    assert ws.listings == 0
    old = fresh._replace(listed_at=time.monotonic() - across_roots.FRESH_LISTING - 1)
    assert across_roots.tree_files(ws, old)() == [Path("/r/new.py"), Path("/r/old.py")]
    assert across_roots.tree_files(ws, Whole(True, None, False))() == ws.files
    assert ws.listings == 2


@pytest.mark.real_server
async def test_opening_every_file_lists_what_a_rename_asks_of(tmp_path: Path) -> None:
    find_server("ruff")
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not code\n", encoding="utf-8")
    async with Workspace(tmp_path, servers=["ruff"], trust=True) as ws:
        place = await ws.place("a.py:1:1", whole=True)
    assert place.whole is not None
    assert place.whole.listed == (tmp_path / "a.py",)
    assert time.monotonic() - place.whole.listed_at < 60
