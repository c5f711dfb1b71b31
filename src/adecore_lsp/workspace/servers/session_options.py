"""What a workspace's server is told as its session starts: the session's options, its
client capabilities beyond the library's own, and its configuration answers.

Kept apart from :mod:`.servers` (a server's life) because it is a pure function of the
server's spec, root and folders: what one server is asked to be, not how it runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ...paths import path_to_uri
from ...types import JSONObject
from .interpreters import Interpreter
from .registry import ServerSpec

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


def session_options(
    spec: ServerSpec,
    root: Path,
    folders: Sequence[Path],
    *,
    timeout: float,
    declares_pulls: bool,
    apply_edit: Callable[[Any], JSONObject],
    interpreter: Interpreter | None = None,
) -> dict[str, Any]:
    """The ``LspSession`` keyword arguments of a server rooted at ``root`` with ``folders``;
    with ``interpreter``, the server is told to start it (``ServerSpec.interpreter``)."""
    given = {"settings": spec.settings, "initialization_options": _initialization_options(spec)}
    if interpreter is not None:
        given = _with_interpreter(spec, given, interpreter)
    settings = given["settings"] or {}
    options: dict[str, Any] = {
        "root_uri": path_to_uri(root),
        "workspace_folders": [workspace_folder(folder) for folder in folders],
        "configuration": settings,
        "initialization_options": given["initialization_options"],
        # A server's workspace/applyEdit joins the plan being made (rename, format,
        # fix) and is refused at any other time: the workspace decides, never the session.
        "on_apply_edit": apply_edit,
        # Pulls are declared but made by the workspace alone, when it waits for final
        # diagnostics: the session's own pulls after each open would double the work.
        "pull_diagnostics": False,
        "timeout": timeout,
    }
    capabilities: dict[str, Any] = {
        "workspace": {
            "workspaceEdit": {"failureHandling": "transactional"},
            # Servers then register file watchers (basedpyright does only then), and the
            # workspace tells them of files created, changed and deleted under the root.
            "didChangeWatchedFiles": {
                "dynamicRegistration": True,
                "relativePatternSupport": True,
            },
        }
    }
    if declares_pulls:
        capabilities["textDocument"] = {
            "diagnostic": {"dynamicRegistration": True, "relatedDocumentSupport": True}
        }
    if spec.shutdown_timeout is not None:
        options["shutdown_timeout"] = spec.shutdown_timeout
    if spec.position_encodings is not None:
        options["position_encodings"] = spec.position_encodings
    if spec.readiness == "server_status":
        capabilities["experimental"] = {"serverStatusNotification": True}
    if capabilities:
        options["capabilities"] = capabilities
    if spec.empty_configuration:
        options["on_configuration"] = lambda item: _section(settings, item)
    return options


def workspace_folder(folder: Path) -> JSONObject:
    """A ``WorkspaceFolder`` of a folder: its URI and its name."""
    return {"uri": path_to_uri(folder), "name": folder.name or str(folder)}


def _initialization_options(spec: ServerSpec) -> dict[str, Any] | None:
    """The spec's ``initialization_options``, with its ``settings`` under ``settings`` for a
    server that reads them at the start (``settings_at_start``)."""
    if not spec.settings_at_start or not spec.settings:
        return spec.initialization_options
    return {**(spec.initialization_options or {}), "settings": spec.settings}


def _with_interpreter(
    spec: ServerSpec, given: dict[str, Any], interpreter: Interpreter
) -> dict[str, Any]:
    """``given`` (settings and initialization options) naming ``interpreter`` where the
    spec says the server takes it, and its paths where it takes extra ones."""
    places: list[tuple[str | None, Any]] = [(spec.interpreter, interpreter.executable)]
    if spec.interpreter_paths is not None:
        places.append((spec.interpreter_paths, list(interpreter.paths)))
    changed = dict(given)
    for place, value in places:
        if place is None:  # pragma: no cover - an interpreter is made only for a place
            continue
        field, _, key = place.partition(".")
        changed[field] = _set(changed[field] or {}, key.split("."), value)
    return changed


def _set(table: Mapping[str, Any], keys: list[str], value: Any) -> dict[str, Any]:
    """A copy of ``table`` with ``value`` at ``keys``; a list already there keeps its items
    first."""
    copy = dict(table)
    head = keys[0]
    if len(keys) > 1:
        inner = copy.get(head)
        copy[head] = _set(inner if isinstance(inner, Mapping) else {}, keys[1:], value)
    elif isinstance(value, list) and isinstance(copy.get(head), list):
        copy[head] = [*copy[head], *value]
    else:
        copy[head] = value
    return copy


def _section(settings: Mapping[str, Any], item: Mapping[str, Any]) -> Any:
    """A configuration answer that is ``{}`` rather than ``null`` for a missing section."""
    section = item.get("section")
    if not section:
        return dict(settings)
    value: Any = settings
    for part in str(section).split("."):
        if not isinstance(value, Mapping) or part not in value:
            return {}
        value = value[part]
    return value
