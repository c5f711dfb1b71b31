"""Edits of a JSON (or JSON with comments) file as text: a member added to an object or an
element to an array, and taken out again, every other byte kept as it was (keys, order,
comments, spacing). ``agents setup`` merges its entries into a host's settings this way, so
that ``--remove`` gives back the file it found.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

# Internal to the library: nothing here is public API (the command line is).
__all__: list[str] = []


class JsonTextError(ValueError):
    """Text that is not JSON (with comments), with where it stops being so."""


@dataclass
class Node:
    """One value of the text: its span, and its members or elements."""

    kind: str
    """``object``, ``array`` or ``scalar``."""
    start: int
    end: int
    members: list[tuple[str, int, Node]] = field(default_factory=list)
    """An object's members: key, where the key's string starts, value."""
    items: list[Node] = field(default_factory=list)
    value: Any = None
    """A scalar's value."""

    def get(self, key: str) -> Node | None:
        """The value of member ``key`` (the last one of that name, as JSON readers take)."""
        found = [value for name, _, value in self.members if name == key]
        return found[-1] if found else None

    def plain(self) -> Any:
        """The value as Python data."""
        if self.kind == "object":
            return {name: value.plain() for name, _, value in self.members}
        if self.kind == "array":
            return [item.plain() for item in self.items]
        return self.value


MAX_DEPTH = 200
"""How deep objects and arrays may nest: a settings file nested deeper is refused, named,
rather than read by a recursion that would run out of stack."""

_SPACE = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)
_SCALAR = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null')


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.depth = 0

    def skip(self) -> None:
        found = _SPACE.match(self.text, self.at)
        self.at = found.end() if found else self.at

    def fail(self, what: str) -> JsonTextError:
        line = self.text.count("\n", 0, self.at) + 1
        column = self.at - (self.text.rfind("\n", 0, self.at) + 1) + 1
        return JsonTextError(f"{what} at line {line}, column {column}")

    def value(self) -> Node:
        self.skip()
        start = self.at
        char = self.text[start : start + 1]
        if char == "{":
            return self._container(start, "object", "}")
        if char == "[":
            return self._container(start, "array", "]")
        found = _SCALAR.match(self.text, start)
        if not found:
            raise self.fail("not a JSON value")
        self.at = found.end()
        return Node("scalar", start, self.at, value=json.loads(found.group()))

    def _container(self, start: int, kind: str, close: str) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"objects and arrays nested more than {MAX_DEPTH} deep")
        node = Node(kind, start, start)
        self.at += 1
        while True:
            self.skip()
            if self.text.startswith(close, self.at):
                self.at += 1
                node.end = self.at
                self.depth -= 1
                return node
            if kind == "object":
                key_at = self.at
                key = self.value()
                if not isinstance(key.value, str) or key.kind != "scalar":
                    raise self.fail("a key that is not a string")
                self.skip()
                if not self.text.startswith(":", self.at):
                    raise self.fail("no ':' after a key")
                self.at += 1
                node.members.append((key.value, key_at, self.value()))
            else:
                node.items.append(self.value())
            self.skip()
            if self.text.startswith(",", self.at):
                self.at += 1
            elif not self.text.startswith(close, self.at):
                raise self.fail(f"neither ',' nor '{close}'")


def parse(text: str) -> Node:
    """The top value of ``text``.

    Raises:
        JsonTextError: the text is not JSON (comments and trailing commas allowed).
    """
    reader = _Reader(text)
    node = reader.value()
    reader.skip()
    if reader.at != len(text):
        raise reader.fail("more after the value")
    return node


def indent_unit(text: str) -> str:
    """The file's indentation step (two spaces when it has none)."""
    found = re.search(r"\n([ \t]+)\S", text)
    return found.group(1) if found else "  "


def _depth(text: str, at: int, unit: str) -> int:
    """How many steps the line holding ``at`` is indented."""
    line = text[text.rfind("\n", 0, at) + 1 : at]
    spaces = len(line) - len(line.lstrip(" \t"))
    return spaces // max(1, len(unit))


def render(value: Any, unit: str, depth: int) -> str:
    """``value`` as JSON indented as the file is, for a place ``depth`` steps deep."""
    text = json.dumps(value, indent=len(unit) if unit.strip(" ") == "" else unit)
    return text.replace("\n", "\n" + unit * depth)


def _insert(text: str, node: Node, piece: str, unit: str) -> str:
    """``piece`` (a member or element) added last to the container ``node``."""
    depth = _depth(text, node.start, unit)
    inner = "\n" + unit * (depth + 1)
    children = [value for _, _, value in node.members] if node.kind == "object" else node.items
    if children:
        last = children[-1].end
        return text[:last] + "," + inner + piece + text[last:]
    at = node.start + 1
    close = node.end - 1
    if text[at:close].strip():
        # Only comments inside: they stay, after the new child.
        return text[:at] + inner + piece + text[at:]
    return text[:at] + inner + piece + "\n" + unit * depth + text[close:]


def _one_line(text: str, node: Node) -> bool:
    """A container with children written on one line: what is added stays on it."""
    return bool(node.members or node.items) and "\n" not in text[node.start : node.end]


