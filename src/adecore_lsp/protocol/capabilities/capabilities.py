"""What the server answers: its static capabilities plus what it registered since.

:class:`CapabilityRegistry` holds the ``capabilities`` of the ``InitializeResult`` and the live
registrations of ``client/registerCapability``, and answers ``supports(method, document)`` and
``provider_options(method, document)`` for the exact method asked about. It is sans-IO: the
session feeds it and asks it; nothing here waits or sends.

How a method is looked up (the per-method data is the generated table in ``_methods.py``):

1. Dynamic registrations, newest first: one for the method's registration method whose
   options enable the method (``textDocument/semanticTokens`` with ``full`` enables
   ``textDocument/semanticTokens/full``; ``textDocument/completion`` with ``resolveProvider``
   enables ``completionItem/resolve``), or one naming the method itself.
2. Then the static capability at the method's path (``hoverProvider``,
   ``workspace.fileOperations.willCreate``): ``true`` means options ``{}``, an object is the
   options, ``false`` or absence means unsupported, and an option field may have to be
   enabled as well (``renameProvider.prepareProvider`` for ``textDocument/prepareRename``).
   ``textDocumentSync`` (a ``TextDocumentSyncKind`` number or an options object) is read per
   notification and given in the shape of that notification's registration options:
   ``{"syncKind": kind}`` for ``didChange``, ``{"includeText": bool}`` for ``didSave``,
   ``{}`` for the others. A static capability whose ``id`` is later unregistered is withdrawn.
3. Methods every server handles (``initialize``, ``$/cancelRequest``,
   ``workspace/didChangeConfiguration``...) are supported with options ``{}``. Methods
   outside the LSP 3.17 table (``rust-analyzer/...``) are supported only while registered.

With a document, a provider counts only if its ``documentSelector`` selects it (see
:mod:`.selectors`); file operation providers match their ``filters`` against the URI, and
notebook sync ignores the document. Without a document, a provider with any selector counts:
the method is supported for some documents.

Malformed input from the server never raises: an entry of ``registerCapability`` or
``unregisterCapability`` that is not an object with a string ``id`` and ``method`` (and, when
present, an object ``registerOptions``) is skipped and reported to ``on_error`` as a
``ValueError``; the other entries still apply. A malformed selector or unreadable glob is
reported (a glob once per registry) and keeps its registration, but that filter selects
nothing. Unknown ids in ``unregisterCapability`` are ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

from ._methods import METHODS, MethodSpec
from .globs import GlobError
from .selectors import (
    DocumentInfo,
    DocumentLike,
    as_document,
    file_operation_filter_problems,
    file_operation_filters_match,
    pattern_problems,
    selector_matches,
    selector_problems,
)

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

METHOD_SPECS: Final[Mapping[str, MethodSpec]] = MappingProxyType({s.method: s for s in METHODS})
"""Every client-to-server method of LSP 3.17, by name."""

# Registration method -> the methods it can turn on; the registration method itself first.
_BY_REGISTRATION: Final[Mapping[str, tuple[MethodSpec, ...]]] = MappingProxyType(
    {
        name: tuple(
            sorted(
                (s for s in METHODS if s.registration_method == name),
                key=lambda s: s.method != name,
            )
        )
        for name in {s.registration_method for s in METHODS}
    }
)

_SYNC = "textDocumentSync"
_FILE_OPERATIONS = "workspace.fileOperations."
_NOTEBOOK_SYNC = "notebookDocumentSync"
_WORKSPACE_FOLDERS = "workspace.workspaceFolders"

FOUND_CACHED = 10_000
"""Answers of a lookup kept at most (their questions repeat; their memory stays bounded)."""


def method_spec(method: str) -> MethodSpec | None:
    """The table row of an LSP 3.17 client-to-server method, or ``None`` for another name."""
    return METHOD_SPECS.get(method)


@dataclass(frozen=True)
class Registration:
    """One live dynamic registration; ``register_options`` is ``{}`` when the server sent none."""

    id: str
    method: str
    register_options: dict[str, Any]


@dataclass(frozen=True)
class SyncOptions:
    """How to synchronise one document, from static and dynamic sync capabilities.

    ``change`` is a ``TextDocumentSyncKind``: 0 none, 1 full text, 2 incremental.
    """

    open_close: bool = False
    change: int = 0
    save: bool = False
    include_text: bool = False
    will_save: bool = False
    will_save_wait_until: bool = False


class CapabilityRegistry:
    """Static server capabilities plus live registrations; answers what the server supports."""

    def __init__(self, *, on_error: Callable[[Exception], object] | None = None) -> None:
        """Start empty: nothing but the always-handled methods is supported.

        Args:
            on_error: receives a ``ValueError`` (a :class:`~.globs.GlobError` for a
                glob) for each malformed piece of server input; it must not raise.
        """
        self._on_error = on_error
        self._static: dict[str, Any] = {}
        self._registrations: dict[str, Registration] = {}  # insertion order: oldest first
        # The same registrations by their method, each bucket oldest first, so that a lookup
        # costs what that method's registrations cost (servers register file watchers by the
        # thousand); _order numbers them to merge two buckets newest first.
        self._by_method: dict[str, dict[str, Registration]] = {}
        self._order: dict[str, int] = {}
        self._counter = 0
        self._withdrawn: set[str] = set()  # unregistered ids of static capabilities
        self._reported_globs: set[str] = set()
        # Answers of _find, by method and document: a workspace asks the same few questions
        # of every file it opens. While no selector looks at more than the language (the
        # usual case), a document is keyed by its language alone, so a check of a thousand
        # files looks each answer up once. Dropped whenever what they depend on changes.
        self._found: dict[tuple[object, ...], Mapping[str, Any] | None] = {}
        self._sync_found: dict[tuple[object, ...], SyncOptions] = {}
        self._static_by_uri = False  # a static provider's selector looks at URIs
        self._by_uri: set[str] = set()  # the ids of registrations whose selector does

    # -- input -----------------------------------------------------------------------------

    @property
    def server_capabilities(self) -> dict[str, Any]:
        """The static capabilities last set (``{}`` before)."""
        return self._static

    def set_server_capabilities(self, capabilities: Mapping[str, Any]) -> None:
        """Take the ``capabilities`` of the ``InitializeResult``; registrations are kept."""
        if not isinstance(capabilities, Mapping):
            self._report(ValueError(f"server capabilities must be an object: {capabilities!r}"))
            capabilities = {}
        self._static = dict(capabilities)
        self._withdrawn.clear()
        self._forget_answers()
        self._static_by_uri = False
        checked: set[str] = set()
        for spec in METHODS:
            provider = self._static_provider(spec)
            if spec.capability in checked or not isinstance(provider, Mapping):
                continue
            checked.add(spec.capability or "")
            self._static_by_uri = self._static_by_uri or _scoped_by_uri(provider)
            self._check_scope(spec.capability or "", provider, f"capability {spec.capability}")

    def register(self, params: object) -> list[str]:
        """Apply ``client/registerCapability`` params; return the methods it turned on or off.

        A registration with an id already registered replaces that registration.
        """
        changed: list[str] = []
        self._forget_answers()
        for entry in self._entries(params, "client/registerCapability", "registrations"):
            registration = self._parse(entry, "registration")
            if registration is None:
                continue
            old = self._forget(registration.id)
            self._remember(registration)
            if old is not None:
                changed += _affected(old.method, old.register_options)
            changed += _affected(registration.method, registration.register_options)
            self._check_registration(registration)
        return list(dict.fromkeys(changed))

    def unregister(self, params: object) -> list[str]:
        """Apply ``client/unregisterCapability`` params; return the methods it turned off.

        Reads ``unregisterations`` (the specification's spelling) or ``unregistrations``.
        An id that matches no registration but a static capability's ``id`` withdraws that
        capability; any other unknown id is ignored.
        """
        changed: list[str] = []
        self._forget_answers()
        field = "unregistrations"
        if isinstance(params, Mapping) and "unregisterations" in params:
            field = "unregisterations"
        for entry in self._entries(params, "client/unregisterCapability", field):
            parsed = self._parse(entry, "unregistration")
            if parsed is None:
                continue
            registration = self._forget(parsed.id)
            if registration is not None:
                changed += _affected(registration.method, registration.register_options)
                continue
            static = [
                spec.method
                for spec in METHODS
                if self._static_id(spec) == parsed.id and self._static_options(spec) is not None
            ]
            if static:
                self._withdrawn.add(parsed.id)
                changed += static
        return list(dict.fromkeys(changed))

    def _remember(self, registration: Registration) -> None:
        self._registrations[registration.id] = registration
        self._by_method.setdefault(registration.method, {})[registration.id] = registration
        self._counter += 1
        self._order[registration.id] = self._counter
        if _scoped_by_uri(registration.register_options):
            self._by_uri.add(registration.id)

    def _forget(self, registration_id: str) -> Registration | None:
        self._by_uri.discard(registration_id)
        registration = self._registrations.pop(registration_id, None)
        if registration is not None:
            bucket = self._by_method[registration.method]
            del bucket[registration_id]
            if not bucket:
                del self._by_method[registration.method]
            del self._order[registration_id]
        return registration

    # -- queries ---------------------------------------------------------------------------

    def registrations(self, method: str | None = None) -> list[Registration]:
        """The live registrations, newest first; only those named ``method`` if given."""
        if method is None:
            return list(reversed(self._registrations.values()))
        return list(reversed(self._by_method.get(method, {}).values()))

    def supports(self, method: str, document: DocumentLike | None = None) -> bool:
        """Whether the server answers ``method`` (for ``document``, when given)."""
        return self._find(method, document) is not None

    def provider_options(
        self, method: str, document: DocumentLike | None = None
    ) -> dict[str, Any] | None:
        """The options of the provider that answers ``method``, or ``None`` if none does.

        ``{}`` for a provider given as ``true``. A copy: changing it changes nothing here.
        """
        options = self._find(method, document)
        return None if options is None else dict(options)

    def text_document_sync(self, document: DocumentLike) -> SyncOptions:
        """How to synchronise ``document``: static ``textDocumentSync`` and registrations.

        ``open_close`` is set when either ``didOpen`` or ``didClose`` is wanted, since a
        document must be closed before it is opened again. A ``syncKind`` other than 0, 1 or
        2 is read as 1 (full text), which every server understands.
        """
        info = as_document(document)
        key = self._key(_SYNC, info)
        known = self._sync_found.get(key)
        if known is not None:
            return known
        options = self._sync_found[key] = self._sync_options(info)
        return options

    def _sync_options(self, info: DocumentInfo) -> SyncOptions:
        change = self._find("textDocument/didChange", info)
        kind = change.get("syncKind") if change is not None else 0
        save = self._find("textDocument/didSave", info)
        return SyncOptions(
            open_close=self.supports("textDocument/didOpen", info)
            or self.supports("textDocument/didClose", info),
            change=kind if kind in (0, 1, 2) and not isinstance(kind, bool) else 1,
            save=save is not None,
            include_text=save is not None and save.get("includeText") is True,
            will_save=self.supports("textDocument/willSave", info),
            will_save_wait_until=self.supports("textDocument/willSaveWaitUntil", info),
        )

    # -- lookup ----------------------------------------------------------------------------

    def _find(self, method: str, document: DocumentLike | None) -> Mapping[str, Any] | None:
        info = None if document is None else as_document(document)
        key = self._key(method, info)
        try:
            return self._found[key]
        except KeyError:
            pass
        found = self._lookup(method, info)
        if len(self._found) >= FOUND_CACHED:
            self._forget_answers()
        self._found[key] = found
        return found

    def _key(self, method: str, info: DocumentInfo | None) -> tuple[object, ...]:
        """What an answer about ``method`` for ``info`` depends on: the document's language
        alone unless a selector (or a file operation filter) looks at URIs."""
        if info is None:
            return (method,)
        if self._static_by_uri or self._by_uri or method.startswith("workspace/"):
            return (method, info)
        return (method, info.language_id, None)

    def _forget_answers(self) -> None:
        self._found.clear()
        self._sync_found.clear()

    def _lookup(self, method: str, info: DocumentInfo | None) -> Mapping[str, Any] | None:
        spec = METHOD_SPECS.get(method)
        scope = (spec.capability or "") if spec is not None else ""
        for registration in self._candidates(method, spec):
            options = registration.register_options
            if _enables(registration, method, spec) and (
                info is None or _in_scope(scope, options, info)
            ):
                return options
        if spec is None or spec.capability is None:
            return {} if spec is not None and spec.always else None
        provider = self._static_options(spec)
        if provider is None or (info is not None and not _in_scope(scope, provider, info)):
            return None
        return provider

    def _candidates(self, method: str, spec: MethodSpec | None) -> Iterable[Registration]:
        """The registrations that may enable ``method``, newest first.

        Those of its registration method (``textDocument/semanticTokens`` for
        ``textDocument/semanticTokens/full``) and those naming ``method`` itself.
        """
        by_method = self._by_method
        own = by_method.get(method)
        group = by_method.get(spec.registration_method) if spec is not None else None
        if group is None or spec is None or spec.registration_method == method:
            return reversed(own.values()) if own else ()
        if not own:
            return reversed(group.values())
        order = self._order
        merged = [*own.values(), *group.values()]
        merged.sort(key=lambda registration: order[registration.id], reverse=True)
        return merged

    def _static_provider(self, spec: MethodSpec) -> object:
        """The raw value at the spec's capability path, or ``None``."""
        if spec.capability is None:
            return None
        value: object = self._static
        for part in spec.capability.split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
        return value

    def _static_options(self, spec: MethodSpec) -> Mapping[str, Any] | None:
        raw = self._static_provider(spec)
        if spec.capability == _SYNC:
            return _sync_options(raw, spec.option)
        if raw is True:
            provider: Mapping[str, Any] = {}
        elif isinstance(raw, Mapping):
            provider = raw
        else:
            return None
        if spec.option is not None and not _enabled(_field(provider, spec.option)):
            return None
        if self._static_id(spec) in self._withdrawn:
            return None
        return provider

    def _static_id(self, spec: MethodSpec) -> str | None:
        """The id under which a static capability may be unregistered, if it has one."""
        raw = self._static_provider(spec)
        if not isinstance(raw, Mapping):
            return None
        # `workspace.workspaceFolders.changeNotifications` may be that id itself.
        value = raw.get("changeNotifications") if spec.capability == _WORKSPACE_FOLDERS else None
        if not isinstance(value, str):
            value = raw.get("id")
        return value if isinstance(value, str) else None

    # -- input checking --------------------------------------------------------------------

    def _report(self, error: Exception) -> None:
        if self._on_error is not None:
            self._on_error(error)

    def _entries(self, params: object, request: str, field: str) -> list[object]:
        if not isinstance(params, Mapping):
            self._report(ValueError(f"{request} params must be an object, got {params!r}"))
            return []
        entries = params.get(field)
        if not isinstance(entries, list):
            self._report(ValueError(f"{request} params need a list {field!r}, got {entries!r}"))
            return []
        return entries

    def _parse(self, entry: object, what: str) -> Registration | None:
        if isinstance(entry, Mapping):
            id_, method = entry.get("id"), entry.get("method")
            options = entry.get("registerOptions") if what == "registration" else None
            if isinstance(id_, str) and isinstance(method, str):
                if options is None:
                    return Registration(id_, method, {})
                if isinstance(options, Mapping):
                    return Registration(id_, method, dict(options))
        self._report(ValueError(f"skipped a malformed {what}: {entry!r}"[:500]))
        return None

    def _check_registration(self, registration: Registration) -> None:
        options = registration.register_options
        where = f"registration {registration.id!r} of {registration.method}"
        specs = _BY_REGISTRATION.get(registration.method, ())
        scope = (specs[0].capability or "") if specs else ""
        self._check_scope(scope, options, where)
        if registration.method == "workspace/didChangeWatchedFiles":
            watchers = options.get("watchers")
            if not isinstance(watchers, list):
                self._report(ValueError(f"{where}: 'watchers' must be a list"))
                return
            for watcher in watchers:
                glob = watcher.get("globPattern") if isinstance(watcher, Mapping) else None
                self._report_problems(pattern_problems(glob), where)

    def _check_scope(self, scope: str, options: Mapping[str, Any], where: str) -> None:
        if scope.startswith(_FILE_OPERATIONS):
            self._report_problems(file_operation_filter_problems(options.get("filters")), where)
        elif scope != _NOTEBOOK_SYNC:
            self._report_problems(selector_problems(options.get("documentSelector")), where)

    def _report_problems(self, problems: list[ValueError], where: str) -> None:
        for problem in problems:
            if isinstance(problem, GlobError):
                if problem.glob not in self._reported_globs:
                    self._reported_globs.add(problem.glob)
                    self._report(problem)
            else:
                self._report(ValueError(f"{where}: {problem}"))


def _affected(method: str, options: Mapping[str, Any]) -> list[str]:
    """The methods a registration of ``method`` with these options turns on."""
    group = _BY_REGISTRATION.get(method)
    if not group:
        return [method]  # a method named directly, or one outside the table
    return [s.method for s in group if _enabled(_field(options, s.registration_option))]


def _enables(registration: Registration, method: str, spec: MethodSpec | None) -> bool:
    """Whether a registration turns ``method`` on, whatever the document."""
    if spec is not None and registration.method == spec.registration_method:
        return _enabled(_field(registration.register_options, spec.registration_option))
    return registration.method == method  # named directly (or a method outside the table)


def _scoped_by_uri(options: Mapping[str, Any]) -> bool:
    """Whether provider options choose documents by more than their language: a selector
    filter naming a scheme or a pattern."""
    selector = options.get("documentSelector")
    return isinstance(selector, list) and any(
        isinstance(item, Mapping)
        and "notebook" not in item
        and (item.get("scheme") is not None or item.get("pattern") is not None)
        for item in selector
    )


def _in_scope(scope: str, options: Mapping[str, Any], document: DocumentInfo) -> bool:
    """Whether a provider with these options applies to the document."""
    if scope.startswith(_FILE_OPERATIONS):
        return file_operation_filters_match(options.get("filters"), document.uri)
    if scope == _NOTEBOOK_SYNC:
        return True  # its notebookSelector describes notebooks, not text documents
    return selector_matches(options.get("documentSelector"), document)


def _field(options: Mapping[str, Any], dotted: str | None) -> object:
    """The value at a dotted field of the options; ``True`` when no field is asked for."""
    if dotted is None:
        return True
    value: object = options
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def _enabled(value: object) -> bool:
    """JSON truthiness for capabilities: ``true``, any object, a non-zero number, a string."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    return isinstance(value, (Mapping, str))


def _sync_options(raw: object, field: str | None) -> dict[str, Any] | None:
    """Static ``textDocumentSync`` read for one notification, in its registration shape."""
    if isinstance(raw, bool) or not isinstance(raw, (int, Mapping)):
        return None
    if isinstance(raw, int):
        # A bare TextDocumentSyncKind: open/close and save (without text) go with any kind
        # but None, as the widely used clients read it.
        if raw == 0:
            return None
        sync: Mapping[str, Any] = {"openClose": True, "change": raw, "save": True}
    else:
        sync = raw
    value = sync.get(field) if field is not None else None
    if field == "change":
        valid = isinstance(value, int) and not isinstance(value, bool) and value != 0
        return {"syncKind": value} if valid else None
    if field == "save":
        if not _enabled(value):
            return None
        return {"includeText": isinstance(value, Mapping) and value.get("includeText") is True}
    return {} if value is True else None
