"""The exception tree and LspError's fields."""

from __future__ import annotations

import pytest

from adecore_lsp import (
    ErrorCodes,
    FramingError,
    LspError,
    StaleResultError,
    TransportClosedError,
)
from adecore_lsp.errors import (
    MessageEncodingError,
    SendBufferFullError,
    TransportError,
    send_failure,
)


def test_tree() -> None:
    """The classes stand where the errors module's docstring draws them."""
    assert issubclass(StaleResultError, LspError)
    assert issubclass(FramingError, TransportError)
    assert issubclass(FramingError, ValueError)
    assert issubclass(TransportClosedError, TransportError)
    assert not issubclass(TransportError, LspError)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ParseError", -32700),
        ("InvalidRequest", -32600),
        ("MethodNotFound", -32601),
        ("InvalidParams", -32602),
        ("InternalError", -32603),
        ("ServerNotInitialized", -32002),
        ("UnknownErrorCode", -32001),
        ("RequestFailed", -32803),
        ("ServerCancelled", -32802),
        ("ContentModified", -32801),
        ("RequestCancelled", -32800),
    ],
)
def test_error_codes(name: str, value: int) -> None:
    """Every JSON-RPC and LSP code has its value."""
    assert ErrorCodes[name] == value


def test_lsp_error_fields_and_text() -> None:
    """Known codes become ErrorCodes; unknown stay ints; str is the message alone, in
    words (workspace-api.md: the code stays in .code)."""
    error = LspError(-32801, "changed", {"x": 1})
    assert error.code is ErrorCodes.ContentModified
    assert error.message == "changed"
    assert error.data == {"x": 1}
    assert str(error) == "changed"
    odd = LspError(-1, "server died")
    assert odd.code == -1
    assert not isinstance(odd.code, ErrorCodes)
    assert str(odd) == "server died"
    assert odd.to_json() == {"code": -1, "message": "server died"}
    assert "LspError(-1" in repr(odd)


def test_stale_result_error() -> None:
    """StaleResultError is ContentModified with the document's uri."""
    error = StaleResultError("file:///a.py")
    assert error.code == ErrorCodes.ContentModified
    assert error.uri == "file:///a.py"
    assert "file:///a.py" in str(error)
    assert isinstance(error, LspError)


def test_send_failures_are_translated_into_lsp_errors() -> None:
    """What a transport raises becomes what the caller of request()/notify() can catch."""
    encoding = MessageEncodingError("NaN")
    assert send_failure("m", encoding) is encoding
    assert repr(encoding) == "MessageEncodingError('NaN')"
    closed = send_failure("m", TransportClosedError("gone"))
    assert isinstance(closed, LspError)
    assert closed.code == ErrorCodes.InternalError
    assert "closed" in str(closed)
    # A custom transport's own encoding error is still a MessageEncodingError.
    custom = send_failure("textDocument/hover", TypeError("not serialisable"))
    assert isinstance(custom, MessageEncodingError)
    assert "textDocument/hover" in str(custom)
    full = send_failure("m", SendBufferFullError("8 MiB"))
    assert isinstance(full, LspError)
    assert "8 MiB" in str(full)
    stop = KeyboardInterrupt()
    assert send_failure("m", stop) is stop
