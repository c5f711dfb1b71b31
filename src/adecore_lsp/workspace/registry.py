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
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path, PurePath
from typing import Any, NoReturn

import orjson

from ..errors import ServerNotFoundError
from ..protocol.workspace.roots import check_policy, markers
from ..protocol.workspace.scope_readers import READERS
from . import executables
from .executables import (
    executable,
    in_scripts_folder,
    inside,
    local_bin_dirs,
    on_path,
)
from .project_config import ProjectConfig, deep_merge, read_project_config, restrict_untrusted

__all__ = ["Registry", "ServerSpec"]

READINESS_SOURCES = ("server_status", "progress", "registration", "none")

_LIST_FIELDS = (
    "command",
    "root_markers",
    "sidecars",
    "notes",
    "executables",
    "version_command",
    "status_progress",
)
_STR_MAP_FIELDS = ("languages", "env")
_BOOL_FIELDS = (
    "pull_diagnostics",
    "indexes_root",
    "empty_configuration",
    "settings_at_start",
    "notebook_cell_pulls",
    "notebook_cell_pushes_final",
    "notebook_version_pushes",
    "ipython",
    "navigation_waits",
)
NOTEBOOK_MODES = ("sync", "joined")
NOTEBOOK_SUFFIX = ".ipynb"
_STR_FIELDS = ("install", "description", "readiness")


def _copy_json(value: Any) -> Any:
    """A copy of nested dicts and lists (other values are shared: they are immutable in JSON)."""
    if isinstance(value, dict):
        return {key: _copy_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_copy_json(item) for item in value]
    return value


