"""Trust: a repository never runs what it names until its owner says so.

A root is trusted when the caller says so (``--trust``, ``Workspace(trust=True)``), when
``ADECORE_LSP_TRUST=1``, or when ``adecore-lsp trust DIR`` recorded it in the trust store and
its configuration has not changed since. The store, ``$XDG_CONFIG_HOME/adecore-lsp/
trusted.json`` (else ``~/.config/adecore-lsp/trusted.json``), written ``0600``, keeps each
root's real path with a SHA-256 of its configuration: the canonical JSON (sorted keys) of
its ``pyproject.toml`` ``[tool.adecore-lsp]`` table and the bytes of its ``adecore-lsp.toml``.
An untrusted root's configuration is cut down to what cannot run anything (see
:mod:`.project_config`), and no executable inside it is started (see :mod:`.registry`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
from pathlib import Path
from typing import Any

import orjson

from ...environment import getenv, home
from .project_config import PROJECT_FILE, PYPROJECT_FILE, load_toml

# Internal to the library: Workspace(trust=...) and `adecore-lsp trust` are its faces.
__all__: list[str] = []

ENVIRONMENT = "ADECORE_LSP_TRUST"
ADVICE = "run `adecore-lsp trust` in the project (or pass --trust) to allow them"


def store_path() -> Path:
    """Where the trust store lives."""
    base = getenv("XDG_CONFIG_HOME") or os.path.join(home(), ".config")
    return Path(base) / "adecore-lsp" / "trusted.json"


def real_root(root: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.path.expanduser(os.fspath(root)))


def config_digest(root: str | os.PathLike[str]) -> str:
    """The SHA-256 of a root's configuration as it is now (a missing file counts as such).

    A ``pyproject.toml`` that does not parse counts by its bytes, so that a broken file is
    never mistaken for an absent one.
    """
    folder = Path(root)
    table: Any = None
    pyproject = folder / PYPROJECT_FILE
    if pyproject.is_file():
        try:
            tool = load_toml(pyproject).get("tool")
        except ValueError:
            table = {"unparsed": hashlib.sha256(pyproject.read_bytes()).hexdigest()}
        else:
            table = tool.get("adecore-lsp") if isinstance(tool, dict) else None
    explicit = folder / PROJECT_FILE
    explicit_digest = None
    if explicit.is_file():
        explicit_digest = hashlib.sha256(explicit.read_bytes()).hexdigest()
    canonical = orjson.dumps(
        {"pyproject": table, PROJECT_FILE: explicit_digest},
        option=orjson.OPT_SORT_KEYS,
        default=str,  # TOML dates and times
    )
    return hashlib.sha256(canonical).hexdigest()


def _load() -> dict[str, str]:
    """The store's roots: real path -> configuration digest (empty if there is no store)."""
    try:
        data = orjson.loads(store_path().read_bytes())
    except FileNotFoundError:
        return {}
    except (OSError, orjson.JSONDecodeError):
        return {}  # an unreadable store trusts nothing
    roots = data.get("roots") if isinstance(data, dict) else None
    found: dict[str, str] = {}
    for entry in roots if isinstance(roots, list) else ():
        if isinstance(entry, dict):
            path, digest = entry.get("path"), entry.get("sha256")
            if isinstance(path, str) and isinstance(digest, str):
                found[path] = digest
    return found


def _save(roots: dict[str, str]) -> None:
    path = store_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    body = orjson.dumps(
        {"version": 1, "roots": [{"path": p, "sha256": d} for p, d in sorted(roots.items())]},
        option=orjson.OPT_INDENT_2,
    )
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(body + b"\n")
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def is_trusted(root: str | os.PathLike[str], trust: bool | None = None) -> bool:
    """Whether ``root`` is trusted: ``trust`` when it is a bool, else the environment or
    the store (recorded with the same configuration as now)."""
    if trust is not None:
        return trust
    if getenv(ENVIRONMENT) == "1":
        return True
    real = real_root(root)
    recorded = _load().get(real)
    return recorded is not None and recorded == config_digest(real)


def add(root: str | os.PathLike[str]) -> str:
    """Record ``root`` as trusted with its configuration as it is now; its real path."""
    real = real_root(root)
    if not os.path.isdir(real):
        raise ValueError(f"{root}: not a folder")
    roots = _load()
    roots[real] = config_digest(real)
    _save(roots)
    return real


def remove(root: str | os.PathLike[str]) -> str:
    """Forget ``root``; its real path.

    Raises:
        ValueError: the store does not hold it.
    """
    real = real_root(root)
    roots = _load()
    if real not in roots:
        raise ValueError(f"{real} is not trusted (`adecore-lsp trust --list` shows those that are)")
    del roots[real]
    _save(roots)
    return real


def listed() -> list[str]:
    """The real paths the store holds, sorted."""
    return sorted(_load())
