"""The fixed, seeded candidates for a tree's questions: which symbols to ask references of and
to rename, and which definitions to break so that a caller in another file breaks with them.
Chosen from the tree itself, so that ``--tree`` works on code the harness has never seen; the
truth (:mod:`fidelity.case`) keeps the first candidates whose truth is settled and not empty.
"""

from __future__ import annotations

import ast
import random
import re
from dataclasses import dataclass
from pathlib import Path

from fidelity.subject import Question

_TS_DEFINITION = re.compile(
    r"^export\s+(?:default\s+)?(?:async\s+)?(?:function\*?|class|const|let)\s+([A-Za-z_$][\w$]*)",
    re.MULTILINE,
)
_WORD = r"(?<![\w$]){}(?![\w$])"


@dataclass(frozen=True)
class Break:
    """A change of a definition that breaks another file: ``old`` becomes ``new`` in
    ``path``, and ``dependent`` uses the name the change takes away."""

    path: str
    old: str
    new: str
    dependent: str
    name: str


def definitions(root: Path, files: list[str], language: str) -> list[Question]:
    """Every top-level function and class (Python) or exported declaration (TypeScript)."""
    found: list[Question] = []
    for path in files:
        text = (root / path).read_text(encoding="utf-8", errors="replace")
        if language == "python":
            try:
                tree = ast.parse(text)
            except SyntaxError:
                continue
            lines = text.splitlines()
            for node in tree.body:
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    line = node.lineno - 1
                    column = lines[line].find(node.name, node.col_offset)
                    if column >= 0 and not node.name.startswith("__"):
                        found.append(Question(path, line, column, node.name))
        else:
            for match in _TS_DEFINITION.finditer(text):
                line = text.count("\n", 0, match.start(1))
                column = match.start(1) - (text.rfind("\n", 0, match.start(1)) + 1)
                found.append(Question(path, line, column, match.group(1)))
    return found


def _users(root: Path, files: list[str], question: Question) -> list[str]:
    """The other files that name ``question``'s symbol as a word."""
    word = re.compile(_WORD.format(re.escape(question.name)))
    users = []
    for path in files:
        if path != question.path:
            text = (root / path).read_text(encoding="utf-8", errors="replace")
            if word.search(text):
                users.append(path)
    return users


def _unique(root: Path, files: list[str], question: Question) -> bool:
    """Whether the name is defined once in the tree (a name defined twice makes a word
    search a poor guide, and its rename a different question)."""
    pattern = re.compile(r"(?:def|class|function|const|let)\s+" + re.escape(question.name) + r"\b")
    count = sum(
        len(pattern.findall((root / p).read_text(encoding="utf-8", errors="replace")))
        for p in files
    )
    return count == 1


def candidates(root: Path, files: list[str], language: str, seed: int) -> list[Question]:
    """Every definition whose name another file names, defined once in the tree, in the
    order ``seed`` shuffles them to."""
    found = [
        q
        for q in definitions(root, files, language)
        if _users(root, files, q) and _unique(root, files, q)
    ]
    random.Random(seed).shuffle(found)
    return found


def symbols(root: Path, files: list[str], language: str, count: int, seed: int) -> list[Question]:
    """The first ``count`` candidates for ``seed``, in the tree's order."""
    chosen = candidates(root, files, language, seed)[:count]
    return sorted(chosen, key=lambda q: (q.path, q.line))


def breaks(root: Path, files: list[str], language: str, seed: int) -> list[Break]:
    """Definitions to rename by hand (a new name no file knows), each breaking a file that
    uses it, in the order ``seed`` gives them (the truth keeps those its checker confirms)."""
    found: list[Break] = []
    for question in candidates(root, files, language, seed + 1):
        users = _users(root, files, question)
        lines = (root / question.path).read_text(encoding="utf-8").splitlines()
        old = lines[question.line]
        new = (
            old[: question.column]
            + question.name
            + "Changed"
            + old[question.column + len(question.name) :]
        )
        if lines.count(old) == 1:
            found.append(Break(question.path, old, new, users[0], question.name))
    return found


def break_of(root: Path, files: list[str], language: str, seed: int) -> Break | None:
    """The first of :func:`breaks`; None when the tree has no definition used from another
    file."""
    found = breaks(root, files, language, seed)
    return found[0] if found else None


def new_file(language: str, breaking: Break) -> tuple[str, str]:
    """A file the shell creates beside the broken definition's file: it imports the name
    and assigns it where a number belongs (an error every type checker reports)."""
    folder = breaking.path.rsplit("/", 1)[0] if "/" in breaking.path else ""
    prefix = folder + "/" if folder else ""
    module = breaking.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if language == "python":
        text = f"from .{module} import {breaking.name}\n\nvalue: int = {breaking.name}\n"
        return prefix + "fidelity_created.py", text
    text = (
        f'import {{ {breaking.name} }} from "./{module}"\n\n'
        f"export const fidelityValue: number = {breaking.name}\n"
    )
    return prefix + "fidelityCreated.ts", text
