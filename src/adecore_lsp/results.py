"""The shapes feature calls return where they are narrower than the LSP structure.

A normalised answer guarantees more than its LSP type says: a hover's ``contents`` is always
``MarkupContent``, a rename's edit always has ``documentChanges``. These ``TypedDict``s say
so, so that a type checker does not make callers narrow what the library already did. Like
:mod:`adecore_lsp.lsp_types` they are imported on first use (``adecore_lsp.results``).
"""

import sys
from typing import TypeAlias

from .lsp_types import (
    ChangeAnnotation,
    ChangeAnnotationIdentifier,
    CreateFile,
    DeleteFile,
    MarkupContent,
    PrepareRenameResultType1,
    Range,
    RenameFile,
    TextDocumentEdit,
)

if sys.version_info >= (3, 11):
    from typing import NotRequired, TypedDict
else:
    from typing_extensions import NotRequired, TypedDict

__all__ = ["DocumentChange", "DocumentChangesEdit", "MarkupHover", "PreparedRename"]


class MarkupHover(TypedDict):
    """The answer of ``hover()``: ``contents`` is always ``MarkupContent``."""

    contents: MarkupContent
    range: NotRequired[Range]


DocumentChange: TypeAlias = TextDocumentEdit | CreateFile | RenameFile | DeleteFile
"""One entry of ``WorkspaceEdit.documentChanges``."""


class DocumentChangesEdit(TypedDict):
    """The answer of ``rename()``: a ``WorkspaceEdit`` whose changes are ``documentChanges``."""

    documentChanges: list[DocumentChange]
    changeAnnotations: NotRequired[dict[ChangeAnnotationIdentifier, ChangeAnnotation]]


PreparedRename: TypeAlias = PrepareRenameResultType1
"""The answer of ``prepare_rename()``: ``{"range", "placeholder"}``."""
