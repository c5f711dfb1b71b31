"""One interop scenario for every real language server, driven by a :class:`ServerSpec`.

A scenario proves that the library works with a server nobody on the team wrote, step by
step, and records what it saw for ``docs/compatibility.md``. Write one spec per server and
call :func:`run_scenario`::

    SPEC = ServerSpec(
        name="ruff",
        source="PyPI `ruff`",
        command=lambda root: [find_server("ruff"), "server"],
        language_id="python",
        filename="main.py",
        broken=BROKEN,                 # an error on a line with "😀é" before it
        fixed=FIXED,                   # the same file without the error
        error_marker="missing",        # where the error's diagnostic must start
        error_match="F821",            # substring of the diagnostic's "code message"
        expected_encoding="utf-8",
    )

    @pytest.mark.real_server
    @pytest.mark.parametrize("spec", [SPEC], ids=lambda spec: spec.name)
    async def test_interop(spec: ServerSpec, tmp_path: Path, interop_results: ResultSink) -> None:
        \"\"\"The server goes through the whole scenario.\"\"\"
        await run_scenario(spec, tmp_path, interop_results)

The steps, each an assertion:

1. The project folder (``tmp_path``) gets ``filename`` holding ``broken`` and the
   ``extra_files``; the server is started there with ``command(root)`` through
   ``spawn_server``, under a ``RecordingTransport``.
2. ``initialize``: the negotiated encoding is ``expected_encoding``.
3. The file is opened. Its error's diagnostic arrives: pushed through ``on_diagnostics``
   for version 1 (``versioned``), or without a version, or, with ``pull_diagnostics``, as
   the answer to ``textDocument/diagnostic``. Its start, turned into a string offset with
   the document's ``offset_at``, is where ``error_marker`` starts. With ``column_quirk`` the
   harness asserts what the server really sends instead (see :data:`COLUMN_QUIRKS`).
4. The file is fixed: ``change_document`` (version 2), written to disk, ``save_document``.
   The empty report arrives (for version 2 when versioned), or the pull comes back empty.
5. Hover and definition one character into ``hover_marker`` (positions from
   ``document.position_at``): the hover mentions ``hover_expect``, a location of the
   definition is in the file on the line of ``definition_marker``. Completion at the end
   of ``completion_marker`` lists ``completion_expect``. A marker left ``None`` skips that
   step; methods in ``unsupported`` must be reported unsupported by ``session.supports``.
6. Every ``workspace/configuration`` item the server asked was answered with
   ``configuration_value(configuration, section)``; ``asks_configuration`` requires that it
   asked at all. No error reached ``on_error``.
7. ``shutdown()`` ends within its deadline; the server answered ``shutdown``; after it the
   session wrote only answers to the server's requests and ``exit``; the process exits with
   ``exit_code`` within ``exit_timeout``.

Programs are found with ``find_server`` (the venv, then PATH) or ``find_npm_server`` (the
npm prefix ``build/servers/npm``) of ``conftest.py``: a missing one skips the test, and
fails it in CI. :func:`pypi_version` and :func:`npm_package_version` give ``version``.

Markers are substrings that occur exactly once in the text they are looked up in
(``error_marker`` in ``broken``, the others in ``fixed``), on a line that holds an astral
character (such as 😀) before them, so that a position counted in the wrong unit misses.
Every failure message ends with the server's last stderr lines and the last messages.

:func:`run_scenario` returns a :class:`ScenarioResult` and hands it to ``results`` (the
``interop_results`` fixture of ``conftest.py``) also when a step failed, with the failure
in ``outcome``; the fixture merges them into ``build/interop-results.json`` by server name,
and ``scripts/compat_table.py`` turns that file into ``docs/compatibility.md``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as distribution_version
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote, urlparse

from adecore_lsp import LspSession, ServerProcess, TextDocument, spawn_server
from adecore_lsp.protocol.wire.configuration import configuration_value
from tests.integration.conftest import NPM_PREFIX, RecordingTransport

__all__ = [
    "COLUMN_QUIRKS",
    "FEATURES",
    "ResultSink",
    "ScenarioResult",
    "ServerSpec",
    "npm_package_version",
    "pypi_version",
    "run_scenario",
]

FEATURES: Mapping[str, str] = {
    "hover": "textDocument/hover",
    "definition": "textDocument/definition",
    "references": "textDocument/references",
    "completion": "textDocument/completion",
    "rename": "textDocument/rename",
    "formatting": "textDocument/formatting",
    "documentSymbol": "textDocument/documentSymbol",
    "codeAction": "textDocument/codeAction",
    "semanticTokens/full": "textDocument/semanticTokens/full",
    "inlayHint": "textDocument/inlayHint",
    "diagnostic pull": "textDocument/diagnostic",
}
"""The features recorded for the compatibility table: column name -> method for supports()."""

COLUMN_QUIRKS: Mapping[str, Callable[[str], int]] = {
    "utf-8 bytes": lambda prefix: len(prefix.encode("utf-8")),
    "utf-16 units": lambda prefix: len(prefix.encode("utf-16-le")) // 2,
    "code points": len,
}
"""How a quirky server counts a line's prefix, whatever encoding was negotiated."""

