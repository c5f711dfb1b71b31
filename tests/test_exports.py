"""The public surface: the contract's names and every public submodule's, from one place.

Every name a public submodule lists in its ``__all__`` is re-exported by ``adecore_lsp``
(the same object, listed in ``adecore_lsp.__all__``), so that ``__all__`` of a submodule
means "public" and the package is the one place to import from. A module whose name starts
with ``_`` is private and not checked; modules added later are walked the same way.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Protocol

import pytest

import adecore_lsp
from adecore_lsp.transports import websocket

SRC = Path(adecore_lsp.__file__).parent
REPO_ROOT = SRC.parents[1]

# /work/shared/spec/python-api.md: every name it lists is importable from adecore_lsp.
CONTRACT = {
    # Conventions
    "Disposable",
    # Framing
    "encode_message",
    "ContentLengthDecoder",
    # Transports
    "LspTransport",
    "ByteStream",
    "create_stream_transport",
    "connect_websocket",
    "create_memory_transport_pair",
    "spawn_server",
    "ServerProcess",
    "process_byte_stream",
    # LspSession
    "LspSession",
    "LspSessionOptions",
    "SessionState",
    # Documents
    "TextDocument",
    # Errors
    "LspError",
    "ErrorCodes",
    "StaleResultError",
    "FramingError",
    "TransportClosedError",
}

# Public beyond the contract: the errors a send or a transport raises, and what a
# create_websocket factory must return (the WebSocket protocol types are found below too).
ALSO_PUBLIC = {
    "TransportError",
    "SendBufferFullError",
    "MessageEncodingError",
    "WebSocketConnection",
    "WebSocketFactory",
}

# Modules reached as a namespace: adecore_lsp.__all__ lists the module, not its names (the
# generated LSP types are hundreds of names, used as ``lsp_types.Hover``).
NAMESPACE_MODULES = {
    "adecore_lsp.lsp_types",
    "adecore_lsp.results",
    "adecore_lsp.sync",
    "adecore_lsp.testing",
}

DOCUMENTS = [
    REPO_ROOT / "README.md",
    REPO_ROOT / "CHANGELOG.md",
    *sorted(REPO_ROOT.glob("docs/*.md")),
]


def public_modules() -> list[str]:
    """Every submodule of adecore_lsp whose dotted name has no part starting with ``_``."""
    names = []
    for module in pkgutil.walk_packages(adecore_lsp.__path__, "adecore_lsp."):
        parts = module.name.split(".")[1:]
        if not any(part.startswith("_") for part in parts):
            names.append(module.name)
    return sorted(names)


PUBLIC_MODULES = public_modules()


def declared_names(module: ModuleType) -> list[str]:
    """The module's ``__all__``; a package ``__init__`` without one exports nothing."""
    return list(getattr(module, "__all__", ()))


def documented_names() -> set[str]:
    """Names the documentation imports from adecore_lsp or spells ``adecore_lsp.X``."""
    found: set[str] = set()
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(
            r"from adecore_lsp import \(([^)]*)\)|from adecore_lsp import ([^\n]+)", text
        ):
            imported = match.group(1) or match.group(2)
            for item in imported.split(","):
                name = item.split("#")[0].strip().split(" as ")[0].strip()
                if name.isidentifier():
                    found.add(name)
        found.update(re.findall(r"\badecore_lsp\.([A-Za-z_][A-Za-z0-9_]*)", text))
    # A dotted reference to a submodule (adecore_lsp.errors) names a module, not a name.
    submodules = {name.split(".")[1] for name in PUBLIC_MODULES} | {"__all__", "__version__"}
    return found - submodules


def websocket_protocols() -> set[str]:
    """The typing.Protocol classes that transports/websocket.py defines."""
    return {
        name
        for name, value in vars(websocket).items()
        if inspect.isclass(value)
        and Protocol in value.__bases__
        and value.__module__ == websocket.__name__
        and not name.startswith("_")
    }


def test_walk_finds_the_public_modules() -> None:
    """The walk sees the package's modules, so the checks below cannot pass on nothing."""
    assert {
        "adecore_lsp.errors",
        "adecore_lsp.session",
        "adecore_lsp.protocol.wire.framing",
    } <= set(PUBLIC_MODULES)
    assert not any(".__main__" in name or "._" in name for name in PUBLIC_MODULES)


def test_contract_names_are_in_all() -> None:
    """Every name of the API contract is listed in adecore_lsp.__all__."""
    assert sorted(CONTRACT - set(adecore_lsp.__all__)) == []


def test_all_lists_each_name_once() -> None:
    """No name appears twice in adecore_lsp.__all__."""
    duplicates = sorted({n for n in adecore_lsp.__all__ if adecore_lsp.__all__.count(n) > 1})
    assert duplicates == []


