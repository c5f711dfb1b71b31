"""Interop scenarios for the language servers installed from npm (see scenario.py).

``scripts/install_servers.py`` puts them in one npm prefix, ``build/servers/npm``. The node
servers run as ``node <script>`` with the node on PATH (20 on the project's machines), and
TypeScript 7 runs as its native platform binary: its ``tsc`` shim would start that binary
as a child of its own. Besides the shared scenario, each server gets checks of what it alone
does: TypeScript 7's string request ids, the initialize error of typescript-language-server
on TypeScript 7, yaml's configuration sections and missing methods, the columns of
bash-language-server, and vscode-css-language-server, which reports nothing until it is
given settings.
"""

from __future__ import annotations

import asyncio
import platform
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import ErrorCodes, LspError, LspSession, SessionState, spawn_server
from tests.integration.conftest import (
    InteropResults,
    RecordingTransport,
    find_npm_server,
    find_server,
)
from tests.integration.scenario import ServerSpec, npm_package_version, run_scenario

pytestmark = pytest.mark.real_server

WAIT = 10.0
"""Seconds a single step of the checks outside the scenario may take."""


def node_script(relative: str) -> list[str]:
    """``node`` and a script of the npm prefix, so that no shim depends on ``env node``."""
    return [find_server("node"), find_npm_server(relative)]


def ts7_binary() -> str:
    """The native TypeScript 7 binary of this platform, from its optional npm package."""
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64"}.get(machine, machine)
    return find_npm_server(f"node_modules/@typescript/typescript-{sys.platform}-{arch}/lib/tsc")


# -- TypeScript ---------------------------------------------------------------------------

TS_FIXED = (
    "export function compute(n: number): number {\n"
    "  return n * 2;\n"
    "}\n"
    'export const label = "😀é"; export const total = compute(2);\n'
)
TS_BROKEN = TS_FIXED.replace("compute(2)", 'compute("two")')
# noLib keeps the type checker off lib.d.ts: tsserver's first diagnostics then come in about
# 1 s instead of 3-7 s on a busy 2-core machine, and the error needs no library type.
TSCONFIG = '{"compilerOptions": {"noLib": true, "strict": true}, "files": ["main.ts"]}\n'

TS_MARKERS: dict[str, Any] = {
    "language_id": "typescript",
    "filename": "main.ts",
    "broken": TS_BROKEN,
    "fixed": TS_FIXED,
    "error_marker": '"two"',
    "error_match": "2345",
    "hover_marker": "compute(2)",
    "hover_expect": "function compute(n: number): number",
    "definition_marker": "function compute",
    "completion_marker": "total = ",
    "completion_expect": "compute",
    "extra_files": {"tsconfig.json": TSCONFIG},
}


def tsls_spec() -> ServerSpec:
    """typescript-language-server 5 on TypeScript 5.9.3."""
    return ServerSpec(
        name="typescript-language-server",
        source="npm `typescript-language-server` + `typescript@5.9.3`",
        command=lambda root: [
            *node_script("node_modules/.bin/typescript-language-server"),
            "--stdio",
        ],
        expected_encoding="utf-16",
        versioned=False,
        # Asked for each opened file, scoped to it.
        configuration={"formattingOptions": {"tabSize": 2, "insertSpaces": True}},
        asks_configuration=True,
        version=npm_package_version("typescript-language-server"),
        # tsserver loads the project before its first diagnostics (1-7 s here under load).
        timeout=15.0,
        notes=(
            "TypeScript 5.9.3. Unversioned push once tsserver has loaded the project (about "
            "1 s with a noLib tsconfig, 3-7 s with the default lib on a busy machine); an "
            "empty interim report may come first. Asks `formattingOptions` scoped to the file."
        ),
        **TS_MARKERS,
    )


