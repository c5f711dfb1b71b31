"""A ``WorkspaceEdit`` as a preview: each file's text before and after, and one diff.

Sans-IO. The caller reads the files first (:func:`touched_uris` says which), then
:func:`plan_edit` runs the edit through :mod:`.workspace_edit`'s parser and planner (the
same checks and the same new texts as applying it) against those texts and returns a
:class:`PlannedEdit`. Nothing is written.

What a plan holds:

- ``files``: each file that exists after the edit and whose text differs from the text
  it came from, keyed by its display path after the edit. A file renamed by the edit keeps
  its history: its ``old_text`` is the text at ``old_path``, where it was renamed from. A
  new file has ``old_path`` ``None`` and ``old_text`` ``""``. A file whose new text equals
  its old one is left out, however many edits it took, so an edit that changes nothing is
  :attr:`PlannedEdit.is_empty`. To carry a plan out: run ``operations`` in order, then
  write each file's ``new_text`` at its path. Each file also carries the text edits that
  made its ``new_text`` of its ``old_text`` (code points), where one step of the edit made
  it: the delta of :mod:`.changes` carries findings through them instead of diffing the
  two texts.
- ``operations``: the creates, renames and deletes that do something, in order (one that
  ``ignoreIfExists`` skips is left out), each with the LSP ``options`` as sent.
- ``diff``: git's format, one block per file in path order (the order the server named
  them in varies between runs): a
  change as ``--- a/<path>`` and ``+++ b/<path>``; a new file from ``/dev/null`` (``new
  file mode``); a deleted one, its text removed, to ``/dev/null`` (``deleted file mode``);
  a rename as ``rename from``/``rename to`` lines, with the changes of its text if any (so
  ``git apply`` takes the diff as it is; the mode is always ``100644``, modes being unknown
  here). Lines are split at ``"\\n"`` only, as git does, and keep their endings
  (``"\\r\\n"`` too); a last line without one is followed by ``\\ No newline at end of
  file``. Folders have no place in a diff: a folder's create, rename or delete is in
  ``operations`` alone, and the files the edit changes in a moved folder show as renames.

Paths are whatever ``relative(uri)`` gives (relative to the root, with ``/``); ``a/`` and
``b/`` are put in front of them in the diff. The plan is made of this module's own
dataclasses, which hold every field of :mod:`adecore_lsp.workspace.model`'s ``FileEdit``
and ``FileOperation`` (and the URIs besides): the workspace converts them, so that
``protocol/`` depends on nothing above it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePath
from typing import Any, Literal

from ..documents.documents import TextDocument
from ..documents.uris import uri_to_path
from ..shapes.workspace_edit import (
    CreateFile,
    DeleteFile,
    Kind,
    ParsedEdit,
    Refusal,
    RenameFile,
    ResourceChange,
    TextChange,
    WriteText,
    parse_edit,
)
from ..shapes.workspace_edit import plan_edit as _run_planner
from .unified_diff import hunks

# Internal to the library: the workspace's rename, format and fix turn plans into EditPlans.
__all__: list[str] = []


@dataclass(frozen=True)
class PlannedFile:
    """One file's text before and after the edit, its diff block, and how many text edits
    of the edit went into it (edits that change nothing count too)."""

    path: str
    uri: str
    old_path: str | None
    """Where ``old_text`` is now: ``path`` itself, the path it is renamed from, or ``None``
    for a file the edit creates."""
    old_text: str
    new_text: str
    diff: str
    edits: int
    text_edits: tuple[tuple[int, int, str], ...] | None = None
    """The text edits that make ``new_text`` of ``old_text``, as ``(start, end, new
    text)`` in code points of ``old_text``, in order: what the rule of :mod:`.changes`
    carries findings through without diffing the texts. ``None`` where they are not
    known (a file edited in several steps, or under two names)."""


@dataclass(frozen=True)
class PlannedOperation:
    """A create, rename or delete the edit makes, with the LSP ``options`` as sent."""

    kind: Literal["create", "rename", "delete"]
    path: str
    new_path: str | None
    options: dict[str, Any]
    uri: str
    new_uri: str | None


@dataclass(frozen=True)
class PlannedEdit:
    """What an edit does, as a preview: see the module's docstring for each part."""

    files: dict[str, PlannedFile]
    operations: tuple[PlannedOperation, ...]
    diff: str

    @property
    def is_empty(self) -> bool:
        """Whether the edit changes nothing at all: no text, no file operation."""
        return not self.files and not self.operations


# -- inputs ----------------------------------------------------------------------------


def _parse(edit: object) -> ParsedEdit:
    parsed = parse_edit(edit)
    if isinstance(parsed, Refusal):
        raise ValueError(parsed.reason)
    return parsed


