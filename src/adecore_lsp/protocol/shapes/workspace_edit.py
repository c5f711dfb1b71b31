"""Planning a ``WorkspaceEdit``: every check made, every new text found, nothing changed.

Sans-IO. :func:`parse_edit` checks the shape of an edit (either form: a ``changes`` map, or
``documentChanges`` with ``TextDocumentEdit``, ``CreateFile``, ``RenameFile`` and
``DeleteFile``) and :func:`needs_confirmation` lists the ``changeAnnotations`` the caller
must confirm. :func:`plan_edit` then walks the changes in order against a
:class:`WorkspaceView` (where each URI leads, what exists there, a file's text, read only
when a change needs it) and the open documents, keeping what earlier changes did in an
overlay, and returns an :class:`EditPlan` of operations for the I/O layer to run, or a
:class:`Refusal` naming the change (``failedChange``) and why. The rules:

- Positions are in the negotiated encoding. A line past the last line is refused; a
  character past the end of its line means the line's end.
- The edits of one ``TextDocumentEdit`` (or one URI of ``changes``) all refer to the text
  before any of them: they may touch but not overlap, and inserts at one position appear
  in the order given.
- A non-null ``version`` must be the open document's (a document that is not open, or is
  opened again by this edit, has no version to match); ``null`` means the text as it is.
  Every change to one document is checked against the version it had before the edit.
- A text edit needs an existing file (one created earlier in the same edit counts).
- Two names of one file (a symbolic link and its target: ``view.locate`` leads both to one
  path) are one file: the edits of the second name are about the text before the first
  name's, as the server saw both, so the two are merged (an edit both give, once) against
  that text; edits that overlap, or a name edited in several steps before the other, are
  refused naming both names.
- Create: an existing file is refused unless ``overwrite`` (which wins) or
  ``ignoreIfExists``; missing parent folders are created. Rename: the source must exist; an
  existing target is refused unless ``overwrite`` or ``ignoreIfExists``. Delete: a missing
  file is refused unless ``ignoreIfNotExists``; a folder that is not empty needs
  ``recursive``. A folder is never overwritten by a file, nor a file by a folder.
- A change whose annotation has ``needsConfirmation`` is refused unless confirmed; an
  ``annotationId`` that ``changeAnnotations`` does not define is refused.
- Renaming or deleting an open document closes it; a renamed one is opened again at the
  new URI with its text and language.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import PurePath
from typing import Any, Literal, Protocol

from ..documents.documents import TextDocument
from ..documents.positions import PositionEncoding, check_encoding, range_tuples
from .text_edits import Span, apply_text_edits, spliced, text_edit_offsets

# Internal to the library: apply_edit in adecore_lsp.features.apply is the public face.
__all__: list[str] = []

Kind = Literal["file", "folder"]


class WorkspaceView(Protocol):
    """What the planner may ask about the workspace; it never changes anything."""

    def locate(self, uri: str, *, follow_links: bool) -> PurePath:
        """The path ``uri`` names; ``ValueError`` (the reason) when it may not be changed.

        Text edits follow symbolic links to the file they point at (``follow_links``);
        resource operations act on the link itself.
        """
        ...

    def kind(self, path: PurePath) -> Kind | None:
        """Whether ``path`` is a file, a folder, or nothing, before the edit."""
        ...

    def read(self, path: PurePath) -> str:
        """The text of the file at ``path``; ``OSError`` or ``ValueError`` if unreadable."""
        ...

    def is_empty(self, path: PurePath) -> bool:
        """Whether the folder at ``path`` holds nothing, before the edit."""
        ...

    def uri(self, path: PurePath) -> str:
        """The URI to open a document at ``path`` under, when a folder around it moved."""
        ...


# -- operations ------------------------------------------------------------------------


@dataclass(frozen=True)
class WriteText:
    """Give the file at ``path`` the new ``text``; ``document`` is its open document's URI."""

    path: PurePath
    text: str
    document: str | None
    change: int
    edits: tuple[tuple[int, int, str], ...] | None = field(default=None, compare=False)
    """The text edits that made ``text`` of the file's text before this change, as
    ``(start, end, new text)`` in code points, in order and not overlapping (what the rule
    of :mod:`..workspace.changes` carries findings through); ``None`` when they are not
    known (the edits of two names of one file, merged)."""


@dataclass(frozen=True)
class CreateFile:
    """Create an empty file at ``path`` (replacing a file there with ``overwrite``)."""

    path: PurePath
    parents: tuple[PurePath, ...]
    """The missing folders to create first, outermost first."""
    overwrite: bool
    change: int


