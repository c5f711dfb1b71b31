"""The source roots of a Python tree: each project's folder and ``src``, and the paths its
configuration declares (pyright, ty, pyrefly, mypy, setuptools, hatch, poetry)."""

from __future__ import annotations

from adecore_lsp.protocol.workspace.python_roots import declared, python_roots

FILES = {
    "/r/pyproject.toml": """
[tool.pyright]
extraPaths = ["vendor"]
executionEnvironments = [{ root = "apps/web", extraPaths = ["shared"] }, { root = 3 }]

[tool.basedpyright]
extraPaths = "odd"

[tool.ty.environment]
root = ["lib"]
extra-paths = ["more"]

[tool.pyrefly]
search-path = ["pf"]

[tool.mypy]
mypy_path = "stubs:typings, other"

[tool.setuptools.package-dir]
"" = "code"

[tool.setuptools.packages.find]
where = ["found"]

[tool.hatch.build.targets.wheel]
packages = ["hatched/pkg", "toplevel"]
sources = { "srcdir" = "", "other" = "x" }

[[tool.poetry.packages]]
include = "p"
from = "poetry"
""",
    "/r/sub/pyrightconfig.json": '{ "extraPaths": ["j"], // a comment\n }',
    "/r/sub/ty.toml": '[environment]\nextra-paths = ["t"]\n',
    "/r/sub/pyrefly.toml": 'search_path = ["pr"]\n',
    "/r/sub/setup.cfg": "[options]\npackage_dir =\n    =setupsrc\n    other=elsewhere\n",
    "/r/broken/pyproject.toml": "[tool.pyright\n",
    "/r/broken/setup.cfg": "not an ini file\n[",
    "/r/odd/pyproject.toml": (
        '[tool.setuptools]\npackage-dir = "not a table"\n[tool.poetry]\npackages = "x"\n'
    ),
}


def read(path: str) -> str | None:
    if path == "/r/big/pyproject.toml":
        raise ValueError("too large")
    return FILES.get(path)


def test_every_configuration_declares_its_roots() -> None:
    assert declared("/r", read) == [
        "vendor",
        "apps/web",
        "shared",
        "odd",
        "lib",
        "more",
        "pf",
        "code",
        "found",
        "hatched",
        ".",
        "srcdir",
        "poetry",
        "stubs",
        "typings",
        "other",
    ]
    assert declared("/r/sub", read) == ["j", "t", "pr", "setupsrc"]
    assert declared("/r/broken", read) == []
    assert declared("/r/odd", read) == []
    assert declared("/r/big", read) == []


def test_the_roots_are_the_folders_that_exist_each_once() -> None:
    folders = {"/r", "/r/src", "/r/vendor", "/r/sub", "/r/sub/setupsrc", "/r/apps/web"}
    roots = python_roots("/r", ["/r/sub", "/r"], read, folders.__contains__)
    assert roots == ("/r", "/r/src", "/r/vendor", "/r/apps/web", "/r/sub", "/r/sub/setupsrc")
