"""``LspSession(...)``'s keywords and the fields of ``LspSessionOptions`` stay in step.

The specification makes the session's keywords the fields of the options dataclass: the same
names, in the same order, with the same defaults and types. A field added to one and not the
other, or a default changed in one place, fails here.

``process_id`` is the one deliberate difference: its field defaults to ``os.getpid()`` through
a ``default_factory``, which a signature cannot show, so ``LspSession`` takes a sentinel that
means "the options' default" (``None`` is a value a user may pass: no process id). The tests
check that sentinel explicitly, and that it gives the same value as the dataclass does.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import types
import typing
from typing import Any

import pytest

from adecore_lsp import LspSession, LspSessionOptions, create_memory_transport_pair

# Keywords whose signature default is a sentinel standing for the field's default_factory.
SENTINEL_DEFAULTS = frozenset({"process_id"})

FIELDS = {field.name: field for field in dataclasses.fields(LspSessionOptions)}
KEYWORDS = {
    name: parameter
    for name, parameter in inspect.signature(LspSession.__init__).parameters.items()
    if parameter.kind is inspect.Parameter.KEYWORD_ONLY
}


def field_default(field: dataclasses.Field[Any]) -> Any:
    """The value a field takes when it is not given: its default, or a fresh factory value."""
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    assert field.default is not dataclasses.MISSING, f"{field.name} has no default"
    return field.default


def union_members(annotation: Any) -> set[Any]:
    """The members of ``X | Y`` (or ``Optional``/``Union``), or the annotation alone."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return set(typing.get_args(annotation))
    return {annotation}


def test_keywords_are_the_fields_in_order() -> None:
    """Every field is a keyword of LspSession and every keyword a field, in the same order."""
    assert list(KEYWORDS) == list(FIELDS)


def test_the_only_positional_parameter_is_the_transport() -> None:
    """Besides self, LspSession takes the transport positionally and nothing else."""
    parameters = list(inspect.signature(LspSession.__init__).parameters.values())
    positional = [p.name for p in parameters if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    assert positional == ["self", "transport"]


@pytest.mark.parametrize("name", sorted(set(FIELDS) - SENTINEL_DEFAULTS))
def test_signature_default_is_the_field_default(name: str) -> None:
    """A keyword's default in the signature is the default of its field."""
    assert KEYWORDS[name].default == field_default(FIELDS[name])


@pytest.mark.parametrize("name", sorted(SENTINEL_DEFAULTS))
def test_sentinel_defaults_stand_for_a_default_factory(name: str) -> None:
    """process_id: the field has a factory; the keyword's default is a sentinel, not a value."""
    assert FIELDS[name].default_factory is not dataclasses.MISSING
    sentinel = KEYWORDS[name].default
    assert sentinel is not inspect.Parameter.empty
    assert sentinel is not None, "None must stay a value the user can pass"
    assert not isinstance(sentinel, int)


async def test_unset_keywords_give_the_dataclass_defaults() -> None:
    """LspSession(transport).options equals LspSessionOptions(): process_id is os.getpid()."""
    client, _server = create_memory_transport_pair()
    session = LspSession(client)
    assert session.options == LspSessionOptions()
    assert session.options.process_id == os.getpid()


async def test_process_id_none_is_kept() -> None:
    """Passing process_id=None gives None, not the default: the sentinel is distinct from it."""
    for given in (None, 4242):
        client, _server = create_memory_transport_pair()
        assert LspSession(client, process_id=given).options.process_id == given


def test_annotations_agree() -> None:
    """Each keyword is annotated with its field's type (plus the sentinel's type for process_id)."""
    keyword_types = typing.get_type_hints(LspSession.__init__)
    field_types = typing.get_type_hints(LspSessionOptions)
    for name in FIELDS:
        expected = union_members(field_types[name])
        actual = union_members(keyword_types[name])
        if name in SENTINEL_DEFAULTS:
            actual.discard(type(KEYWORDS[name].default))
        assert actual == expected, f"{name}: LspSession takes {actual}, the field is {expected}"
