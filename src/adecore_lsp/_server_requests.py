"""The session's own answers to the requests a server sends.

Each handler takes the session's :class:`BuiltinContext` and the request's ``params`` and
returns the result, or an awaitable of it when an application callback is async. Raising
:class:`~adecore_lsp.LspError` answers with that error.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import ErrorCodes, LspError
from .options import LspSessionOptions
from .protocol.capabilities import CapabilityRegistry
from .protocol.configuration import configuration_value
from .types import JSON, JSONObject

__all__ = ["BUILTIN_HANDLERS", "REFRESH_REQUESTS", "BuiltinContext", "BuiltinHandler"]

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

APPLY_EDIT_REFUSED = "this client applies no workspace edits (no on_apply_edit was given)"


@dataclass
class BuiltinContext:
    """What the built-in answers read and touch in their session."""

    options: LspSessionOptions
    registry: CapabilityRegistry
    workspace_folders: list[JSONObject] | None
    capabilities_changed: Callable[[list[str]], None]
    refresh_requested: Callable[[tuple[str, ...]], None]


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
    answers = [callback(item) for item in items]
    if not any(inspect.isawaitable(answer) for answer in answers):
        return answers

    async def gather() -> list[JSON]:
        return [await answer if inspect.isawaitable(answer) else answer for answer in answers]

    return gather()


def _workspace_folders(context: BuiltinContext, params: Any) -> Any:
    return context.workspace_folders


def _apply_edit(context: BuiltinContext, params: Any) -> Any:
    callback = context.options.on_apply_edit
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
