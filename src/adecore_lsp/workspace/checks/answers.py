"""The last final answer of each server for each file's text: the side "before" of the next
edit, without asking the server again (``changes.md``, "before without asking again").

A check that finished for a file keeps, per server, the digest of the text it checked and
the findings. The next edit takes them as the file's findings before it when the file still
holds that text and nothing it imports changed since: a change the workspace sees on disk,
or writes itself, forgets the answers of the changed files and of their dependents
(:class:`~adecore_lsp.workspace.tree_imports.TreeImports`), and a check that did not reach a
file leaves it forgotten. A pull server's answer and a push server's last final push are
kept alike (the check made them final either way).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from ..model import Diagnostic, DiagnosticsReport

# Internal to the library: nothing here is public API.
__all__: list[str] = []


def digest(text: str) -> bytes:
    """What an answer keeps of the text it is for."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


@dataclass(frozen=True)
class Answer:
    """One server's final findings for the text whose digest is ``digest``."""

    digest: bytes
    findings: tuple[Diagnostic, ...]


class Answers:
    """The answers kept, by file (as the workspace shows it) and server id."""

    def __init__(self) -> None:
        self._kept: dict[str, dict[str, Answer]] = {}

    def __len__(self) -> int:
        return sum(len(answers) for answers in self._kept.values())

    def keep(
        self, shown: str, text: str, servers: Iterable[str], findings: Iterable[Diagnostic]
    ) -> None:
        """Keep the findings of a check of ``shown`` holding ``text`` that every server of
        ``servers`` finished (a server with no findings is kept too: nothing was found)."""
        key = digest(text)
        by_server: dict[str, list[Diagnostic]] = {server: [] for server in servers}
        for item in findings:
            if item.server in by_server:
                by_server[item.server].append(item)
        kept = self._kept.setdefault(shown, {})
        for server, items in by_server.items():
            kept[server] = Answer(key, tuple(items))

    def keep_report(
        self,
        report: DiagnosticsReport,
        texts: dict[str, str],
        servers: dict[str, Collection[str]],
    ) -> None:
        """Keep the answers of every file of ``report`` that finished, whose text (by
        shown path) is in ``texts`` and whose servers are in ``servers``."""
        by_path: dict[str, list[Diagnostic]] = {}
        for item in report.items:
            by_path.setdefault(item.path, []).append(item)
        for shown, status in report.files.items():
            text = texts.get(shown)
            if status.complete and text is not None and shown in servers:
                self.keep(shown, text, servers[shown], by_path.get(shown, []))

    def known(self, shown: str, text: str, servers: Collection[str]) -> list[Diagnostic] | None:
        """The findings of ``shown`` holding ``text`` from each of ``servers``, or ``None``
        when one of them has no answer kept for that text."""
        kept = self._kept.get(shown)
        if kept is None or not servers:
            return None
        key = digest(text)
        found: list[Diagnostic] = []
        for server in servers:
            answer = kept.get(server)
            if answer is None or answer.digest != key:
                return None
            found.extend(answer.findings)
        return found

    def paths(self) -> list[str]:
        """The files with answers kept."""
        return list(self._kept)

    def forget(self, shown: Iterable[str]) -> None:
        """Forget every answer about the files ``shown``."""
        for path in shown:
            self._kept.pop(path, None)

    def forget_all(self) -> None:
        self._kept.clear()
