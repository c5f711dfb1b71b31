"""A tsconfig's ``files`` are entry points: ``tsc -p`` checks what they import (through
relative specifiers and ``paths``, again and again), whatever ``include`` and ``exclude``
say, and so does ``check`` (mobx: 364 tsc errors against 3 before). Against tsc itself and
typescript-language-server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import need, write
from tests.cli.test_scope_real import TS_BAD, check, ours, tsc

pytestmark = pytest.mark.real_server

TREE = {
    "tsconfig.json": (
        '{"compilerOptions": {"strict": true, "noEmit": true,'
        ' "paths": {"@lib/*": ["./lib/*"]}},'
        ' "files": ["src/main.ts"], "exclude": ["src/helper.ts"]}'
    ),
    "src/main.ts": (
        'import { h } from "./helper";\nimport { d } from "@lib/deep";\nexport { h, d };\n'
    ),
    "src/helper.ts": 'export * from "./leaf";\nexport const h: number = "s";\n',
    "src/leaf.ts": TS_BAD,
    "lib/deep.ts": "export const d: string = 1;\n",
    "src/unreached.ts": TS_BAD,
}


@pytest.mark.parametrize("server", ["typescript-language-server", "tsc"])
def test_what_the_files_entries_import_is_checked_as_tsc_checks_it(
    tmp_path: Path, server: str
) -> None:
    need(server)
    root = write(tmp_path / "repo", TREE)
    theirs = tsc(root, ".", native=True)
    assert {path for path, _line, _column in theirs} == {
        "src/helper.ts",
        "src/leaf.ts",
        "lib/deep.ts",
    }
    files, found = ours(check(root, server))
    assert found == theirs
    assert "src/unreached.ts" not in files