def add_member(text: str, node: Node, key: str, value: Any) -> str:
    """``text`` with ``"key": value`` added last to the object ``node``."""
    if _one_line(text, node):
        last = node.members[-1][2].end
        return text[:last] + f", {json.dumps(key)}: {json.dumps(value)}" + text[last:]
    unit = indent_unit(text)
    depth = _depth(text, node.start, unit) + 1
    return _insert(text, node, json.dumps(key) + ": " + render(value, unit, depth), unit)


def add_item(text: str, node: Node, value: Any) -> str:
    """``text`` with ``value`` added last to the array ``node``."""
    if _one_line(text, node):
        last = node.items[-1].end
        return text[:last] + ", " + json.dumps(value) + text[last:]
    unit = indent_unit(text)
    depth = _depth(text, node.start, unit) + 1
    return _insert(text, node, render(value, unit, depth), unit)


def _remove(text: str, children: list[tuple[int, int]], index: int, node: Node) -> str:
    """Take out child ``index`` (its span from its start to its end), with the separator
    an insertion made: the comma before it (or after it, for the first of several); the
    only child leaves the comments beside it, or an empty ``{}`` or ``[]``."""
    start, end = children[index]
    if len(children) == 1:
        rest = text[end : node.end - 1]
        kept = rest if (text[node.start + 1 : start] + rest).strip() else ""
        return text[: node.start + 1] + kept + text[node.end - 1 :]
    if index > 0:
        return text[: children[index - 1][1]] + text[end:]
    return text[:start] + text[children[1][0] :]


def remove_member(text: str, node: Node, key: str) -> str:
    """``text`` without the (last) member ``key`` of the object ``node``."""
    spans = [(at, value.end) for _, at, value in node.members]
    names = [name for name, _, _ in node.members]
    index = len(names) - 1 - names[::-1].index(key)
    return _remove(text, spans, index, node)


def remove_item(text: str, node: Node, index: int) -> str:
    """``text`` without element ``index`` of the array ``node``."""
    return _remove(text, [(item.start, item.end) for item in node.items], index, node)


# -- entries along a path of keys --------------------------------------------------------


def ours(value: Any, marker: str) -> bool:
    """Whether an entry names ``marker`` (``hook claude-code``) in any of its strings."""
    return marker in json.dumps(value)


def with_item(text: str, path: list[str], item: Any, marker: str) -> str:
    """``text`` with ``item`` last in the array at ``path``, made with its objects where
    missing; unchanged when an item of ours is there."""
    node = parse(text)
    for depth, key in enumerate(path):
        if node.kind != "object":
            raise ValueError(f"{'.'.join(path[:depth]) or 'the file'} is not a JSON object")
        child = node.get(key)
        if child is None:
            value: Any = [item]
            for outer in reversed(path[depth + 1 :]):
                value = {outer: value}
            return add_member(text, node, key, value)
        node = child
    if node.kind != "array":
        raise ValueError(f"{'.'.join(path)} is not a JSON array")
    if any(ours(entry.plain(), marker) for entry in node.items):
        return text
    return add_item(text, node, item)


def with_member(text: str, path: list[str], key: str, value: Any) -> str:
    """``text`` with ``"key": value`` in the object at ``path``; unchanged when it has
    ``key``."""
    node = parse(text)
    names = [*path, key]
    for depth, name in enumerate(names):
        if node.kind != "object":
            raise ValueError(f"{'.'.join(path[:depth]) or 'the file'} is not a JSON object")
        child = node.get(name)
        if child is None:
            made: Any = value
            for outer in reversed(names[depth + 1 :]):
                made = {outer: made}
            return add_member(text, node, name, made)
        node = child
    return text


def prune(text: str, path: list[str]) -> str:
    """Take out the containers along ``path`` that are left empty (with nothing but
    spaces inside), deepest first."""
    for depth in range(len(path), 0, -1):
        node = parse(text)
        parents = [node]
        for key in path[:depth]:
            child = parents[-1].get(key) if parents[-1].kind == "object" else None
            if child is None:
                break
            parents.append(child)
        else:
            last = parents[-1]
            inside = text[last.start + 1 : last.end - 1]
            if not inside.strip() and not last.members and not last.items:
                text = remove_member(text, parents[-2], path[depth - 1])
    return text


def without_items(text: str, path: list[str], marker: str) -> str:
    """``text`` without our items in the array at ``path`` (and what they leave empty)."""
    node: Node | None = parse(text)
    for key in path:
        node = node.get(key) if node is not None and node.kind == "object" else None
    if (
        node is None
        or node.kind != "array"
        or not any(ours(item.plain(), marker) for item in node.items)
    ):
        return text  # nothing of ours: not a byte changed, empty containers kept
    for index in reversed(range(len(node.items))):
        if ours(node.items[index].plain(), marker):
            text = remove_item(text, node, index)
            node = parse(text)
            for key in path:
                found = node.get(key) if node is not None else None
                node = found
            assert node is not None
    return prune(text, path)


def without_member(text: str, path: list[str], key: str) -> str:
    node: Node | None = parse(text)
    for name in path:
        node = node.get(name) if node is not None and node.kind == "object" else None
    if node is None or node.kind != "object" or node.get(key) is None:
        return text
    return prune(remove_member(text, node, key), path)
