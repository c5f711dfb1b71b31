"""The settled truth of references and renames, from two witnesses that must agree.

- *The server*: its references (declaration included) with every file of the tree's language
  open, so that no configuration scope hides a use; asked once its progress reports have
  ended, then every 2 s until two answers agree.
- *The definitions*: every textual occurrence of the name, in every file of the tree's
  language, whose ``definition`` resolves to the symbol's own declaration. No references
  request is involved.

A question on which the two disagree is dropped and listed with both answers
(:class:`Disagreement`). A rename's truth is every place the references truth names renamed;
it must equal the server's own rename in the same settled session, and the whole tree's errors
before and after must be the same (a rename that leaves a use behind fails its own check).
"""

from __future__ import annotations

import ast
import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fidelity.checker import NoTruth, described, findings, relative, same_errors
from fidelity.lsp_wire import Wire, WireError, uri
from fidelity.subject import Place, Question, Server
from fidelity.trees import language_files

SETTLE_LIMIT = 240.0
"""How long the truth waits for a server to settle before it gives the question up."""
PARALLEL = 16
"""Definition requests in flight at once."""

Span = tuple[str, int, int]
"""A name's place: the file, the 0-based line and the UTF-16 column of its first character."""

__all__ = ["NoTruth", "Span"]


def key(question: Question) -> str:
    """A question's name in the truth's tables: ``path:line:column``."""
    return f"{question.path}:{question.line}:{question.column}"


@dataclass(frozen=True)
class References:
    """A question's settled references, as both witnesses named them."""

    question: Question
    spans: frozenset[Span]
    """Every place of the name, the declaration included."""

    @property
    def places(self) -> frozenset[Place]:
        """The places as the scorer compares them: (file, line)."""
        return frozenset((path, line) for path, line, _ in self.spans)

    def other_files(self) -> bool:
        """Whether a use is in a file other than the declaration's."""
        return any(path != self.question.path for path, _, _ in self.spans)


@dataclass(frozen=True)
class Disagreement:
    """A question dropped: what each witness said."""

    question: Question
    reason: str
    server: frozenset[Span] = frozenset()
    definitions: frozenset[Span] = frozenset()

    def describe(self) -> str:
        """One line for the run's list of dropped questions."""
        head = f"{self.question.name} ({key(self.question)}): {self.reason}"
        if not (self.server or self.definitions):
            return head
        only_server = sorted(self.server - self.definitions)
        only_definitions = sorted(self.definitions - self.server)
        return (
            f"{head}: the server {len(self.server)} places, the definitions"
            f" {len(self.definitions)}; only the server: {_shown(only_server)};"
            f" only the definitions: {_shown(only_definitions)}"
        )


def _shown(spans: list[Span], limit: int = 8) -> str:
    text = ", ".join(f"{p}:{line + 1}:{column + 1}" for p, line, column in spans[:limit])
    more = f" and {len(spans) - limit} more" if len(spans) > limit else ""
    return (text or "none") + more


def language_id(path: str) -> str:
    """The languageId of a file, by its suffix."""
    if path.endswith((".ts", ".tsx", ".mts", ".cts")):
        return "typescriptreact" if path.endswith(".tsx") else "typescript"
    return "python"


_LINE_END = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")


def lines_of(text: str) -> list[str]:
    """The lines of ``text`` as LSP counts them (``\n``, ``\r\n``, ``\r``), ends kept."""
    return [line for line in _LINE_END.split(text) if line]


def utf16(text: str) -> int:
    """The length of ``text`` in UTF-16 code units (LSP's columns)."""
    return len(text.encode("utf-16-le")) // 2


def index_of(line: str, column: int) -> int:
    """The index in ``line`` of a UTF-16 ``column``."""
    units = 0
    for index, char in enumerate(line):
        if units >= column:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line)


def _locations(root: Path, answer: Any) -> frozenset[Span]:
    """The places of a Location, Location[] or LocationLink[] answer."""
    items = answer if isinstance(answer, list) else [answer] if answer else []
    found: set[Span] = set()
    for item in items:
        if not isinstance(item, dict):
            continue
        address = item.get("uri") or item.get("targetUri")
        span = item.get("range") or item.get("targetSelectionRange")
        if address and span:
            start = span["start"]
            found.add((relative(root, address), int(start["line"]), int(start["character"])))
    return frozenset(found)


