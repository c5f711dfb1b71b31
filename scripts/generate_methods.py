"""Generate ``src/adecore_lsp/protocol/capabilities/_methods.py`` from the LSP 3.17 metaModel.

The table lists every method a client sends (``messageDirection`` ``clientToServer`` or
``both``) with the server capability that announces it and the method a server registers
dynamically to enable it. The metaModel names the registration options of most requests and a
``registrationMethod`` where it differs from the method, but not the capability: that is
derived by finding the ``ServerCapabilities`` property whose type is one of the registration
options' option types (``HoverRegistrationOptions`` extends ``HoverOptions``, which is the type
of ``hoverProvider``). Methods where that finds nothing or more than one property are decided
by the small hand-written tables below, each checked against the metaModel so a stale entry
fails the run instead of producing a wrong table.

Usage::

    python scripts/generate_methods.py            # rewrite the checked-in table
    python scripts/generate_methods.py --check    # exit 1 if the table is out of date

The output depends only on the metaModel's content, so re-running it is a no-op.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import metamodel_generator

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_META_MODEL = REPO_ROOT / "spec/lsp/3.17/metaModel.json"
DEFAULT_OUTPUT = REPO_ROOT / "src/adecore_lsp/protocol/capabilities/_methods.py"

# Methods the server must answer whatever it announces: the lifecycle, the `$/` protocol
# notifications, and notifications the client sends on its own initiative.
NO_CAPABILITY = frozenset(
    {
        "$/cancelRequest",
        "$/progress",
        "$/setTrace",
        "exit",
        "initialize",
        "initialized",
        "shutdown",
        "window/workDoneProgress/cancel",
        "workspace/didChangeConfiguration",
    }
)

# No server capability announces these: the server asks for them with a registration only
# (file watchers are registered with the globs to watch).
REGISTRATION_ONLY = frozenset({"workspace/didChangeWatchedFiles"})

# Capabilities the derivation cannot find: the method has no registration options of its own
# (resolve and follow-up requests), its options are shared by several properties (file
# operations), or its options live inside another capability's options (text document sync).
CAPABILITY_OVERRIDES: dict[str, str] = {
    "callHierarchy/incomingCalls": "callHierarchyProvider",
    "callHierarchy/outgoingCalls": "callHierarchyProvider",
    "codeAction/resolve": "codeActionProvider",
    "codeLens/resolve": "codeLensProvider",
    "completionItem/resolve": "completionProvider",
    "documentLink/resolve": "documentLinkProvider",
    "inlayHint/resolve": "inlayHintProvider",
    "notebookDocument/didChange": "notebookDocumentSync",
    "notebookDocument/didClose": "notebookDocumentSync",
    "notebookDocument/didOpen": "notebookDocumentSync",
    "notebookDocument/didSave": "notebookDocumentSync",
    "textDocument/colorPresentation": "colorProvider",
    "textDocument/didChange": "textDocumentSync",
    "textDocument/didClose": "textDocumentSync",
    "textDocument/didOpen": "textDocumentSync",
    "textDocument/didSave": "textDocumentSync",
    "textDocument/prepareRename": "renameProvider",
    "textDocument/willSave": "textDocumentSync",
    "textDocument/willSaveWaitUntil": "textDocumentSync",
    "typeHierarchy/subtypes": "typeHierarchyProvider",
    "typeHierarchy/supertypes": "typeHierarchyProvider",
    "workspace/diagnostic": "diagnosticProvider",
    "workspace/didChangeWorkspaceFolders": "workspace.workspaceFolders",
    "workspace/didCreateFiles": "workspace.fileOperations.didCreate",
    "workspace/didDeleteFiles": "workspace.fileOperations.didDelete",
    "workspace/didRenameFiles": "workspace.fileOperations.didRename",
    "workspace/willCreateFiles": "workspace.fileOperations.willCreate",
    "workspace/willDeleteFiles": "workspace.fileOperations.willDelete",
    "workspace/willRenameFiles": "workspace.fileOperations.willRename",
    "workspaceSymbol/resolve": "workspaceSymbolProvider",
}

# Registration methods the metaModel does not state and the siblings rule below cannot find:
# `rangesFormatting` has registration options of its own, yet a server turns it on with
# `rangesSupport` in a `textDocument/rangeFormatting` registration; the workspace folder
# notification is registered under its own name (its capability may give the registration id).
REGISTRATION_METHOD_OVERRIDES: dict[str, str] = {
    "textDocument/rangesFormatting": "textDocument/rangeFormatting",
    "workspace/didChangeWorkspaceFolders": "workspace/didChangeWorkspaceFolders",
}

# The option field that must be enabled for the method: (field in the static capability,
# field in a dynamic registration's options). A dotted field walks into a nested object.
OPTION_FIELDS: dict[str, tuple[str, str | None]] = {
    "codeAction/resolve": ("resolveProvider", "resolveProvider"),
    "codeLens/resolve": ("resolveProvider", "resolveProvider"),
    "completionItem/resolve": ("resolveProvider", "resolveProvider"),
    "documentLink/resolve": ("resolveProvider", "resolveProvider"),
    "inlayHint/resolve": ("resolveProvider", "resolveProvider"),
    "notebookDocument/didSave": ("save", "save"),
    "textDocument/didChange": ("change", "syncKind"),
    "textDocument/didClose": ("openClose", None),
    "textDocument/didOpen": ("openClose", None),
    "textDocument/didSave": ("save", None),
    "textDocument/prepareRename": ("prepareProvider", "prepareProvider"),
    "textDocument/rangesFormatting": ("rangesSupport", "rangesSupport"),
    "textDocument/semanticTokens/full": ("full", "full"),
    "textDocument/semanticTokens/full/delta": ("full.delta", "full.delta"),
    "textDocument/semanticTokens/range": ("range", "range"),
    "textDocument/willSave": ("willSave", None),
    "textDocument/willSaveWaitUntil": ("willSaveWaitUntil", None),
    "workspace/diagnostic": ("workspaceDiagnostics", "workspaceDiagnostics"),
    "workspace/didChangeWorkspaceFolders": ("changeNotifications", None),
    "workspaceSymbol/resolve": ("resolveProvider", "resolveProvider"),
}

# Option types every registration shares; they say nothing about which capability it is.
_GENERIC_OPTIONS = frozenset(
    {"TextDocumentRegistrationOptions", "StaticRegistrationOptions", "WorkDoneProgressOptions"}
)

_CLIENT_DIRECTIONS = ("clientToServer", "both")


class GenerationError(Exception):
    """The metaModel and the hand-written tables disagree."""


class Row(NamedTuple):
    """One method of the generated table."""

    method: str
    kind: str
    direction: str
    registration_method: str
    capability: str | None
    option: str | None
    registration_option: str | None
    always: bool
    proposed: bool


class _Model:
    """Lookups over the parts of the metaModel the generator reads."""

    def __init__(self, meta_model: Mapping[str, Any]) -> None:
        self.meta_model = meta_model
        self.structures: dict[str, Mapping[str, Any]] = {
            s["name"]: s for s in meta_model["structures"]
        }
        self.messages: list[tuple[str, Mapping[str, Any]]] = [
            ("request", r) for r in meta_model["requests"]
        ] + [("notification", n) for n in meta_model["notifications"]]
        self.capability_types = dict(self._capability_paths())

    def property_names(self, structure: str) -> set[str]:
        """Names of a structure's properties, with those it extends or mixes in."""
        found: set[str] = set()
        pending = [structure]
        while pending:
            spec = self.structures.get(pending.pop())
            if spec is None:
                continue
            found.update(p["name"] for p in spec.get("properties", ()))
            pending.extend(
                ref["name"] for ref in (*spec.get("extends", ()), *spec.get("mixins", ()))
            )
        return found

    def option_types(self, registration_options: str) -> set[str]:
        """The registration options type and what it extends, minus the generic parts."""
        spec = self.structures.get(registration_options, {})
        names = {registration_options} | {
            ref["name"] for ref in (*spec.get("extends", ()), *spec.get("mixins", ()))
        }
        return names - _GENERIC_OPTIONS

    def _capability_paths(self) -> Iterator[tuple[str, set[str]]]:
        """Every ServerCapabilities path with the structure names its type refers to."""
        yield from self._walk(self.structures["ServerCapabilities"]["properties"], "", False)

    def _walk(
        self, properties: list[Mapping[str, Any]], prefix: str, nested: bool
    ) -> Iterator[tuple[str, set[str]]]:
        for prop in properties:
            path = prefix + prop["name"]
            refs = set(_references(prop["type"]))
            yield path, refs
            kind = prop["type"]["kind"]
            if kind == "literal":
                # `workspace` is an inline object; its members are capabilities too.
                yield from self._walk(prop["type"]["value"]["properties"], path + ".", True)
            elif nested and kind == "reference" and prop["type"]["name"] in self.structures:
                # Below `workspace`, named structures group further capabilities.
                struct = self.structures[prop["type"]["name"]]
                yield from self._walk(struct.get("properties", []), path + ".", True)


