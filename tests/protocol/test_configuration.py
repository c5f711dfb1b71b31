"""configuration_value: all, literal key, dotted path, or null."""

from __future__ import annotations

from typing import Any

import pytest

from adecore_lsp.protocol.wire.configuration import configuration_value

SETTINGS: dict[str, Any] = {
    "a": {"b": {"c": 1}, "list": [1, 2]},
    "a.b": "literal",
    "x": None,
}


@pytest.mark.parametrize(
    ("section", "expected"),
    [
        (None, SETTINGS),
        ("", SETTINGS),
        ("a", SETTINGS["a"]),
        ("a.b", "literal"),
        ("a.b.c", 1),
        ("a.list", [1, 2]),
        ("a.list.0", None),
        ("x", None),
        ("x.y", None),
        ("missing", None),
        ("a..b", None),
        (5, None),
    ],
)
def test_sections(section: object, expected: Any) -> None:
    """Each section resolves by the documented rule."""
    assert configuration_value(SETTINGS, section) == expected


def test_no_settings() -> None:
    """Without settings, all is {} and any section is null."""
    assert configuration_value(None, None) == {}
    assert configuration_value(None, "css") is None
