"""TypeScript's and JavaScript's module specifiers read from a text and resolved as the
compiler resolves them: relative paths with extensions and ``index``, ``.js`` names of
TypeScript files, ``paths`` and ``baseUrl``, the workspace's own packages."""

from __future__ import annotations

import pytest

from adecore_lsp.protocol.workspace.ts_imports import (
    TsImport,
    TsOptions,
    TsPackage,
    TsTree,
    candidates,
    resolve,
    ts_imports,
)


def test_every_kind_of_specifier_is_read() -> None:
    text = (
        'import a from "./a";\n'
        "import type { B } from '../b';\n"
        "import {\n  c,\n  d,\n} from './cd';\n"
        'import "./side-effect";\n'
        'export * from "./barrel";\n'
        "export { e } from './e';\n"
        "const f = await import('./lazy');\n"
        'const g = require("./common");\n'
        'import h = require("./old");\n'
        '/// <reference path="globals.d.ts" />\n'
        '/// <reference path="../up.d.ts" />\n'
        "export const x = 1;\n"
    )
    assert ts_imports(text) == [
        TsImport("./a"),
        TsImport("../b"),
        TsImport("./cd"),
        TsImport("./side-effect"),
        TsImport("./barrel", reexport=True),
        TsImport("./e", reexport=True),
        TsImport("./lazy"),
        TsImport("./common"),
        TsImport("./old"),
        TsImport("./globals.d.ts"),
        TsImport("../up.d.ts"),
    ]


TREE = TsTree(
    frozenset(
        {
            "/r/src/app.ts",
            "/r/src/util.ts",
            "/r/src/view.tsx",
            "/r/src/lib/index.ts",
            "/r/src/esm.ts",
            "/r/src/old.js",
            "/r/src/mapped/thing.ts",
            "/r/src/exact.ts",
            "/r/base/shared.ts",
            "/r/packages/ui/src/index.ts",
            "/r/packages/ui/src/button.ts",
            "/r/packages/core/dist/main.d.ts",
        }
    ),
    {
        "@acme/ui": TsPackage("/r/packages/ui"),
        "core": TsPackage("/r/packages/core", ("/r/packages/core/dist/main.js",)),
    },
)
OPTIONS = TsOptions(
    "/r/base",
    (
        ("@m/*", ("/r/src/mapped/*",)),
        ("@m/thing", ("/r/src/exact",)),
        ("@other/*", ("/r/nowhere/*",)),
        ("@m/t*", ("/r/src/mapped/*",)),
    ),
)


@pytest.mark.parametrize(
    ("specifier", "found"),
    [
        ("./util", "/r/src/util.ts"),
        ("./view", "/r/src/view.tsx"),
        ("./lib", "/r/src/lib/index.ts"),
        ("./esm.js", "/r/src/esm.ts"),  # node16 and bundler: the .js of a .ts
        ("./old.js", "/r/src/old.js"),
        ("./util.ts", "/r/src/util.ts"),
        ("../src/util", "/r/src/util.ts"),
        (".", None),  # no index here
        ("@m/thing", "/r/src/exact.ts"),  # the exact pattern wins over every wildcard
        ("@m/thing-else", None),  # the longest prefix (@m/t*) maps to a missing file
        ("shared", "/r/base/shared.ts"),  # baseUrl
        ("@acme/ui", "/r/packages/ui/src/index.ts"),  # a workspace package: src/index
        ("@acme/ui/button", "/r/packages/ui/src/button.ts"),
        ("core", "/r/packages/core/dist/main.d.ts"),  # its main entry's declarations
        ("react", None),  # installed in node_modules: not the tree's
        ("./app", None),  # a file never imports itself
    ],
)
def test_specifiers_resolve_to_the_files_they_name(specifier: str, found: str | None) -> None:
    assert resolve("/r/src/app.ts", TsImport(specifier), OPTIONS, TREE) == found


def test_a_pattern_with_a_suffix_matches_only_names_that_end_with_it() -> None:
    options = TsOptions(None, (("#*.gen", ("/r/src/*",)),))
    assert resolve("/r/src/app.ts", TsImport("#util.gen"), options, TREE) == "/r/src/util.ts"
    assert resolve("/r/src/app.ts", TsImport("#util"), options, TREE) is None


def test_candidates_name_files_that_do_not_exist_yet() -> None:
    found = candidates("/r/src/app.ts", TsImport("./new"), TsOptions(), TREE)
    assert found[:3] == ["/r/src/new.ts", "/r/src/new.tsx", "/r/src/new.d.ts"]
    assert "/r/src/new/index.ts" in found