@dataclass(frozen=True)
class RenameFile:
    """Move ``old`` (a file or a folder) to ``new``, replacing what is there with ``overwrite``."""

    old: PurePath
    new: PurePath
    parents: tuple[PurePath, ...]
    overwrite: bool
    change: int


@dataclass(frozen=True)
class DeleteFile:
    """Delete the file or folder at ``path`` (a folder with its contents if ``recursive``)."""

    path: PurePath
    recursive: bool
    change: int


@dataclass(frozen=True)
class CloseDocument:
    """Close the open document ``uri``."""

    uri: str
    change: int


@dataclass(frozen=True)
class OpenDocument:
    """Open ``text`` in ``language_id`` under ``uri``, the file at ``path``."""

    uri: str
    path: PurePath
    language_id: str
    text: str
    change: int


Operation = WriteText | CreateFile | RenameFile | DeleteFile | CloseDocument | OpenDocument


@dataclass(frozen=True)
class EditPlan:
    """The operations that carry out an edit, in order."""

    operations: tuple[Operation, ...]


@dataclass(frozen=True)
class Refusal:
    """Why an edit cannot be applied; ``failed_change`` is the index of the change at fault."""

    reason: str
    failed_change: int | None = None

    def result(self) -> dict[str, Any]:
        """The ``ApplyWorkspaceEditResult`` that says so."""
        answer: dict[str, Any] = {"applied": False, "failureReason": self.reason}
        if self.failed_change is not None:
            answer["failedChange"] = self.failed_change
        return answer


class _Refused(Exception):
    """Raised inside the planner, turned into a :class:`Refusal` at its edge."""


# -- parsing ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TextChange:
    """One ``TextDocumentEdit`` (or one URI of ``changes``), checked for shape."""

    uri: str
    version: int | None
    edits: tuple[tuple[Span, str], ...]
    annotations: tuple[str, ...]


@dataclass(frozen=True)
class ResourceChange:
    """A ``CreateFile``, ``RenameFile`` or ``DeleteFile``, checked for shape."""

    kind: Literal["create", "rename", "delete"]
    uri: str
    new_uri: str | None
    options: Mapping[str, bool]
    annotations: tuple[str, ...]


@dataclass(frozen=True)
class ParsedEdit:
    """A ``WorkspaceEdit`` whose shape is checked: its changes in order, its annotations."""

    changes: tuple[TextChange | ResourceChange, ...]
    annotations: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


_OPTIONS: dict[str, tuple[str, ...]] = {
    "create": ("overwrite", "ignoreIfExists"),
    "rename": ("overwrite", "ignoreIfExists"),
    "delete": ("recursive", "ignoreIfNotExists"),
}


def parse_edit(edit: object) -> ParsedEdit | Refusal:
    """Check the shape of a ``WorkspaceEdit``; ``documentChanges`` win over ``changes``."""
    if not isinstance(edit, Mapping):
        return Refusal(f"the edit is not a WorkspaceEdit object: {edit!r}")
    annotations = edit.get("changeAnnotations")
    if annotations is None:
        annotations = {}
    if not isinstance(annotations, Mapping) or not all(
        isinstance(value, Mapping) and isinstance(value.get("label"), str)
        for value in annotations.values()
    ):
        return Refusal(f"changeAnnotations must map ids to ChangeAnnotations: {annotations!r}")
    document_changes = edit.get("documentChanges")
    items: list[Callable[[], TextChange | ResourceChange]]
    if document_changes is not None:
        if not isinstance(document_changes, list):
            return Refusal(f"documentChanges must be a list, got {document_changes!r}")
        items = [partial(_parse_document_change, change) for change in document_changes]
    else:
        by_uri = edit.get("changes")
        if by_uri is None:
            by_uri = {}
        if not isinstance(by_uri, Mapping):
            return Refusal(f"changes must map URIs to TextEdit[], got {by_uri!r}")
        items = [partial(_text_change, uri, None, edits) for uri, edits in by_uri.items()]
    changes: list[TextChange | ResourceChange] = []
    for number, item in enumerate(items):
        try:
            changes.append(item())
        except _Refused as refused:
            return Refusal(f"change {number}: {refused}", number)
    return ParsedEdit(tuple(changes), annotations)


