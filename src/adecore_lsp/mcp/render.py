"""The short text of each tool's result, for hosts that show a model text only.

The same facts as the structured result, one line per item, and a last line that says how
much was shown and whether the answer is whole. An incomplete answer says so in words
("diagnostics of src/x.py did not finish within 30 s; ask again"), never as an empty list
that would read as clean.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..plain_text import escape_controls, one_line, shown_path
from ..workspace.model import FileStatus, cell_prefix
from .shapes import (
    DiagnosticList,
    DiagnosticShape,
    EditShape,
    FoundSymbolList,
    LocationList,
    PlanShape,
    ReferenceList,
    StatusList,
    SymbolList,
    SymbolShape,
)

# Internal to the library: nothing here is public API.
__all__: list[str] = []

SEVERITIES = ("error", "warning", "information", "hint")

FILES_NAMED = 10
"""An incomplete answer names this many of its files, then says how many more."""


def budget(text: str, max_chars: int) -> str:
    """``text`` within ``max_chars`` characters: cut at a line's end where one is near, and
    a last line saying how much was left out and how to get less."""
    if len(text) <= max_chars:
        return text
    note = (
        f"\n... cut here: {max_chars:,} of {len(text):,} characters of text shown (the "
        "structured result is whole up to its limit; ask with a smaller limit, a depth or "
        "fewer paths, or a larger max_chars)"
    )
    room = max(0, max_chars - len(note))
    cut = text.rfind("\n", 0, room)
    return text[: cut if cut > room // 2 else room] + note


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def why(reason: str | None, timeout: float) -> str:
    """The words for a reason an answer is not whole (after what it is about)."""
    if reason == "not_ready":
        return (
            f"came back empty while the language server was still getting ready (it was not "
            f"ready within {timeout:g} s); ask again in a moment"
        )
    if reason == "too_many_files":
        return (
            "may be partial: the root has more files than the workspace opens at once, so "
            "files beyond that were not looked at"
        )
    if reason == "other_roots":
        return (
            "may be partial: the language server of another package of the repository could "
            "not be asked (it failed or timed out), so its uses may be missing; ask again"
        )
    if reason == "server_crashed":
        return (
            "stopped: a language server crashed (it is started again on the next call); ask again"
        )
    if reason == "unsupported":
        return "could not be checked: no installed language server takes them"
    return f"did not finish within {timeout:g} s; ask again"


def names(paths: Sequence[str]) -> str:
    shown = ", ".join(paths[:FILES_NAMED])
    more = len(paths) - FILES_NAMED
    return shown + (f" and {more:,} more" if more > 0 else "")


def incomplete(what: str, complete: bool, reason: str | None, timeout: float) -> list[str]:
    """One line saying ``what`` is not whole and why, or nothing when it is."""
    if complete:
        return []
    return [f"INCOMPLETE: {what} {why(reason, timeout)}."]


def _diagnostic_line(item: DiagnosticShape) -> str:
    code = f" [{item['code']}]" if item["code"] is not None else ""
    return (
        f"{shown_path(item['path'])}:{cell_prefix(item['cell'])}{item['line']}:{item['column']}: "
        f"{item['severity']}: "
        f"{one_line(item['message'])}{code} ({item['server']})"
    )


def links_out(paths: list[str]) -> str:
    """The files a listing left out as links out of the root (never read, never checked)."""
    names = ", ".join(shown_path(path) for path in paths[:5]) + (", ..." if len(paths) > 5 else "")
    many = len(paths) != 1
    return (
        f"{plural(len(paths), 'file')} left out: {'links' if many else 'a link'} out of the "
        f"root, never read ({names})."
    )


def diagnostics(
    result: DiagnosticList,
    files: Mapping[str, FileStatus],
    min_severity: str,
    timeout: float,
    stopped: Sequence[str] = (),
) -> str:
    """The text of a ``diagnostics`` answer; ``stopped`` says why the wait stopped waiting
    for each server it gave up on (files ``"timeout"``), else the timeout is named."""
    lines = [_diagnostic_line(item) for item in result["items"]]
    counted = plural(len(files), "file")
    if not files and result.get("left_out"):
        lines.append("No file was checked: no server checks the files asked about (below).")
    elif result["total"] == 0 and result["complete"]:
        lines.append(f"No diagnostics of severity {min_severity} or above in {counted}.")
    elif result["total"] == 0:
        lines.append(f"No diagnostics known for {counted}: the answer is not whole (below).")
    else:
        by = dict.fromkeys(SEVERITIES, 0)
        for item in result["items"]:
            by[item["severity"]] += 1
        shown = ", ".join(plural(count, severity) for severity, count in by.items() if count)
        lines.append(f"{plural(result['total'], 'diagnostic')} in {counted} ({shown} shown).")
    if result["truncated"]:
        lines.append(
            f"Showing {len(result['items']):,} of {result['total']:,}, the most severe first; "
            "ask with a higher limit, a min_severity or fewer paths for the rest."
        )
    left_out: dict[str, list[str]] = {}
    for path, said in result.get("left_out", {}).items():
        left_out.setdefault(said, []).append(path)
    for said, paths in left_out.items():
        lines.append(f"NOT CHECKED: {names(paths)}: {escape_controls(said)}.")
    if result["complete"]:
        lines.append("Final for the files' current text.")
        return "\n".join(lines)
    grouped: dict[str | None, list[str]] = {}
    for path, status in files.items():
        if not status.complete:
            grouped.setdefault(status.reason, []).append(path)
    for reason, paths in grouped.items():
        if reason == "timeout" and stopped:
            because = f"are not final: {'; '.join(stopped)}; ask again"
        else:
            because = why(reason, timeout)
        lines.append(f"INCOMPLETE: diagnostics of {names(paths)} {because}.")
    if "timeout" in grouped or "server_crashed" in grouped:
        lines.append("Items shown for those files are the last ones known, maybe out of date.")
    return "\n".join(lines)


def locations(result: LocationList, what: str, target: str, timeout: float) -> str:
    lines = [
        f"{shown_path(item['path'])}:{cell_prefix(item['cell'])}{item['line']}:{item['column']}: "
        f"{escape_controls((item['text'] or '').strip())}"
        for item in result["items"]
    ]
    if not result["items"]:
        lines.append(f"No {what} found for {target}.")
    lines += incomplete(f"the {what} of {target}", result["complete"], result["reason"], timeout)
    return "\n".join(lines)


def references(result: ReferenceList, target: str, timeout: float) -> str:
    lines: list[str] = []
    for item in result["items"]:
        inside = f" in {item['container']}" if item["container"] else ""
        text = (item["text"] or "").strip()
        lines.append(
            f"{shown_path(item['path'])}:{cell_prefix(item['cell'])}{item['line']}:"
            f"{item['column']}{inside}: "
            f"{escape_controls(text)}"
        )
        for context in item.get("context", []):
            lines.append(f"    | {context}")
    if result["total"] == 0:
        lines.append(f"No references to {target} found.")
    else:
        lines.append(f"{plural(result['total'], 'reference')} to {target}.")
    if result["truncated"]:
        lines.append(f"Showing the first {len(result['items']):,}; ask with a higher limit.")
    lines += incomplete(
        f"the references to {target}", result["complete"], result["reason"], timeout
    )
    return "\n".join(lines)


def symbols(result: SymbolList, path: str, timeout: float) -> str:
    lines: list[str] = []

    shown = 0

    def show(item: SymbolShape, depth: int) -> None:
        nonlocal shown
        shown += 1
        name = escape_controls(item["name"])
        cell = "" if item["cell"] is None else f"cell {item['cell']}, "
        where = f"{cell}line {item['line']}"
        lines.append(f"{'  ' * depth}{item['kind']} {name}  ({where})  target {item['target']}")
        for child in item["children"]:
            show(child, depth + 1)

    for item in result["items"]:
        show(item, 0)
    if not result["items"]:
        lines.append(f"{shown_path(path)} has no symbols.")
    else:
        where = shown_path(path)
        lines.append(
            f"{plural(result['total'], 'symbol')} in {where}; name one by its target "
            f"({where}#Name, {where}#Class/method)."
        )
        if result["truncated"]:
            lines.append(
                f"TRUNCATED: {plural(shown, 'symbol')} of {result['total']:,} shown (the first "
                "ones, depth first); ask with depth: 1, or a larger limit, for the rest."
            )
    lines += incomplete(f"the outline of {path}", result["complete"], result["reason"], timeout)
    return "\n".join(lines)


def found(result: FoundSymbolList, query: str, timeout: float) -> str:
    lines = [
        f"{item['kind']} {item['name_path']}  target {item['target']}  "
        f"at {shown_path(item['path'])}:{cell_prefix(item['cell'])}{item['line']}:"
        f"{item['column']}"
        for item in result["items"]
    ]
    if result["total"] == 0:
        lines.append(f"No symbol matches {query!r}.")
    else:
        verb = "matches" if result["total"] == 1 else "match"
        lines.append(f"{plural(result['total'], 'symbol')} {verb} {query!r}.")
    if result["truncated"]:
        lines.append(f"Showing the first {len(result['items']):,}; ask with a higher limit.")
    lines += incomplete(f"the search for {query!r}", result["complete"], result["reason"], timeout)
    return "\n".join(lines)


def hover(markdown: str | None, target: str) -> str:
    if markdown is None or not markdown.strip():
        return f"No hover text for {target}."
    return markdown.rstrip("\n")


def _checked(checked: Sequence[str], not_reached: Sequence[str], changed: Sequence[str]) -> str:
    """Which files the check covered: the changed ones and how many depend on them."""
    others = [path for path in checked if path not in changed]
    line = f"Checked {plural(len(checked), 'file')}"
    if others:
        line += (
            f", {plural(len(others), 'file')} that depend{'s' if len(others) == 1 else ''} on it"
        )
    if not_reached:
        line += (
            f"; not reached in time: {names(list(not_reached))} (what the edit did there is "
            "not known)"
        )
    return line + "."


def _delta_lines(
    introduced: Sequence[DiagnosticShape],
    resolved: Sequence[DiagnosticShape],
    complete: bool,
    reason: str | None,
    timeout: float,
    *,
    written: bool,
    coverage: str | None = None,
) -> list[str]:
    """What an edit introduced and resolved (or would, for a preview), which files the
    check covered, and whether it finished."""
    lines: list[str] = [coverage] if coverage else []
    verb = "introduced" if written else "would introduce"
    if introduced:
        lines.append(f"It {verb} {plural(len(introduced), 'diagnostic')}:")
        lines += [_diagnostic_line(item) for item in introduced]
    elif complete:
        lines.append(f"It {verb} no diagnostics.")
    if resolved:
        lines.append(
            f"It {'resolved' if written else 'would resolve'} "
            f"{plural(len(resolved), 'diagnostic')}:"
        )
        lines += [_diagnostic_line(item) for item in resolved]
    if complete:
        return lines
    if written:
        lines.append(written_but(reason, timeout))
    else:
        lines += incomplete("the diagnostics of the preview", complete, reason, timeout)
    return lines


def written_but(reason: str | None, timeout: float) -> str:
    """The words for a write that succeeded while the check of the diagnostics after it did
    not finish: the write stands, only what it introduced is not known."""
    if reason == "server_crashed":
        cause = "stopped: a language server crashed"
    elif reason == "unsupported":
        cause = "could not run: no installed language server takes the file"
    elif reason == "not_ready":
        cause = f"did not finish: the language server was not ready within {timeout:g} s"
    elif reason == "not_utf8":
        cause = "could not run: a file is not UTF-8 text"
    else:
        cause = f"did not finish within {timeout:g} s"
    advice = (
        ""
        if reason == "unsupported"
        else "; the diagnostics tool tells what it introduced once the servers are done"
    )
    return (
        "INCOMPLETE: the write succeeded and stands (do not write it again), but the check "
        f"of the diagnostics after it {cause}, so what it introduced is not known{advice}."
    )


WRITES_IT = {
    "rename": "apply_rename writes it",
    "format": "call format again with write: true to write it",
    "fix": "call fix again with write: true to write it",
}

NOTHING_TO_DO = {
    "rename": "The rename changes nothing.",
    "format": "Nothing to change: the files are formatted already. Nothing was written.",
    "fix": "Nothing to fix: no fix-all action changes these files. Nothing was written.",
}


def plan(
    result: PlanShape,
    diff_lines: int,
    *,
    tool: str,
    plan_complete: bool,
    plan_reason: str | None,
    delta_complete: bool,
    delta_reason: str | None,
    timeout: float,
) -> str:
    """The text of a plan of ``tool`` (``rename``, ``format`` or ``fix``), written or not."""
    lines = [result["diff"].rstrip("\n")] if result["diff"] else []
    edits = sum(result["edits"].values())
    files = result["changed_files"]
    if result["applied"]:
        lines.append(
            f"Wrote {plural(len(files), 'file')} ({plural(edits, 'edit')}): {names(files)}."
        )
        lines += _delta_lines(
            result["introduced"],
            result["resolved"],
            delta_complete,
            delta_reason,
            timeout,
            written=True,
            coverage=_checked(result["checked"], result["not_reached"], files),
        )
    elif not files:
        lines.append(NOTHING_TO_DO.get(tool, NOTHING_TO_DO["rename"]))
    else:
        lines.append(
            f"Would change {plural(len(files), 'file')} ({plural(edits, 'edit')}): {names(files)}. "
            f"Nothing was written; {WRITES_IT.get(tool, WRITES_IT['rename'])}."
        )
    if not plan_complete and result["applied"]:
        cause = (
            "the root has more files than the workspace opens at once, so files beyond that "
            "were not looked at"
            if plan_reason == "too_many_files"
            else "the language server was not done when asked"
        )
        lines.append(f"INCOMPLETE: what was written may miss some files: {cause}.")
    else:
        lines += incomplete("the plan", plan_complete, plan_reason, timeout)
    if diff_lines > len(result["diff"].splitlines()):
        lines.append(f"(The diff has {diff_lines:,} lines; it was cut.)")
    return "\n".join(lines)


def edit(result: EditShape, diff_lines: int, timeout: float) -> str:
    """The text of an edit of one file, written or previewed."""
    lines = [result["diff"].rstrip("\n")] if result["diff"] else []
    shown = names(result["changed_files"])
    if result["applied"]:
        lines.append(f"Wrote {shown}.")
    else:
        lines.append(
            f"Nothing was written (write: false): this is what the edit would do to {shown}; "
            "call edit again with write: true to write it."
        )
    lines += _delta_lines(
        result["introduced"],
        result["resolved"],
        result["complete"],
        result["reason"],
        timeout,
        written=result["applied"],
        coverage=_checked(result["checked"], result["not_reached"], result["changed_files"]),
    )
    if diff_lines > len(result["diff"].splitlines()):
        lines.append(f"(The diff has {diff_lines:,} lines; it was cut.)")
    return "\n".join(lines)


def statuses(result: StatusList) -> str:
    lines = []
    for item in result["items"]:
        memory = f", {item['rss_bytes'] / 1e6:.1f} MB" if item["rss_bytes"] else ""
        pid = f", pid {item['pid']}" if item["pid"] is not None else ""
        lines.append(
            f"{item['id']}: {item['state']}{pid}, {plural(item['restarts'], 'restart')}{memory}"
        )
    if not lines:
        lines.append("No language server has been started yet: nothing to restart.")
    return "\n".join(lines)