@dataclass(frozen=True)
class ServerSpec:
    """How to start one language server, and what it is known to do on the wire.

    ``command`` is an argv list, run without a shell; ``languages`` maps a file extension
    (``".py"``) or an exact file name (``"CMakeLists.txt"``) to the LSP ``languageId``. The other
    fields are hints the workspace acts on (see ``servers.json`` for what each server measured).
    The spec is frozen and copies what it is given; change a field with ``dataclasses.replace``.
    ``executables`` are paths relative to a project's root tried before ``command[0]`` is looked
    up; ``{platform}``, ``{arch}`` (Node's names, e.g. ``linux``, ``x64``) and ``{exe}``
    (``.exe`` on Windows) in them are filled in.

    Raises:
        ValueError: a field has the wrong type or value; the message names the field and the id.
    """

    id: str
    command: list[str]
    languages: dict[str, str] = field(default_factory=dict)
    root_markers: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    initialization_options: dict[str, Any] | None = None
    env: dict[str, str] = field(default_factory=dict)
    install: str = ""
    pull_diagnostics: bool = False
    settle: float = 0.3
    readiness: str = "progress"
    ready_registration: str | None = None
    progress_grace: float = 1.0
    status_progress: list[str] = field(default_factory=list)
    """Titles of work-done progress the server keeps open as a status, not for work
    (gopls' "Error loading workspace", open while its workspace does not load): neither its
    readiness nor the finality of its reports waits for them to end."""
    indexes_root: bool = False
    sidecars: list[str] = field(default_factory=list)
    empty_configuration: bool = False
    settings_at_start: bool = False
    """The server reads ``settings`` from ``initializationOptions.settings`` (ruff), not
    only from ``workspace/configuration``: they are sent there too."""
    position_encodings: list[str] | None = None
    shutdown_timeout: float | None = None
    description: str = ""
    notes: list[str] = field(default_factory=list)
    executables: list[str] = field(default_factory=list)
    version_command: list[str] = field(default_factory=list)
    """The argv that prints the server's version where its ``serverInfo`` has none
    (``basedpyright --version``); its program is looked for beside the server's own only."""
    notebooks: str | None = None
    """How the server takes Jupyter notebooks: ``"sync"`` (LSP notebook synchronisation),
    ``"joined"`` (one document of the code cells), or ``None``: notebooks of the languages
    it takes, by sync when the server announces it, else joined."""
    notebook_cell_pulls: bool = True
    """Whether the server's pull answers for notebook cells are real (basedpyright answers
    cell pulls with empty reports: its cells' diagnostics are taken from its pushes)."""
    notebook_cell_pushes_final: bool = False
    """Whether the server pushes each notebook cell's whole report, versioned, once it has
    analysed the notebook (ruff): such a push is final at once, and cells are pulled only
    when one stays silent (a pull of one cell makes ruff lint the whole notebook again)."""
    notebook_version_pushes: bool = False
    """Whether the server's report for a notebook cell carries the notebook's version, not
    the cell's own (ruff: after a change of one cell, every cell's report names the
    notebook's new version; basedpyright and ty name each cell's): each cell's reports are
    then expected at the notebook's version."""
    ipython: bool = True
    """Whether the server reads IPython-only lines (``%magic``, ``!cmd``) in a cell; one that
    does not gets them blank."""
    diagnostics_probe: dict[str, Any] | None = None
    """How to ask a server that stays silent when a file's diagnostics stay as they were:
    ``{"command": ..., "arguments": [[...], ...], "empty": key}``: one
    ``workspace/executeCommand`` per arguments list (``{path}`` in a string is the file's
    path); when the answer of each holds an empty list under ``empty``, the file has no
    diagnostics (typescript-language-server's ``typescript.tsserverRequest``)."""
    scope: str | None = None
    """Whose configuration decides the files a check of a folder gives the server, as its
    command line would check them there (``docs/cli.md``, "Scope"): ``"basedpyright"``,
    ``"pyright"``, ``"pyrefly"``, ``"ty"`` or ``"tsconfig"``; ``None`` for a server that
    takes every file and decides itself (ruff skips what its own configuration excludes)."""
    roots: str = "nearest"
    """How the server takes a tree of several packages, as measured (``docs/guide.md``,
    "Roots"): ``"repository"`` (one process for the whole repository), ``"workspace"`` (one
    per workspace file: ``root_markers`` are tiers, the first found above a file wins),
    ``"configuration"`` (one per folder holding the server's configuration, which
    ``root_markers`` name) or ``"nearest"`` (the nearest folder holding a root marker)."""
    navigation_waits: bool = False
    """The server answers from the lone file until its project has loaded
    (typescript-language-server: a definition is the import line for seconds): a question
    about a place waits for its readiness first."""

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"a server's id must be a non-empty str, not {self.id!r}")
        for name in _LIST_FIELDS:
            value = getattr(self, name)
            if name == "version_command" and not value:
                self._set(name, [])
                continue
            self._set(name, self._str_list(name, value))
        if not self.command:
            raise ValueError(f"server {self.id!r}: command must not be empty")
        if self.position_encodings is not None:
            self._set(
                "position_encodings",
                self._str_list("position_encodings", self.position_encodings),
            )
        for name in _STR_MAP_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, Mapping) or not all(
                isinstance(key, str) and key and isinstance(item, str)
                for key, item in value.items()
            ):
                self._fail(name, "a table of non-empty names to str", value)
            self._set(name, dict(value))
        for name in ("settings", "initialization_options"):
            value = getattr(self, name)
            if value is None and name == "initialization_options":
                continue
            if not isinstance(value, Mapping):
                self._fail(name, "a table", value)
            self._set(name, _copy_json(dict(value)))
        for name in _BOOL_FIELDS:
            if not isinstance(getattr(self, name), bool):
                self._fail(name, "true or false", getattr(self, name))
        for name in _STR_FIELDS:
            if not isinstance(getattr(self, name), str):
                self._fail(name, "a str", getattr(self, name))
        self._check_seconds("settle", self.settle, optional=False)
        self._check_seconds("progress_grace", self.progress_grace, optional=False)
        self._check_seconds("shutdown_timeout", self.shutdown_timeout, optional=True)
        if self.diagnostics_probe is not None:
            self._check_probe(self.diagnostics_probe)
        try:
            check_policy(self.roots)
        except ValueError as error:
            raise ValueError(f"server {self.id!r}: {error}") from None
        try:
            markers(self.root_markers)
        except ValueError as error:
            raise ValueError(f"server {self.id!r}: root_markers: {error}") from None
        if self.scope is not None and self.scope not in READERS:
            self._fail("scope", f"one of {', '.join(READERS)} or absent", self.scope)
        if self.notebooks is not None and self.notebooks not in NOTEBOOK_MODES:
            self._fail("notebooks", '"sync", "joined" or absent', self.notebooks)
        if self.readiness not in READINESS_SOURCES:
            self._fail("readiness", f"one of {', '.join(READINESS_SOURCES)}", self.readiness)
        if self.ready_registration is not None and not (
            isinstance(self.ready_registration, str) and self.ready_registration
        ):
            self._fail("ready_registration", "a method name", self.ready_registration)
        if self.readiness == "registration" and self.ready_registration is None:
            raise ValueError(
                f"server {self.id!r}: readiness 'registration' needs ready_registration, "
                "the method whose registration marks the server ready"
            )

    def language_id(self, path: str | os.PathLike[str]) -> str | None:
        """The ``languageId`` this server takes ``path`` as, or ``None`` if it does not take it.

        The exact file name wins (``CMakeLists.txt``; ``.bashrc`` names a file too), then the
        longest extension (``a.d.ts`` tries ``.d.ts``, then ``.ts``). Matching is
        case-sensitive, as servers are: ``.C`` is C++ and ``.c`` is C. A bare ``.h`` is ``"c"``
        for clangd and ccls, because that is what the clang driver assumes of a header without
        compile flags.
        """
        name = _name(path)
        found = self.languages.get(name)
        if found is not None:
            return found
        if name.endswith(NOTEBOOK_SUFFIX) and len(name) > len(NOTEBOOK_SUFFIX):
            # A notebook, of Python unless its kernel says otherwise (known once it is read).
            return "python" if "python" in self.languages.values() else None
        dot = name.find(".", 1)
        while dot != -1:
            found = self.languages.get(name[dot:])
            if found is not None:
                return found
            dot = name.find(".", dot + 1)
        return None

    def _check_probe(self, probe: object) -> None:
        expected = 'a table {command = "...", arguments = [[...]], empty = "key"}'
        if not isinstance(probe, Mapping) or set(probe) != {"command", "arguments", "empty"}:
            self._fail("diagnostics_probe", expected, probe)
        arguments = probe["arguments"]
        if (
            not isinstance(probe["command"], str)
            or not isinstance(probe["empty"], str)
            or not isinstance(arguments, list)
            or not arguments
            or not all(isinstance(item, list) for item in arguments)
        ):
            self._fail("diagnostics_probe", expected, probe)
        self._set("diagnostics_probe", _copy_json(dict(probe)))

    def _set(self, name: str, value: object) -> None:
        object.__setattr__(self, name, value)

    def _fail(self, name: str, expected: str, value: object) -> NoReturn:
        raise ValueError(f"server {self.id!r}: {name} must be {expected}, not {value!r}")

    def _str_list(self, name: str, value: object) -> list[str]:
        if isinstance(value, (list, tuple)) and all(
            isinstance(item, str) and item for item in value
        ):
            return list(value)
        self._fail(name, "a list of non-empty str", value)

    def _check_seconds(self, name: str, value: object, *, optional: bool) -> None:
        # ``not value >= 0`` also refuses NaN, which TOML can spell.
        if value is None and optional:
            return
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
            self._fail(name, "a number of seconds >= 0", value)


SPEC_FIELDS = frozenset(spec_field.name for spec_field in fields(ServerSpec))

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
    raw = resources.files("adecore_lsp.workspace").joinpath("servers.json").read_bytes()
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
        return cls(ServerSpec(**_copy_json(entry)) for entry in _default_data())

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

        In an untrusted root only ``servers`` (registry ids) and the ``settings`` of
        registry servers apply; the third value names what else the configuration said
        (each field by its TOML key, each server by id), empty for a trusted root.
        """
        config = read_project_config(root)
        if config is None:
            return self, None, []
        _check_fields(config)
        registry, servers = self._apply(config)  # a broken file is an error either way
        if trusted:
            return registry, servers, []
        config, ignored = restrict_untrusted(config, set(self._by_id))
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


def _name(path: str | os.PathLike[str]) -> str:
    """The last part of a path, as ``PurePath(path).name`` gives it (its parsing costs more
    than the lookups it feeds, and a check asks for every file)."""
    if isinstance(path, PurePath):
        return path.name
    text = os.fspath(path)
    if os.name != "nt" and "/" not in text:
        return "" if text == "." else text
    return PurePath(text).name
