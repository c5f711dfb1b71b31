"""``docs/servers.md`` is the registry's data for people, generated and kept up to date."""

from __future__ import annotations

from pathlib import Path

import pytest

from adecore_lsp import Registry
from tests.generators import REPO_ROOT, load_script

table = load_script("generate_server_table")


def test_the_checked_in_page_is_up_to_date() -> None:
    """Changing servers.json without running the generator fails here."""
    page = (REPO_ROOT / "docs" / "servers.md").read_text(encoding="utf-8")
    assert page == table.render(Registry.default())
    assert table.main(["--check"]) == 0


def test_every_server_has_a_row_with_its_install_hint() -> None:
    page = table.render(Registry.default())
    for spec in Registry.default():
        line = next(row for row in page.splitlines() if row.startswith(f"| `{spec.id}` |"))
        assert spec.install in line
        assert ("pull" if spec.pull_diagnostics else "push, settle") in line


def test_a_stale_page_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "servers.md"
    stale.write_text("old\n", encoding="utf-8")
    monkeypatch.setattr(table, "OUTPUT", stale)
    assert table.main(["--check"]) == 1
    assert table.main(["--bogus"]) == 2
    assert table.main([]) == 0
    assert table.main(["--check"]) == 0
