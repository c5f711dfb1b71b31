"""Generate ``src/adecore_lsp/lsp_types.py`` from the LSP 3.17 metaModel.

Every structure of the metaModel becomes a ``TypedDict`` (``extends`` and ``mixins`` become
TypedDict bases), every enumeration a namespace class of ``Final`` constants with a
``<Name>Value`` alias for the type of its values, every type alias a ``TypeAlias``, and every
inline object type (a ``literal`` in the metaModel) a ``TypedDict`` named after where it appears
(``ServerCapabilitiesWorkspace`` for the ``workspace`` property of ``ServerCapabilities``).

The annotations are evaluated when the module is imported, so that ``__required_keys__`` and
``__optional_keys__`` are right at run time (they are not under ``from __future__ import
annotations``): the definitions are written in dependency order and only an annotation that
refers to a name not defined yet (a cycle such as ``SelectionRange.parent``) is quoted.

The text is written already formatted the way ``ruff format`` formats it.

Usage::

    python scripts/generate_types.py            # rewrite the checked-in module
    python scripts/generate_types.py --check    # exit 1 if the module is out of date

The output depends only on the metaModel's content, so re-running it is a no-op.
"""

from __future__ import annotations

import json
import keyword
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import metamodel_generator

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_META_MODEL = REPO_ROOT / "spec/lsp/3.17/metaModel.json"
DEFAULT_OUTPUT = REPO_ROOT / "src/adecore_lsp/lsp_types.py"

LINE_LENGTH = 100
INDENT = "    "

BASE_TYPES: dict[str, str] = {
    "string": "str",
    "integer": "int",
    "uinteger": "int",
    "decimal": "float",
    "boolean": "bool",
    "null": "None",
    "DocumentUri": "str",
    "URI": "str",
    "RegExp": "str",
}

# The suffix of the alias that names the type of an enumeration's values.
VALUE_SUFFIX = "Value"


class GenerationError(Exception):
    """The metaModel holds something the generator cannot express."""


# A converted type: ("name", name) | ("base", text) | ("list", item) | ("dict", key, value)
# | ("union", items) | ("tuple", items) | ("literal", text).
Type = tuple[Any, ...]


@dataclass
class Prop:
    """One property of a generated TypedDict."""

    name: str
    type: Type
    optional: bool
    deprecated: str | None
    doc: str


@dataclass
class Node:
    """One generated definition: a TypedDict or a type alias."""

    name: str
    kind: str  # "struct" or "alias"
    doc: str
    bases: list[str] = field(default_factory=list)
    props: list[Prop] = field(default_factory=list)
    type: Type | None = None  # of an alias

    def soft_deps(self) -> set[str]:
        """Names the annotations of this definition refer to."""
        found: set[str] = set()
        for prop in self.props:
            found |= _names(prop.type)
        if self.type is not None:
            found |= _names(self.type)
        return found


def _names(type_: Type) -> set[str]:
    tag = type_[0]
    if tag == "name":
        return {type_[1]}
    if tag == "list":
        return _names(type_[1])
    if tag == "dict":
        return _names(type_[1]) | _names(type_[2])
    if tag in ("union", "tuple"):
        return set().union(*(_names(item) for item in type_[1]))
    return set()


# ---------------------------------------------------------------------------------------------
# Documentation


_LINK = re.compile(r"\{@link(?:code)?\s+([^\s}]+)(?:\s+([^}]*))?\}")
_SENTENCE_END = re.compile(r"(?<!e\.g)(?<!i\.e)[.!?](?=\s|$)")


def summary(documentation: str | None) -> str:
    """The first sentence of a documentation text, on one line, with links as plain names."""
    if not documentation:
        return ""
    text = documentation.split("\n\n", 1)[0]
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("@"))
    text = _LINK.sub(lambda m: (m.group(2) or m.group(1)).strip(), text)
    text = " ".join(text.split())
    match = _SENTENCE_END.search(text)
    if match is not None:
        text = text[: match.end()]
    text = _literal_markup(text)
    if text and not text.endswith((".", "!", "?")):
        text += "."
    return text