SYNC_KINDS = {0: "none", 1: "full", 2: "incremental"}


def pypi_version(distribution: str) -> Callable[[], str | None]:
    """A version getter for a server installed from PyPI into this Python's environment."""

    def get() -> str | None:
        try:
            return distribution_version(distribution)
        except PackageNotFoundError:
            return None

    return get


def npm_package_version(package: str, prefix: Path | None = None) -> Callable[[], str | None]:
    """A version getter for an npm package under ``prefix`` (default ``build/servers/npm``)."""

    def get() -> str | None:
        root = prefix if prefix is not None else NPM_PREFIX
        manifest = root / "node_modules" / package / "package.json"
        try:
            found = json.loads(manifest.read_text(encoding="utf-8")).get("version")
        except (OSError, ValueError):
            return None
        return found if isinstance(found, str) else None

    return get


@dataclass(frozen=True)
class ServerSpec:
    """How one server is started and what the scenario expects of it."""

    name: str
    """The row name in the compatibility table (unique across all scenarios)."""
    source: str
    """Where it is installed from, for the table: "PyPI `ruff`", "npm `bash-language-server`"."""
    command: Callable[[Path], list[str]]
    """The command line, given the project folder; resolve the program with ``find_server``."""
    language_id: str
    filename: str
    broken: str
    fixed: str
    error_marker: str
    """Where in ``broken`` the error's diagnostic starts."""
    expected_encoding: str
    """The position encoding the server picks from the session's default offer."""
    error_match: str | None = None
    """A substring of ``f"{code} {message}"`` that picks the error's diagnostic on its line."""
    hover_marker: str | None = None
    """A name in ``fixed`` (after an astral character on its line) to hover and go to."""
    hover_expect: str | None = None
    """What the hover must mention; by default the marker's text up to its first non-name."""
    definition_marker: str | None = None
    """Where in ``fixed`` the hovered name is defined (its line is checked); None: no step."""
    completion_marker: str | None = None
    """Completion is asked at the end of this substring of ``fixed``."""
    completion_expect: str | None = None
    """A label the completion list must hold (compared up to a ``(``: "compute(n)")."""
    unsupported: tuple[str, ...] = ()
    """Methods ``session.supports`` must call unsupported (they are not called)."""
    versioned: bool = True
    """Pushed reports carry the document's version (else they must carry none)."""
    pull_diagnostics: bool = False
    """Ask ``textDocument/diagnostic`` instead of waiting for a push (pull-only servers)."""
    column_quirk: str | None = None
    """A key of :data:`COLUMN_QUIRKS`: the server counts the error's column so, wrongly."""
    configuration: Mapping[str, Any] | None = None
    """The session's settings; the server's configuration requests are answered from them."""
    asks_configuration: bool = False
    """The server must send ``workspace/configuration`` at least once."""
    extra_files: Mapping[str, str] = field(default_factory=dict)
    """More files for the project folder (``compile_flags.txt``...), by relative path."""
    session_options: Mapping[str, Any] = field(default_factory=dict)
    """More ``LspSession`` keywords (``snippet_support=True``...)."""
    exit_code: int | tuple[int, ...] = 0
    """The exit status after a clean shutdown (TypeScript 7 exits 1), or the statuses a
    server may exit with when it races with itself."""
    version: Callable[[], str | None] | None = None
    """The package's version (see :func:`pypi_version`), recorded instead of ``serverInfo``'s
    (which may be missing, or name a library inside the server)."""
    timeout: float = 5.0
    """Seconds each step may take: the handshake, a diagnostics wait, a request."""
    completion_timeout: float | None = None
    """Seconds the completion may take (a cold start can be slow); default ``timeout``."""
    exit_timeout: float = 5.0
    """Seconds the process may take to exit after ``shutdown()``."""
    notes: str = ""
    """Free text for the compatibility table (quirks, why a step is skipped)."""