def _references(type_: Mapping[str, Any]) -> Iterator[str]:
    if type_["kind"] == "reference":
        yield type_["name"]
    elif type_["kind"] == "or":
        for item in type_["items"]:
            yield from _references(item)


def _derive_capability(model: _Model, message: Mapping[str, Any]) -> str | None:
    options = message.get("registrationOptions")
    if options is None or options["kind"] != "reference":
        return None
    wanted = model.option_types(options["name"])
    paths = sorted(path for path, refs in model.capability_types.items() if refs & wanted)
    return paths[0] if len(paths) == 1 else None


def build_rows(meta_model: Mapping[str, Any]) -> list[Row]:
    """Compute the table from a parsed metaModel.

    Raises:
        GenerationError: a client method is not covered, or a hand-written entry is stale.
    """
    model = _Model(meta_model)
    client = [
        (kind, msg) for kind, msg in model.messages if msg["messageDirection"] in _CLIENT_DIRECTIONS
    ]
    methods = {str(msg["method"]) for _, msg in client}
    written = (
        set(CAPABILITY_OVERRIDES)
        | set(REGISTRATION_METHOD_OVERRIDES)
        | set(OPTION_FIELDS)
        | NO_CAPABILITY
        | REGISTRATION_ONLY
    )
    if written - methods:
        raise GenerationError(
            f"hand-written entries for unknown methods: {sorted(written - methods)}"
        )

    capability: dict[str, str | None] = {}
    for _, msg in client:
        method = msg["method"]
        derived = _derive_capability(model, msg)
        if method in CAPABILITY_OVERRIDES:
            if derived is not None:
                raise GenerationError(f"{method}: override not needed, derived {derived}")
            derived = CAPABILITY_OVERRIDES[method]
            if derived not in model.capability_types:
                raise GenerationError(f"{method}: no ServerCapabilities path {derived}")
        capability[method] = derived
    # A method without registration options shares the capability of its registration group
    # (`semanticTokens/range` goes with `semanticTokens/full`).
    for _, msg in client:
        method = msg["method"]
        group = msg.get("registrationMethod")
        if capability[method] is None and group is not None:
            siblings = {
                capability[m["method"]]
                for _, m in client
                if m.get("registrationMethod") == group and capability[m["method"]] is not None
            }
            if len(siblings) == 1:
                capability[method] = siblings.pop()

    rows = [_row(model, client, capability, kind, msg) for kind, msg in client]
    return sorted(rows, key=lambda row: row.method)


