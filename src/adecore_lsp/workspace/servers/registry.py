"""Which language servers exist, how to start them, and which one to prefer for a file.

The data lives in ``servers.json`` beside this module (data, not code: one fast parse when a
command line starts). Its order is the order of preference: for each language, the server that
checks the most comes first. Nothing here starts a process, downloads or installs anything:
:meth:`Registry.which` only looks at the disk, and :meth:`Registry.require` fails fast with the
server's install hint.
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
from collections.abc import Iterable, Iterator
from dataclasses import replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import orjson

from ...errors import ServerNotFoundError
from ..disk import executables
from ..disk.executables import (
    executable,
    in_scripts_folder,
    inside,
    local_bin_dirs,
    on_path,
)
from .project_config import ProjectConfig, deep_merge, read_project_config, restrict_untrusted
from .server_spec import SPEC_FIELDS, copy_json
from .server_spec import ServerSpec as ServerSpec

__all__ = ["Registry", "ServerSpec"]

# Node's names for the platform and the CPU, as npm packages of native binaries spell them.
_NODE_PLATFORMS = {"linux": "linux", "darwin": "darwin", "win32": "win32", "cygwin": "win32"}
_NODE_ARCHES = {
    "x86_64": "x64",
    "amd64": "x64",
    "aarch64": "arm64",
    "arm64": "arm64",
    "i386": "ia32",
    "i686": "ia32",
    "x86": "ia32",
    "armv7l": "arm",
}


def _node_platform() -> dict[str, str]:
    machine = platform.machine().lower()
    return {
        "platform": _NODE_PLATFORMS.get(sys.platform, sys.platform),
        "arch": _NODE_ARCHES.get(machine, machine),
        "exe": ".exe" if os.name == "nt" else "",
    }


def _check_fields(config: ProjectConfig) -> None:
    """Every field of every server table is one a ``ServerSpec`` has.

    Raises:
        ValueError: an unknown field, naming the file, the table and the field.
    """
    for server_id, table in config.server_tables.items():
        unknown = sorted(set(table) - (SPEC_FIELDS - {"id"}))
        if unknown:
            where = f"{config.path}: [{config.key(f'server.{server_id}')}]"
            hint = unknown[0].replace("-", "_")
            did_you_mean = f" (did you mean {hint!r}?)" if hint in SPEC_FIELDS else ""
            raise ValueError(
                f"{where}: unknown field {unknown[0]!r}{did_you_mean}; "
                f"known fields: {', '.join(sorted(SPEC_FIELDS - {'id'}))}"
            )


@lru_cache(maxsize=1)
def _default_data() -> tuple[dict[str, Any], ...]:
    """The packaged ``servers.json``, read and parsed once per process."""
    raw = resources.files("adecore_lsp.workspace.servers").joinpath("servers.json").read_bytes()
    data = orjson.loads(raw)
    return tuple(data["servers"])


class Registry:
    """Language servers in order of preference, looked up by id or by file.

    A registry never changes once built; :meth:`for_project` returns a new one. Ids are unique.

    Raises:
        ValueError: two specs share an id, or an item is not a :class:`ServerSpec`.
    """

    def __init__(self, specs: Iterable[ServerSpec] = ()) -> None:
        self._specs: tuple[ServerSpec, ...] = tuple(specs)
        self._by_id: dict[str, ServerSpec] = {}
        for spec in self._specs:
            if not isinstance(spec, ServerSpec):
                raise ValueError(f"a registry holds ServerSpec objects, not {spec!r}")
            if spec.id in self._by_id:
                raise ValueError(f"two servers have the id {spec.id!r}")
            self._by_id[spec.id] = spec
        # The specs taking a file, by what decides it: its name where some spec names it
        # exactly, else the extensions from its first dot (a check asks for every file).
        self._names = {name for spec in self._specs for name in spec.languages}
        self._taking: dict[str, tuple[ServerSpec, ...]] = {}

    @classmethod
    def default(cls) -> Registry:
        """The packaged registry: a new ``Registry`` of new specs on each call.

        The data file is parsed once per process; each call copies it, so changing what one
        caller got (its specs' dicts, say) cannot reach another.
        """
        return cls(ServerSpec(**copy_json(entry)) for entry in _default_data())

    @property
    def ids(self) -> list[str]:
        """Every server's id, in order of preference."""
        return [spec.id for spec in self._specs]

    def __iter__(self) -> Iterator[ServerSpec]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def __contains__(self, item: object) -> bool:
        """``"ruff" in registry`` by id; a :class:`ServerSpec` is in it if its id holds it."""
        if isinstance(item, ServerSpec):
            return self._by_id.get(item.id) == item
        return isinstance(item, str) and item in self._by_id

    def __repr__(self) -> str:
        return f"Registry({self.ids!r})"

    def get(self, server_id: str) -> ServerSpec:
        """The server with this id.

        Raises:
            ValueError: no server has this id; the message lists the known ids.
        """
        spec = self._by_id.get(server_id)
        if spec is None:
            known = ", ".join(self._by_id) or "none"
            raise ValueError(f"no language server has the id {server_id!r}; known ids: {known}")
        return spec

    def taking(self, name: str) -> tuple[ServerSpec, ...]:
        """The specs that take a file named ``name`` (a name, not a path), in order."""
        dot = name.find(".", 1)
        key = name if name in self._names else ("" if dot == -1 else name[dot:])
        known = self._taking.get(key)
        if known is None:
            known = tuple(spec for spec in self._specs if spec.language_id(name) is not None)
            self._taking[key] = known
        return known

    def for_path(
        self,
        path: str | os.PathLike[str],
        root: str | os.PathLike[str] | None = None,
        *,
        trusted: bool | None = None,
    ) -> list[ServerSpec]:
        """The servers that take this file: installed ones first, each group in preference order.

        "Installed" means :meth:`which` finds the executable (looking in ``root``'s own
        environments too); the first element is the server a workspace starts by default.
        """
        installed: list[ServerSpec] = []
        missing: list[ServerSpec] = []
        for spec in self._specs:
            if spec.language_id(path) is not None:
                found = self.which(spec, root, trusted=trusted)
                (missing if found is None else installed).append(spec)
        return installed + missing

    def which(
        self,
        spec: ServerSpec | str,
        root: str | os.PathLike[str] | None = None,
        *,
        trusted: bool | None = None,
    ) -> str | None:
        """The absolute path of the executable that starts ``spec``, or ``None``.

        For a trusted ``root`` (``trusted``; ``None``: as the trust store and
        ``ADECORE_LSP_TRUST`` say, see ``safety.md``), in this order: an absolute
        ``command[0]``; the spec's ``executables`` under ``root``; a ``command[0]`` with a
        ``/`` in it, relative to ``root`` (or the working directory); ``root/.venv/bin``
        (``.venv\\Scripts`` on Windows); ``root/node_modules/.bin``; ``PATH``; then the
        scripts folder of the running Python's environment (where ``pip install
        "adecore-lsp[python]"`` put ruff). For an untrusted root nothing inside it is ever
        the answer: only ``PATH`` (its entries inside the root skipped) and the scripts
        folder, wherever it lies. Run it in place of ``command[0]``. Nothing is cached: a
        server installed meanwhile is found on the next call. ``spec`` may be given by id.
        """
        spec = self._spec(spec)
        base = Path(root) if root is not None else None
        if base is not None and trusted is None:
            from .trust import is_trusted

            trusted = is_trusted(base)
        if base is None or trusted is not False:
            found = self.local_executable(spec, base)
            if found is not None:
                return found
            program = spec.command[0]
            if os.path.isabs(program) or "/" in program or os.sep in program:
                return None
            return on_path(program, None) or in_scripts_folder(program)
        program = spec.command[0]
        if os.path.isabs(program):
            found = executable(Path(program))
            return None if found is None or inside(found, base) else found
        if "/" in program or os.sep in program:
            return None  # relative to the root: inside it
        return on_path(program, base) or in_scripts_folder(program)

    def local_executable(
        self, spec: ServerSpec | str, root: str | os.PathLike[str] | None
    ) -> str | None:
        """What :meth:`which` finds for a trusted ``root`` before ``PATH``: an absolute
        ``command[0]``, the spec's ``executables``, a relative ``command[0]``, the root's
        ``.venv/bin`` and ``node_modules/.bin``; ``None`` when none of them is there."""
        spec = self._spec(spec)
        program = spec.command[0]
        if os.path.isabs(program):
            return executable(Path(program))
        base = Path(root) if root is not None else None
        if base is not None and spec.executables:
            names = _node_platform()
            for relative in spec.executables:
                found = executable(base / relative.format_map(names))
                if found is not None:
                    return found
        if "/" in program or os.sep in program:
            return executable((base or Path.cwd()) / program)
        if base is not None:
            for folder in local_bin_dirs(base):
                found = shutil.which(program, path=str(folder))
                if found is not None:
                    return os.path.abspath(found)
        return None

    def inside_root(self, spec: ServerSpec | str, root: str | os.PathLike[str]) -> str | None:
        """The executable inside ``root`` that a trusted root would start for ``spec``, as a
        path relative to the root (``.venv/bin/ruff``), or ``None``: what an untrusted root
        ignores."""
        spec = self._spec(spec)
        found = self.local_executable(spec, root)
        program = spec.command[0]
        if found is None and not (os.path.isabs(program) or "/" in program or os.sep in program):
            found = on_path(program, None)
        if found is None or not inside(found, Path(root)):
            return None
        return os.path.relpath(found, os.path.abspath(root))

    def require(
        self,
        spec: ServerSpec | str,
        root: str | os.PathLike[str] | None = None,
        *,
        trusted: bool | None = None,
    ) -> str:
        """The executable of ``spec`` (see :meth:`which`); no process is started.

        Raises:
            ServerNotFoundError: it is not installed; the message names the server, where it
                was looked for and its install hint.
            ValueError: ``spec`` is an id that no server has.
        """
        spec = self._spec(spec)
        found = self.which(spec, root, trusted=trusted)
        if found is not None:
            return found
        program = spec.command[0]
        if root is not None and trusted is None:
            from .trust import is_trusted

            trusted = is_trusted(root)
        if root is not None and not trusted:
            held = self.inside_root(spec, root)
            if held is not None:
                from .trust import ADVICE

                raise ServerNotFoundError(
                    spec.id,
                    spec.install,
                    detail=f"only {held} has it, inside a root that is not trusted; {ADVICE}",
                )
        scripts = executables.scripts_folder() or "adecore-lsp's own environment"
        if os.path.isabs(program) or "/" in program or os.sep in program:
            detail = f"{program} is not an executable file"
        elif root is None or not trusted:
            detail = f"no {program} on PATH or in {scripts}"
        else:
            places = ", ".join(str(folder) for folder in local_bin_dirs(Path(root)))
            detail = f"no {program} in {places}, on PATH or in {scripts}"
        raise ServerNotFoundError(spec.id, spec.install, detail=detail)

    def for_project(
        self, root: str | os.PathLike[str], *, trusted: bool = True
    ) -> tuple[Registry, list[str] | None]:
        """This registry with a project's configuration applied, and its ``servers`` list.

        Read from ``root/adecore-lsp.toml`` (top level) if it exists, else from
        ``[tool.adecore-lsp]`` of ``root/pyproject.toml``; the explicit file wins and the other
        is then not read. A ``[...server.<id>]`` table of a known id replaces the fields it
        names, except ``settings``, which is merged into the registry's deeply (tables merge,
        other values replace). A table of a new id adds a server (``command`` required) ahead
        of the registry's own, in the file's order: the project asked for it, so it is preferred
        for its languages. The list is ``None`` when the project names no ``servers``; with no
        configuration at all this registry itself is returned.

        Raises:
            ValueError: the TOML does not parse, a field is unknown or of the wrong type, or
                ``servers`` names an unknown server; the message names the file and the field.
        """
        registry, servers, _ignored = self.project(root, trusted=trusted)
        return registry, servers

    def project(
        self, root: str | os.PathLike[str], *, trusted: bool
    ) -> tuple[Registry, list[str] | None, list[str]]:
        """:meth:`for_project`, for a root that is trusted or not, with what was ignored.

        In an untrusted root only ``servers`` (registry ids) and the settings each registry
        server's ``data_settings`` admit apply; the third value names what else the
        configuration said (each field and setting by its TOML key, each server by id),
        empty for a trusted root.
        """
        config = read_project_config(root)
        if config is None:
            return self, None, []
        _check_fields(config)
        registry, servers = self._apply(config)  # a broken file is an error either way
        if trusted:
            return registry, servers, []
        data = {spec.id: spec.data_settings for spec in self._specs}
        config, ignored = restrict_untrusted(config, data)
        registry, servers = self._apply(config)
        return registry, servers, ignored

    def _apply(self, config: ProjectConfig) -> tuple[Registry, list[str] | None]:
        specs = list(self._specs)
        added: list[ServerSpec] = []
        for server_id, table in config.server_tables.items():
            where = f"{config.path}: [{config.key(f'server.{server_id}')}]"
            try:
                if server_id in self._by_id:
                    base = self._by_id[server_id]
                    changes = dict(table)
                    if "settings" in changes:
                        if not isinstance(changes["settings"], dict):
                            raise ValueError(
                                f"server {server_id!r}: settings must be a table, "
                                f"not {changes['settings']!r}"
                            )
                        changes["settings"] = deep_merge(base.settings, changes["settings"])
                    specs[specs.index(base)] = replace(base, **changes)
                elif "command" not in table:
                    raise ValueError(f"server {server_id!r} is new here, so it needs a command")
                else:
                    added.append(ServerSpec(id=server_id, **table))
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from exc
        registry = Registry(added + specs)
        if config.servers is not None:
            where = f"{config.path}: {config.key('servers')}"
            for index, server_id in enumerate(config.servers):
                if server_id not in registry:
                    known = ", ".join(registry.ids)
                    raise ValueError(
                        f"{where} names {server_id!r}, which no server has; known ids: {known}"
                    )
                if server_id in config.servers[:index]:
                    raise ValueError(f"{where} names {server_id!r} twice")
        return registry, config.servers

    def _spec(self, spec: ServerSpec | str) -> ServerSpec:
        return self.get(spec) if isinstance(spec, str) else spec