def _parse_document_change(change: object) -> TextChange | ResourceChange:
    if not isinstance(change, Mapping):
        raise _Refused(f"a change must be an object, got {change!r}")
    kind = change.get("kind")
    if kind is None:
        document = change.get("textDocument")
        if not isinstance(document, Mapping):
            raise _Refused(f"a TextDocumentEdit needs a textDocument: {change!r}")
        version = document.get("version")
        if version is not None and (type(version) is not int):
            raise _Refused(f"the version must be an integer or null, got {version!r}")
        return _text_change(document.get("uri"), version, change.get("edits"))
    if kind not in _OPTIONS:
        raise _Refused(f"unknown resource operation kind {kind!r}")
    uri_key = "oldUri" if kind == "rename" else "uri"
    uri = _uri(change.get(uri_key))
    new_uri = _uri(change.get("newUri")) if kind == "rename" else None
    options = change.get("options")
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise _Refused(f"the options must be an object, got {options!r}")
    chosen: dict[str, bool] = {}
    for name in _OPTIONS[kind]:
        value = options.get(name, False)
        if not isinstance(value, bool):
            raise _Refused(f"the option {name} must be a boolean, got {value!r}")
        chosen[name] = value
    return ResourceChange(kind, uri, new_uri, chosen, _annotation_ids([change]))


def _uri(uri: object) -> str:
    if not isinstance(uri, str):
        raise _Refused(f"a URI must be a string, got {uri!r}")
    if "#" in uri or "?" in uri:
        # A part of a file (a notebook's cell, file:///r/nb.ipynb#2), never the file itself.
        raise _Refused(f"{uri} names a part of a file, not a file: it cannot be edited as one")
    return uri


def _text_change(uri: object, version: int | None, edits: object) -> TextChange:
    checked = _uri(uri)
    if not isinstance(edits, list):
        raise _Refused(f"the edits of {checked} must be a list of TextEdits, got {edits!r}")
    parsed: list[tuple[Span, str]] = []
    for edit in edits:
        if not isinstance(edit, Mapping) or not isinstance(edit.get("newText"), str):
            raise _Refused(f"a TextEdit needs a range and a string newText: {edit!r}")
        try:
            span = range_tuples(edit.get("range"), "the range")  # type: ignore[arg-type]
        except ValueError as error:
            raise _Refused(f"a TextEdit of {checked}: {error}") from None
        if min(span[0] + span[1]) < 0:
            raise _Refused(f"a TextEdit of {checked} has a negative position: {edit['range']!r}")
        parsed.append((span, edit["newText"]))
    return TextChange(checked, version, tuple(parsed), _annotation_ids(edits))


def _annotation_ids(items: list[Any]) -> tuple[str, ...]:
    ids: list[str] = []
    for item in items:
        annotation = item.get("annotationId")
        if annotation is None:
            continue
        if not isinstance(annotation, str):
            raise _Refused(f"an annotationId must be a string, got {annotation!r}")
        ids.append(annotation)
    return tuple(ids)


def needs_confirmation(parsed: ParsedEdit) -> dict[str, Mapping[str, Any]]:
    """The annotations, by id, that a change uses and that have ``needsConfirmation``."""
    wanted: dict[str, Mapping[str, Any]] = {}
    for change in parsed.changes:
        for annotation in change.annotations:
            found = parsed.annotations.get(annotation)
            if found is not None and found.get("needsConfirmation") is True:
                wanted[annotation] = found
    return wanted


# -- planning --------------------------------------------------------------------------


@dataclass
class _File:
    """A file as the edit has left it so far."""

    text: str | None  # None: not read yet, from `source`
    source: PurePath | None
    document: str | None = None  # the URI of its open document
    language_id: str = ""
    version: int | None = None  # the open document's version before the edit, if known


@dataclass
class _Folder:
    source: PurePath | None  # where its original contents are; None for a new folder


_Entry = _File | _Folder | None


@dataclass
class _Named:
    """The text changes made so far at a path, under the one name that made them."""

    uri: str
    base: str
    """The text before the first of them."""
    edits: tuple[tuple[Span, str], ...]
    """The edits of the first of them (about ``base``)."""
    changes: int = 1
    other: str | None = None
    """The second name, once its edits were merged."""