class Session:
    """The truth's own server on a tree, with every file of its language open."""

    def __init__(self, wire: Wire, root: Path, files: list[str], texts: dict[str, str]) -> None:
        self.wire = wire
        self.root = root
        self.files = files
        self.texts = texts

    @classmethod
    async def open(cls, root: Path, server: Server) -> Session:
        """Start the server on ``root`` and open every file of its language."""
        files = language_files(root, server.language)
        texts: dict[str, str] = {}
        wire = await Wire.start(list(server.argv), root)
        for path in files:
            try:
                texts[path] = wire.open(root / path, language_id(path))
            except (OSError, UnicodeDecodeError):
                continue
        return cls(wire, root, files, texts)

    async def close(self) -> None:
        """Shut the server down."""
        await self.wire.close()

    async def _position(self, method: str, path: str, line: int, column: int, **extra: Any) -> Any:
        params = {
            "textDocument": {"uri": uri(self.root / path)},
            "position": {"line": line, "character": column},
            **extra,
        }
        return await self.wire.request(method, params)

    async def settle(self, questions: list[Question]) -> dict[str, frozenset[Span]]:
        """The server's references of each question (declaration included), asked once its
        progress has ended until two answers agree.

        Raises:
            NoTruth: the server never agreed with itself.
        """

        async def ask() -> dict[str, frozenset[Span]]:
            answers = {}
            for question in questions:
                answer = await self._position(
                    "textDocument/references",
                    question.path,
                    question.line,
                    question.column,
                    context={"includeDeclaration": True},
                )
                answers[key(question)] = _locations(self.root, answer)
            return answers

        settled: dict[str, frozenset[Span]] = await settle(self.wire, ask)
        return settled

    def occurrences(self, name: str) -> list[Span]:
        """Every whole-word occurrence of ``name`` in the tree's files of the language."""
        word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
        found: list[Span] = []
        for path, text in self.texts.items():
            if name not in text:
                continue
            for number, line in enumerate(lines_of(text)):
                for match in word.finditer(line.rstrip("\r\n")):
                    found.append((path, number, utf16(line[: match.start()])))
        return found

    def exported(self, path: str, name: str) -> set[int]:
        """The lines of ``path`` where a string of its ``__all__`` names ``name`` (Python)."""
        if not path.endswith((".py", ".pyi")):
            return set()
        try:
            tree = ast.parse(self.texts[path])
        except (SyntaxError, ValueError):
            return set()
        lines: set[int] = set()
        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in {"extend", "append"}
            ):
                targets = [node.func.value]
            if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                continue
            for item in ast.walk(node):
                if isinstance(item, ast.Constant) and item.value == name:
                    lines.add(item.lineno - 1)
        return lines

    async def definitions(self, question: Question) -> frozenset[Span]:
        """The second witness: the occurrences of the name whose definition resolves to the
        question's own declaration. A string of a module's ``__all__`` (which no definition
        request resolves) stands for that module's own binding of the name: it counts when
        another occurrence in the same file resolves."""
        own = await self._position(
            "textDocument/definition", question.path, question.line, question.column
        )
        declared = {(p, line) for p, line, _ in _locations(self.root, own)}
        declared.add((question.path, question.line))
        spans = self.occurrences(question.name)
        resolved: set[Span] = set()
        unresolved: list[Span] = []
        for start in range(0, len(spans), PARALLEL):
            batch = spans[start : start + PARALLEL]
            answers = await asyncio.gather(
                *(self._position("textDocument/definition", *span) for span in batch),
                return_exceptions=True,
            )
            for span, answer in zip(batch, answers, strict=True):
                targets = set()
                if not isinstance(answer, BaseException):
                    targets = {(p, line) for p, line, _ in _locations(self.root, answer)}
                if targets & declared:
                    resolved.add(span)
                elif not targets:
                    unresolved.append(span)
        bound = {path for path, _, _ in resolved}
        for path, line, column in unresolved:
            if path in bound and line in self.exported(path, question.name):
                resolved.add((path, line, column))
        return frozenset(resolved)

    async def rename(self, question: Question, new_name: str) -> dict[str, bytes]:
        """The server's own rename of ``question`` in this settled session, applied to the
        files as opened (only the files it changes).

        Raises:
            NoTruth: the server refused the rename or its edit cannot be applied.
        """
        try:
            edit = await self._position(
                "textDocument/rename",
                question.path,
                question.line,
                question.column,
                newName=new_name,
            )
        except WireError as error:
            raise NoTruth(f"the server refused the rename: {error}") from error
        if not edit:
            raise NoTruth("the server's rename changed nothing")
        texts = {p: t.encode("utf-8") for p, t in self.texts.items()}
        try:
            after = apply_workspace_edit(self.root, texts, edit)
        except KeyError as error:
            raise NoTruth(f"the server's rename edits a file not open: {error}") from error
        return {p: b for p, b in after.items() if texts.get(p) != b}


