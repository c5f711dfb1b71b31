"""The handshake without I/O: the ``initialize`` params a session sends, and the checks of
the ``InitializeResult`` it gets back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ...errors import ErrorCodes, LspError
from ...types import JSONObject
from ..capabilities.client_capabilities import build_client_capabilities
from ..documents.uris import folder_name, uri_to_path

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


def workspace_folder_list(
    root_uri: str | None, folders: Sequence[Mapping[str, Any]] | None
) -> list[JSONObject] | None:
    """The ``WorkspaceFolder`` list: the folders given, else one made from ``root_uri``."""
    if folders is not None:
        return [dict(folder) for folder in folders]
    if root_uri is None:
        return None
    return [{"uri": root_uri, "name": folder_name(root_uri)}]


class HandshakeOptions(Protocol):
    """The session options the handshake reads (``LspSessionOptions`` has them)."""

    @property
    def process_id(self) -> int | None: ...
    @property
    def client_info(self) -> JSONObject | None: ...
    @property
    def root_uri(self) -> str | None: ...
    @property
    def position_encodings(self) -> Sequence[str]: ...
    @property
    def snippet_support(self) -> bool: ...
    @property
    def on_apply_edit(self) -> object: ...
    @property
    def apply_edits(self) -> bool: ...
    @property
    def pull_diagnostics(self) -> bool: ...
    @property
    def capabilities(self) -> Mapping[str, Any] | None: ...
    @property
    def initialization_options(self) -> Any: ...


def initialize_params(
    options: HandshakeOptions, folders: list[JSONObject] | None, client_info: JSONObject
) -> JSONObject:
    """The params of ``initialize``; ``initializationOptions`` is left out when None.

    ``client_info`` is used when the options give none; ``workspace/applyEdit`` is
    advertised only when the options have an ``on_apply_edit`` handler.
    """
    root_uri = options.root_uri
    params: JSONObject = {
        "processId": options.process_id,
        "clientInfo": options.client_info or client_info,
        "rootUri": root_uri,
        "rootPath": None if root_uri is None else uri_to_path(root_uri),
        "capabilities": build_client_capabilities(
            position_encodings=options.position_encodings,
            snippet_support=options.snippet_support,
            apply_edit=options.on_apply_edit is not None or options.apply_edits,
            transactional_edits=options.on_apply_edit is None and options.apply_edits,
            pull_diagnostics=options.pull_diagnostics,
            overrides=options.capabilities,
        ),
        "workspaceFolders": folders,
    }
    if options.initialization_options is not None:
        params["initializationOptions"] = options.initialization_options
    return params


@dataclass(frozen=True)
class HandshakeResult:
    """What a session keeps of an accepted ``InitializeResult``."""

    capabilities: JSONObject
    server_info: JSONObject | None
    position_encoding: str


def check_initialize_result(result: object, offered: Sequence[str]) -> HandshakeResult:
    """Accept a server's ``InitializeResult`` or raise the :class:`LspError` that says why not.

    ``offered`` is the position encodings the client offered; the server's choice must be
    one of them (none given means ``utf-16``).
    """
    if not isinstance(result, dict) or not isinstance(result.get("capabilities"), dict):
        raise LspError(
            ErrorCodes.InvalidRequest,
            f"the server's InitializeResult has no capabilities object: {result!r}"[:300],
        )
    capabilities: JSONObject = result["capabilities"]
    encoding = capabilities.get("positionEncoding", "utf-16")
    if encoding not in offered:
        raise LspError(
            ErrorCodes.InvalidParams,
            f"the server chose the position encoding {encoding!r}, "
            f"which the client did not offer (it offered {', '.join(offered)})",
        )
    server_info = result.get("serverInfo")
    return HandshakeResult(
        capabilities=capabilities,
        server_info=server_info if isinstance(server_info, dict) else None,
        position_encoding=encoding,
    )
