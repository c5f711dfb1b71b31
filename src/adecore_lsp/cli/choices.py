"""What a command line chose: its servers (``--server`` ids, a ``--command`` spec) and its
root (``--root``, else the repository the first path lies in, see :func:`chosen_root`),
every path taken from the caller's current folder."""

from __future__ import annotations

import argparse
import functools
import shlex
from pathlib import Path

from ..protocol.workspace.roots import Marker
from ..workspace.servers.disk_tree import DiskTree, folders_up, repository_of
from ..workspace.servers.registry import Registry, ServerSpec
from .common import cwd_of

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


def paths_given(args: argparse.Namespace) -> list[str]:
    """The file arguments of the command, a target's file included, as given."""
    given: list[str] = []
    for name in ("paths", "file"):
        value = getattr(args, name, None)
        if isinstance(value, list):
            given.extend(value)
        elif isinstance(value, str):
            given.append(value)
    target = getattr(args, "target", None)
    if isinstance(target, str):
        from ..protocol.workspace.targets import PositionTarget, SymbolTarget, parse_target

        try:
            parsed = parse_target(target)
        except ValueError:
            return given  # the command itself says what is wrong with the target
        if isinstance(parsed, (PositionTarget, SymbolTarget)):
            given.append(parsed.path)
    return given


@functools.lru_cache(maxsize=1)
def default_registry() -> Registry:
    """The packaged registry, made once a process: the daemon chooses every command's
    servers from it (a registry never changes once built, and nothing here changes a spec)."""
    return Registry.default()


def chosen_servers(args: argparse.Namespace) -> tuple[list[str | ServerSpec] | None, Registry]:
    """The servers the command line chose (``--server`` ids, a ``--command`` spec), or
    ``None``."""
    registry = default_registry()
    specs: list[str | ServerSpec] = list(args.servers or [])
    if args.command:
        argv = shlex.split(args.command)
        if not argv:
            raise ValueError("--command names no program")
        specs.append(
            ServerSpec(
                id=Path(argv[0]).name,
                command=argv,
                languages=_command_languages(args, registry),
                install=f"make {argv[0]} runnable (it is given with --command)",
            )
        )
    return (specs or None), registry


def _command_languages(args: argparse.Namespace, registry: Registry) -> dict[str, str]:
    """What a ``--command`` server takes: every file given, by the registry's language id for
    its extension (a file without one: its name), else ``plaintext``; for a folder, or no
    path at all, the files whose extension or name the registry knows."""
    languages: dict[str, str] = {}
    folders = False
    cwd = cwd_of(args)
    given = paths_given(args)
    for path in given:
        if (cwd / path).is_dir():
            folders = True
            continue
        name = Path(path).name
        key = Path(path).suffix or name
        found = [language for spec in registry if (language := spec.language_id(name))]
        languages.setdefault(key, found[0] if found else "plaintext")
    if folders or not given:
        for spec in registry:
            for key, language in spec.languages.items():
                languages.setdefault(key, language)
    return languages


def chosen_root(
    args: argparse.Namespace, registry: Registry, specs: list[str | ServerSpec] | None
) -> Path:
    """``--root``, else the repository the first path (or here) lies in: the outermost
    folder holding a workspace file (a uv workspace, npm or pnpm workspaces, a TypeScript
    solution, a go.work, a Cargo workspace) up to the nearest ``.git``, else the folder of
    that ``.git``; outside any repository, the nearest folder from there up that holds a
    root marker of the chosen server, else that folder. A command gives the same places
    from the repository's root and from inside one of its packages."""
    cwd = cwd_of(args)
    if args.root:
        root = cwd / Path(args.root).expanduser()
        if not root.is_dir():
            raise ValueError(f"--root {args.root}: not a folder")
        return root.resolve()
    given = paths_given(args)
    first = (cwd / given[0]).resolve() if given else cwd
    start = first if first.is_dir() else first.parent
    repository = repository_of(start)
    if repository is not None:
        return repository
    if specs is not None:
        markers = [m for spec in specs for m in _spec(registry, spec).root_markers]
    else:
        found = registry.for_path(str(first)) if given and not first.is_dir() else []
        markers = found[0].root_markers if found else ["pyproject.toml", "adecore-lsp.toml", ".git"]
    # The project's folder: a file a marker names counts whatever it holds (a bare
    # pyproject.toml is a project, if not ruff's configuration).
    names = [Marker(Marker.parse(marker).name) for marker in markers]
    tree = DiskTree()
    for folder in folders_up(start):
        if any(marker.found_in(folder, tree) for marker in names):
            return Path(folder)
    return start


def _spec(registry: Registry, spec: str | ServerSpec) -> ServerSpec:
    """A chosen server's spec: an id's from the registry (a project's own id has no markers
    there: it counts as none)."""
    if isinstance(spec, ServerSpec):
        return spec
    return registry.get(spec) if spec in registry else ServerSpec(spec, [spec])
