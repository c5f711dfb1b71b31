"""A check's plan: the files it covers and, for each, the servers whose own command line,
given the same paths, checks it (their scopes, :mod:`..servers.scopes`).

A check of the root or of a folder gives each file found there only to the servers whose
scope covers it (a server whose registry entry names no ``scope`` reader takes every file:
ruff decides itself); a file no server's scope covers is not checked but left out, with
why. A file named explicitly is checked by every server that takes it, as the servers'
command lines do.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import ServerNotFoundError
from ..servers.scopes import NAMED, Origin, Scopes

if TYPE_CHECKING:
    from .needs import CheckNeeds

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


@dataclass
class Plan:
    """The files a check covers: ``files`` in order; ``servers`` the ids of the servers
    that check a file when not every server that takes it does (a file absent from it goes
    to all of them); ``left_out`` the files no server checks, each with why (the
    configuration and key that leave it out); ``reasons`` how many files each server's
    configuration left out, by reason (also of files another server checks); ``notices``
    the configurations that could not be read; ``named`` the files named explicitly."""

    files: list[Path]
    servers: dict[Path, frozenset[str]] = field(default_factory=dict)
    left_out: dict[Path, str] = field(default_factory=dict)
    reasons: dict[str, int] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    named: frozenset[Path] = frozenset()

    def said(self) -> list[str]:
        """What the servers' configurations left out, a line per reason:
        ``2 files left out by ruff's configuration (pyproject.toml, extend-exclude)``."""
        return [
            f"{count} file{'s' * (count != 1)} {reason}" for reason, count in self.reasons.items()
        ]


def plan(
    ws: CheckNeeds,
    files: Sequence[Path],
    named: Collection[Path] = (),
    origins: Mapping[Path, Origin] | None = None,
) -> Plan:
    """The plan of a check of ``files`` (absolute, each once): each goes to the servers
    that take it and whose command line, run as the file was found (``origins``; a file
    in ``named`` was named itself, any other file was found by a walk of the root), checks
    it; a file no server checks is left out, saying why."""
    scopes = Scopes(ws.root)
    kept: list[Path] = []
    servers: dict[Path, frozenset[str]] = {}
    left_out: dict[Path, str] = {}
    reasons: dict[str, int] = {}
    explicit = set(named)
    walk = Origin(ws.root, given=False)
    named_origin = NAMED
    for path in files:
        origin = (origins or {}).get(path, named_origin if path in explicit else walk)
        try:
            specs = ws.server_choice.specs_for(path)
        except ServerNotFoundError:
            kept.append(path)  # the check says which server is missing
            continue
        ids: list[str] = []
        why: list[str] = []
        for spec in specs:
            reason = scopes.left_out(spec, path, origin)
            if reason is None:
                ids.append(spec.id)
                continue
            why.append(reason)
            reasons[reason] = reasons.get(reason, 0) + 1
        if not ids and specs:
            left_out[path] = "; ".join(why)
            continue
        if len(ids) < len(specs):
            servers[path] = frozenset(ids)
        kept.append(path)
    return Plan(kept, servers, left_out, reasons, scopes.notices(), frozenset(explicit))


def selection(
    ws: CheckNeeds, paths: Sequence[str | os.PathLike[str]] | None, here: Path | None = None
) -> tuple[list[Path], dict[Path, Origin], frozenset[Path]]:
    """The files ``paths`` stand for (files and folders, relative to the root or
    absolute; ``None``: the folder ``here`` when it lies inside the root, else the root),
    each once, with where each was found, and the files named themselves.

    Raises:
        ValueError: a path that does not exist, or a folder outside the root, naming it.
        ServerNotFoundError: a folder whose files only a server that is not installed
            would take.
    """
    origins: dict[Path, Origin] = {}
    start = ws.root
    if here is not None and here != ws.root and ws.root in here.parents:
        start = here
    if paths is None:
        found = ws.root_files(None if start == ws.root else start)
        origin = Origin(start, given=False, start=start)
        return found, dict.fromkeys(found, origin), frozenset()
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files: dict[Path, None] = {}
    named: set[Path] = set()
    for given in paths:
        full = ws.paths.absolute(given)
        for path in ws.files_of([given]):
            files.setdefault(path)
            if full.is_dir():
                origins.setdefault(path, Origin(full, start=start))
            else:
                named.add(path)
                origins.setdefault(path, Origin(None, start=start))
    return list(files), origins, frozenset(named)


def plan_of(
    ws: CheckNeeds, paths: Sequence[str | os.PathLike[str]] | None, here: Path | None = None
) -> Plan:
    """The plan of a check of ``paths`` (files and folders; ``None``: the folder ``here``
    inside the root, else the root): a folder stands for its files in the servers'
    scopes, a file for itself, as each server's command line given them."""
    files, origins, named = selection(ws, paths, here)
    return plan(ws, files, named, origins)