class _Planner:
    def __init__(
        self,
        view: WorkspaceView,
        documents: Mapping[PurePath, TextDocument],
        encoding: PositionEncoding,
    ) -> None:
        self.view = view
        self.encoding = encoding
        # What the edit changed so far, by path; None marks a path that no longer exists.
        self.overlay: dict[PurePath, _Entry] = {
            path: _File(doc.text, None, doc.uri, doc.language_id, doc.version)
            for path, doc in documents.items()
        }
        self.operations: list[Operation] = []
        self.named: dict[PurePath, _Named] = {}
        """Who changed the text at each path so far (a link and its target are one path)."""

    # -- the state so far --------------------------------------------------------------

    def lookup(self, path: PurePath) -> _Entry:
        if path in self.overlay:
            return self.overlay[path]
        for parent in path.parents:
            if parent in self.overlay:
                entry = self.overlay[parent]
                if not isinstance(entry, _Folder) or entry.source is None:
                    return None
                return self.original(entry.source / path.relative_to(parent))
        return self.original(path)

    def original(self, path: PurePath) -> _Entry:
        kind = self.view.kind(path)
        if kind == "file":
            return _File(None, path)
        return _Folder(path) if kind == "folder" else None

    def under(self, path: PurePath) -> Iterator[PurePath]:
        """The overlay's paths inside the folder ``path``."""
        return iter([key for key in self.overlay if path in key.parents])

    def is_empty(self, path: PurePath, folder: _Folder) -> bool:
        if any(self.overlay[key] is not None for key in self.under(path)):
            return False
        return folder.source is None or self.view.is_empty(folder.source)

    def missing_parents(self, path: PurePath) -> tuple[PurePath, ...]:
        missing: list[PurePath] = []
        for parent in path.parents:
            entry = self.lookup(parent)
            if isinstance(entry, _File):
                raise _Refused(f"{parent} is a file, not a folder")
            if isinstance(entry, _Folder):
                break
            missing.append(parent)
        for parent in missing:
            self.overlay[parent] = _Folder(None)
        return tuple(reversed(missing))

    def text_of(self, path: PurePath, entry: _File) -> str:
        if entry.text is None:
            assert entry.source is not None
            try:
                entry.text = self.view.read(entry.source)
            except (OSError, ValueError) as error:
                raise _Refused(f"cannot read {path}: {error}") from None
        return entry.text

    def close_inside(self, path: PurePath, change: int) -> list[tuple[PurePath, _File]]:
        """Close the open documents at or inside ``path``; return them with their paths."""
        closed: list[tuple[PurePath, _File]] = []
        for key in [path, *self.under(path)]:
            entry = self.overlay.get(key)
            if isinstance(entry, _File) and entry.document is not None:
                self.operations.append(CloseDocument(entry.document, change))
                closed.append((key, entry))
        return closed

    def drop(self, path: PurePath) -> None:
        for key in list(self.under(path)):
            del self.overlay[key]
            self.named.pop(key, None)
        self.overlay[path] = None
        self.named.pop(path, None)

    # -- changes -----------------------------------------------------------------------

    def text_change(self, number: int, change: TextChange) -> None:
        path = self.view.locate(change.uri, follow_links=True)
        entry = self.lookup(path)
        if entry is None:
            raise _Refused(f"{change.uri} does not exist")
        if isinstance(entry, _Folder):
            raise _Refused(f"{change.uri} is a folder")
        if change.version is not None:
            if entry.document is None:
                raise _Refused(
                    f"{change.uri} is not open: the edit is for version {change.version}"
                )
            if entry.version is None:
                raise _Refused(
                    f"{change.uri} is opened again by this edit: its version is not known"
                )
            if change.version != entry.version:
                raise _Refused(
                    f"{change.uri} is at version {entry.version}, "
                    f"the edit is for version {change.version}"
                )
        text = self.text_of(path, entry)
        named = self.named.get(path)
        spans: tuple[tuple[int, int, str], ...] | None = None
        if named is not None and (named.other is not None or named.uri != change.uri):
            new = self._merged(named, change)
        else:
            spans = text_edit_offsets(text, change.edits, self.encoding, change.uri)
            new = spliced(text, spans)
            if named is None:
                self.named[path] = _Named(change.uri, text, change.edits)
            else:
                named.changes += 1
        entry.text = new
        self.overlay[path] = entry
        self.operations.append(WriteText(path, new, entry.document, number, spans))

    def _merged(self, named: _Named, change: TextChange) -> str:
        """The text of a file edited under a second name: both names' edits against the
        text before the first name's (an edit both give, once)."""
        other = named.other or change.uri
        both = f"{named.uri} and {other} are one file (a symbolic link and its target)"
        if named.changes != 1 or named.other is not None:
            raise _Refused(f"{both}, edited in several steps: the edits cannot be put together")
        edits = named.edits + tuple(edit for edit in change.edits if edit not in named.edits)
        try:
            new = apply_text_edits(named.base, edits, self.encoding, change.uri)
        except ValueError as error:
            raise _Refused(f"{both}, and their edits cannot be put together: {error}") from None
        named.other = change.uri
        return new

    def create(self, number: int, change: ResourceChange) -> None:
        path = self.view.locate(change.uri, follow_links=False)
        entry = self.lookup(path)
        overwrite, ignore = change.options["overwrite"], change.options["ignoreIfExists"]
        if entry is not None:
            if isinstance(entry, _Folder):
                if overwrite or not ignore:
                    raise _Refused(f"{change.uri} is a folder")
                return
            if not overwrite:
                if ignore:
                    return
                raise _Refused(f"{change.uri} exists (neither overwrite nor ignoreIfExists)")
            entry.text, entry.source = "", None
            self.overlay[path] = entry
            self.operations.append(CreateFile(path, (), True, number))
            if entry.document is not None:
                self.operations.append(WriteText(path, "", entry.document, number))
            return
        parents = self.missing_parents(path)
        self.overlay[path] = _File("", None)
        self.operations.append(CreateFile(path, parents, False, number))

    def rename(self, number: int, change: ResourceChange) -> None:
        old = self.view.locate(change.uri, follow_links=False)
        assert change.new_uri is not None
        new = self.view.locate(change.new_uri, follow_links=False)
        entry = self.lookup(old)
        if entry is None:
            raise _Refused(f"{change.uri} does not exist")
        if new == old:
            return
        if old in new.parents:
            raise _Refused(f"{change.uri} cannot move inside itself")
        target = self.lookup(new)
        overwrite, ignore = change.options["overwrite"], change.options["ignoreIfExists"]
        if target is not None:
            if not overwrite:
                if ignore:
                    return
                raise _Refused(f"{change.new_uri} exists (neither overwrite nor ignoreIfExists)")
            if isinstance(target, _Folder) != isinstance(entry, _Folder):
                raise _Refused(f"{change.new_uri} cannot be replaced by a {_name(entry)}")
            self.close_inside(new, number)
        parents = () if target is not None else self.missing_parents(new)
        closed = self.close_inside(old, number)
        moved = {key: self.overlay[key] for key in self.under(old)}
        self.drop(old)
        self.drop(new)
        self.operations.append(RenameFile(old, new, parents, overwrite, number))
        self.overlay[new] = entry
        for key, value in moved.items():
            self.overlay[new / key.relative_to(old)] = value
        for key, document in closed:
            moved_to = new / key.relative_to(old)
            text = self.text_of(key, document)
            uri = change.new_uri if key == old else self.view.uri(moved_to)
            self.operations.append(OpenDocument(uri, moved_to, document.language_id, text, number))
            document.document, document.version = uri, None

    def delete(self, number: int, change: ResourceChange) -> None:
        path = self.view.locate(change.uri, follow_links=False)
        entry = self.lookup(path)
        if entry is None:
            if change.options["ignoreIfNotExists"]:
                return
            raise _Refused(f"{change.uri} does not exist (and not ignoreIfNotExists)")
        recursive = change.options["recursive"]
        if isinstance(entry, _Folder) and not recursive and not self.is_empty(path, entry):
            raise _Refused(f"{change.uri} is a folder that is not empty (and not recursive)")
        self.close_inside(path, number)
        self.drop(path)
        self.operations.append(DeleteFile(path, recursive, number))


