"""adecore-lsp: a Language Server Protocol client for asyncio.

Every public name is importable from here; the submodules are an implementation detail.
Names are imported on first use, so that ``import adecore_lsp`` costs next to nothing and a
program (or a command line's start) pays only for what it uses.
"""

from __future__ import annotations

from ._version import __version__ as __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing for every program

if TYPE_CHECKING:
    from .errors import (
        AmbiguousTargetError,
        EditConflictError,
        EditOutsideRootError,
        EmptyEditError,
        ErrorCodes,
        FramingError,
        LspError,
        MessageEncodingError,
        RequestTimeoutError,
        SendBufferFullError,
        ServerCrashedError,
        ServerNotFoundError,
        StaleResultError,
        TargetNotFoundError,
        TransportClosedError,
        TransportError,
        WorkspaceClosedError,
    )
    from .options import (
        ApplyEditHandler,
        ConfigurationHandler,
        LspSessionOptions,
        SessionState,
        ShowMessageHandler,
    )
    from .paths import path_to_uri, uri_to_path
    from .protocol.documents.documents import TextDocument
    from .protocol.documents.positions import LineIndex, Position, PositionEncoding, Range
    from .protocol.shapes.semantic_tokens import SemanticToken
    from .protocol.wire.encoder import encode_body
    from .protocol.wire.framing import (
        DEFAULT_MAX_MESSAGE_BYTES,
        ContentLengthDecoder,
        encode_message,
    )
    from .server_calls import RequestHandler
    from .session import LspSession
    from .transports.base import ByteStream, CloseListener, LspTransport, MessageListener
    from .transports.memory import create_memory_transport_pair
    from .transports.process import ServerProcess, process_byte_stream, spawn_server
    from .transports.stream import create_stream_transport
    from .transports.websocket import WebSocketConnection, WebSocketFactory, connect_websocket
    from .types import JSON, Disposable, JSONObject, Listener
    from .workspace.model import (
        AppliedPlan,
        Diagnostic,
        DiagnosticsDelta,
        DiagnosticsReport,
        EditPlan,
        FileEdit,
        FileOperation,
        FileStatus,
        Location,
        Readiness,
        Reference,
        Results,
        ServerStatus,
        Symbol,
    )
    from .workspace.servers.registry import Registry, ServerSpec
    from .workspace.workspace import Workspace

# Where each public name lives (the imports above, for type checkers, say the same: a test
# checks the two agree).
_HOMES: dict[str, str] = {
    "AmbiguousTargetError": "errors",
    "EditConflictError": "errors",
    "EditOutsideRootError": "errors",
    "EmptyEditError": "errors",
    "ErrorCodes": "errors",
    "FramingError": "errors",
    "LspError": "errors",
    "MessageEncodingError": "errors",
    "RequestTimeoutError": "errors",
    "SendBufferFullError": "errors",
    "ServerCrashedError": "errors",
    "ServerNotFoundError": "errors",
    "StaleResultError": "errors",
    "TargetNotFoundError": "errors",
    "TransportClosedError": "errors",
    "TransportError": "errors",
    "WorkspaceClosedError": "errors",
    "ApplyEditHandler": "options",
    "ConfigurationHandler": "options",
    "LspSessionOptions": "options",
    "SessionState": "options",
    "ShowMessageHandler": "options",
    "path_to_uri": "paths",
    "uri_to_path": "paths",
    "TextDocument": "protocol.documents.documents",
    "encode_body": "protocol.wire.encoder",
    "DEFAULT_MAX_MESSAGE_BYTES": "protocol.wire.framing",
    "ContentLengthDecoder": "protocol.wire.framing",
    "encode_message": "protocol.wire.framing",
    "LineIndex": "protocol.documents.positions",
    "Position": "protocol.documents.positions",
    "PositionEncoding": "protocol.documents.positions",
    "Range": "protocol.documents.positions",
    "SemanticToken": "protocol.shapes.semantic_tokens",
    "RequestHandler": "server_calls",
    "LspSession": "session",
    "ByteStream": "transports.base",
    "CloseListener": "transports.base",
    "LspTransport": "transports.base",
    "MessageListener": "transports.base",
    "create_memory_transport_pair": "transports.memory",
    "ServerProcess": "transports.process",
    "process_byte_stream": "transports.process",
    "spawn_server": "transports.process",
    "create_stream_transport": "transports.stream",
    "WebSocketConnection": "transports.websocket",
    "WebSocketFactory": "transports.websocket",
    "connect_websocket": "transports.websocket",
    "JSON": "types",
    "Disposable": "types",
    "JSONObject": "types",
    "Listener": "types",
    "AppliedPlan": "workspace.model",
    "Diagnostic": "workspace.model",
    "DiagnosticsDelta": "workspace.model",
    "DiagnosticsReport": "workspace.model",
    "EditPlan": "workspace.model",
    "FileEdit": "workspace.model",
    "FileOperation": "workspace.model",
    "FileStatus": "workspace.model",
    "Location": "workspace.model",
    "Readiness": "workspace.model",
    "Reference": "workspace.model",
    "Results": "workspace.model",
    "ServerStatus": "workspace.model",
    "Symbol": "workspace.model",
    "Registry": "workspace.servers.registry",
    "ServerSpec": "workspace.servers.registry",
    "Workspace": "workspace.workspace",
}