def _row(
    model: _Model,
    client: list[tuple[str, Mapping[str, Any]]],
    capability: Mapping[str, str | None],
    kind: str,
    msg: Mapping[str, Any],
) -> Row:
    method = msg["method"]
    cap = capability[method]
    always = method in NO_CAPABILITY
    if always or method in REGISTRATION_ONLY:
        if cap is not None:
            raise GenerationError(f"{method}: listed as needing no capability, derived {cap}")
    elif cap is None:
        raise GenerationError(f"{method}: no capability derived and none written down")

    registration_method = _registration_method(client, capability, msg)
    option, registration_option = OPTION_FIELDS.get(method, (None, None))
    if option is not None and cap is not None:
        _check_field(model, method, option, _capability_structures(model, cap))
    if registration_option is not None:
        _check_field(
            model,
            method,
            registration_option,
            _registration_structures(model, client, registration_method)
            or _capability_structures(model, cap or ""),
        )
    return Row(
        method=method,
        kind=kind,
        direction=msg["messageDirection"],
        registration_method=registration_method,
        capability=cap,
        option=option,
        registration_option=registration_option,
        always=always,
        proposed=bool(msg.get("proposed", False)),
    )


def _registration_method(
    client: list[tuple[str, Mapping[str, Any]]],
    capability: Mapping[str, str | None],
    msg: Mapping[str, Any],
) -> str:
    method: str = msg["method"]
    if "registrationMethod" in msg:
        return str(msg["registrationMethod"])
    if method in REGISTRATION_METHOD_OVERRIDES:
        return REGISTRATION_METHOD_OVERRIDES[method]
    if _has_own_options(msg) or capability[method] is None:
        return method
    # A follow-up request (a resolve, `prepareRename`, `callHierarchy/incomingCalls`) is turned
    # on by registering the request that carries its capability's options.
    owners = sorted(
        m["method"]
        for _, m in client
        if _has_own_options(m)
        and "registrationMethod" not in m
        and capability[m["method"]] == capability[method]
        and m["method"] not in REGISTRATION_METHOD_OVERRIDES
    )
    if len(owners) != 1:
        raise GenerationError(f"{method}: cannot tell its registration method from {owners}")
    return str(owners[0])