async def settle(wire: Wire, ask: Callable[[], Awaitable[Any]]) -> Any:
    """Ask ``ask()`` until the server's progress has ended and two answers agree.

    Raises:
        NoTruth: no two answers agreed within :data:`SETTLE_LIMIT`.
    """
    began = time.monotonic()
    previous: Any = object()
    while time.monotonic() - began < SETTLE_LIMIT:
        await asyncio.sleep(2.0)
        if wire.progress:
            continue
        try:
            answer = await ask()
        except WireError:
            continue
        if answer == previous:
            return answer
        previous = answer
    raise NoTruth(f"the server did not agree with itself within {SETTLE_LIMIT:.0f} s")


async def witnessed(
    session: Session, questions: list[Question]
) -> tuple[dict[str, References], list[Disagreement]]:
    """The references truth of each question both witnesses agree on, and the questions
    dropped (the witnesses disagreed, or the symbol has no use).

    Raises:
        NoTruth: the server never settled.
    """
    said = await session.settle(questions)
    agreed: dict[str, References] = {}
    dropped: list[Disagreement] = []
    for question in questions:
        server = said[key(question)]
        definitions = await session.definitions(question)
        if server != definitions:
            dropped.append(Disagreement(question, "the witnesses disagree", server, definitions))
        elif not server - {(question.path, question.line, question.column)}:
            dropped.append(Disagreement(question, "no use of the name"))
        else:
            agreed[key(question)] = References(question, server)
    return agreed, dropped


def renamed(texts: dict[str, str], truth: References, new_name: str) -> dict[str, bytes]:
    """Every place of ``truth`` renamed to ``new_name`` (only the files it changes).

    Raises:
        NoTruth: a place does not hold the name.
    """
    name = truth.question.name
    changed: dict[str, bytes] = {}
    for path in sorted({p for p, _, _ in truth.spans}):
        lines = lines_of(texts[path])
        spans = sorted((s for s in truth.spans if s[0] == path), reverse=True)
        for _, number, column in spans:
            line = lines[number]
            at = index_of(line, column)
            if line[at : at + len(name)] != name:
                raise NoTruth(f"{path}:{number + 1}:{column + 1} does not hold {name}")
            lines[number] = line[:at] + new_name + line[at + len(name) :]
        changed[path] = "".join(lines).encode("utf-8")
    return changed


def check_rename(
    root: Path, server: Server, truth: References, new_name: str, changes: dict[str, bytes]
) -> None:
    """The rename's own check, on ``root`` (a scratch copy, restored after): the whole tree's
    errors are the same before and after, up to the new name.

    Raises:
        NoTruth: the checker failed, or the rename changes the tree's errors.
    """
    before = findings(root, server, None)
    saved = {path: (root / path).read_bytes() for path in changes}
    try:
        for path, data in changes.items():
            (root / path).write_bytes(data)
        after = findings(root, server, None)
    finally:
        for path, data in saved.items():
            (root / path).write_bytes(data)
    if not same_errors(before, after, truth.question.name, new_name):
        gained = [f for f in after if f not in before]
        raise NoTruth(
            f"renaming every place of the references truth changes the tree's errors:"
            f" {described(gained) or 'errors gone'}"
        )


def _offset(text: str, position: dict[str, int]) -> int:
    """The index in ``text`` of an LSP position (UTF-16 code units in the line)."""
    lines = lines_of(text)
    line = position["line"]
    if line >= len(lines):
        return len(text)
    start = sum(len(x) for x in lines[:line])
    end = len(lines[line].rstrip("\r\n"))
    return start + min(index_of(lines[line], position["character"]), end)


def _apply(text: str, edits: list[dict[str, Any]]) -> str:
    spans = [
        (_offset(text, e["range"]["start"]), _offset(text, e["range"]["end"]), e["newText"])
        for e in edits
    ]
    for start, end, new in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        text = text[:start] + new + text[end:]
    return text


def apply_workspace_edit(root: Path, files: dict[str, bytes], edit: Any) -> dict[str, bytes]:
    """``files`` with a WorkspaceEdit applied: its ``changes``, then its ``documentChanges``
    in their order (a text edit names its file as it is at that point of the list)."""
    result = dict(files)

    def write(path: str, edits: list[dict[str, Any]]) -> None:
        result[path] = _apply(result[path].decode("utf-8"), edits).encode("utf-8")

    for address, edits in (edit.get("changes") or {}).items():
        write(relative(root, address), edits)
    for change in edit.get("documentChanges") or []:
        kind = change.get("kind")
        if kind == "rename":
            old, new = relative(root, change["oldUri"]), relative(root, change["newUri"])
            result[new] = result.pop(old)
        elif kind is None:
            write(relative(root, change["textDocument"]["uri"]), change["edits"])
    return result