def ts7_spec() -> ServerSpec:
    """TypeScript 7's own language server, the native ``tsc --lsp --stdio``."""
    return ServerSpec(
        name="TypeScript 7 (tsc --lsp)",
        source="npm `typescript@7.0.2` (native binary)",
        command=lambda root: [ts7_binary(), "--lsp", "--stdio"],
        expected_encoding="utf-8",
        # It never pushes, not even to a client that cannot pull.
        pull_diagnostics=True,
        configuration={"js/ts": {"format": {"enabled": True}}, "editor": {"tabSize": 2}},
        asks_configuration=True,
        # "context canceled" (1) or "error handling method 'exit': EOF" (0), by a race
        # between the exit notification and the end of its stdin.
        exit_code=(1, 0),
        version=npm_package_version("ts7"),
        notes=(
            "Pull only. String request ids (`ts1`, `ts2`...). Rejects `params: null` "
            "(the session sends none). Exit status 1 or 0 after a clean shutdown, by a race."
        ),
        **TS_MARKERS,
    )


async def test_typescript_language_server(tmp_path: Path, interop_results: InteropResults) -> None:
    """typescript-language-server on TypeScript 5 goes through the whole scenario."""
    result = await run_scenario(tsls_spec(), tmp_path, interop_results)
    assert result.configuration_sections == ["formattingOptions"]
    assert result.sync == "incremental"


async def test_typescript_7_native(tmp_path: Path, interop_results: InteropResults) -> None:
    """TypeScript 7 goes through the whole scenario, its diagnostics pulled."""
    result = await run_scenario(ts7_spec(), tmp_path, interop_results)
    assert result.features["diagnostic pull"]
    assert set(result.configuration_sections) == {"js/ts", "typescript", "javascript", "editor"}


async def test_typescript_7_request_ids_are_strings_and_echoed(tmp_path: Path) -> None:
    """TypeScript 7 asks with string ids, gets them back unchanged, and shutdown has no params."""
    (tmp_path / "tsconfig.json").write_text(TSCONFIG)
    (tmp_path / "main.ts").write_text(TS_FIXED)
    async with await spawn_server([ts7_binary(), "--lsp", "--stdio"], cwd=tmp_path) as server:
        transport = RecordingTransport(server.transport)
        async with LspSession(transport, root_uri=tmp_path.as_uri(), timeout=WAIT) as session:
            document = session.open_document(
                (tmp_path / "main.ts").as_uri(), "typescript", TS_FIXED
            )
            # It asks for configuration and registers as soon as the file opens, and
            # answers a hover only after loading the project: by then it has its answers.
            where = {
                "textDocument": {"uri": document.uri},
                "position": {"line": 0, "character": 17},
            }
            assert await session.request("textDocument/hover", where) is not None
            requests = [m for m in transport.received if "method" in m and "id" in m]
        assert requests, "TypeScript 7 sent no requests"
        assert all(isinstance(m["id"], str) for m in requests)
        answered = {m["id"]: m for m in transport.sent if "method" not in m}
        for request in requests:
            assert request["id"] in answered, f"{request['method']} was not answered"
            assert "error" not in answered[request["id"]]
        # An answer to a server's request may go out between shutdown and exit.
        shutdown, exit_ = [m for m in transport.sent if "method" in m][-2:]
        assert (shutdown["method"], exit_["method"]) == ("shutdown", "exit")
        # TypeScript 7 answers `params: null` with InvalidParams and ignores such an exit.
        assert "params" not in shutdown
        assert "params" not in exit_
        assert any(m.get("id") == shutdown["id"] and "result" in m for m in transport.received)
        assert await asyncio.wait_for(server.wait(), WAIT) in (0, 1)


def tsls_on_typescript_7(root: Path) -> list[str]:
    """typescript-language-server laid out as a project that depends on TypeScript 7 gets it.

    ``npm install typescript-language-server typescript`` does that today. The server has
    no dependencies of its own (one bundled script), so a copy of it beside a
    ``node_modules/typescript`` that is TypeScript 7 finds only TypeScript 7, which has no
    ``tsserver.js``.
    """
    script = Path(find_npm_server("node_modules/typescript-language-server/lib/cli.mjs"))
    ts7 = Path(find_npm_server("node_modules/ts7/package.json")).parent
    package = root / "node_modules" / "typescript-language-server"
    (package / "lib").mkdir(parents=True)
    shutil.copy2(script.parent.parent / "package.json", package / "package.json")
    shutil.copy2(script, package / "lib" / "cli.mjs")
    (root / "node_modules" / "typescript").symlink_to(ts7, target_is_directory=True)
    return [find_server("node"), str(package / "lib" / "cli.mjs"), "--stdio"]


