"""A scripted language server for Python trees, for CI's quick run of the harness: words,
not types, but answers that follow the disk exactly, and a command line of its own.

On stdio it answers ``references`` (every whole-word use of the name in the tree's ``.py``
files, the ``def``/``class`` line left out unless asked), ``rename`` (every use),
``definition`` (the module's own top-level definition of the name, or the one a
``from .module import`` names) and pulled ``diagnostic`` (an import of a name the sibling
module does not define; a function assigned where ``int`` is annotated). Its references are
words, its definitions follow bindings: where a name is defined twice they differ, as the
truth's two witnesses must notice. Like pyright, it sees a file outside its configured scope
(``[tool.scripted] include`` in ``pyproject.toml``) only while the file is open.

``python scripted_server.py --check FILE...`` prints the same errors as basedpyright's
``--outputjson`` would, reading the disk: the truth of diagnostics.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

_IMPORT = re.compile(r"^from \.(\w+) import (.+)$", re.MULTILINE)
_FROM = re.compile(r"^from (\.?\w+(?:\.\w+)*) import (.+)$", re.MULTILINE)
_DEFINED = re.compile(r"^(?:def|class)\s+(\w+)|^(\w+)\s*[:=]", re.MULTILINE)
_FUNCTION = re.compile(r"^def\s+(\w+)", re.MULTILINE)
_ANNOTATED_INT = re.compile(r"^\w+\s*:\s*int\s*=\s*(\w+)\s*$", re.MULTILINE)


def _path(address: str) -> Path:
    return Path(unquote(urlparse(address).path))


class Tree:
    """The tree's ``.py`` files, the open documents' texts over the disk's."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.open: dict[Path, str] = {}

    def text(self, path: Path) -> str:
        if path in self.open:
            return self.open[path]
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""

    def scope(self) -> list[Path]:
        """The folders of ``pyproject.toml``'s ``[tool.scripted] include`` (the whole root
        without one): like pyright's ``include``, files outside are seen only when open."""
        try:
            text = (self.root / "pyproject.toml").read_text(encoding="utf-8")
        except OSError:
            return [self.root]
        section = re.search(r"^\[tool\.scripted\]\s*\ninclude\s*=\s*\[(.*?)\]", text, re.M)
        if section is None:
            return [self.root]
        return [self.root / name for name in re.findall(r'"([^"]+)"', section[1])]

    def files(self) -> list[Path]:
        found = {
            p
            for folder in self.scope()
            for p in folder.rglob("*.py")
            if ".git" not in p.relative_to(self.root).parts
        }
        return sorted(found | {p for p in self.open if p.exists()})

    def uses(self, name: str, declaration: bool) -> list[tuple[Path, int, int]]:
        word = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
        found = []
        for path in self.files():
            for number, line in enumerate(self.text(path).splitlines()):
                for match in word.finditer(line):
                    defining = re.match(rf"(?:def|class)\s+{re.escape(name)}\b", line)
                    if declaration or not defining:
                        found.append((path, number, match.start()))
        return found

    def errors(self, path: Path) -> list[dict[str, Any]]:
        text = self.text(path)
        found = []
        for match in _IMPORT.finditer(text):
            sibling = path.parent / f"{match[1]}.py"
            defined = {a or b for a, b in _DEFINED.findall(self.text(sibling))}
            start = match.start(2)
            for name in (n.strip() for n in match[2].split(",")):
                if name not in defined:
                    offset = text.index(name, start)
                    found.append(_error(text, offset, name, f'"{name}" is unknown import symbol'))
        functions = set(_FUNCTION.findall(text))
        for match in _IMPORT.finditer(text):
            sibling_text = self.text(path.parent / f"{match[1]}.py")
            functions |= set(_FUNCTION.findall(sibling_text))
        for match in _ANNOTATED_INT.finditer(text):
            if match[1] in functions:
                message = f'function "{match[1]}" is not assignable to "int"'
                found.append(_error(text, match.start(1), match[1], message))
        return found

    def definition(self, path: Path, name: str) -> tuple[Path, int, int] | None:
        """Where ``name`` as used in ``path`` is defined: the module's own ``def``/``class``,
        else the sibling module a ``from .module import`` names it from."""
        own = re.compile(rf"^(?:def|class)\s+({re.escape(name)})\b", re.MULTILINE)
        text = self.text(path)
        found = own.search(text)
        if found:
            line = text.count("\n", 0, found.start(1))
            return path, line, found.start(1) - (text.rfind("\n", 0, found.start(1)) + 1)
        for match in _FROM.finditer(text):
            if name in (n.strip() for n in match[2].split(",")):
                module = match[1]
                base = path.parent if module.startswith(".") else self.root
                source = base.joinpath(*module.lstrip(".").split(".")).with_suffix(".py")
                return self.definition(source, name) if source != path else None
        return None


