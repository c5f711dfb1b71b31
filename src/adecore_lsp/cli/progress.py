"""The servers' ``$/progress`` on stderr: bars with ``rich`` on a terminal, otherwise at
most one plain line per server per phase (``server: title message``), nothing with
``--quiet`` or ``--no-progress``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..environment import getenv
from .output import Output, one_line

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []


class _Silent:
    def progress(self, server: str, params: Any) -> None:
        pass

    def close(self) -> None:
        pass


class _Lines:
    """At most one line per phase of a server's work, where a phase is one progress token
    from its ``begin`` to its ``end``: ``server: title message``, said once the phase has
    something to say (its ``begin``, else its first ``report`` with a message). A log is
    read after the fact, so what changes within a phase (percentages, counts going down)
    is left out, and a phase saying what an earlier one of the same server said (pyright's
    many one-file analyses, ``1 file to analyze``) is not said again."""

    def __init__(self, output: Output) -> None:
        self._output = output
        self._phases: dict[tuple[str, object], str] = {}
        """The open phases not yet said, by server and token: their titles."""
        self._said: dict[str, set[str]] = {}

    def progress(self, server: str, params: Any) -> None:
        value = params.get("value") if isinstance(params, Mapping) else None
        if not isinstance(value, Mapping):
            return
        key = (server, params.get("token"))
        kind = value.get("kind")
        if kind == "begin":
            self._phases[key] = str(value.get("title") or "")
        elif kind == "end":
            self._phases.pop(key, None)
            return
        if key not in self._phases:
            return  # said already, or a report of a phase whose begin was not seen
        title = self._phases[key]
        text = one_line(" ".join(part for part in (title, str(value.get("message") or "")) if part))
        if not text:
            return  # nothing to say yet: said at the first report with a message
        del self._phases[key]
        said = self._said.setdefault(server, set())
        if text in said:
            return
        said.add(text)
        self._output.err.write(f"{server}: {text}\n")
        self._output.err.flush()

    def close(self) -> None:
        pass


class _Bars:
    """A ``rich`` bar per progress token, on a terminal."""

    def __init__(self, output: Output) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn

        # The caller's width: the daemon's stderr is a socket, with no size of its own.
        columns = getenv("COLUMNS") or ""
        console = Console(
            file=output.err,
            no_color=not output.colour,
            width=int(columns) if columns.isdigit() and int(columns) > 0 else None,
        )
        self._bars = Progress(
            TextColumn("{task.description}"), BarColumn(), console=console, transient=True
        )
        self._tasks: dict[tuple[str, object], Any] = {}
        self._bars.start()

    def progress(self, server: str, params: Any) -> None:
        value = params.get("value") if isinstance(params, Mapping) else None
        if not isinstance(value, Mapping):
            return
        key = (server, params.get("token"))
        percentage = value.get("percentage")
        done = percentage if isinstance(percentage, (int, float)) else None
        text = one_line(f"{server}: {value.get('title') or ''} {value.get('message') or ''}")
        if value.get("kind") == "begin":
            self._tasks[key] = self._bars.add_task(text, total=100 if done is not None else None)
        task = self._tasks.get(key)
        if task is None:
            return
        if value.get("kind") == "end":
            self._bars.remove_task(task)
            del self._tasks[key]
            return
        self._bars.update(task, description=text, completed=done)

    def close(self) -> None:
        self._bars.stop()


def progress_printer(output: Output, *, enabled: bool) -> _Silent | _Lines | _Bars:
    """What shows progress for this run."""
    if not enabled:
        return _Silent()
    if output.colour or (output.err.isatty() if hasattr(output.err, "isatty") else False):
        try:
            return _Bars(output)
        except ImportError:
            pass
    return _Lines(output)