async def test_typescript_language_server_on_typescript_7_fails_initialize(
    tmp_path: Path,
) -> None:
    """The server's initialize error is raised as LspError; the session closes, the process ends."""
    command = tsls_on_typescript_7(tmp_path)
    async with await spawn_server(command, cwd=tmp_path) as server:
        transport = RecordingTransport(server.transport)
        session = LspSession(transport, root_uri=tmp_path.as_uri(), timeout=WAIT)
        with pytest.raises(LspError) as raised:
            await session.initialize()
        assert raised.value.code == ErrorCodes.InternalError
        assert "Could not find a valid TypeScript installation" in raised.value.message
        assert session.state is SessionState.CLOSED
        # Nothing but the handshake went out: no initialized, no exit.
        assert [m.get("method") for m in transport.sent] == ["initialize"]
        with pytest.raises(LspError):
            await session.request("textDocument/hover", {})
        # Closing the transport ended the server's stdin, and it exits on its own.
        assert await asyncio.wait_for(server.wait(), WAIT) == 1
        await session.shutdown()  # a no-op on a closed session
    assert server.process.returncode == 1


# -- yaml-language-server -----------------------------------------------------------------

YAML_FIXED = 'name: demo\nlabel: "😀é bad: value"\n'
YAML_BROKEN = 'name: demo\nlabel: "😀é" bad: value\n'
YAML_SETTINGS = {
    # No schema store: it would be fetched from the network.
    "yaml": {"validate": True, "hover": True, "completion": True, "schemaStore": {"enable": False}},
    "http": {"proxyStrictSSL": True},
    # The section is the literal "[yaml]" (a VS Code language override), not a dotted path.
    "[yaml]": {"editor.tabSize": 2, "editor.insertSpaces": True},
    "editor": {"tabSize": 2},
}


def yaml_spec() -> ServerSpec:
    """yaml-language-server 1.25 (the newest on node 20)."""
    return ServerSpec(
        name="yaml-language-server",
        source="npm `yaml-language-server`",
        command=lambda root: [*node_script("node_modules/.bin/yaml-language-server"), "--stdio"],
        language_id="yaml",
        filename="config.yaml",
        broken=YAML_BROKEN,
        fixed=YAML_FIXED,
        error_marker="bad: value",
        error_match="Unexpected scalar",
        expected_encoding="utf-16",
        versioned=False,
        configuration=YAML_SETTINGS,
        asks_configuration=True,
        # Hover and rename are offered but answer null without a schema; references is not.
        unsupported=("textDocument/references",),
        notes=(
            "Unversioned push. Configuration sections `yaml`, `http`, `[yaml]`, `editor`, then "
            "`[yaml]` scoped to the file on each open and change. Hover and rename answer null "
            "without a schema; references is MethodNotFound."
        ),
    )


async def test_yaml_language_server(tmp_path: Path, interop_results: InteropResults) -> None:
    """yaml-language-server goes through the scenario and gets its odd sections answered."""
    result = await run_scenario(yaml_spec(), tmp_path, interop_results)
    # The harness checked each answer against the settings; "[yaml]" matched its own key.
    assert result.configuration_sections == ["yaml", "http", "[yaml]", "editor"]


async def test_yaml_language_server_null_answers_and_method_not_found(tmp_path: Path) -> None:
    """An offered hover answers null; references, not offered, fails with MethodNotFound."""
    path = tmp_path / "config.yaml"
    path.write_text(YAML_FIXED)
    command = [*node_script("node_modules/.bin/yaml-language-server"), "--stdio"]
    async with (
        await spawn_server(command, cwd=tmp_path) as server,
        LspSession(
            server.transport, root_uri=tmp_path.as_uri(), configuration=YAML_SETTINGS
        ) as session,
    ):
        document = session.open_document(path.as_uri(), "yaml", YAML_FIXED)
        where = {
            "textDocument": {"uri": document.uri},
            "position": document.position_at(YAML_FIXED.index("bad")),
        }
        assert session.supports("textDocument/hover", document.uri)
        assert await session.request("textDocument/hover", where, timeout=WAIT) is None
        assert not session.supports("textDocument/references", document.uri)
        with pytest.raises(LspError) as raised:
            await session.request(
                "textDocument/references",
                {**where, "context": {"includeDeclaration": True}},
                timeout=WAIT,
            )
        assert raised.value.code == ErrorCodes.MethodNotFound
        # The session goes on after the error.
        assert await session.request(
            "textDocument/documentSymbol", {"textDocument": {"uri": document.uri}}, timeout=WAIT
        )