def _error(text: str, offset: int, name: str, message: str) -> dict[str, Any]:
    line = text.count("\n", 0, offset)
    column = offset - (text.rfind("\n", 0, offset) + 1)
    span = {"start": {"line": line, "character": column}}
    span["end"] = {"line": line, "character": column + len(name)}
    return {"range": span, "severity": 1, "message": message, "source": "scripted"}


def _word_at(tree: Tree, params: dict[str, Any]) -> str:
    text = tree.text(_path(params["textDocument"]["uri"]))
    lines = text.splitlines()
    line, column = params["position"]["line"], params["position"]["character"]
    if line >= len(lines):
        return ""
    for match in re.finditer(r"\w+", lines[line]):
        if match.start() <= column <= match.end():
            return match.group()
    return ""


def _location(path: Path, line: int, column: int, length: int) -> dict[str, Any]:
    span = {"start": {"line": line, "character": column}}
    span["end"] = {"line": line, "character": column + length}
    return {"uri": path.as_uri(), "range": span}


def answer(tree: Tree, method: str, params: dict[str, Any]) -> Any:
    """The result of a request (None for one it does not know)."""
    if method == "initialize":
        root = params.get("rootUri") or (params.get("workspaceFolders") or [{}])[0].get("uri")
        tree.root = _path(root) if root else Path.cwd()
        capabilities = {
            "textDocumentSync": 1,
            "referencesProvider": True,
            "definitionProvider": True,
            "renameProvider": True,
            "diagnosticProvider": {"interFileDependencies": True, "workspaceDiagnostics": False},
        }
        return {"capabilities": capabilities, "serverInfo": {"name": "scripted", "version": "1"}}
    if method == "textDocument/references":
        name = _word_at(tree, params)
        declaration = bool(params.get("context", {}).get("includeDeclaration"))
        return [_location(p, ln, col, len(name)) for p, ln, col in tree.uses(name, declaration)]
    if method == "textDocument/definition":
        found = tree.definition(_path(params["textDocument"]["uri"]), _word_at(tree, params))
        return [_location(found[0], found[1], found[2], 1)] if found else []
    if method == "textDocument/rename":
        name = _word_at(tree, params)
        changes: dict[str, list[dict[str, Any]]] = {}
        for path, line, column in tree.uses(name, True):
            place = _location(path, line, column, len(name))
            changes.setdefault(place["uri"], []).append(
                {"range": place["range"], "newText": params["newName"]}
            )
        return {"changes": changes}
    if method == "textDocument/diagnostic":
        items = tree.errors(_path(params["textDocument"]["uri"]))
        return {"kind": "full", "items": items}
    return None


def notice(tree: Tree, method: str, params: dict[str, Any]) -> None:
    """Follow the open documents."""
    if method == "textDocument/didOpen":
        document = params["textDocument"]
        tree.open[_path(document["uri"])] = document["text"]
    elif method == "textDocument/didChange":
        tree.open[_path(params["textDocument"]["uri"])] = params["contentChanges"][-1]["text"]
    elif method == "textDocument/didClose":
        tree.open.pop(_path(params["textDocument"]["uri"]), None)


def serve() -> None:
    """Answer LSP on stdin and stdout until ``exit`` or the end of input."""
    tree = Tree(Path.cwd())
    reader, writer = sys.stdin.buffer, sys.stdout.buffer
    while True:
        length = 0
        while True:
            line = reader.readline()
            if not line:
                return
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("ascii").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        message = json.loads(reader.read(length))
        method, params = message.get("method"), message.get("params") or {}
        if method == "exit":
            return
        if "id" in message and method is not None:
            body = json.dumps(
                {"jsonrpc": "2.0", "id": message["id"], "result": answer(tree, method, params)}
            )
            writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body.encode()), body.encode()))
            writer.flush()
        elif method is not None:
            notice(tree, method, params)


def check(paths: list[str]) -> None:
    """Print the errors of ``paths`` as basedpyright's ``--outputjson`` shapes them."""
    tree = Tree(Path.cwd())
    report = []
    for name in paths:
        path = Path(name).resolve()
        for item in tree.errors(path):
            report.append(
                {
                    "file": str(path),
                    "severity": "error",
                    "range": item["range"],
                    "message": item["message"],
                    "rule": "scripted",
                }
            )
    summary = {"filesAnalyzed": len(paths), "errorCount": len(report)}
    print(json.dumps({"generalDiagnostics": report, "summary": summary}))
    raise SystemExit(1 if report else 0)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--check"]:
        check(sys.argv[2:])
    else:
        serve()
