"""A tiny language server for the command-line tests, run with ``--command``.

``python scripted_lsp.py crash`` answers ``initialize``, writes a few lines on stderr and
exits with status 3 once the client has said ``initialized``: a server that crashed;
``crash-at-start`` does the same on ``initialize``, before answering it.
``late-pull`` registers ``textDocument/diagnostic`` half a second after a document opens (as
basedpyright does when it is slow to start) and answers each pull with one error.
``python scripted_lsp.py silent`` answers ``initialize`` and ``shutdown`` and never publishes
a diagnostic: every wait for final diagnostics runs into the timeout.
``stubborn`` is ``silent`` that also offers hovers and never answers one, and that does not
end when its input does (it sleeps on): only a kill ends it.
``slow-pull`` answers pulls (a static ``diagnosticProvider``) one at a time, each after
``SLOW_PULL_DELAY`` seconds, with one error: a server at work longer than a short timeout.
``same-progress`` begins a work-done progress once ``initialized`` and then repeats the same
report every ``PROGRESS_EVERY`` seconds for ever; ``moving-progress`` does the same with a
count that goes up in each report. Neither ever publishes a diagnostic.
With ``SCRIPTED_LOG`` set, every method received is appended to that file, a line each.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

# Run as a script (python tests/.../this.py): the repository's root on the path for the
# shared framing.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.stdio_framing import read_message, write_message

CRASH_LINES = (
    "scripted-lsp: loading the project",
    "scripted-lsp: fatal: the index is corrupt (scripted crash)",
)

LATE_PULL_DELAY = 0.5
"""How long after the first ``didOpen`` the ``late-pull`` server registers pulls, seconds."""

LATE_PULL_REPORT = {
    "kind": "full",
    "items": [
        {
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
            "severity": 1,
            "message": "scripted finding",
            "source": "scripted",
        }
    ],
}


SLOW_PULL_DELAY = 0.25
"""How long the ``slow-pull`` server takes over each pull, seconds."""

PROGRESS_EVERY = 0.1
"""How often the progress servers report, seconds."""

_writing = threading.Lock()


def send(message: dict[str, object]) -> None:
    """Write ``message`` to stdout (from the main loop or the progress thread)."""
    with _writing:
        write_message(sys.stdout.buffer, message)


def progress_for_ever(moving: bool) -> None:
    """Begin one progress and report on it for ever: the same report, or a moving one."""
    token = "scripted-work"
    send(
        {
            "jsonrpc": "2.0",
            "id": "create-1",
            "method": "window/workDoneProgress/create",
            "params": {"token": token},
        }
    )
    begin = {"kind": "begin", "title": "Indexing", "percentage": 0}
    send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": token, "value": begin}})
    count = 0
    while True:
        time.sleep(PROGRESS_EVERY)
        count += 1
        report = (
            {"kind": "report", "message": f"{count} files indexed", "percentage": count % 100}
            if moving
            else {"kind": "report", "message": "indexing", "percentage": 50}
        )
        send(
            {"jsonrpc": "2.0", "method": "$/progress", "params": {"token": token, "value": report}}
        )


def crash() -> int:
    for line in CRASH_LINES:
        sys.stderr.write(line + "\n")
    sys.stderr.flush()
    return 3


def main(mode: str) -> int:
    stdin = sys.stdin.buffer
    registered = False
    log = os.environ.get("SCRIPTED_LOG")
    while True:
        message = read_message(stdin)
        if message is None:
            if mode == "stubborn":
                time.sleep(600)
            return 0
        method = message.get("method")
        if log:
            with open(log, "a", encoding="utf-8") as file:
                file.write(f"{method}\n")
        if method == "initialize" and mode == "crash-at-start":
            return crash()
        if method == "initialize":
            capabilities: dict[str, object] = {"textDocumentSync": 1}
            if mode == "stubborn":
                capabilities["hoverProvider"] = True
            if mode == "slow-pull":
                capabilities["diagnosticProvider"] = {
                    "interFileDependencies": False,
                    "workspaceDiagnostics": False,
                }
            result = {
                "capabilities": capabilities,
                "serverInfo": {"name": "scripted-lsp", "version": "1.0"},
            }
            send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif method == "initialized" and mode == "crash":
            return crash()
        elif method == "initialized" and mode in ("same-progress", "moving-progress"):
            moving = mode == "moving-progress"
            threading.Thread(target=progress_for_ever, args=(moving,), daemon=True).start()
        elif method == "textDocument/didOpen" and mode == "late-pull" and not registered:
            registered = True
            time.sleep(LATE_PULL_DELAY)
            registration = {
                "id": "late-pull",
                "method": "textDocument/diagnostic",
                "registerOptions": {
                    "documentSelector": None,
                    "interFileDependencies": False,
                    "workspaceDiagnostics": False,
                },
            }
            send(
                {
                    "jsonrpc": "2.0",
                    "id": "register-1",
                    "method": "client/registerCapability",
                    "params": {"registrations": [registration]},
                }
            )
        elif method == "textDocument/diagnostic":
            if mode == "slow-pull":
                time.sleep(SLOW_PULL_DELAY)
            send({"jsonrpc": "2.0", "id": message["id"], "result": LATE_PULL_REPORT})
        elif method == "shutdown":
            send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        elif method == "exit":
            return 0
        elif method == "textDocument/hover" and mode == "stubborn":
            pass  # never answered: the client gives up or cancels
        elif "id" in message and method is not None:
            send({"jsonrpc": "2.0", "id": message["id"], "result": None})


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "silent"))
