"""The public surface: exactly the contract's names, and a protocol/ package without asyncio."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import adecore_lsp

SRC = Path(adecore_lsp.__file__).parent

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


def test_all_is_exactly_the_contract() -> None:
    """__all__ lists each contract name once, and nothing else."""
    assert len(adecore_lsp.__all__) == len(set(adecore_lsp.__all__))
    assert set(adecore_lsp.__all__) == CONTRACT


def test_every_name_in_all_is_importable() -> None:
    """Each name of __all__ is an attribute of the package."""
    for name in adecore_lsp.__all__:
        assert getattr(adecore_lsp, name) is not None


def test_init_only_reexports() -> None:
    """__init__.py holds imports and __all__, no logic."""
    tree = ast.parse((SRC / "__init__.py").read_text())
    for node in tree.body:
        assert isinstance(node, (ast.ImportFrom, ast.Import, ast.Assign, ast.Expr)), ast.dump(node)


def test_protocol_never_imports_asyncio() -> None:
    """No module under protocol/ imports asyncio, directly or through what it imports."""
    for path in sorted((SRC / "protocol").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            assert not any(name.split(".")[0] == "asyncio" for name in names), path.name
    modules = sorted(
        f"adecore_lsp.protocol.{path.stem}" for path in (SRC / "protocol").glob("*.py")
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
