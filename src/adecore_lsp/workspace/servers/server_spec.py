"""One language server's description: how to start it and what it is known to do on the
wire (:class:`ServerSpec`), checked field by field when it is made.

The registry (:mod:`.registry`) holds the packaged specs and chooses among them; this module
is only the value, so that the rest of the workspace can name a spec without the registry's
disk lookups.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import PurePath
from typing import Any, NoReturn

from ...protocol.workspace.config_programs import PROGRAM_READERS
from ...protocol.workspace.roots import check_policy, markers
from ...protocol.workspace.scope_readers import READERS

# Internal to the library: adecore_lsp and the registry re-export ServerSpec.
__all__: list[str] = []

READINESS_SOURCES = ("server_status", "progress", "registration", "none")
INTERPRETER_SOURCES = (".venv", "venv above", "VIRTUAL_ENV", "CONDA_PREFIX", "PATH")
"""Where a server finds the Python interpreter it starts by itself: its root's ``.venv``;
the ``.venv``, ``venv`` or ``env`` of its root or of the nearest folder above it (pyrefly's
names); the environment ``VIRTUAL_ENV`` or ``CONDA_PREFIX`` names; the first ``python3`` or
``python`` on ``PATH``."""
INTERPRETER_PLACES = ("settings.", "initialization_options.")

_LIST_FIELDS = (
    "command",
    "root_markers",
    "sidecars",
    "notes",
    "executables",
    "version_command",
    "status_progress",
    "data_settings",
    "interpreter_sources",
    "files_listed_logs",
)
_STR_MAP_FIELDS = ("languages", "format_languages", "env")
_BOOL_FIELDS = (
    "pull_diagnostics",
    "folder_per_configuration",
    "indexes_root",
    "quiet_when_unchanged",
    "empty_configuration",
    "settings_at_start",
    "notebook_cell_pulls",
    "notebook_cell_pushes_final",
    "notebook_version_pushes",
    "ipython",
    "navigation_waits",
    "interpreter_per_project",
)
NOTEBOOK_MODES = ("sync", "joined")
NOTEBOOK_SUFFIX = ".ipynb"
_STR_FIELDS = ("install", "description", "readiness")


def copy_json(value: Any) -> Any:
    """A copy of nested dicts and lists (other values are shared: they are immutable in JSON)."""
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [copy_json(item) for item in value]
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
    quiet_when_unchanged: bool = False
    """The server pushes nothing when a document's report would equal the last one it sent
    for it (gopls): once it has been quiet for ``settle`` after a change, that report stands
    for the new text (``protocol.workspace.finality``, "Quiet when unchanged")."""
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
    ``"pyright"``, ``"pyrefly"``, ``"ty"``, ``"ruff"`` or ``"tsconfig"``; ``None`` for a
    server that takes every file and decides itself."""
    roots: str = "nearest"
    """How the server takes a tree of several packages, as measured (``docs/guide.md``,
    "Roots"): ``"repository"`` (one process for the whole repository), ``"workspace"`` (one
    per workspace file: ``root_markers`` are tiers, the first found above a file wins),
    ``"configuration"`` (one per folder holding the server's configuration, which
    ``root_markers`` name) or ``"nearest"`` (the nearest folder holding a root marker)."""
    folder_per_configuration: bool = False
    """A server of the whole repository that must be told of each folder holding its
    configuration (``root_markers``) as a workspace folder before a file of it is opened
    (ruff: otherwise the file gets the settings of the folder above it, whose exclusions
    may leave a nested project out: its file is then linted by no one)."""
    format_languages: dict[str, str] = field(default_factory=dict)
    """Files the server formats and is given for nothing else, as ``languages`` names them:
    ruff formats the Python code blocks of Markdown (``{".md": "markdown"}``), as ``ruff
    format`` does and ``ruff check`` does not lint. Only formatting opens them, and only
    where the server registers formatting for their language."""
    files_listed_logs: list[str] = field(default_factory=list)
    """Patterns (``fnmatch``'s ``*`` and ``?``) of the ``window/logMessage`` by which the
    server says it has listed its project's files (basedpyright: ``Found * source file*``).
    Given, no file is opened in a started server before such a message came (or
    :data:`~adecore_lsp.workspace.servers.files_listed.FILES_LISTED_WAIT` passed): basedpyright
    1.40 takes a file opened before its listing for a document of the editor alone, which
    leaves the project once closed, and renames its symbols in that file alone."""
    navigation_waits: bool = False
    """The server answers from the lone file until its project has loaded
    (typescript-language-server: a definition is the import line for seconds): a question
    about a place waits for its readiness first."""
    interpreter: str | None = None
    """Where the server takes the Python interpreter it starts to learn a project's search
    paths, as a dotted key under ``settings`` or ``initialization_options``
    (``settings.python.pythonPath``): in a root that is not trusted the server is given one
    of adecore-lsp's there when the one it would start lies inside the root
    (:mod:`.interpreters`); ``None`` for a server that starts none."""
    interpreter_paths: str | None = None
    """Where the server takes extra search paths (``settings.pylsp.plugins.jedi.extra_paths``):
    given, the interpreter of :attr:`interpreter` holds nothing of the project's
    environment, whose folders go here instead (jedi imports compiled modules found on its
    interpreter's path, and none found on extra paths)."""
    interpreter_sources: list[str] = field(default_factory=list)
    """Where the server finds the interpreter it starts by itself, in its order, as
    measured (:data:`INTERPRETER_SOURCES`)."""
    interpreter_per_project: bool = False
    """The server also finds an interpreter for each project below its root (pyrefly: the
    environment of each configuration's folder, or of each file's, and above): where a
    folder it reaches is not trusted, it is given an interpreter always (ours, or the one
    its root would start when that one is the user's), so that none of those is started."""
    config_programs: str | None = None
    """The server's own configurations may name programs it runs (pyrefly's
    ``python-interpreter-path``: :mod:`adecore_lsp.protocol.workspace.config_programs`),
    and no client setting wins over them: the name of their reader. The server is not
    started while such a configuration lies in a folder it reaches that is not trusted."""
    data_settings: list[str] = field(default_factory=list)
    """The settings a root that is not trusted may give the server: dotted keys
    (``python.analysis.typeCheckingMode``), ``KEY.*`` admitting every key below ``KEY``.
    Only values that name no program, and no place to read or write, are listed (as VS
    Code's restricted mode keeps such settings); every other setting of such a root is
    ignored and named (``safety.md``)."""

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
            self._set(name, copy_json(dict(value)))
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
        for name in ("interpreter", "interpreter_paths"):
            place = getattr(self, name)
            if place is not None and not (
                isinstance(place, str)
                and place.startswith(INTERPRETER_PLACES)
                and all(place.split("."))
            ):
                self._fail(name, "a dotted key under settings. or initialization_options.", place)
        for source in self.interpreter_sources:
            if source not in INTERPRETER_SOURCES:
                self._fail(
                    "interpreter_sources", f"some of {', '.join(INTERPRETER_SOURCES)}", source
                )
        for key in self.data_settings:
            bare = key.removesuffix(".*")
            if "*" in bare or bare.startswith(".") or bare.endswith(".") or ".." in bare:
                self._fail("data_settings", 'dotted keys, a last ".*" admitting a table', key)
        if self.config_programs is not None and self.config_programs not in PROGRAM_READERS:
            readers = ", ".join(PROGRAM_READERS)
            self._fail("config_programs", f"one of {readers} or absent", self.config_programs)
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
        return _by_extension(self.languages, name)

    def format_language_id(self, path: str | os.PathLike[str]) -> str | None:
        """The ``languageId`` of ``path`` among the files this server only formats
        (:attr:`format_languages`), or ``None``; matched as :meth:`language_id` matches."""
        if not self.format_languages:
            return None
        name = _name(path)
        return self.format_languages.get(name) or _by_extension(self.format_languages, name)

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
        self._set("diagnostics_probe", copy_json(dict(probe)))

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


def _by_extension(languages: Mapping[str, str], name: str) -> str | None:
    """The language of the longest extension of ``name`` in ``languages``."""
    dot = name.find(".", 1)
    while dot != -1:
        found = languages.get(name[dot:])
        if found is not None:
            return found
        dot = name.find(".", dot + 1)
    return None


def _name(path: str | os.PathLike[str]) -> str:
    """The last part of a path, as ``PurePath(path).name`` gives it (its parsing costs more
    than the lookups it feeds, and a check asks for every file)."""
    if isinstance(path, PurePath):
        return path.name
    text = os.fspath(path)
    if os.name != "nt" and "/" not in text:
        return "" if text == "." else text
    return PurePath(text).name