# Modules that are public as modules: ``adecore_lsp.lsp_types.Hover``.
_MODULES = ("lsp_types", "results", "sync", "testing")

__all__ = (
    # the LSP 3.17 types and the narrower shapes of normalised answers, as modules
    "lsp_types",
    "results",
    # the workspace without await, as a module (adecore_lsp.sync.Workspace)
    "sync",
    # replaying a recorded trace in place of a server, as a module (adecore_lsp.testing.replay)
    "testing",
    # conventions
    "Disposable",
    "JSON",
    "JSONObject",
    "Listener",
    # framing
    "ContentLengthDecoder",
    "DEFAULT_MAX_MESSAGE_BYTES",
    "encode_body",
    "encode_message",
    # transports
    "ByteStream",
    "CloseListener",
    "LspTransport",
    "MessageListener",
    "ServerProcess",
    "WebSocketConnection",
    "WebSocketFactory",
    "connect_websocket",
    "create_memory_transport_pair",
    "create_stream_transport",
    "process_byte_stream",
    "spawn_server",
    # paths
    "path_to_uri",
    "uri_to_path",
    # session
    "ApplyEditHandler",
    "ConfigurationHandler",
    "LspSession",
    "LspSessionOptions",
    "RequestHandler",
    "SessionState",
    "ShowMessageHandler",
    # documents and positions
    "LineIndex",
    "Position",
    "PositionEncoding",
    "Range",
    "SemanticToken",
    "TextDocument",
    # the workspace layer
    "Workspace",
    "Registry",
    "ServerSpec",
    "AppliedPlan",
    "Diagnostic",
    "DiagnosticsDelta",
    "DiagnosticsReport",
    "EditPlan",
    "FileEdit",
    "FileOperation",
    "FileStatus",
    "Location",
    "Readiness",
    "Reference",
    "Results",
    "ServerStatus",
    "Symbol",
    # errors
    "ErrorCodes",
    "FramingError",
    "LspError",
    "MessageEncodingError",
    "RequestTimeoutError",
    "SendBufferFullError",
    "StaleResultError",
    "ServerNotFoundError",
    "ServerCrashedError",
    "TargetNotFoundError",
    "AmbiguousTargetError",
    "EditConflictError",
    "EditOutsideRootError",
    "EmptyEditError",
    "TransportClosedError",
    "TransportError",
    "WorkspaceClosedError",
)


def __getattr__(name: str) -> object:
    """A public name, imported from its module the first time it is asked for.

    ``lsp_types`` (hundreds of TypedDicts, tens of milliseconds to build), ``results`` and
    ``sync`` are modules; everything else is a name from ``_HOMES``.
    """
    import importlib

    home = _HOMES.get(name)
    if home is not None:
        value = getattr(importlib.import_module(f".{home}", __name__), name)
        globals()[name] = value
        return value
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
