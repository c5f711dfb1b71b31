"""The session's own answers to the requests a server sends, without I/O.

Each handler takes the session's :class:`BuiltinContext` and the request's ``params`` and
returns the result, an awaitable of it when an application callback is async, or
:class:`ItemAnswers` when each item of the request got its own answer and some of them are
awaitables (the I/O layer awaits them together). Raising :class:`~adecore_lsp.LspError`
answers with that error.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ...errors import ErrorCodes, LspError
from ...types import JSONObject
from ..capabilities.capabilities import CapabilityRegistry
from .configuration import configuration_value

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

# What each refresh request asks the client to ask again for.
REFRESH_REQUESTS: Mapping[str, tuple[str, ...]] = {
    "workspace/semanticTokens/refresh": (
        "textDocument/semanticTokens/full",
        "textDocument/semanticTokens/full/delta",
        "textDocument/semanticTokens/range",
    ),
    "workspace/inlayHint/refresh": ("textDocument/inlayHint",),
    "workspace/diagnostic/refresh": ("textDocument/diagnostic", "workspace/diagnostic"),
    "workspace/codeLens/refresh": ("textDocument/codeLens",),
    "workspace/inlineValue/refresh": ("textDocument/inlineValue",),
    "workspace/foldingRange/refresh": ("textDocument/foldingRange",),
}

APPLY_EDIT_REFUSED = (
    "this client applies no workspace edits (neither on_apply_edit nor apply_edits=True was given)"
)


class HandlerOptions(Protocol):
    """The session options the built-in answers read (``LspSessionOptions`` has them)."""

    configuration: Mapping[str, Any] | None
    on_configuration: Callable[[JSONObject], Any] | None
    on_apply_edit: Callable[[JSONObject], Any] | None
    apply_edits: bool
    on_show_message: Callable[[JSONObject], Any] | None


@dataclass(frozen=True)
class ItemAnswers:
    """One answer per item of a request, some of them awaitables still to be awaited.

    The I/O layer awaits every awaitable among them concurrently, and answers with the list
    of results, or with the first failure once all of them have ended.
    """

    answers: list[Any]


@dataclass
class BuiltinContext:
    """What the built-in answers read and touch in their session."""

    options: HandlerOptions
    registry: CapabilityRegistry
    workspace_folders: list[JSONObject] | None
    capabilities_changed: Callable[[list[str]], None]
    refresh_requested: Callable[[tuple[str, ...]], None]
    apply_workspace_edit: Callable[[JSONObject], Any] | None = None
    """The session's own ``apply_edit`` answer, used with the ``apply_edits`` option."""


BuiltinHandler = Callable[[BuiltinContext, Any], Any]


def _object_params(params: Any, method: str) -> JSONObject:
    if not isinstance(params, dict):
        raise LspError(ErrorCodes.InvalidParams, f"{method} needs an object as params")
    return params


def _configuration(context: BuiltinContext, params: Any) -> Any:
    items = _object_params(params, "workspace/configuration").get("items")
    if not isinstance(items, list):
        raise LspError(ErrorCodes.InvalidParams, "workspace/configuration needs a list of items")
    callback = context.options.on_configuration
    if callback is None:
        settings = context.options.configuration
        return [
            configuration_value(settings, item.get("section") if isinstance(item, dict) else None)
            for item in items
        ]
    answers: list[Any] = []
    try:
        for item in items:
            answers.append(callback(item))
    except BaseException:
        # The items answered so far will never be awaited: close their coroutines.
        close_awaitables(answers)
        raise
    if not any(inspect.isawaitable(answer) for answer in answers):
        return answers
    return ItemAnswers(answers)


def close_awaitables(answers: list[Any]) -> None:
    """Close every coroutine among ``answers``, so that none is left never awaited."""
    for answer in answers:
        if inspect.iscoroutine(answer):
            answer.close()


def _workspace_folders(context: BuiltinContext, params: Any) -> Any:
    return context.workspace_folders


def _apply_edit(context: BuiltinContext, params: Any) -> Any:
    callback = context.options.on_apply_edit
    if callback is None and context.options.apply_edits:
        callback = context.apply_workspace_edit
    if callback is None:
        return {"applied": False, "failureReason": APPLY_EDIT_REFUSED}
    return callback(_object_params(params, "workspace/applyEdit"))


def _show_message_request(context: BuiltinContext, params: Any) -> Any:
    callback = context.options.on_show_message
    if callback is None:
        return None
    return callback(_object_params(params, "window/showMessageRequest"))


def _work_done_progress_create(context: BuiltinContext, params: Any) -> Any:
    return None


def _register_capability(context: BuiltinContext, params: Any) -> Any:
    changed = context.registry.register(_object_params(params, "client/registerCapability"))
    context.capabilities_changed(changed)
    return None


def _unregister_capability(context: BuiltinContext, params: Any) -> Any:
    changed = context.registry.unregister(_object_params(params, "client/unregisterCapability"))
    context.capabilities_changed(changed)
    return None


def _refresh(methods: tuple[str, ...]) -> BuiltinHandler:
    def refresh(context: BuiltinContext, params: Any) -> Any:
        context.refresh_requested(methods)
        return None

    return refresh


BUILTIN_HANDLERS: Mapping[str, BuiltinHandler] = {
    "workspace/configuration": _configuration,
    "workspace/workspaceFolders": _workspace_folders,
    "workspace/applyEdit": _apply_edit,
    "window/showMessageRequest": _show_message_request,
    "window/workDoneProgress/create": _work_done_progress_create,
    "client/registerCapability": _register_capability,
    "client/unregisterCapability": _unregister_capability,
    **{method: _refresh(methods) for method, methods in REFRESH_REQUESTS.items()},
}
"""Requests the session answers itself, unless the application's ``on_request`` does."""
