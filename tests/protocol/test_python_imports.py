"""Python's imports read from a text and resolved to the files of a tree, as a type checker
resolves them (each root, the importing file's folder, packages, stubs, relative dots)."""

from __future__ import annotations

import pytest

from adecore_lsp.protocol.workspace.python_imports import (
    PythonImport,
    PythonTree,
    candidates,
    python_imports,
    resolve,
)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("import os\n", [PythonImport(0, "os")]),
        ("import a.b as c, d\n", [PythonImport(0, "a.b"), PythonImport(0, "d")]),
        ("import a as a\n", [PythonImport(0, "a", reexport=True)]),
        ("from a.b import x, y as z\n", [PythonImport(0, "a.b", ("x", "y"))]),
        ("from . import x\n", [PythonImport(1, "", ("x",))]),
        ("from ..m import (\n    x,  # a comment\n    y,\n)\n", [PythonImport(2, "m", ("x", "y"))]),
        ("from m import x \\\n    , y\n", [PythonImport(0, "m", ("x", "y"))]),
        ("from m import *\n", [PythonImport(0, "m", (), reexport=True)]),
        ("from m import x as x\n", [PythonImport(0, "m", ("x",), reexport=True)]),
        ("if TYPE_CHECKING:\n    from m import T\n", [PythonImport(0, "m", ("T",))]),
        # Broken mid-edit: the imports are read all the same.
        ("from m import x\ndef broken(:\n", [PythonImport(0, "m", ("x",))]),
        # Not imports: a name that starts with the word, a bad module, a bare "from import".
        ("important = 1\nimportlib.reload(x)\n", []),
        ("from 1m import x\nimport 2x\nfrom import x\nfrom  import y\n", []),
        ("import a, , b\n", [PythonImport(0, "a"), PythonImport(0, "b")]),
    ],
)
def test_imports_are_read_from_the_text(text: str, found: list[PythonImport]) -> None:
    assert python_imports(text) == found


TREE = PythonTree.of(
    [
        "/r/app.py",
        "/r/pkg/__init__.py",
        "/r/pkg/mod.py",
        "/r/pkg/sub/__init__.pyi",
        "/r/pkg/sub/deep.py",
        "/r/src/lib/__init__.py",
        "/r/src/lib/core.py",
        "/r/scripts/run.py",
        "/r/scripts/helper.py",
        "/r/typed-stubs/__init__.pyi",
        "/r/typed-stubs/part.pyi",
        "/r/README.md",
    ],
    ["/r", "/r/src", "/r"],
)


def test_a_tree_keeps_its_python_files_folders_and_roots_once() -> None:
    assert "/r/README.md" not in TREE.files
    assert {"/r", "/r/pkg", "/r/pkg/sub", "/r/src/lib", "/r/scripts"} <= set(TREE.folders)
    assert TREE.roots == ("/r", "/r/src")


@pytest.mark.parametrize(
    ("file", "text", "found"),
    [
        # Each package on the way, and the module.
        (
            "/r/app.py",
            "import pkg.sub.deep",
            ["/r/pkg/__init__.py", "/r/pkg/sub/__init__.pyi", "/r/pkg/sub/deep.py"],
        ),
        # A name taken from a package may be a submodule.
        ("/r/app.py", "from pkg import mod, nothing", ["/r/pkg/__init__.py", "/r/pkg/mod.py"]),
        # src layout.
        ("/r/app.py", "from lib.core import x", ["/r/src/lib/__init__.py", "/r/src/lib/core.py"]),
        # The importing file's own folder, where pyright looks last.
        ("/r/scripts/run.py", "import helper", ["/r/scripts/helper.py"]),
        # Relative imports: one dot is the file's package, two its parent.
        ("/r/pkg/sub/deep.py", "from .. import mod", ["/r/pkg/__init__.py", "/r/pkg/mod.py"]),
        (
            "/r/pkg/mod.py",
            "from .sub import deep",
            ["/r/pkg/sub/__init__.pyi", "/r/pkg/sub/deep.py"],
        ),
        # Stub-only packages.
        (
            "/r/app.py",
            "import typed.part",
            ["/r/typed-stubs/__init__.pyi", "/r/typed-stubs/part.pyi"],
        ),
        # The standard library and installed packages are not the tree's files.
        ("/r/app.py", "import os.path\nfrom typing import Any, cast", []),
        # Dots above the top of the file system name nothing; a file never imports itself.
        ("/r/app.py", "from ..... import x", []),
        ("/r/scripts/helper.py", "import helper", []),
    ],
)
def test_imports_resolve_to_the_files_they_name(file: str, text: str, found: list[str]) -> None:
    resolved = [path for imported in python_imports(text) for path in resolve(file, imported, TREE)]
    assert resolved == found


def test_candidates_name_files_that_do_not_exist_yet() -> None:
    """What a new or deleted file would be imported by: every candidate, pruned by folder
    only when asked."""
    imported = PythonImport(0, "pkg.new", ("thing",))
    every = candidates("/r/app.py", imported, TREE)
    assert "/r/pkg/new.py" in every
    assert "/r/pkg/new/thing.py" in every
    pruned = candidates("/r/app.py", imported, TREE, TREE.folders.__contains__)
    assert "/r/pkg/new.py" in pruned
    assert "/r/pkg/new/thing.py" not in pruned  # pkg/new is no folder of the tree
