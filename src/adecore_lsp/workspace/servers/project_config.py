"""A project's own choice of language servers: ``adecore-lsp.toml`` or ``[tool.adecore-lsp]``.

This module reads and checks the file's shape; :meth:`Registry.for_project` applies it. It is
an implementation detail of the registry and exports nothing.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    # tomli is installed only on 3.10, so a type check for 3.10 on a newer Python may miss it.
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

from ...protocol.workspace.jsonc import TOO_DEEP

__all__: list[str] = []

PROJECT_FILE = "adecore-lsp.toml"
PYPROJECT_FILE = "pyproject.toml"
TOP_LEVEL_FIELDS = ("server", "servers")


@dataclass(frozen=True)
class ProjectConfig:
    """What one project's configuration file says, its shape checked.

    ``prefix`` is where the table sits in the file (``"tool.adecore-lsp"`` in a
    ``pyproject.toml``, ``""`` at the top of an ``adecore-lsp.toml``), for error messages.
    """

    path: Path
    prefix: str
    servers: list[str] | None
    server_tables: dict[str, dict[str, Any]]

    def key(self, name: str) -> str:
        """The dotted TOML key of ``name`` in this file, e.g. ``tool.adecore-lsp.servers``."""
        return f"{self.prefix}.{name}" if self.prefix else name


def read_project_config(root: str | os.PathLike[str]) -> ProjectConfig | None:
    """The configuration of the project at ``root``, or ``None`` if it has none.

    ``adecore-lsp.toml`` is the explicit file: when it exists, ``pyproject.toml`` is not read.

    Raises:
        ValueError: the file is not valid TOML, has an unknown top-level field, or a field of
            the wrong type; the message names the file and the field.
    """
    explicit = Path(root) / PROJECT_FILE
    if explicit.is_file():
        return _check(explicit, "", load_toml(explicit))
    pyproject = Path(root) / PYPROJECT_FILE
    if not pyproject.is_file():
        return None
    tool = load_toml(pyproject).get("tool")
    table = tool.get("adecore-lsp") if isinstance(tool, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ValueError(f"{pyproject}: tool.adecore-lsp must be a table, not {table!r}")
    return _check(pyproject, "tool.adecore-lsp", table)


def restrict_untrusted(
    config: ProjectConfig, data_settings: Mapping[str, Sequence[str]]
) -> tuple[ProjectConfig, list[str]]:
    """What an untrusted root's configuration may say, and what it said beyond that.

    ``data_settings`` holds, for each registry server by id, the settings that are data
    (``ServerSpec.data_settings``). Only ``servers`` (ids the registry knows) and those
    settings of registry servers are kept: a ``command``, ``env``, ``initialization_options``
    or any other field could start a program or change how one starts, and so could a
    setting that names one (``python.pythonPath``). The second value names each ignored
    field and setting by its TOML key, each ignored server by id, and each id dropped from
    ``servers``.
    """
    ignored: list[str] = []
    tables: dict[str, dict[str, Any]] = {}
    for server_id, table in config.server_tables.items():
        where = f"[{config.key(f'server.{server_id}')}]"
        if server_id not in data_settings:
            ignored.append(f"the server {server_id} ({where})")
            continue
        ignored.extend(f"{where} {name}" for name in table if name != "settings")
        settings = table.get("settings")
        if isinstance(settings, dict):
            kept, left_out = split_settings(settings, data_settings[server_id])
            base = config.key(f"server.{server_id}.settings")
            ignored.extend(_toml_key(base, path) for path in left_out)
            if kept:
                tables[server_id] = {"settings": kept}
    servers = config.servers
    if servers is not None:
        dropped = [server for server in servers if server not in data_settings]
        ignored.extend(f"{server} in {config.key('servers')}" for server in dropped)
        servers = [server for server in servers if server in data_settings]
    return ProjectConfig(config.path, config.prefix, servers, tables), ignored


def split_settings(
    settings: dict[str, Any], admitted: Sequence[str], above: tuple[str, ...] = ()
) -> tuple[dict[str, Any], list[tuple[str, ...]]]:
    """The part of ``settings`` that ``admitted`` keys (``ServerSpec.data_settings``) let
    through, and the key path of each value left out (every leaf of a table left out)."""
    kept: dict[str, Any] = {}
    left_out: list[tuple[str, ...]] = []
    for name, value in settings.items():
        path = (*above, name)
        dotted = ".".join(path)
        if any(
            key == dotted or (key.endswith(".*") and dotted.startswith(key[:-1]))
            for key in admitted
        ):
            kept[name] = value
        elif isinstance(value, dict) and value:
            inner, inner_out = split_settings(value, admitted, path)
            if inner:
                kept[name] = inner
            left_out.extend(inner_out)
        else:
            left_out.append(path)
    return kept, left_out


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _toml_key(table: str, path: tuple[str, ...]) -> str:
    """A setting's place as a person finds it in the file: ``[table.python] pythonPath``."""
    parts = [part if _BARE_KEY.fullmatch(part) else json.dumps(part) for part in path]
    return f"[{'.'.join([table, *parts[:-1]])}] {parts[-1]}"


def deep_merge(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``changes`` applied: tables merge key by key, any other value replaces."""
    merged = dict(base)
    for key, value in changes.items():
        old = merged.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            merged[key] = deep_merge(old, value)
        else:
            merged[key] = value
    return merged


def load_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            data: dict[str, Any] = tomllib.load(file)
            return data
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML: {exc}") from exc
    except RecursionError:
        raise ValueError(f"{path}: not valid TOML: {TOO_DEEP}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot be read: {exc}") from exc


def _check(path: Path, prefix: str, table: dict[str, Any]) -> ProjectConfig:
    config = ProjectConfig(path, prefix, None, {})
    for name in table:
        if name not in TOP_LEVEL_FIELDS:
            where = f"[{prefix}]" if prefix else "the top level"
            raise ValueError(
                f"{path}: unknown field {config.key(name)!r} in {where}; "
                f"known fields: {', '.join(TOP_LEVEL_FIELDS)}"
            )
    servers = table.get("servers")
    if servers is not None and (
        not isinstance(servers, list) or not all(isinstance(item, str) for item in servers)
    ):
        raise ValueError(
            f"{path}: {config.key('servers')} must be a list of server ids, not {servers!r}"
        )
    server_tables = table.get("server", {})
    if not isinstance(server_tables, dict):
        raise ValueError(
            f"{path}: {config.key('server')} must hold one table per server, not {server_tables!r}"
        )
    for server_id, server_table in server_tables.items():
        if not isinstance(server_table, dict):
            raise ValueError(
                f"{path}: {config.key(f'server.{server_id}')} must be a table of fields, "
                f"not {server_table!r}"
            )
    return ProjectConfig(path, prefix, servers, server_tables)
