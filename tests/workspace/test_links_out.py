"""The library reads nothing outside the root through a link: a listing leaves such files
out and counts them (git's listing and the walk alike), and every read of one is refused
with ``LinkOutOfRootError`` naming it; a link to a file inside the root is read as ever,
and a file the caller names outside the root stays the caller's choice."""

from __future__ import annotations

from pathlib import Path

import pytest

from adecore_lsp import Workspace
from adecore_lsp.workspace.disk.listing import LinkOutOfRootError, leads_out, root_files
from tests.integration.conftest import find_server
from tests.links_out import INSIDE, LEFT_OUT, leaked, stranger_with_links


def python(path: Path) -> bool:
    return path.suffix in (".py", ".ipynb")


@pytest.mark.parametrize("git", [True, False], ids=["git", "walk"])
def test_a_listing_leaves_out_and_counts_links_out(tmp_path: Path, git: bool) -> None:
    root = stranger_with_links(tmp_path, git=git)
    left: set[Path] = set()
    found = root_files(root, python, links_out=left)
    assert [path.relative_to(root).as_posix() for path in found] == ["a.py", INSIDE, "sub/b.py"]
    assert sorted(path.relative_to(root).as_posix() for path in left) == list(LEFT_OUT)
    inside: set[Path] = set()
    assert root_files(root, python, root / "sub", links_out=inside) == [root / "sub" / "b.py"]
    assert inside == {root / "sub" / "creds2.py"}


def test_what_leads_out(tmp_path: Path) -> None:
    root = stranger_with_links(tmp_path, git=False)
    assert leads_out(root, root / "creds.py")
    assert leads_out(root, root / "linkdir" / "secret.py")
    assert leads_out(root, root / "linkdir")
    assert not leads_out(root, root / INSIDE)
    assert not leads_out(root, root / "a.py")
    assert not leads_out(root, root / "missing.py")
    # Named outside the root by the caller: not this rule's to judge.
    assert not leads_out(root, tmp_path / "outside" / "credentials")


async def test_every_read_of_a_link_out_is_refused(tmp_path: Path) -> None:
    find_server("ruff")
    root = stranger_with_links(tmp_path, git=True)
    async with Workspace(root, servers=["ruff"]) as ws:
        for name in ("creds.py", "linkdir/secret.py", "nb.ipynb"):
            with pytest.raises(LinkOutOfRootError, match=f"^{name} leads out of the root"):
                ws.file(name)
            with pytest.raises(LinkOutOfRootError):
                await ws.diagnostics([name])
            with pytest.raises(LinkOutOfRootError):
                await ws.symbols(name)
            with pytest.raises(LinkOutOfRootError):
                await ws.preview_edit(name, "x = 1\n")
            assert ws.texts.index(ws.paths.uri(root / name)) is None
        report = await ws.diagnostics()
        assert {item.path for item in report.items} == {"a.py", INSIDE, "sub/b.py"}
        assert leaked(str(report.items), str(report.files)) == []
        assert sorted(ws.paths.relative(path) for path in ws.server_choice.links_out) == list(
            LEFT_OUT
        )
        inside = await ws.diagnostics([INSIDE])
        assert [item.code for item in inside.items] == ["F401", "F821"]