@dataclass
class ScenarioResult:
    """What one scenario saw; one row of the compatibility table."""

    name: str
    source: str
    outcome: str = "not run"
    """``passed``, or ``failed: <the first line of the failure>``."""
    server_name: str | None = None
    version: str | None = None
    encoding: str | None = None
    sync: str | None = None
    diagnostics: str | None = None
    """``push versioned``, ``push unversioned`` or ``pull``."""
    features: dict[str, bool] = field(default_factory=dict)
    column_quirk: str | None = None
    exit_code: int | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    """``ready`` (spawn to initialized), ``diagnostics``, ``fix``, ``hover``, ``definition``,
    ``completion``, ``shutdown``, ``exit``, ``total``."""
    server_requests: list[str] = field(default_factory=list)
    configuration_sections: list[str | None] = field(default_factory=list)
    notes: str = ""

    def to_json(self) -> dict[str, Any]:
        """The result as a JSON-ready dict."""
        return asdict(self)


class ResultSink(Protocol):
    """Takes a scenario's result (the ``interop_results`` fixture)."""

    def record(self, result: ScenarioResult) -> None: ...


class _Clock:
    """Milliseconds since a start, per named step."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.last = self.start

    def lap(self) -> float:
        now = time.perf_counter()
        elapsed, self.last = (now - self.last) * 1000, now
        return round(elapsed, 1)

    def total(self) -> float:
        return round((time.perf_counter() - self.start) * 1000, 1)


async def run_scenario(
    spec: ServerSpec, root: Path, results: ResultSink | None = None
) -> ScenarioResult:
    """Run the whole scenario for ``spec`` in the empty folder ``root``; see the module doc."""
    result = ScenarioResult(name=spec.name, source=spec.source, notes=spec.notes)
    result.column_quirk = spec.column_quirk
    try:
        await _run(spec, root, result)
    except BaseException as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        result.outcome = f"failed: {first}"[:300]
        raise
    else:
        result.outcome = "passed"
    finally:
        if results is not None:
            results.record(result)
    return result


async def _run(spec: ServerSpec, root: Path, result: ScenarioResult) -> None:
    _check_spec(spec)
    for relative, text in spec.extra_files.items():
        extra = root / relative
        extra.parent.mkdir(parents=True, exist_ok=True)
        extra.write_text(text, encoding="utf-8")
    path = root / spec.filename
    path.write_text(spec.broken, encoding="utf-8")
    clock = _Clock()
    server = await spawn_server(spec.command(root), cwd=root)
    async with server:
        transport = RecordingTransport(server.transport)
        try:
            await _converse(spec, root, path, server, transport, result, clock)
        except AssertionError as failure:
            raise AssertionError(f"{failure}\n{_context(server, transport)}") from None
        except asyncio.TimeoutError as failure:
            raise AssertionError(f"timed out: {failure}\n{_context(server, transport)}") from None
    result.timings_ms["total"] = clock.total()


async def _converse(
    spec: ServerSpec,
    root: Path,
    path: Path,
    server: ServerProcess,
    transport: RecordingTransport,
    result: ScenarioResult,
    clock: _Clock,
) -> None:
    options: dict[str, Any] = {
        "root_uri": root.as_uri(),
        "configuration": spec.configuration,
        "timeout": spec.timeout,
        "pull_diagnostics": spec.pull_diagnostics,
        **spec.session_options,
    }
    session = LspSession(transport, **options)
    errors: list[BaseException] = []
    session.on_error(errors.append)
    reports: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    session.on_diagnostics(reports.put_nowait)
    changed: asyncio.Queue[str] = asyncio.Queue()
    session.on_capabilities_changed(changed.put_nowait)
    try:
        initialized = await asyncio.wait_for(session.initialize(), spec.timeout)
        result.timings_ms["ready"] = clock.lap()
        info = initialized.get("serverInfo") or {}
        result.server_name = info.get("name")
        result.version = (spec.version() if spec.version else None) or info.get("version")
        result.encoding = session.position_encoding
        assert session.position_encoding == spec.expected_encoding, (
            f"negotiated {session.position_encoding}, expected {spec.expected_encoding}"
        )

        document = session.open_document(path.as_uri(), spec.language_id, spec.broken)
        uri = document.uri
        sync = session.provider_options("textDocument/didChange", uri) or {}
        result.sync = SYNC_KINDS.get(sync.get("syncKind", 0), str(sync.get("syncKind")))
        result.diagnostics = (
            "pull"
            if spec.pull_diagnostics
            else "push versioned"
            if spec.versioned
            else "push unversioned"
        )

        await _expect_error(spec, session, document, reports, changed)
        result.timings_ms["diagnostics"] = clock.lap()

        document = session.change_document(uri, spec.fixed)
        assert document.version == 2
        path.write_text(spec.fixed, encoding="utf-8")
        session.save_document(uri)
        await _expect_clean(spec, session, document, reports)
        result.timings_ms["fix"] = clock.lap()

        await _hover_and_definition(spec, session, document, result, clock)
        await _completion(spec, session, document, result, clock)
        for method in spec.unsupported:
            assert not session.supports(method, uri), f"{method} is supported after all"

        result.features = {name: session.supports(method, uri) for name, method in FEATURES.items()}
        _check_configuration(spec, transport, result)
        result.server_requests = sorted(
            {m["method"] for m in transport.received if "method" in m and "id" in m}
        )
        assert not errors, f"errors reached on_error: {errors!r}"
    finally:
        clock.lap()
        await asyncio.wait_for(session.shutdown(), session.options.shutdown_timeout + 1)
    result.timings_ms["shutdown"] = clock.lap()
    # After `shutdown` only `exit` goes out, and answers to requests the server sent
    # before it answered (basedpyright asks diagnostic/refresh then, for one).
    (asked,) = [i for i, m in enumerate(transport.sent) if m.get("method") == "shutdown"]
    after = transport.sent[asked + 1 :]
    assert [m.get("method") for m in after if "method" in m] == ["exit"], after
    assert after[-1].get("method") == "exit", after
    shutdown_id = transport.sent[asked]["id"]
    assert any(m.get("id") == shutdown_id and "result" in m for m in transport.received), (
        "the server did not answer shutdown"
    )
    result.exit_code = await asyncio.wait_for(server.wait(), spec.exit_timeout)
    result.timings_ms["exit"] = clock.lap()
    allowed = spec.exit_code if isinstance(spec.exit_code, tuple) else (spec.exit_code,)
    assert result.exit_code in allowed, f"exit code {result.exit_code}, expected {allowed}"


def _check_spec(spec: ServerSpec) -> None:
    """Markers must be unique, and an astral character must precede the position on its line."""
    # (text, marker, how far into the marker the position used is)
    markers = [(spec.broken, spec.error_marker, 0)]
    if spec.hover_marker is not None:
        markers.append((spec.fixed, spec.hover_marker, 1))
    if spec.completion_marker is not None:
        markers.append((spec.fixed, spec.completion_marker, len(spec.completion_marker)))
    for text, marker, into in markers:
        assert text.count(marker) == 1, f"{marker!r} must occur exactly once"
        offset = text.index(marker) + into
        line_start = text.rfind("\n", 0, offset) + 1
        assert any(ord(c) > 0xFFFF for c in text[line_start:offset]), (
            f"no astral character before {marker!r} on its line"
        )
    if spec.definition_marker is not None:
        assert spec.fixed.count(spec.definition_marker) == 1
    if spec.column_quirk is not None:
        assert spec.column_quirk in COLUMN_QUIRKS, spec.column_quirk


def _picks(spec: ServerSpec, document: TextDocument, diagnostic: dict[str, Any]) -> bool:
    """Whether ``diagnostic`` is the error's: on the marker's line, and matching."""
    line = document.position_at(spec.broken.index(spec.error_marker))["line"]
    if diagnostic["range"]["start"]["line"] != line:
        return False
    text = f"{diagnostic.get('code', '')} {diagnostic.get('message', '')}"
    return spec.error_match is None or spec.error_match in text


async def _expect_error(
    spec: ServerSpec,
    session: LspSession,
    document: TextDocument,
    reports: asyncio.Queue[dict[str, Any]],
    changed: asyncio.Queue[str],
) -> None:
    """The error's diagnostic arrives for version 1, where the marker is."""
    if spec.pull_diagnostics:
        await _until_supported(session, "textDocument/diagnostic", changed, spec.timeout)
        items = await _pull(session, document)
        found = [d for d in items if _picks(spec, document, d)]
        assert found, f"the pull has no matching diagnostic: {items!r}"
    else:
        report = await _next_report(
            reports, lambda r: any(_picks(spec, document, d) for d in r["diagnostics"]), spec
        )
        _check_version(spec, report, 1)
        found = [d for d in report["diagnostics"] if _picks(spec, document, d)]
    start = found[0]["range"]["start"]
    offset = spec.broken.index(spec.error_marker)
    if spec.column_quirk is None:
        assert document.offset_at(start) == offset, (
            f"the diagnostic starts at {start}, which is offset {document.offset_at(start)}; "
            f"the error is at offset {offset} ({document.position_at(offset)})"
        )
    else:
        # The server counts columns in its own unit, not the negotiated encoding: the
        # harness asserts what it really sends, so a fixed server makes this fail.
        line_start = spec.broken.rfind("\n", 0, offset) + 1
        expected = COLUMN_QUIRKS[spec.column_quirk](spec.broken[line_start:offset])
        assert start["character"] == expected, (
            f"{spec.column_quirk}: expected character {expected}, got {start}"
        )
        assert document.offset_at(start) != offset, "the column quirk is gone: drop it"


