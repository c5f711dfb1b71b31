"""Answer a ``workspace/configuration`` item from the settings the application gave.

The rule, for an item's ``section``:

- no section (absent, ``null`` or empty): all the settings;
- a key of the settings spelled exactly like the section (``"python.analysis"`` as one key):
  its value;
- else the dotted path (``"python.analysis"`` as ``settings["python"]["analysis"]``): its
  value;
- else ``null``.

``scopeUri`` does not change the answer; an application that scopes settings answers with
``on_configuration`` instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


def configuration_value(settings: Mapping[str, Any] | None, section: object) -> Any:
    """The value for one configuration item's ``section`` under the rule above."""
    if settings is None:
        return None if section else {}
    if not section:
        return settings
    if not isinstance(section, str):
        return None
    if section in settings:
        return settings[section]
    value: Any = settings
    for part in section.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value