def _undo_moves(path: PurePath, moves: list[tuple[PurePath, PurePath]]) -> PurePath:
    """Where ``path`` was before the renames ``moves`` (in order) moved it or its folders."""
    for old, new in reversed(moves):
        if path == new or new in path.parents:
            path = old / path.relative_to(new)
    return path


def _uris(parsed: ParsedEdit) -> list[str]:
    found: dict[str, None] = {}
    for change in parsed.changes:
        found[change.uri] = None
        if isinstance(change, ResourceChange) and change.new_uri is not None:
            found[change.new_uri] = None
    return list(found)


def touched_uris(edit: object) -> list[str]:
    """Every URI ``edit`` names (edited, created, renamed from or to, deleted), in order,
    once each, and where the edit takes a text from that a rename of its folder moved: the
    URIs :func:`plan_edit` needs the current text of (``None`` for those that do not exist).

    Raises:
        ValueError: the edit is not a well-formed ``WorkspaceEdit`` (the reason why), or
            names a URI that is not a ``file:`` one.
    """
    parsed = _parse(edit)
    found = dict.fromkeys(_uris(parsed))
    moves: list[tuple[PurePath, PurePath]] = []
    for change in parsed.changes:
        if isinstance(change, TextChange):
            path = _path_of(change.uri)
            origin = _undo_moves(path, moves)
            if origin != path:
                found.setdefault(origin.as_uri())
        elif change.new_uri is not None:
            moves.append((_path_of(change.uri), _path_of(change.new_uri)))
    return list(found)


def _path_of(uri: str) -> PurePath:
    found = uri_to_path(uri)
    if found is None:
        raise ValueError(f"{uri} is not a file: URI")
    path = PurePath(found)
    if not path.is_absolute():
        raise ValueError(f"{uri} does not name an absolute path")
    return path


def _document_changes(edit: object) -> tuple[list[Any], Mapping[str, Any]] | None:
    """An edit's changes in the ``documentChanges`` form and its annotations, or ``None``
    for an edit of a shape this module does not read (left to the planner to refuse)."""
    if not isinstance(edit, Mapping):
        return None
    annotations = edit.get("changeAnnotations")
    if annotations is None:
        annotations = {}
    if not isinstance(annotations, Mapping):
        return None
    document_changes = edit.get("documentChanges")
    if isinstance(document_changes, list):
        return list(document_changes), annotations
    if document_changes is not None:
        return None
    changes = edit.get("changes")
    if changes is None:
        changes = {}
    if not isinstance(changes, Mapping):
        return None
    items = [
        {"textDocument": {"uri": uri, "version": None}, "edits": edits}
        for uri, edits in changes.items()
    ]
    return items, annotations


def merge_edits(edits: Sequence[tuple[object, str]]) -> list[tuple[object, str]]:
    """Several ``(WorkspaceEdit, position encoding)`` as one edit per encoding, its changes
    in the order given (each change after those before it, as in one ``documentChanges``).

    The edits a plan is made of (one a notebook cell when each cell is formatted, one a
    file, the edits a server sent while a command ran) all describe the texts as they are:
    planned one by one, each file would get only the last edit's text. An edit of a shape
    not read here, or whose annotation ids clash with another's, stays an edit of its own,
    in its place."""
    merged: list[tuple[object, str]] = []
    groups: dict[str, tuple[list[Any], dict[str, Any], int]] = {}
    for edit, encoding in edits:
        read = _document_changes(edit)
        group = groups.get(encoding)
        if read is None or (
            group is not None
            and any(group[1].get(key, value) != value for key, value in read[1].items())
        ):
            merged.append((edit, encoding))
            continue
        changes, annotations = read
        if group is None:
            groups[encoding] = group = ([], {}, len(merged))
            merged.append((None, encoding))  # its place, filled below
        group[0].extend(changes)
        group[1].update(annotations)
    for encoding, (changes, annotations, place) in groups.items():
        one: dict[str, Any] = {"documentChanges": changes}
        if annotations:
            one["changeAnnotations"] = annotations
        merged[place] = (one, encoding)
    return merged


class _GivenFiles:
    """A ``WorkspaceView`` over the texts the caller read: files, folders, and nothing else;
    a text edit of a name in ``aliases`` is of the file it maps to (a link's target)."""

    def __init__(
        self,
        texts: Mapping[PurePath, str | None],
        folders: Collection[PurePath],
        aliases: Mapping[PurePath, PurePath],
    ):
        self.texts = texts
        self.aliases = aliases
        self.folders = set(folders)
        self.around: set[PurePath] = set()  # the folders that hold something
        for path, text in texts.items():
            if text is not None:
                self.around.update(path.parents)
        for folder in self.folders:
            self.around.update(folder.parents)

    def locate(self, uri: str, *, follow_links: bool) -> PurePath:
        path = _path_of(uri)
        return self.aliases.get(path, path) if follow_links else path

    def kind(self, path: PurePath) -> Kind | None:
        if path in self.folders or path in self.around:
            return "folder"
        return "file" if self.texts.get(path) is not None else None

    def read(self, path: PurePath) -> str:
        text = self.texts[path]
        assert text is not None  # the planner reads only what kind() calls a file
        return text

    def is_empty(self, path: PurePath) -> bool:
        return path not in self.around

    def uri(self, path: PurePath) -> str:
        return path.as_uri()