def _literal_markup(text: str) -> str:
    """Markdown code spans as reST literals, and what would end a docstring escaped."""
    text = re.sub(r"(?<!`)`([^`]+)`(?!`)", r"``\1``", text)
    return text.replace("\\", "\\\\").replace('"""', "'''")


def docstring(text: str, deprecated: str | None, width: int) -> str:
    """A one-line docstring of at most ``width`` characters, quotes included."""
    if deprecated is not None:
        reason = _literal_markup(" ".join(deprecated.split())).rstrip(".")
        text = f"Deprecated ({reason}). {text}".rstrip()
    room = width - 6
    if len(text) > room:
        cut = text[: room - 3].rsplit(" ", 1)[0].rstrip(",;:.")
        text = cut + "..."
    if text.endswith('"'):
        text += " "
    return f'"""{text}"""'


# ---------------------------------------------------------------------------------------------
# The model


class _Model:
    """The definitions to generate, from a parsed metaModel."""

    def __init__(self, meta_model: Mapping[str, Any]) -> None:
        self.structures = {s["name"]: s for s in meta_model["structures"]}
        self.enumerations = {e["name"]: e for e in meta_model["enumerations"]}
        self.aliases = {a["name"]: a for a in meta_model["typeAliases"]}
        self.value_aliases = {name: name + VALUE_SUFFIX for name in self.enumerations}
        taken = set(self.structures) | set(self.enumerations) | set(self.aliases)
        clashes = sorted(taken & set(self.value_aliases.values()))
        if clashes:
            raise GenerationError(f"enumeration value aliases clash with names: {clashes}")
        self.taken = taken | set(self.value_aliases.values())
        self.nodes: dict[str, Node] = {}
        self.props: dict[tuple[str, str], Prop] = {}
        for name in sorted(self.structures):
            self._structure(self.structures[name])
        for name in sorted(self.aliases):
            alias = self.aliases[name]
            doc = summary(alias.get("documentation")) or f"The ``{name}`` type."
            node = Node(name, "alias", docstring(doc, alias.get("deprecated"), LINE_LENGTH))
            node.type = self._convert(alias["type"], name, f"``{name}``", top=True)
            self.nodes[name] = node

    def _structure(self, spec: Mapping[str, Any]) -> None:
        name = spec["name"]
        doc = summary(spec.get("documentation")) or f"The ``{name}`` structure."
        node = Node(name, "struct", docstring(doc, spec.get("deprecated"), LINE_LENGTH - 4))
        self.nodes[name] = node
        for ref in (*spec.get("extends", ()), *spec.get("mixins", ())):
            if ref["kind"] != "reference" or ref["name"] not in self.structures:
                raise GenerationError(f"{name}: cannot extend {ref}")
            node.bases.append(ref["name"])
        node.props = [self._prop(p, name) for p in spec.get("properties", ())]
        own = {p.name for p in node.props}
        inherited = self._all_props(node.bases)
        needs_functional = any(not _is_field_name(p) for p in own | set(inherited))
        if needs_functional or own & set(inherited):
            # A TypedDict cannot redefine an inherited key (CreateFile narrows the ``kind`` of
            # ResourceOperation), and the functional syntax has no bases: copy the keys in.
            props = {p.name: p for p in self._flatten(node.bases)}
            props.update((p.name, p) for p in node.props)
            node.props = list(props.values())
            node.bases = []

    def _all_props(self, bases: Iterable[str]) -> dict[str, Prop]:
        return {p.name: p for p in self._flatten(bases)}

    def _flatten(self, bases: Iterable[str]) -> list[Prop]:
        found: dict[str, Prop] = {}
        for base in bases:
            spec = self.structures[base]
            parents = [r["name"] for r in (*spec.get("extends", ()), *spec.get("mixins", ()))]
            found.update((p.name, p) for p in self._flatten(parents))
            found.update((p.name, p) for p in (self._prop(q, base) for q in spec["properties"]))
        return list(found.values())

    def _prop(self, spec: Mapping[str, Any], owner: str) -> Prop:
        key = (owner, spec["name"])
        if key not in self.props:
            self.props[key] = self._new_prop(spec, owner)
        return self.props[key]

    def _new_prop(self, spec: Mapping[str, Any], owner: str) -> Prop:
        context = owner.lstrip("_") + spec["name"][:1].upper() + spec["name"][1:]
        type_ = self._convert(spec["type"], context, f"``{owner}.{spec['name']}``", top=True)
        return Prop(
            spec["name"],
            type_,
            bool(spec.get("optional")),
            spec.get("deprecated"),
            summary(spec.get("documentation")),
        )

    def _convert(self, spec: Mapping[str, Any], context: str, where: str, top: bool) -> Type:
        kind = spec["kind"]
        if kind == "base":
            if spec["name"] not in BASE_TYPES:
                raise GenerationError(f"{where}: unknown base type {spec['name']}")
            return ("base", BASE_TYPES[spec["name"]])
        if kind == "reference":
            name = spec["name"]
            if name in self.enumerations:
                return ("name", self.value_aliases[name])
            if name not in self.structures and name not in self.aliases:
                raise GenerationError(f"{where}: unknown reference {name}")
            return ("name", name)
        if kind == "array":
            return ("list", self._convert(spec["element"], context + "Item", where, False))
        if kind == "map":
            key = self._convert(spec["key"], context + "Key", where, False)
            return ("dict", key, self._convert(spec["value"], context + "Value", where, False))
        if kind == "tuple":
            items = spec["items"]
            return (
                "tuple",
                [self._convert(t, f"{context}Item{i}", where, False) for i, t in enumerate(items)],
            )
        if kind == "or":
            literals = sum(1 for item in spec["items"] if item["kind"] == "literal")
            converted: list[Type] = []
            index = 0
            for item in spec["items"]:
                name = context + "Type"
                if item["kind"] == "literal":
                    index += 1
                    name += str(index) if literals > 1 else ""
                converted.append(self._convert(item, name, where, False))
            return _union(converted)
        if kind == "and":
            return self._inline(context, where, [], spec["items"])
        if kind == "literal":
            return self._inline(
                context if not top or context not in self.taken else context + "Type",
                where,
                spec["value"]["properties"],
                [],
            )
        if kind == "stringLiteral":
            return ("literal", json.dumps(spec["value"]))
        if kind == "integerLiteral":
            return ("literal", str(int(spec["value"])))
        if kind == "booleanLiteral":
            return ("literal", "True" if spec["value"] else "False")
        raise GenerationError(f"{where}: unknown type kind {kind}")

    def _inline(
        self,
        name: str,
        where: str,
        properties: list[Mapping[str, Any]],
        intersection: list[Mapping[str, Any]],
    ) -> Type:
        if name in self.taken:
            raise GenerationError(f"{where}: the inline type's name {name} is taken")
        self.taken.add(name)
        what = "all of" if intersection else "the inline object of"
        node = Node(name, "struct", docstring(f"The type of {what} {where}.", None, 96))
        self.nodes[name] = node
        for ref in intersection:
            if ref["kind"] != "reference" or ref["name"] not in self.structures:
                raise GenerationError(f"{where}: an intersection of {ref} is not supported")
            node.bases.append(ref["name"])
        node.props = [self._prop(p, name) for p in properties]
        return ("name", name)

    def closure(self, name: str) -> set[str]:
        """The TypedDict bases of a definition, transitively."""
        found: set[str] = set()
        pending = list(self.nodes[name].bases)
        while pending:
            base = pending.pop()
            if base not in found:
                found.add(base)
                pending.extend(self.nodes[base].bases)
        return found

    def order(self) -> list[Node]:
        """The definitions in an order where each one follows what it needs, where it can."""
        done: set[str] = set()
        active: set[str] = set()
        ordered: list[Node] = []

        def visit(name: str) -> None:
            active.add(name)
            node = self.nodes[name]
            for base in node.bases:
                if base in active:
                    raise GenerationError(f"{name}: circular bases through {base}")
                if base not in done:
                    visit(base)
            for dep in sorted(node.soft_deps()):
                # A definition whose bases are being written cannot come first: it is quoted.
                free = dep in self.nodes and dep not in done and dep not in active
                if free and not (self.closure(dep) | {dep}) & active:
                    visit(dep)
            active.discard(name)
            done.add(name)
            ordered.append(node)

        for name in sorted(self.nodes):
            if name not in done:
                visit(name)
        return ordered