async def _expect_clean(
    spec: ServerSpec,
    session: LspSession,
    document: TextDocument,
    reports: asyncio.Queue[dict[str, Any]],
) -> None:
    """After the fix, the empty report (for version 2 when versioned) or an empty pull."""
    if spec.pull_diagnostics:
        items = await _pull(session, document)
        assert items == [], f"the pull after the fix is not empty: {items!r}"
        return
    report = await _next_report(reports, lambda r: not r["diagnostics"], spec)
    _check_version(spec, report, 2)


def _check_version(spec: ServerSpec, report: dict[str, Any], version: int) -> None:
    if spec.versioned:
        assert report.get("version") == version, f"expected version {version}: {report!r}"
    else:
        assert report.get("version") is None, f"expected no version: {report!r}"


async def _next_report(
    reports: asyncio.Queue[dict[str, Any]],
    wanted: Callable[[dict[str, Any]], bool],
    spec: ServerSpec,
) -> dict[str, Any]:
    """The next report ``wanted`` accepts; the others (interim reports) are skipped."""
    seen: list[dict[str, Any]] = []

    async def wait() -> dict[str, Any]:
        while True:
            report = await reports.get()
            if wanted(report):
                return report
            seen.append(report)

    try:
        return await asyncio.wait_for(wait(), spec.timeout)
    except asyncio.TimeoutError:
        raise AssertionError(
            f"no wanted report within {spec.timeout} s; skipped: {seen!r}"[:2000]
        ) from None


