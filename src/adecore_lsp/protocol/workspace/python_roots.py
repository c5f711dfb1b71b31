"""The source roots of a Python tree: the folders absolute imports are looked for in.

Each project of the tree (the root, and every folder holding a ``pyproject.toml``,
``setup.py``, ``setup.cfg`` or ``pyrightconfig.json``) gives its own folder and its ``src``
folder, then the paths its configuration declares, relative to it:

- pyright and basedpyright: ``extraPaths``, and each of ``executionEnvironments``' ``root``
  and ``extraPaths`` (``pyrightconfig.json``, ``[tool.pyright]``, ``[tool.basedpyright]``);
- ty: ``[environment] root`` and ``extra-paths`` (``ty.toml``, ``[tool.ty]``);
- pyrefly: ``search-path`` (``pyrefly.toml``, ``[tool.pyrefly]``);
- mypy: ``mypy_path`` (``[tool.mypy]``);
- the build backends: setuptools' ``package-dir`` and ``packages.find.where``
  (``[tool.setuptools]``, ``setup.cfg``'s ``package_dir``), hatch's wheel ``packages`` and
  ``sources``, poetry's ``packages`` ``from``.

A configuration that cannot be read gives no paths (the project's folder and ``src`` still
count). Sans-I/O: texts come through the caller's ``read``.
"""

from __future__ import annotations

import configparser
import posixpath
from collections.abc import Callable, Iterable
from typing import Any

from . import jsonc
from .scope import Read, load_toml

# Internal to the library: nothing here is public API.
__all__: list[str] = []

PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "pyrightconfig.json")
"""The files that make a folder a Python project (a source root of its own)."""

CONFIG_FILES = ("pyproject.toml", "setup.cfg", "pyrightconfig.json", "ty.toml", "pyrefly.toml")
"""The files whose change may move the source roots."""


def _strings(value: Any) -> list[str]:
    """A string, or the strings of a list; anything else gives nothing."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _pyright(table: Any) -> list[str]:
    found = _strings(_get(table, "extraPaths"))
    environments = _get(table, "executionEnvironments")
    for environment in environments if isinstance(environments, list) else []:
        found += _strings(_get(environment, "root")) + _strings(_get(environment, "extraPaths"))
    return found


def _ty(table: Any) -> list[str]:
    return _strings(_get(table, "environment", "root")) + _strings(
        _get(table, "environment", "extra-paths")
    )


def _pyrefly(table: Any) -> list[str]:
    return _strings(_get(table, "search-path")) + _strings(_get(table, "search_path"))


def _backends(tool: Any) -> list[str]:
    found: list[str] = []
    package_dir = _get(tool, "setuptools", "package-dir")
    if isinstance(package_dir, dict):
        found += _strings(package_dir.get(""))
    found += _strings(_get(tool, "setuptools", "packages", "find", "where"))
    wheel = _get(tool, "hatch", "build", "targets", "wheel")
    for package in _strings(_get(wheel, "packages")):
        found.append(posixpath.dirname(package.rstrip("/")) or ".")
    sources = _get(wheel, "sources")
    if isinstance(sources, dict):
        found += [key for key, value in sources.items() if value == ""]
    packages = _get(tool, "poetry", "packages")
    for package in packages if isinstance(packages, list) else []:
        found += _strings(_get(package, "from"))
    for mypy_path in _strings(_get(tool, "mypy", "mypy_path")):
        found += [part.strip() for part in mypy_path.replace(":", ",").split(",") if part.strip()]
    return found


def _pyproject(data: dict[str, Any]) -> list[str]:
    tool = data.get("tool")
    return [
        *_pyright(_get(tool, "pyright")),
        *_pyright(_get(tool, "basedpyright")),
        *_ty(_get(tool, "ty")),
        *_pyrefly(_get(tool, "pyrefly")),
        *_backends(tool),
    ]


def _setup_cfg(text: str) -> list[str]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    value = parser.get("options", "package_dir", fallback="")
    found = []
    for line in value.replace(";", "\n").splitlines():
        key, _equals, folder = line.partition("=")
        if _equals and not key.strip() and folder.strip():
            found.append(folder.strip())
    return found


def declared(folder: str, read: Read) -> list[str]:
    """The source roots the configuration files of the project in ``folder`` declare, as
    written (relative to ``folder``, or absolute)."""
    found: list[str] = []
    readers: tuple[tuple[str, Callable[[str, str], list[str]]], ...] = (
        ("pyproject.toml", lambda text, where: _pyproject(load_toml(text, where))),
        ("pyrightconfig.json", lambda text, where: _pyright(jsonc.loads(text))),
        ("ty.toml", lambda text, where: _ty(load_toml(text, where))),
        ("pyrefly.toml", lambda text, where: _pyrefly(load_toml(text, where))),
        ("setup.cfg", lambda text, where: _setup_cfg(text)),
    )
    for name, reader in readers:
        path = f"{folder}/{name}"
        try:
            text = read(path)
            if text is not None:
                found += reader(text, path)
        except ValueError:
            continue
    return found


def python_roots(
    root: str, projects: Iterable[str], read: Read, is_folder: Callable[[str], bool]
) -> tuple[str, ...]:
    """The source roots of the tree at ``root`` whose projects are in the folders
    ``projects`` (see the module's docstring): folders that exist, each once, in order."""
    found: list[str] = []
    for folder in dict.fromkeys([root, *projects]):
        for path in [".", "src", *declared(folder, read)]:
            absolute = posixpath.normpath(posixpath.join(folder, path))
            if is_folder(absolute):
                found.append(absolute)
    return tuple(dict.fromkeys(found))