# -- replaying the planner's operations ------------------------------------------------


@dataclass
class _Content:
    """A file's text on its way through the edit; ``origin`` is where it started."""

    origin: PurePath | None
    old: str
    text: str
    seq: int
    edits: int = 0
    spans: tuple[tuple[int, int, str], ...] | None = ()
    """The text edits that made ``text`` of ``old`` so far, while known."""


@dataclass
class _Replay:
    """Follows the planner's operations to find each file's text and where it came from."""

    view: _GivenFiles
    state: dict[PurePath, _Content] = field(default_factory=dict)
    deleted: list[_Content] = field(default_factory=list)
    moves: list[tuple[PurePath, PurePath]] = field(default_factory=list)
    seq: int = 0

    def take(self, path: PurePath) -> _Content | None:
        """The file at ``path`` (out of the state), or ``None`` if it is no file."""
        content = self.state.pop(path, None)
        if content is None:
            origin = _undo_moves(path, self.moves)
            text = self.view.texts.get(origin)
            if text is not None:
                content = _Content(origin, text, text, self.next())
        return content

    def next(self) -> int:
        self.seq += 1
        return self.seq

    def drop_inside(self, folder: PurePath) -> None:
        for key in [key for key in self.state if folder in key.parents]:
            self.lose(self.state.pop(key))

    def lose(self, content: _Content | None) -> None:
        if content is not None and content.origin is not None:
            self.deleted.append(content)

    def write(
        self, path: PurePath, text: str, edits: int, spans: tuple[tuple[int, int, str], ...] | None
    ) -> None:
        content = self.take(path)
        assert content is not None  # the planner wrote only to files that exist
        # Known for the first write alone: a later one's edits are about the text the
        # earlier ones made (not composed here; the rule then diffs the two texts).
        first = content.spans == () and content.text == content.old
        content.spans = spans if first else None
        content.text = text
        content.edits += edits
        self.state[path] = content

    def create(self, path: PurePath, overwrite: bool) -> None:
        replaced = self.take(path) if overwrite else None
        if replaced is None:
            self.state[path] = _Content(None, "", "", self.next())
        else:  # the same file, emptied
            replaced.text = ""
            self.state[path] = replaced

    def rename(self, old: PurePath, new: PurePath, overwrite: bool) -> None:
        content = self.take(old)
        if overwrite:
            self.lose(self.take(new))
            self.drop_inside(new)
        if content is not None:
            self.state[new] = content
            return
        for key in [key for key in self.state if old in key.parents]:
            self.state[new / key.relative_to(old)] = self.state.pop(key)
        self.moves.append((old, new))

    def delete(self, path: PurePath) -> None:
        self.lose(self.take(path))
        self.drop_inside(path)


# -- diffs -----------------------------------------------------------------------------


def _block(
    old_path: str | None,
    new_path: str | None,
    old: str,
    new: str,
    edits: Sequence[tuple[int, int, str]] | None = None,
) -> str:
    """A git diff block: a change, a new file (no ``old_path``), a deleted file (no
    ``new_path``) or a rename; a change's hunks made from its text ``edits`` when known."""
    if old_path is None:
        assert new_path is not None
        head = f"diff --git a/{new_path} b/{new_path}\nnew file mode 100644\n"
        return head + hunks(old, new, "/dev/null", f"b/{new_path}")
    if new_path is None:
        head = f"diff --git a/{old_path} b/{old_path}\ndeleted file mode 100644\n"
        return head + hunks(old, new, f"a/{old_path}", "/dev/null")
    head = f"diff --git a/{old_path} b/{new_path}\n"
    if old_path != new_path:
        head += f"rename from {old_path}\nrename to {new_path}\n"
    elif old == new:
        return ""
    return head + hunks(old, new, f"a/{old_path}", f"b/{new_path}", edits)


# -- the plan --------------------------------------------------------------------------


