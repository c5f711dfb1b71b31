"""adecore-lsp: a Language Server Protocol client for asyncio.

Every public name is importable from here; the submodules are an implementation detail.
"""

from __future__ import annotations

from ._version import __version__ as __version__
from .errors import (
    ErrorCodes,
    FramingError,
    LspError,
    StaleResultError,
    TransportClosedError,
)
from .options import LspSessionOptions, SessionState
from .protocol.documents import TextDocument
from .protocol.framing import ContentLengthDecoder, encode_message
from .session import LspSession
from .transports.base import ByteStream, LspTransport
from .transports.memory import create_memory_transport_pair
from .transports.process import ServerProcess, process_byte_stream, spawn_server
from .transports.stream import create_stream_transport
from .transports.websocket import connect_websocket
from .types import Disposable

__all__ = (
    # conventions
    "Disposable",
    # framing
    "ContentLengthDecoder",
    "encode_message",
    # transports
    "ByteStream",
    "LspTransport",
    "ServerProcess",
    "connect_websocket",
    "create_memory_transport_pair",
    "create_stream_transport",
    "process_byte_stream",
    "spawn_server",
    # session
    "LspSession",
    "LspSessionOptions",
    "SessionState",
    # documents
    "TextDocument",
    # errors
    "ErrorCodes",
    "FramingError",
    "LspError",
    "StaleResultError",
    "TransportClosedError",
)