def _is_field_name(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


def _union(items: list[Type]) -> Type:
    flat: list[Type] = []
    for item in items:
        for member in item[1] if item[0] == "union" else [item]:
            if member not in flat:
                flat.append(member)
    # None goes last, as the project writes its own unions.
    flat.sort(key=lambda t: t == ("base", "None"))
    return flat[0] if len(flat) == 1 else ("union", flat)


# ---------------------------------------------------------------------------------------------
# Rendering


class _Writer:
    """Renders the definitions, quoting references to what is not defined yet."""

    def __init__(self) -> None:
        self.defined: set[str] = set()
        self.quoted_aliases: set[str] = set()

    def text(self, type_: Type) -> str:
        tag = type_[0]
        if tag in ("name", "base"):
            return str(type_[1])
        if tag == "list":
            return f"list[{self.text(type_[1])}]"
        if tag == "dict":
            return f"dict[{self.text(type_[1])}, {self.text(type_[2])}]"
        if tag == "tuple":
            return f"tuple[{', '.join(self.text(t) for t in type_[1])}]"
        if tag == "union":
            return " | ".join(self.text(t) for t in type_[1])
        return f"Literal[{type_[1]}]"

    def runtime(self, type_: Type) -> str:
        """The annotation as it can be evaluated at this point of the module.

        A name defined further down is quoted, and so is a union with a quoted member or a
        quoted alias (a string has no ``|``); inside ``list[...]`` a string may stand as is.
        """
        tag = type_[0]
        if tag == "name":
            return str(type_[1]) if type_[1] in self.defined else _quote(type_[1])
        if tag == "list":
            return f"list[{self.runtime(type_[1])}]"
        if tag == "dict":
            return f"dict[{self.runtime(type_[1])}, {self.runtime(type_[2])}]"
        if tag == "tuple":
            return f"tuple[{', '.join(self.runtime(t) for t in type_[1])}]"
        if tag == "union":
            members = [self.runtime(t) for t in type_[1]]
            if any(_is_quoted(m) or m in self.quoted_aliases for m in members):
                return _quote(self.text(type_))
            return " | ".join(members)
        return self.text(type_)


def _quote(text: str) -> str:
    return f"'{text}'" if '"' in text else f'"{text}"'


def _is_quoted(text: str) -> bool:
    return text.startswith(("'", '"'))


def _wrap(head: str, inner: str, tail: str, indent: str = "") -> list[str]:
    """``head + inner + tail`` on one line, or split inside the brackets as ruff does."""
    line = f"{indent}{head}{inner}{tail}"
    if len(line) <= LINE_LENGTH:
        return [line]
    if not head.endswith(("[", "(")):
        outer = _subscript(inner)
        if outer is not None:
            return _wrap(head + outer[0] + "[", outer[1], "]" + tail, indent)
        head, tail = head + "(", ")" + tail
    inside = indent + INDENT
    if len(inside + inner) <= LINE_LENGTH or _is_quoted(inner) or " | " not in inner:
        return [f"{indent}{head}", inside + inner, f"{indent}{tail.lstrip()}"]
    parts = inner.split(" | ")
    return [
        f"{indent}{head}",
        inside + parts[0],
        *(f"{inside}| {part}" for part in parts[1:]),
        f"{indent}{tail.lstrip()}",
    ]


def _subscript(text: str) -> tuple[str, str] | None:
    """``("list", "A | B")`` for ``list[A | B]``: a name subscripted by the whole rest."""
    start = text.find("[")
    if start <= 0 or not text[:start].isidentifier() or not text.endswith("]"):
        return None
    depth = 0
    for index, char in enumerate(text[start:], start):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth == 0 and index != len(text) - 1:
            return None
    return text[:start], text[start + 1 : -1]


def _wrap_items(head: str, items: list[str], tail: str) -> list[str]:
    """A bracketed list on one line, inside the brackets, or one item a line as ruff does."""
    lines = _wrap(head, ", ".join(items), tail)
    if all(len(line) <= LINE_LENGTH for line in lines):
        return lines
    return [head, *(f"{INDENT}{item}," for item in items), tail]


def _field(writer: _Writer, prop: Prop, indent: str, functional: bool) -> list[str]:
    annotation = writer.runtime(prop.type)
    lines = []
    if prop.deprecated is not None and functional:
        reason = " ".join(prop.deprecated.split())
        lines.append(f"{indent}# Deprecated: {reason}")
    head = f"{json.dumps(prop.name)}: " if functional else f"{prop.name}: "
    tail = "," if functional else ""
    if prop.optional:
        lines += _wrap(head + "NotRequired[", annotation, "]" + tail, indent)
    elif functional:
        lines += _wrap(head, annotation, tail, indent)
    else:
        lines += _wrap(head, annotation, "", indent)
    if (prop.doc or prop.deprecated is not None) and not functional:
        # An attribute docstring: editors show it, and it costs nothing at run time.
        lines.append(indent + docstring(prop.doc, prop.deprecated, LINE_LENGTH - len(indent)))
    return lines


def _struct(writer: _Writer, node: Node) -> list[str]:
    if any(not _is_field_name(p.name) for p in node.props):
        lines = [f"# {node.doc[3:-3]}", f"{node.name} = TypedDict(", f'    "{node.name}",', "    {"]
        for prop in node.props:
            lines += _field(writer, prop, INDENT * 2, functional=True)
        lines += ["    },", ")"]
        return lines
    lines = [
        *_wrap_items(f"class {node.name}(", node.bases or ["TypedDict"], "):"),
        INDENT + node.doc,
    ]
    if node.props:
        lines.append("")
    for prop in node.props:
        lines += _field(writer, prop, INDENT, functional=False)
    return lines


def _alias(writer: _Writer, node: Node) -> list[str]:
    assert node.type is not None
    value = writer.runtime(node.type)
    if _is_quoted(value):
        writer.quoted_aliases.add(node.name)
    return [*_wrap(f"{node.name}: TypeAlias = ", value, ""), node.doc]


def _enumeration(spec: Mapping[str, Any], value_alias: str) -> list[str]:
    name = spec["name"]
    doc = summary(spec.get("documentation")) or f"The values of the ``{name}`` enumeration."
    lines = [f"class {name}:", INDENT + docstring(doc, spec.get("deprecated"), LINE_LENGTH - 4), ""]
    values = []
    for value in spec["values"]:
        member = value["name"] if _is_field_name(value["name"]) else value["name"] + "_"
        if not member.isidentifier():
            raise GenerationError(f"{name}: value name {value['name']} is not an identifier")
        literal = json.dumps(value["value"])
        values.append(literal)
        lines.append(f"{INDENT}{member}: Final = {literal}")
        if value.get("documentation"):
            text = summary(value["documentation"])
            lines.append(INDENT + docstring(text, None, LINE_LENGTH - len(INDENT)))
    base = BASE_TYPES[spec["type"]["name"]]
    custom = bool(spec.get("supportsCustomValues"))
    alias = base if custom else None
    what = f"any ``{base}``" if custom else "one of its values"
    lines += ["", ""]
    if alias is None:
        lines += _wrap_items(f"{value_alias}: TypeAlias = Literal[", values, "]")
    else:
        lines.append(f"{value_alias}: TypeAlias = {alias}")
    lines.append(docstring(f"The type of a ``{name}`` value: {what}.", None, LINE_LENGTH))
    return lines


_HEADER = '''\
"""The types of the Language Server Protocol 3.17, as ``TypedDict`` classes and aliases.

GENERATED by scripts/generate_types.py from the LSP metaModel (metaModel.json,
version {version}, sha256 {digest}).
Do not edit: change the generator and run it again.

How the metaModel is represented (nothing here does work at run time beyond defining types):

- A structure is a ``TypedDict``; ``extends`` and ``mixins`` are its bases, and an optional
  property is ``NotRequired``. A structure that narrows an inherited property (``CreateFile``
  narrows ``ResourceOperation.kind``) or has a property that is not a Python name
  (``CallHierarchyIncomingCall.from``) lists all its keys instead.
- An inline object type is a ``TypedDict`` named after its place: ``ServerCapabilitiesWorkspace``
  is the ``workspace`` property of ``ServerCapabilities``; ``...TypeN`` is the Nth inline
  object of a union, ``...Item`` the element of an array.
- An enumeration is a plain class of ``Final`` constants, ``MarkupKind.Markdown == "markdown"``
  and ``DiagnosticSeverity.Error == 1``, with ``<Name>Value`` naming the type of its values:
  the ``Literal`` of the values for a closed enumeration (``MarkupKindValue``), ``str`` or
  ``int`` for one that allows custom values (``CodeActionKindValue``). Properties are typed
  with the ``Value`` alias, so a constant and a plain literal are both accepted. A value name
  that is a Python keyword takes a trailing ``_`` (``TextDocumentSyncKind.None_``).
- A type alias is a ``TypeAlias``; ``LSPAny``, ``LSPObject`` and ``LSPArray`` are recursive.
- ``DocumentUri`` and ``URI`` are ``str``, ``decimal`` is ``float``.
- Each definition, property and enumeration value has the first sentence of its
  documentation as a one-line docstring, marked when the metaModel deprecates it.

The annotations are evaluated on import (no ``from __future__ import annotations``) so that
``__required_keys__`` and ``__optional_keys__`` are right at run time; the few that refer to a
type defined further down are quoted.
"""

import sys
from typing import Final, Literal, TypeAlias

if sys.version_info >= (3, 11):
    from typing import NotRequired, TypedDict
else:
    from typing_extensions import NotRequired, TypedDict

'''


def render(meta_model: Mapping[str, Any], digest: str) -> str:
    """The text of ``lsp_types.py`` for a parsed metaModel whose file has this sha256."""
    version = meta_model.get("metaData", {}).get("version", "unknown")
    model = _Model(meta_model)
    blocks: list[list[str]] = []
    names: list[str] = []
    for name in sorted(model.enumerations):
        blocks.append(_enumeration(model.enumerations[name], model.value_aliases[name]))
        names += [name, model.value_aliases[name]]
    writer = _Writer()
    writer.defined.update(model.value_aliases.values())
    for node in model.order():
        blocks.append(_struct(writer, node) if node.kind == "struct" else _alias(writer, node))
        writer.defined.add(node.name)
        names.append(node.name)
    public = sorted(n for n in names if not n.startswith("_"))
    parts = [_HEADER.format(version=version, digest=digest), "__all__ = [\n"]
    parts += [f"    {json.dumps(n)},\n" for n in public]
    parts.append("]\n")
    for block in blocks:
        parts.append("\n\n" + "\n".join(block) + "\n")
    return "".join(parts)


def render_file(meta_model_path: Path) -> str:
    """The text of ``lsp_types.py`` generated from the metaModel file at this path."""
    return metamodel_generator.render_file(render, meta_model_path)


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check``, compare) the generated module; return the exit status."""
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