# -- bash-language-server -----------------------------------------------------------------

BASH_FIXED = '#!/bin/bash\ngreet() {\n  echo "hi $1"\n}\necho "😀é" "$HOME"; greet x\n'
BASH_BROKEN = BASH_FIXED.replace('"$HOME"', "$HOME")


def bash_spec() -> ServerSpec:
    """bash-language-server 5.8 with Debian's shellcheck for its diagnostics."""
    shellcheck = find_server("shellcheck")
    return ServerSpec(
        name="bash-language-server",
        source="npm `bash-language-server` + Debian `shellcheck`",
        command=lambda root: [*node_script("node_modules/.bin/bash-language-server"), "start"],
        language_id="shellscript",
        filename="main.sh",
        broken=BASH_BROKEN,
        fixed=BASH_FIXED,
        error_marker="$HOME",
        error_match="SC2086",
        hover_marker="greet x",
        definition_marker="greet() {",
        completion_marker="; gr",
        completion_expect="greet",
        expected_encoding="utf-16",
        # shellcheck counts columns in code points: "😀" is one, where utf-16 has two.
        column_quirk="code points",
        configuration={"bashIde": {"shellcheckPath": shellcheck}},
        asks_configuration=True,
        version=npm_package_version("bash-language-server"),
        notes=(
            "Full sync, versioned push. Diagnostic columns are in code points (shellcheck's), "
            "one short per astral character before them; hover, definition and references use "
            "utf-16 correctly."
        ),
    )


async def test_bash_language_server(tmp_path: Path, interop_results: InteropResults) -> None:
    """bash-language-server goes through the scenario; its shellcheck columns count code points."""
    result = await run_scenario(bash_spec(), tmp_path, interop_results)
    assert result.sync == "full"
    assert result.column_quirk == "code points"
    assert result.configuration_sections == ["bashIde"]


# -- vscode-langservers-extracted ---------------------------------------------------------

JSON_FIXED = '{"a": "😀é", "b": 1, "c": 2}\n'
JSON_BROKEN = '{"a": "😀é", "b": }\n'

CSS_FIXED = 'a { content: "😀é"; color: red; }\n'
CSS_BROKEN = CSS_FIXED.replace("color", "colr")
CSS_SETTINGS = {"css": {"validate": True, "lint": {"unknownProperties": "warning"}}}


def json_spec() -> ServerSpec:
    """vscode-json-language-server from vscode-langservers-extracted."""
    return ServerSpec(
        name="vscode-json-language-server",
        source="npm `vscode-langservers-extracted`",
        command=lambda root: [
            *node_script("node_modules/.bin/vscode-json-language-server"),
            "--stdio",
        ],
        language_id="json",
        filename="data.json",
        broken=JSON_BROKEN,
        fixed=JSON_FIXED,
        error_marker="}",
        error_match="Value expected",
        # A property name is expected after "1, ": the only one without a schema is $schema.
        completion_marker="1, ",
        completion_expect="$schema",
        expected_encoding="utf-16",
        # Static diagnosticProvider with documentSelector null: it pulls, and stops pushing.
        pull_diagnostics=True,
        # Without snippet support it offers no completion at all.
        session_options={"snippet_support": True},
        # Formatting is registered only after didChangeConfiguration brings settings.
        configuration={"json": {"validate": {"enable": True}, "format": {"enable": True}}},
        unsupported=(
            "textDocument/definition",
            "textDocument/references",
            "textDocument/rename",
        ),
        version=npm_package_version("vscode-langservers-extracted"),
        notes=(
            "Static pull (documentSelector null). Completion only with snippet support. Hover "
            "answers null without a schema. didChangeConfiguration brings "
            "workspace/diagnostic/refresh and formatting registrations."
        ),
    )