async def _until_supported(
    session: LspSession, method: str, changed: asyncio.Queue[str], timeout: float
) -> None:
    """Wait for ``method`` to be supported (servers register pull diagnostics dynamically)."""

    async def wait() -> None:
        while not session.supports(method):
            await changed.get()

    try:
        await asyncio.wait_for(wait(), timeout)
    except asyncio.TimeoutError:
        raise AssertionError(f"{method} never became supported") from None


async def _pull(session: LspSession, document: TextDocument) -> list[dict[str, Any]]:
    report = await session.request(
        "textDocument/diagnostic", {"textDocument": {"uri": document.uri}}
    )
    assert report["kind"] == "full", report
    items: list[dict[str, Any]] = report["items"]
    return items


def _name_at(text: str, offset: int) -> str:
    end = offset
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    return text[offset:end]


async def _hover_and_definition(
    spec: ServerSpec,
    session: LspSession,
    document: TextDocument,
    result: ScenarioResult,
    clock: _Clock,
) -> None:
    if spec.hover_marker is None:
        return
    offset = spec.fixed.index(spec.hover_marker)
    where = {"textDocument": {"uri": document.uri}, "position": document.position_at(offset + 1)}
    expect = spec.hover_expect or _name_at(spec.fixed, offset)
    assert session.supports("textDocument/hover", document.uri)
    clock.lap()
    hover = await session.request("textDocument/hover", where)
    result.timings_ms["hover"] = clock.lap()
    assert hover is not None, "no hover"
    assert expect in json.dumps(hover["contents"], ensure_ascii=False), hover
    if spec.definition_marker is None:
        return
    assert session.supports("textDocument/definition", document.uri)
    clock.lap()
    found = await session.request("textDocument/definition", where)
    result.timings_ms["definition"] = clock.lap()
    targets = _locations(found)
    line = document.position_at(spec.fixed.index(spec.definition_marker))["line"]
    assert any(_same_file(uri, document.uri) and start["line"] == line for uri, start in targets), (
        f"no definition on line {line}: {found!r}"
    )