def plan_edit(
    edit: object,
    texts: Mapping[str, str | None],
    encoding: str,
    relative: Callable[[str], str],
    *,
    folders: Collection[str] = (),
    versions: Mapping[str, int] | None = None,
    aliases: Mapping[str, str] | None = None,
) -> PlannedEdit:
    """The preview of ``edit`` (either form of ``WorkspaceEdit``) made against ``texts``.

    ``texts`` maps each URI of :func:`touched_uris` to its current text, ``None`` for one
    that does not exist; ``folders`` lists those of them that are folders. ``aliases`` maps
    a URI to the URI of the file it is another name of (a symbolic link to its target,
    whose text ``texts`` gives too): the text edits of both names are one file's, merged or
    refused (:mod:`.workspace_edit`), and the plan shows the file once, under the target's
    name. Positions are in
    ``encoding``. ``relative`` turns a URI into the path to show. ``versions`` maps the
    URIs of the open documents to their versions, to check the versions the edit names;
    with ``None`` (the default) they are not checked, the texts being what is current.
    Every change annotation counts as confirmed: a preview shows everything.

    Raises:
        ValueError: the edit is malformed or cannot be applied (edits that overlap, a line
            past the end, a version that is not the document's, a file that must or must
            not exist...), with the planner's reason; or a touched URI has no text.
    """
    parsed = _parse(edit)
    uri_of: dict[PurePath, str] = {}
    for uri in _uris(parsed):
        uri_of.setdefault(_path_of(uri), uri)
    given: dict[PurePath, str | None] = {}
    for uri, text in texts.items():
        path = _path_of(uri)
        given[path] = text
        uri_of.setdefault(path, uri)
    folder_paths = {_path_of(uri) for uri in folders}
    for uri in _uris(parsed):
        if _path_of(uri) not in given and _path_of(uri) not in folder_paths:
            raise ValueError(f"no current text was given for {uri}: read every touched URI")
    same = {_path_of(uri): _path_of(target) for uri, target in (aliases or {}).items()}
    view = _GivenFiles(given, folder_paths, same)
    documents: dict[PurePath, TextDocument] = {}
    if versions is None:
        parsed = ParsedEdit(
            tuple(
                replace(change, version=None) if isinstance(change, TextChange) else change
                for change in parsed.changes
            ),
            parsed.annotations,
        )
    else:
        for uri, version in versions.items():
            text = given.get(_path_of(uri))
            if text is not None:
                documents[_path_of(uri)] = TextDocument(uri, "", version, text, encoding)
    plan = _run_planner(parsed, view, documents, encoding, lambda _annotation: True)
    if isinstance(plan, Refusal):
        raise ValueError(plan.reason)

    raw_changes = edit.get("documentChanges") if isinstance(edit, Mapping) else None
    replay = _Replay(view)
    operations: list[PlannedOperation] = []
    for operation in plan.operations:
        change = parsed.changes[operation.change]
        if isinstance(operation, WriteText):
            assert isinstance(change, TextChange)
            replay.write(operation.path, operation.text, len(change.edits), operation.edits)
            continue
        if isinstance(operation, CreateFile):
            replay.create(operation.path, operation.overwrite)
        elif isinstance(operation, RenameFile):
            replay.rename(operation.old, operation.new, operation.overwrite)
        elif isinstance(operation, DeleteFile):
            replay.delete(operation.path)
        else:
            continue  # documents closed and opened again: the session's business
        assert isinstance(change, ResourceChange)
        assert isinstance(raw_changes, list)
        options = raw_changes[operation.change].get("options") or {}
        new_uri = change.new_uri
        operations.append(
            PlannedOperation(
                change.kind,
                relative(change.uri),
                None if new_uri is None else relative(new_uri),
                dict(options),
                change.uri,
                new_uri,
            )
        )

    def show(path: PurePath) -> str:
        return relative(uri_of.get(path) or path.as_uri())

    blocks: list[tuple[str, int, str]] = []
    files: list[tuple[str, PlannedFile]] = []
    for path, content in replay.state.items():
        old_path = None if content.origin is None else show(content.origin)
        block = _block(old_path, show(path), content.old, content.text, content.spans)
        blocks.append((show(path), content.seq, block))
        if content.text != content.old:
            uri = uri_of.get(path) or path.as_uri()
            planned = PlannedFile(
                show(path),
                uri,
                old_path,
                content.old,
                content.text,
                block,
                content.edits,
                content.spans,
            )
            files.append((planned.path, planned))
    for content in replay.deleted:
        assert content.origin is not None
        shown = show(content.origin)
        blocks.append((shown, content.seq, _block(shown, None, content.old, "")))
    # In path order, whatever order the server named the files in (a warm server and a
    # cold one answer the same rename in different orders).
    blocks.sort(key=lambda triple: (triple[0], triple[1]))
    files.sort(key=lambda pair: pair[0])
    return PlannedEdit(
        {planned.path: planned for _seq, planned in files},
        tuple(operations),
        "".join(block for _path, _seq, block in blocks),
    )