def css_spec() -> ServerSpec:
    """vscode-css-language-server from vscode-langservers-extracted, given its settings."""
    return ServerSpec(
        name="vscode-css-language-server",
        source="npm `vscode-langservers-extracted`",
        command=lambda root: [
            *node_script("node_modules/.bin/vscode-css-language-server"),
            "--stdio",
        ],
        language_id="css",
        filename="style.css",
        broken=CSS_BROKEN,
        fixed=CSS_FIXED,
        error_marker="colr",
        error_match="Unknown property",
        hover_marker="color: red",
        completion_marker="; co",
        completion_expect="color",
        expected_encoding="utf-16",
        pull_diagnostics=True,
        session_options={"snippet_support": True},
        # A null answer to its `css` section breaks its validation (see the test below).
        configuration=CSS_SETTINGS,
        asks_configuration=True,
        version=npm_package_version("vscode-langservers-extracted"),
        notes=(
            "Static pull (documentSelector null). Completion only with snippet support. Needs "
            "`css` settings: a null configuration answer makes it report nothing."
        ),
    )


@pytest.mark.parametrize("make_spec", [json_spec, css_spec], ids=["json", "css"])
async def test_vscode_langservers(
    make_spec: Callable[[], ServerSpec], tmp_path: Path, interop_results: InteropResults
) -> None:
    """The json and css servers go through the scenario, diagnostics pulled."""
    result = await run_scenario(make_spec(), tmp_path, interop_results)
    assert result.features["diagnostic pull"]
    assert result.features["completion"]


async def test_css_reports_nothing_without_settings_until_it_gets_them(tmp_path: Path) -> None:
    """With no settings the css server reports nothing; given them, it finds the unknown property.

    The spec's default answers a configuration section the app did not set with null, and
    vscode-css-language-server fails on null ("Cannot read properties of null"), logs it,
    and answers the pull with no items. So an app must give it settings.
    """
    path = tmp_path / "style.css"
    path.write_text(CSS_BROKEN)
    command = [*node_script("node_modules/.bin/vscode-css-language-server"), "--stdio"]
    async with await spawn_server(command, cwd=tmp_path) as server:
        transport = RecordingTransport(server.transport)
        logs: list[dict[str, Any]] = []
        refreshed: asyncio.Queue[str] = asyncio.Queue()
        async with LspSession(
            transport, root_uri=tmp_path.as_uri(), pull_diagnostics=True, timeout=WAIT
        ) as session:
            session.on_notification("window/logMessage", logs.append)
            session.on_capabilities_changed(refreshed.put_nowait)
            document = session.open_document(path.as_uri(), "css", CSS_BROKEN)
            pull = {"textDocument": {"uri": document.uri}}

            report = await session.request("textDocument/diagnostic", pull)
            assert report == {"kind": "full", "items": []}
            ((params, answer),) = transport.answers_to("workspace/configuration")
            assert [item["section"] for item in params["items"]] == ["css"]
            assert answer == [None]
            errors = [log["message"] for log in logs if log["type"] == 1]
            assert any("Cannot read properties of null" in message for message in errors)

            session.set_configuration(CSS_SETTINGS)
            # It asks the client to pull again once it has dropped the settings it cached.
            assert await asyncio.wait_for(refreshed.get(), WAIT) == "textDocument/diagnostic"
            report = await session.request("textDocument/diagnostic", pull)
            messages = [item["message"] for item in report["items"]]
            assert messages == ["Unknown property: 'colr'"]


@pytest.mark.parametrize("server", ["vscode-json-language-server", "vscode-css-language-server"])
async def test_vscode_completion_needs_snippet_support(tmp_path: Path, server: str) -> None:
    """Without snippet support the json and css servers offer no completion; with it, they do."""
    command = [*node_script(f"node_modules/.bin/{server}"), "--stdio"]
    offered = []
    for snippets in (False, True):
        async with (
            await spawn_server(command, cwd=tmp_path) as process,
            LspSession(
                process.transport, root_uri=tmp_path.as_uri(), snippet_support=snippets
            ) as session,
        ):
            offered.append(session.supports("textDocument/completion"))
            # Pull diagnostics for every document: the selector is null, not missing.
            pull = session.provider_options("textDocument/diagnostic")
            assert pull is not None
            assert pull["documentSelector"] is None
            assert session.supports("textDocument/diagnostic", (tmp_path / "any.txt").as_uri())
    assert offered == [False, True]