def _has_own_options(msg: Mapping[str, Any]) -> bool:
    # `colorPresentation` lists only the generic option types: it has no options of its own
    # and goes with `documentColor`.
    options = msg.get("registrationOptions")
    return options is not None and options["kind"] == "reference"


def _capability_structures(model: _Model, path: str) -> set[str]:
    return set(model.capability_types.get(path, set()))


def _registration_structures(
    model: _Model, client: list[tuple[str, Mapping[str, Any]]], registration_method: str
) -> set[str]:
    for _, msg in client:
        options = msg.get("registrationOptions")
        if msg["method"] == registration_method and options and options["kind"] == "reference":
            return {options["name"]}
    return set()


def _check_field(model: _Model, method: str, field: str, structures: set[str]) -> None:
    head = field.split(".", 1)[0]
    if not any(head in model.property_names(name) for name in structures):
        raise GenerationError(f"{method}: option field {field} is not in {sorted(structures)}")


_HEADER = '''\
"""The LSP methods a client sends, with the capability that announces each one.

GENERATED by scripts/generate_methods.py from the LSP metaModel (metaModel.json,
version {version}, sha256 {digest}).
Do not edit: change the generator and run it again.

Fields of each row:

- ``kind``: ``request`` or ``notification``; ``direction``: ``clientToServer`` or ``both``.
- ``registration_method``: the method a server names in ``client/registerCapability`` to turn
  this method on (``textDocument/semanticTokens`` for the three semantic token requests).
- ``capability``: the dotted path in ``ServerCapabilities`` that announces the method, or
  ``None`` when no capability does.
- ``option``: a field of that capability's options that must be enabled as well (dotted
  fields walk into nested objects); ``registration_option`` is the same for the options of a
  dynamic registration (``None``: the registration alone is enough).
- ``always``: the server must handle the method whatever it announces.
- ``proposed``: the metaModel marks the method as proposed.
"""

from __future__ import annotations

from typing import Final, Literal, NamedTuple

__all__ = ["METHODS", "MethodSpec"]


class MethodSpec(NamedTuple):
    """One client-to-server method and how a server announces it."""

    method: str
    kind: Literal["request", "notification"]
    direction: Literal["clientToServer", "both"]
    registration_method: str
    capability: str | None
    option: str | None
    registration_option: str | None
    always: bool
    proposed: bool


METHODS: Final[tuple[MethodSpec, ...]] = (
'''


def render(meta_model: Mapping[str, Any], digest: str) -> str:
    """The text of ``_methods.py`` for a parsed metaModel whose file has this sha256."""
    version = meta_model.get("metaData", {}).get("version", "unknown")
    parts = [_HEADER.format(version=version, digest=digest)]
    for row in build_rows(meta_model):
        parts.append("    MethodSpec(\n")
        for name, value in row._asdict().items():
            parts.append(f"        {name}={_literal(value)},\n")
        parts.append("    ),\n")
    parts.append(")\n")
    return "".join(parts)


def _literal(value: object) -> str:
    if isinstance(value, str):
        # json.dumps gives a double-quoted literal that is also valid Python for these names.
        return json.dumps(value)
    return repr(value)


def render_file(meta_model_path: Path) -> str:
    """The text of ``_methods.py`` generated from the metaModel file at this path."""
    return metamodel_generator.render_file(render, meta_model_path)


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check``, compare) the generated table; return the exit status."""
    return metamodel_generator.run(
        render,
        description=__doc__.split("\n", 1)[0] if __doc__ else "",
        meta_model=DEFAULT_META_MODEL,
        output=DEFAULT_OUTPUT,
        script=Path(__file__).name,
        argv=argv,
    )


if __name__ == "__main__":
    sys.exit(main())
