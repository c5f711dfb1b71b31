"""A small language server whose behaviour each test scripts, run as a real subprocess.

It does on demand what real servers do only now and then: report work-done progress in
phases (or never end it), never publish diagnostics, publish versioned or unversioned
reports after delays (repeated, or empty first and real later), crash on the n-th request of
a method after a last word on stderr, start slowly, hang on ``shutdown``, ignore SIGTERM, or
leave a child process holding its pipes. It uses the standard library only.

Run ``python scripted_server.py '<json>'``; without an argument the JSON comes from the
``SCRIPTED_SERVER`` environment variable (an empty object when neither is given). Keys, all
optional:

- ``pid_file``: a line with this process's pid is appended on start (and ``child <pid>``
  with ``child``); the pids already there count the starts before, for ``init_delay``.
- ``init_delay``: seconds to sleep before answering ``initialize``; a list gives one value per
  start (the last one repeats).
- ``sync``: ``textDocumentSync`` change kind, 1 (full, the default) or 2 (incremental).
- ``document_symbols``: file name (or ``"*"``) -> the ``DocumentSymbol`` list to answer;
  advertises ``documentSymbolProvider``.
- ``workspace_symbols``: the ``SymbolInformation`` list whose names contain the query
  (case-insensitive) is the answer (``$ROOT`` in a string is the root URI); advertises
  ``workspaceSymbolProvider``.
- ``progress``: ``{"titles": [...], "end": true, "create": true, "delay": 0.05}``: after
  ``initialized``, one token per title (``window/workDoneProgress/create`` first when
  ``create``, answered before the token is used), each ``begin`` with the title, a
  ``report``, and an ``end`` (the last token never ends when ``end`` is false).
- ``diagnostics``: reports pushed after each ``didOpen`` and ``didChange``, each
  ``{"delay": seconds after the change, "versioned": true, "items": [...]}``; ``$VERSION``
  in a message is the document's version. ``"versions": [...]`` limits a report to those
  document versions; ``"even_if_stale": true`` sends it even when the document has changed
  since (as a slow server does). Without the key nothing is ever published.
- ``crash``: ``{"method": m, "nth": n}``: on the n-th message of method ``m`` (a request or a
  notification, counted in this process) a line goes to stderr and the process exits with
  status 3 without answering.
- ``silent``: method -> the ordinals (from 1, in this process) of its requests that are never
  answered.
- ``die_after``: seconds after ``initialized`` at which the process writes a line to stderr
  and exits with status 3.
- ``hang_shutdown``: never answer ``shutdown``, ignore ``exit`` and the end of stdin.
- ``ignore_term``: ignore SIGTERM.
- ``child``: start a child process that sleeps, holding this process's stdout and stderr.
- ``detached_child``: start a child that sleeps holding none of this process's pipes (as a
  wrapper's real server may), in this process's process group.
- ``ignore_eof``: keep running after the end of stdin (only a signal ends it).
- ``hover``: advertise ``hoverProvider`` and answer every hover with this markdown text.
- ``rename``: advertise ``renameProvider`` and answer every rename with this
  ``WorkspaceEdit`` (``$ROOT`` is the root URI).
- ``pull``: advertise ``diagnosticProvider`` and answer every ``textDocument/diagnostic``
  with a full report of these items (as ruff, which pushes too); ``pull_delay``: seconds
  each answer takes (one at a time: the server works on nothing else meanwhile).
- ``content_modified``: method -> how many of its first requests are answered ``-32801``
  (``ContentModified``) before it answers them.
- ``references``: advertise ``referencesProvider`` and answer with these locations (``$ROOT``
  is the root URI), in the order given.
- ``garbage_on``: a method whose first request is answered by bytes that are no LSP frame.
- ``$ROOTPATH`` in a published message is the root's path (``$ROOT`` its URI).
- ``apply_edit``: ``{"on": method, "edit": WorkspaceEdit}``: before answering a request of
  ``method``, send ``workspace/applyEdit`` with that edit and wait for the answer, which
  ``scripted/state`` then lists under ``"applied"``.
- ``log``: ``{"delay": seconds, "message": text}``: that long after ``initialized``, a
  ``window/logMessage`` of that text (as basedpyright says it has listed its files); it is
  listed among the ``received`` methods as ``"(logged)"``, in its order.

Every message received is logged to stderr (``got <method> <uri>``). The request
``scripted/state`` answers ``{"pid", "open": [uris], "received": [methods]}``. Other requests
get ``-32601`` (method not found).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

CONFIG: dict[str, Any] = json.loads(
    sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SCRIPTED_SERVER", "{}")
)

_write_lock = threading.Lock()
_stdout = sys.stdout.buffer
_stdin = sys.stdin.buffer

open_documents: dict[str, int] = {}  # uri -> version
received: list[str] = []
request_counts: dict[str, int] = {}
root_uri = ""
_answers: dict[Any, threading.Event] = {}
_results: dict[Any, Any] = {}
applied: list[Any] = []
START = 0
"""How many times a server of this ``pid_file`` started before this one."""


def log(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def send(message: dict[str, Any]) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
    with _write_lock:
        _stdout.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        _stdout.flush()


def notify(method: str, params: Any) -> None:
    send({"method": method, "params": params})


def read_message() -> dict[str, Any] | None:
    length = None
    while True:
        line = _stdin.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    if length is None:
        return None
    body = _stdin.read(length)
    if len(body) < length:
        return None
    message: dict[str, Any] = json.loads(body)
    return message


def log_message(message: str) -> None:
    received.append("(logged)")
    notify("window/logMessage", {"type": 3, "message": message})


def later(delay: float, action: Any, *args: Any) -> None:
    timer = threading.Timer(delay, action, args)
    timer.daemon = True
    timer.start()


def substitute(value: Any) -> Any:
    return json.loads(json.dumps(value).replace("$ROOT", root_uri))


# -- start ------------------------------------------------------------------------------------


def start_count() -> int:
    pid_file = CONFIG.get("pid_file")
    if not pid_file:
        return 0
    try:
        with open(pid_file, encoding="ascii") as file:
            return sum(1 for line in file if line.strip().isdigit())
    except FileNotFoundError:
        return 0


def record_pid(line: str) -> None:
    pid_file = CONFIG.get("pid_file")
    if pid_file:
        with open(pid_file, "a", encoding="ascii") as file:
            file.write(f"{line}\n")


def init_delay(start: int) -> float:
    delay = CONFIG.get("init_delay", 0)
    if isinstance(delay, list):
        return float(delay[min(start, len(delay) - 1)]) if delay else 0.0
    return float(delay)


def capabilities() -> dict[str, Any]:
    found: dict[str, Any] = {
        "textDocumentSync": {"openClose": True, "change": CONFIG.get("sync", 1)},
    }
    if "document_symbols" in CONFIG:
        found["documentSymbolProvider"] = True
    if "workspace_symbols" in CONFIG:
        found["workspaceSymbolProvider"] = True
    if "hover" in CONFIG:
        found["hoverProvider"] = True
    if "rename" in CONFIG:
        found["renameProvider"] = True
    if "pull" in CONFIG:
        found["diagnosticProvider"] = {
            "interFileDependencies": False,
            "workspaceDiagnostics": False,
        }
    if "references" in CONFIG:
        found["referencesProvider"] = True
    return found


def request_apply_edit(edit: Any) -> None:
    """Ask the client to apply ``edit`` (as a server's command would) and keep its answer."""
    request_id = f"apply-{len(applied)}"
    answered = threading.Event()
    _answers[request_id] = answered
    send({"id": request_id, "method": "workspace/applyEdit", "params": {"edit": edit}})
    answered.wait(10)
    applied.append(_results.pop(request_id, None))


# -- behaviours -------------------------------------------------------------------------------


def run_progress() -> None:
    script = CONFIG["progress"]
    titles = list(script.get("titles", []))
    delay = float(script.get("delay", 0.05))
    for number, title in enumerate(titles):
        token = f"scripted-{number}"
        if script.get("create", True):
            request_id = f"create-{number}"
            answered = threading.Event()
            _answers[request_id] = answered
            send(
                {
                    "id": request_id,
                    "method": "window/workDoneProgress/create",
                    "params": {"token": token},
                }
            )
            answered.wait(10)
        notify("$/progress", {"token": token, "value": {"kind": "begin", "title": title}})
        time.sleep(delay)
        notify("$/progress", {"token": token, "value": {"kind": "report", "message": "halfway"}})
        time.sleep(delay)
        last = number == len(titles) - 1
        if last and not script.get("end", True):
            return
        notify("$/progress", {"token": token, "value": {"kind": "end"}})


def publish(uri: str, version: int, report: dict[str, Any]) -> None:
    if open_documents.get(uri) != version and not report.get("even_if_stale"):
        return  # the text changed or closed meanwhile: this report is about nothing now
    items = json.loads(
        json.dumps(report.get("items", []))
        .replace("$VERSION", str(version))
        .replace("$ROOTPATH", root_uri.removeprefix("file://"))
        .replace("$ROOT", root_uri)
    )
    params: dict[str, Any] = {"uri": uri, "diagnostics": items}
    if report.get("versioned", True):
        params["version"] = version
    notify("textDocument/publishDiagnostics", params)


def changed(uri: str, version: int) -> None:
    for report in CONFIG.get("diagnostics", []):
        if "versions" in report and version not in report["versions"]:
            continue
        later(float(report.get("delay", 0)), publish, uri, version, report)


def document_symbols(uri: str) -> Any:
    table = CONFIG.get("document_symbols", {})
    name = uri.rsplit("/", 1)[-1]
    return substitute(table.get(name, table.get("*", [])))


def maybe_crash(method: str) -> None:
    crash = CONFIG.get("crash")
    count = request_counts[method] = request_counts.get(method, 0) + 1
    if crash and crash.get("method") == method and count == crash.get("nth", 1):
        die(f"scripted: fatal error on message {count} of {method}, pid {os.getpid()}")


def die(last_words: str) -> None:
    log(last_words)
    os._exit(3)


def answer(message: dict[str, Any]) -> None:
    global root_uri
    method = message["method"]
    params = message.get("params") or {}
    request_id = message["id"]
    if request_counts.get(method) in CONFIG.get("silent", {}).get(method, []):
        return  # a request this server never answers
    script = CONFIG.get("apply_edit")
    if script and script.get("on") == method:
        request_apply_edit(substitute(script["edit"]))
    if request_counts.get(method, 0) <= CONFIG.get("content_modified", {}).get(method, 0):
        send({"id": request_id, "error": {"code": -32801, "message": "content modified"}})
        return
    if CONFIG.get("garbage_on") == method:
        with _write_lock:
            _stdout.write(b"this is not a frame: Traceback (most recent call last)\r\n\r\n")
            _stdout.flush()
        return
    if method == "initialize":
        root_uri = params.get("rootUri") or ""
        time.sleep(init_delay(START))
        send({"id": request_id, "result": {"capabilities": capabilities()}})
    elif method == "shutdown":
        if CONFIG.get("hang_shutdown"):
            return
        send({"id": request_id, "result": None})
    elif method == "textDocument/documentSymbol" and "document_symbols" in CONFIG:
        uri = params["textDocument"]["uri"]
        send({"id": request_id, "result": document_symbols(uri)})
    elif method == "workspace/symbol" and "workspace_symbols" in CONFIG:
        query = str(params.get("query", "")).lower()
        hits = [hit for hit in CONFIG["workspace_symbols"] if query in hit["name"].lower()]
        send({"id": request_id, "result": substitute(hits)})
    elif method == "textDocument/hover" and "hover" in CONFIG:
        send(
            {
                "id": request_id,
                "result": {"contents": {"kind": "markdown", "value": CONFIG["hover"]}},
            }
        )
    elif method == "textDocument/diagnostic" and "pull" in CONFIG:
        time.sleep(CONFIG.get("pull_delay", 0))
        send({"id": request_id, "result": {"kind": "full", "items": CONFIG["pull"]}})
    elif method == "textDocument/references" and "references" in CONFIG:
        send({"id": request_id, "result": substitute(CONFIG["references"])})
    elif method == "textDocument/rename" and "rename" in CONFIG:
        send({"id": request_id, "result": substitute(CONFIG["rename"])})
    elif method == "scripted/state":
        state = {
            "pid": os.getpid(),
            "open": sorted(open_documents),
            "received": received,
            "applied": applied,
        }
        send({"id": request_id, "result": state})
    else:
        send(
            {
                "id": request_id,
                "error": {"code": -32601, "message": f"scripted: no method {method}"},
            }
        )


def on_notification(message: dict[str, Any]) -> None:
    method = message["method"]
    params = message.get("params") or {}
    if method == "initialized":
        if "progress" in CONFIG:
            threading.Thread(target=run_progress, daemon=True).start()
        if "log" in CONFIG:
            later(float(CONFIG["log"]["delay"]), log_message, str(CONFIG["log"]["message"]))
        if "die_after" in CONFIG:
            later(float(CONFIG["die_after"]), die, f"scripted: out of memory, pid {os.getpid()}")
    elif method == "exit":
        if not CONFIG.get("hang_shutdown"):
            os._exit(0)
    elif method == "textDocument/didOpen" or method == "textDocument/didChange":
        document = params["textDocument"]
        open_documents[document["uri"]] = document["version"]
        changed(document["uri"], document["version"])
    elif method == "textDocument/didClose":
        open_documents.pop(params["textDocument"]["uri"], None)


def main() -> None:
    if CONFIG.get("ignore_term"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    global START
    START = start_count()
    record_pid(str(os.getpid()))
    if CONFIG.get("child"):
        child = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(600)"],
            stdin=subprocess.DEVNULL,
        )
        record_pid(f"child {child.pid}")
    if CONFIG.get("detached_child"):
        child = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(600)"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        record_pid(f"child {child.pid}")
    while True:
        message = read_message()
        if message is None:
            break
        method = message.get("method")
        uri = ((message.get("params") or {}).get("textDocument") or {}).get("uri", "")
        if method is None:
            log(f"got answer {message.get('id')}")
            _results[message.get("id")] = message.get("result", message.get("error"))
            event = _answers.pop(message.get("id"), None)
            if event is not None:
                event.set()
            continue
        received.append(method)
        log(f"got {method} {uri}".rstrip())
        maybe_crash(method)
        if "id" in message and "apply_edit" in CONFIG:
            # Its own thread, so that a request it makes of the client meanwhile
            # (workspace/applyEdit) can be answered.
            threading.Thread(target=answer, args=(message,), daemon=True).start()
        elif "id" in message:
            answer(message)
        else:
            on_notification(message)
    if CONFIG.get("hang_shutdown") or CONFIG.get("ignore_eof"):
        while True:
            time.sleep(60)
    os._exit(0)


if __name__ == "__main__":
    main()