def test_every_name_in_all_is_importable() -> None:
    """``from adecore_lsp import X`` works for each X in __all__."""
    missing = [name for name in adecore_lsp.__all__ if not hasattr(adecore_lsp, name)]
    assert missing == []


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_public_module_declares_all(module_name: str) -> None:
    """A public module (not a package) says what it exports, so the check below means something."""
    module = importlib.import_module(module_name)
    if not hasattr(module, "__path__"):
        assert hasattr(module, "__all__"), f"{module_name} has no __all__"


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_submodule_all_is_reexported(module_name: str) -> None:
    """Each name in a public submodule's __all__ is adecore_lsp's, the same object, in __all__.

    A name that is internal leaves the submodule's __all__ instead.
    """
    module = importlib.import_module(module_name)
    exported = set(adecore_lsp.__all__)
    if module_name in NAMESPACE_MODULES:
        assert getattr(adecore_lsp, module_name.rsplit(".", 1)[1]) is module
        assert module_name.rsplit(".", 1)[1] in exported
        return
    not_reexported = [
        name
        for name in declared_names(module)
        if name not in exported or getattr(adecore_lsp, name, None) is not getattr(module, name)
    ]
    assert not_reexported == [], f"{module_name}.__all__ lists {not_reexported}, not re-exported"


def test_named_public_names_are_exported() -> None:
    """The errors of sending and of transports, and the WebSocket protocol types, are public."""
    protocols = websocket_protocols()
    assert {"WebSocketConnection", "WebSocketFactory"} <= protocols
    assert sorted((ALSO_PUBLIC | protocols) - set(adecore_lsp.__all__)) == []


def test_documented_names_are_exported() -> None:
    """Every name the README, the guide or the changelog imports from adecore_lsp is exported."""
    documented = documented_names()
    assert {"LspSession", "connect_websocket"} <= documented
    assert sorted(documented - set(adecore_lsp.__all__)) == []


def test_init_only_reexports() -> None:
    """__init__.py holds the imports for type checkers, the table of where each name lives
    (the two agree, name for name), __all__, and the lazy __getattr__: no other logic."""
    tree = ast.parse((SRC / "__init__.py").read_text())
    checked: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            assert node.name in {"__getattr__", "__dir__"}, node.name
            continue
        if isinstance(node, ast.If):
            assert ast.unparse(node.test) == "TYPE_CHECKING"
            for imported in node.body:
                assert isinstance(imported, ast.ImportFrom), ast.dump(imported)
                assert imported.module is not None
                for alias in imported.names:
                    checked[alias.asname or alias.name] = imported.module
            continue
        assert isinstance(node, (ast.ImportFrom, ast.Import, ast.Assign, ast.AnnAssign, ast.Expr))
    assert checked == adecore_lsp._HOMES


def test_import_costs_nothing_until_a_name_is_used() -> None:
    """`import adecore_lsp` imports none of its modules (a command line starts fast); a name
    imports its own module and what that needs, once."""
    program = (
        "import sys, adecore_lsp\n"
        "assert not [m for m in sys.modules if m.startswith('adecore_lsp.')"
        " and m != 'adecore_lsp._version'], sorted(sys.modules)\n"
        "from adecore_lsp import path_to_uri\n"
        "assert 'adecore_lsp.session' not in sys.modules\n"
        "assert 'path_to_uri' in dir(adecore_lsp) and 'Workspace' in dir(adecore_lsp)\n"
    )
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_lsp_types_is_imported_only_when_asked_for() -> None:
    """`import adecore_lsp` does not build the generated types; the attribute does."""
    program = (
        "import sys, adecore_lsp\n"
        "assert 'adecore_lsp.lsp_types' not in sys.modules\n"
        "assert adecore_lsp.lsp_types.Hover.__required_keys__ == {'contents'}\n"
        "from adecore_lsp import lsp_types\n"
        "assert lsp_types is adecore_lsp.lsp_types\n"
        "assert 'adecore_lsp.results' not in sys.modules\n"
        "assert adecore_lsp.results.MarkupHover.__required_keys__ == {'contents'}\n"
        "try:\n"
        "    adecore_lsp.no_such_name\n"
        "except AttributeError as error:\n"
        "    assert 'no_such_name' in str(error)\n"
        "else:\n"
        "    raise SystemExit('no AttributeError')\n"
    )
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_protocol_never_imports_asyncio() -> None:
    """No module under protocol/ imports asyncio, directly or through what it imports."""
    for path in sorted((SRC / "protocol").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            assert not any(name.split(".")[0] == "asyncio" for name in names), path.name
    modules = sorted(
        ".".join(("adecore_lsp", *path.relative_to(SRC).with_suffix("").parts))
        for path in (SRC / "protocol").rglob("*.py")
        if path.name != "__init__.py"
    )
    program = (
        "import sys, importlib\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "sys.exit('asyncio' in sys.modules)\n"
    )
    # The package __init__ imports transports; load protocol modules without it.
    code = (
        "import sys, types, pathlib\n"
        f"package = types.ModuleType('adecore_lsp'); package.__path__ = [{str(SRC)!r}]\n"
        "sys.modules['adecore_lsp'] = package\n" + program
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr or "protocol/ pulled asyncio in"


def test_py_typed_is_shipped() -> None:
    """The package carries py.typed."""
    assert (SRC / "py.typed").exists()