def _name(entry: _Entry) -> str:
    return "folder" if isinstance(entry, _Folder) else "file"


def plan_edit(
    parsed: ParsedEdit,
    view: WorkspaceView,
    documents: Mapping[PurePath, TextDocument],
    encoding: str = "utf-16",
    confirmed: Collection[str] | Callable[[str], bool] = (),
) -> EditPlan | Refusal:
    """The operations that apply ``parsed``, or why it cannot be applied.

    ``documents`` are the open documents by the path their URI names (as ``view.locate``
    gives it); ``confirmed`` the ids of the annotations the user confirmed (a collection or
    a predicate). Nothing is changed: files are read through ``view`` as changes need them.
    """
    chosen = check_encoding(encoding)
    is_confirmed = confirmed if callable(confirmed) else confirmed.__contains__
    planner = _Planner(view, documents, chosen)
    for number, change in enumerate(parsed.changes):
        try:
            for annotation in change.annotations:
                found = parsed.annotations.get(annotation)
                if found is None:
                    raise _Refused(f"the annotation {annotation!r} is not in changeAnnotations")
                if found.get("needsConfirmation") is True and not is_confirmed(annotation):
                    raise _Refused(f"{found['label']!r} needs confirmation, and was not confirmed")
            if isinstance(change, TextChange):
                planner.text_change(number, change)
            elif change.kind == "create":
                planner.create(number, change)
            elif change.kind == "rename":
                planner.rename(number, change)
            else:
                planner.delete(number, change)
        except (_Refused, ValueError) as refused:
            return Refusal(f"change {number}: {refused}", number)
    return EditPlan(tuple(planner.operations))
