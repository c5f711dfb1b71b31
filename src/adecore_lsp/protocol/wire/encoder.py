"""Messages to JSON: ``encode_body`` for every transport, ``encode_message`` for framed ones.

orjson does the encoding. What it lets through that JSON does not allow (NaN and the
infinities, which it writes as ``null``) is caught here, cheaply on the usual message, and
what it refuses is said in plain words. Every refusal is a
:class:`~adecore_lsp.errors.MessageEncodingError`, so that one bad message fails its own call,
the same way on every transport, and never the connection.
"""

from __future__ import annotations

from math import isfinite
from typing import Any, TypeAlias

import orjson

from ...errors import MessageEncodingError
from ...types import JSONObject

__all__ = ["encode_body", "encode_message"]

_NULL_SEARCH_BYTES = 4096
"""Bodies up to this size are searched for "null" before any NaN walk (``_hides_non_finite``)."""
_WALK_BUDGET = 16
"""How many values a longer body's NaN walk looks at before searching the bytes instead."""
_UNLIMITED = 1 << 62

_Container: TypeAlias = "dict[Any, Any] | list[Any] | tuple[Any, ...]"

_dumps = orjson.dumps


def encode_message(message: JSONObject) -> bytes:
    """Frame one message: a ``Content-Length`` header, then its UTF-8 JSON body.

    Only ``Content-Length`` is written, never ``Content-Type``: the default charset is the one
    we use, and some servers refuse frames with extra headers. Non-ASCII text is kept as is,
    so the length counts bytes, not characters. The body is :func:`encode_body`'s, by the
    same checks (its steps are repeated here, not called: a Python call less per message).

    Raises:
        MessageEncodingError: the message cannot be written as JSON (see :func:`encode_body`).
    """
    if type(message) is not dict:
        _check_is_dict(message)
    try:
        body = _dumps(message)
    except TypeError as exc:  # orjson.JSONEncodeError is a TypeError
        raise _encode_error(exc) from exc
    if len(body) > _NULL_SEARCH_BYTES or body.find(b"null") >= 0:
        _refuse_non_finite(message, body)
    return b"Content-Length: %d\r\n\r\n%b" % (len(body), body)


def encode_body(message: JSONObject) -> bytes:
    """Write one message as UTF-8 JSON, refusing whatever JSON cannot carry.

    Every transport sends what this (or :func:`encode_message`, the same body framed)
    returns, the WebSocket one as a text frame, so a message is refused alike everywhere,
    before anything is written.

    Raises:
        MessageEncodingError: (a ``ValueError``) the message is not a dict, or holds a float
            that is NaN or infinite (JSON has neither), a string with a lone surrogate, an
            integer beyond 64 bits, nesting too deep, a value of a type JSON has no form for
            (a ``set``, an arbitrary object), or a key that is not a string.
    """
    if type(message) is not dict:
        _check_is_dict(message)
    try:
        body = _dumps(message)
    except TypeError as exc:  # orjson.JSONEncodeError is a TypeError
        raise _encode_error(exc) from exc
    # orjson writes NaN and infinities as null. A short body without "null" (the usual
    # message) is settled by one search, inline; the rest is up to _refuse_non_finite.
    # find() rather than "in": "in" on bytes first tries the needle as an int, and fails.
    if len(body) > _NULL_SEARCH_BYTES or body.find(b"null") >= 0:
        _refuse_non_finite(message, body)
    return body


def _check_is_dict(message: object) -> None:
    """Refuse a message that is not a dict (a subclass of dict is one)."""
    if not isinstance(message, dict):
        raise MessageEncodingError(
            f"cannot encode the message: a message must be a dict, not {type(message).__name__}"
        )


def _refuse_non_finite(message: JSONObject, body: bytes) -> None:
    """Raise if orjson wrote a NaN or an infinity of ``message`` as a null in ``body``."""
    if _hides_non_finite(message, body):
        path, value = _find_non_finite(message, "$")
        raise MessageEncodingError(
            f"cannot encode the message: {path} is {value!r}, and JSON has no NaN or Infinity"
        )


def _encode_error(exc: TypeError) -> MessageEncodingError:
    """Say in plain words why orjson refused a message."""
    reason = str(exc)
    if "surrogates" in reason:
        return MessageEncodingError(
            "cannot encode the message: a string holds a lone surrogate, which UTF-8 cannot "
            f"represent ({reason})"
        )
    if "64-bit" in reason or "Recursion" in reason:
        return MessageEncodingError(f"cannot encode the message: {reason}")
    return MessageEncodingError(f"cannot encode the message as JSON: {reason}")


def _hides_non_finite(message: JSONObject, body: bytes) -> bool:
    """Whether orjson wrote a NaN or an infinity of ``message`` as a null in ``body``.

    Either check costs something: a search for "null" reads every byte, a walk visits every
    value. A short body has been searched already, and holds a null, so it is walked. A
    long body is usually a few containers around long strings (document text), so a short
    walk settles it; if the walk meets too many values, searching is cheaper after all.
    """
    if len(body) > _NULL_SEARCH_BYTES:
        found = _has_non_finite(message, _WALK_BUDGET)
        if found is not None:
            return found
        if body.find(b"null") < 0:
            return False
    return _has_non_finite(message, _UNLIMITED) is True


def _has_non_finite(container: _Container, budget: int) -> bool | None:
    """Whether a NaN or infinite float lies anywhere in nested dicts, lists and tuples.

    Returns ``None`` once more than ``budget`` values have been looked at.
    """
    stack = [container]
    pop = stack.pop
    push = stack.append
    while stack:
        item = pop()
        budget -= len(item)
        if budget < 0:
            return None
        for value in item.values() if isinstance(item, dict) else item:
            kind = type(value)
            # Strings, numbers and nulls are nearly every leaf: dismiss them first.
            if kind is str or kind is int or kind is bool or value is None:
                continue
            if kind is dict or kind is list:
                push(value)
            elif isinstance(value, float):
                if not isfinite(value):
                    return True
            elif isinstance(value, (dict, list, tuple)):
                push(value)
    return False


def _find_non_finite(container: _Container, path: str) -> tuple[str, float]:
    """The path and value of the first NaN or infinite float, known to be in ``container``."""
    if isinstance(container, dict):
        items: Any = ((f"{path}.{key}", item) for key, item in container.items())
    else:
        items = ((f"{path}[{index}]", item) for index, item in enumerate(container))
    for item_path, item in items:  # pragma: no branch - the caller knows one is there
        if isinstance(item, float) and not isfinite(item):
            return item_path, item
        if isinstance(item, (dict, list, tuple)) and _has_non_finite(item, _UNLIMITED):
            return _find_non_finite(item, item_path)
    raise AssertionError(f"no non-finite float below {path}")  # pragma: no cover
