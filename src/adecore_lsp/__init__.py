"""adecore-lsp: a Language Server Protocol client for asyncio.

Every public name is importable from here; the submodules are an implementation detail.
"""

from __future__ import annotations

from ._version import __version__ as __version__
from .errors import (
    AmbiguousTargetError,
    EditConflictError,
    EmptyEditError,
    ErrorCodes,
    FramingError,
    LspError,
    MessageEncodingError,
    SendBufferFullError,
    ServerCrashedError,
    ServerNotFoundError,
    StaleResultError,
    TargetNotFoundError,
    TransportClosedError,
    TransportError,
)
from .options import (
    ApplyEditHandler,
    ConfigurationHandler,
    LspSessionOptions,
    SessionState,
    ShowMessageHandler,
)
from .paths import path_to_uri, uri_to_path
from .protocol.documents import TextDocument
from .protocol.encoder import encode_body
from .protocol.framing import DEFAULT_MAX_MESSAGE_BYTES, ContentLengthDecoder, encode_message
from .protocol.positions import LineIndex, Position, PositionEncoding, Range
from .protocol.semantic_tokens import SemanticToken
from .server_calls import RequestHandler
from .session import LspSession
from .transports.base import ByteStream, CloseListener, LspTransport, MessageListener
from .transports.memory import create_memory_transport_pair
from .transports.process import ServerProcess, process_byte_stream, spawn_server
from .transports.stream import create_stream_transport
from .transports.websocket import WebSocketConnection, WebSocketFactory, connect_websocket
from .types import JSON, Disposable, JSONObject, Listener

__all__ = (
    # the LSP 3.17 types and the narrower shapes of normalised answers, as modules
    "lsp_types",
    "results",
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
    # errors
    "ErrorCodes",
    "FramingError",
    "LspError",
    "MessageEncodingError",
    "SendBufferFullError",
    "StaleResultError",
    "ServerNotFoundError",
    "ServerCrashedError",
    "TargetNotFoundError",
    "AmbiguousTargetError",
    "EditConflictError",
    "EmptyEditError",
    "TransportClosedError",
    "TransportError",
)


def __getattr__(name: str) -> object:
    """``adecore_lsp.lsp_types`` and ``adecore_lsp.results``, imported when first asked for.

    Building its hundreds of TypedDicts costs tens of milliseconds, which a program that
    only annotates with them (or a command line's start) should not pay.
    """
    if name in ("lsp_types", "results"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
