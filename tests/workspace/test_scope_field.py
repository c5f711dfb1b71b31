"""The registry names whose configuration decides each server's scope."""

from __future__ import annotations

import pytest

from adecore_lsp import Registry, ServerSpec


def test_the_registry_names_each_checkers_scope_reader() -> None:
    registry = Registry.default()
    readers = {spec.id: spec.scope for spec in registry}
    assert readers["basedpyright"] == "basedpyright"
    assert readers["pyright"] == "pyright"
    assert readers["pyrefly"] == "pyrefly"
    assert readers["ty"] == "ty"
    assert readers["typescript-language-server"] == "tsconfig"
    assert readers["tsc"] == "tsconfig"
    assert readers["ruff"] == "ruff"


def test_an_unknown_scope_reader_is_refused_naming_the_field() -> None:
    with pytest.raises(ValueError, match=r"scope must be one of basedpyright, pyright"):
        ServerSpec("mine", ["mine"], scope="mypy")
    assert ServerSpec("mine", ["mine"], scope="ty").scope == "ty"