def _locations(found: Any) -> list[tuple[str, dict[str, Any]]]:
    """(uri, start) of a Location, a list of them, or LocationLinks (their selection)."""
    if found is None:
        return []
    items = found if isinstance(found, list) else [found]
    located = []
    for item in items:
        if "targetUri" in item:
            located.append((item["targetUri"], item["targetSelectionRange"]["start"]))
        else:
            located.append((item["uri"], item["range"]["start"]))
    return located


def _same_file(a: str, b: str) -> bool:
    """URIs of one file: servers may resolve symlinks or spell the path differently."""
    first, second = (Path(unquote(urlparse(uri).path)).resolve() for uri in (a, b))
    return first == second


async def _completion(
    spec: ServerSpec,
    session: LspSession,
    document: TextDocument,
    result: ScenarioResult,
    clock: _Clock,
) -> None:
    if spec.completion_marker is None:
        return
    offset = spec.fixed.index(spec.completion_marker) + len(spec.completion_marker)
    where = {"textDocument": {"uri": document.uri}, "position": document.position_at(offset)}
    assert session.supports("textDocument/completion", document.uri)
    clock.lap()
    answer = await session.request(
        "textDocument/completion", where, timeout=spec.completion_timeout or spec.timeout
    )
    result.timings_ms["completion"] = clock.lap()
    items: Sequence[dict[str, Any]] = (
        answer.get("items", []) if isinstance(answer, dict) else answer or []
    )
    # A label may carry the signature ("compute(n)"); the name is what was typed.
    labels = {item["label"].split("(")[0].strip() for item in items}
    assert spec.completion_expect in labels, (
        f"{spec.completion_expect!r} not among {len(labels)} labels: {sorted(labels)[:30]}"
    )


def _check_configuration(
    spec: ServerSpec, transport: RecordingTransport, result: ScenarioResult
) -> None:
    """Each configuration item was answered from the settings, one value per item."""
    answered = transport.answers_to("workspace/configuration")
    if spec.asks_configuration:
        assert answered, "the server asked for no configuration"
    sections: list[str | None] = []
    for params, values in answered:
        items = params["items"]
        assert isinstance(values, list), (params, values)
        assert len(values) == len(items), (params, values)
        for item, value in zip(items, values, strict=True):
            assert value == configuration_value(spec.configuration, item.get("section"))
            if item.get("section") not in sections:
                sections.append(item.get("section"))
    result.configuration_sections = sections


def _context(server: ServerProcess, transport: RecordingTransport) -> str:
    """The last stderr lines and messages, for a failure message."""
    stderr = "\n".join(line[:300] for line in server.stderr_lines[-15:])
    trace = [("->", m) for m in transport.sent[-12:]] + [
        ("<-", m) for m in transport.received[-12:]
    ]
    messages = "\n".join(f"{way} {json.dumps(m, ensure_ascii=False)[:300]}" for way, m in trace)
    return (
        f"--- stderr (last lines)\n{stderr}\n"
        f"--- last messages sent (->) and received (<-)\n{messages}"
    )
