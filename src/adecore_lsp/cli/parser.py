"""The command line's grammar: global options before or after the command, one subcommand
per command, ``daemon`` with its actions, and ``mcp``'s own parser for ``python -m
adecore_lsp.mcp``. The standard library's :mod:`argparse` only: a command sent to the
daemon parses its options with this and imports nothing more of the package.
"""

from __future__ import annotations

import argparse
import functools
import shlex
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from .._version import __version__
from .hook_hosts import HOSTS
from .modes import DAEMON_MODES
from .status import FAILURE

# Internal to the library: the command line is the public face of this module.
__all__: list[str] = []

HTTP_HELP = "serve streamable HTTP at HOST:PORT (path /mcp) instead of stdio"
MCP_TIMEOUT = 30.0
"""``--timeout`` of ``mcp`` unless given: below the tool timeouts of the usual hosts."""
HOOK_DEADLINE = 45.0
"""``hook``'s own deadline by default, in seconds: below Claude Code's 60 for a hook."""

SEVERITIES = ("error", "warning", "information", "hint")
CHECK_FORMATS = ("text", "json", "jsonl", "sarif", "github")

_GLOBAL_HELP = {
    "root": "the workspace root (default: the repository the first path, or the current "
    "folder, lies in: the outermost folder holding a workspace file (uv, npm or pnpm "
    "workspaces, a TypeScript solution, go.work, a Cargo workspace) up to the nearest .git, "
    "else that .git's folder; outside git, the nearest folder up holding a root marker of the "
    "chosen server). Projects nested in it keep their own configuration",
    "server": "a registry server to use (repeatable); `adecore-lsp servers` lists them",
    "command": 'a server that is not in the registry, as one string ("my-lsp --stdio")',
    "timeout": "the bound of every wait, in seconds (default 60); for diagnostics, of a "
    "server's silence: one that answers or moves its progress is waited for",
    "trace": "write every message with the servers to FILE, one JSON line each",
    "replay": "answer from a trace written by --trace instead of a live server",
    "quiet": "print nothing on stderr but errors",
    "no_progress": "show no progress of the servers",
    "debug": "show the Python traceback of a failure",
    "trust": "trust this root for this run: its configuration's commands and its own "
    "executables (.venv/bin, node_modules/.bin) may run (see `adecore-lsp trust`)",
    "daemon": "run the command in the daemon that keeps servers warm: auto (when one runs; "
    "the default, or $ADECORE_LSP_DAEMON), on (start one if none runs), off",
}


def add_global_options(parser: argparse.ArgumentParser, *, defaults: bool) -> None:
    """The options every command takes, before or after its name.

    On the subcommands they default to ``SUPPRESS``, so that an option given before the
    command is not reset by the subcommand's own default.
    """

    def default(value: Any) -> Any:
        return value if defaults else argparse.SUPPRESS

    group = parser.add_argument_group("global options")
    group.add_argument("--root", metavar="DIR", default=default(None), help=_GLOBAL_HELP["root"])
    group.add_argument(
        "--server",
        metavar="ID",
        action="append",
        dest="servers",
        default=default(None),
        help=_GLOBAL_HELP["server"],
    )
    group.add_argument(
        "--command", metavar="ARGV", default=default(None), help=_GLOBAL_HELP["command"]
    )
    group.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=_seconds,
        default=default(60.0),
        help=_GLOBAL_HELP["timeout"],
    )
    group.add_argument("--trace", metavar="FILE", default=default(None), help=_GLOBAL_HELP["trace"])
    group.add_argument(
        "--replay", metavar="FILE", default=default(None), help=_GLOBAL_HELP["replay"]
    )
    group.add_argument(
        "--quiet", "-q", action="store_true", default=default(False), help=_GLOBAL_HELP["quiet"]
    )
    group.add_argument(
        "--no-progress",
        action="store_true",
        default=default(False),
        help=_GLOBAL_HELP["no_progress"],
    )
    group.add_argument(
        "--debug", action="store_true", default=default(False), help=_GLOBAL_HELP["debug"]
    )
    group.add_argument(
        "--trust", action="store_true", default=default(False), help=_GLOBAL_HELP["trust"]
    )
    group.add_argument(
        "--daemon", choices=DAEMON_MODES, default=default(None), help=_GLOBAL_HELP["daemon"]
    )


HOOK_USAGE_ERROR = 1
"""``hook``'s exit status for a mistake in its command line (see :func:`build_parser`)."""


def _fail_with(parser: argparse.ArgumentParser, status: int, message: str) -> NoReturn:
    """``parser.error`` with another exit status."""
    parser.print_usage(sys.stderr)
    parser.exit(status, f"{parser.prog}: error: {message}\n")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(
            f"a timeout must be a positive number of seconds, not {text}"
        )
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


@functools.lru_cache(maxsize=1)
def build_parser() -> argparse.ArgumentParser:
    """The whole command line: global options and one subcommand per command (made once a
    process: the daemon parses every caller's command with it)."""
    parser = argparse.ArgumentParser(
        prog="adecore-lsp",
        description="Language servers in the shell: check files, see what names mean and where "
        "they are used, rename, format, and know which servers you have.",
        epilog="exit status: 0 clean, 1 findings or pending changes, 2 usage error or failure, "
        "3 incomplete (a wait timed out: the answer cannot be trusted)",
    )
    parser.add_argument("--version", action="version", version=f"adecore-lsp {__version__}")
    add_global_options(parser, defaults=True)
    commands = parser.add_subparsers(dest="name", metavar="COMMAND")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help)
        add_global_options(sub, defaults=False)
        return sub

    check = command("check", "final diagnostics of files (every file of the root by default)")
    check.add_argument("paths", nargs="*", metavar="PATH")
    check.add_argument("--format", choices=CHECK_FORMATS, default="text")
    check.add_argument("--min-severity", choices=SEVERITIES, default="hint")
    check.add_argument("--fail-on", choices=SEVERITIES, default="error")
    check.add_argument(
        "--baseline", metavar="FILE", help="report only what a saved --format json output lacks"
    )
    check.add_argument(
        "--new-since",
        metavar="REV",
        default=None,
        help="report only what the working tree introduced since git revision REV (HEAD, "
        "origin/main, a commit); without paths every file of the root is checked",
    )

    hover = command("hover", "the hover text of a target")
    hover.add_argument("target", metavar="TARGET")
    hover.add_argument("--format", choices=("text", "json"), default="text")

    for name, what in (
        ("definition", "where a target is defined"),
        ("references", "where a target is used"),
        ("implementation", "the implementations of a target"),
        ("type-definition", "where the type of a target is defined"),
        ("callers", "what calls a target"),
        ("callees", "what a target calls"),
    ):
        sub = command(name, what)
        sub.add_argument("target", metavar="TARGET")
        sub.add_argument("--format", choices=("text", "json"), default="text")
        if name == "references":
            sub.add_argument("--context", type=_positive, default=0, metavar="N")
            sub.add_argument("--include-declaration", action="store_true")

    symbols = command("symbols", "the outline of a file")
    symbols.add_argument("file", metavar="FILE")
    symbols.add_argument("--depth", type=_positive, default=None, metavar="N")
    symbols.add_argument("--kind", default=None, help="only these kinds, e.g. function,class")
    symbols.add_argument("--format", choices=("text", "json"), default="text")

    find = command("find", "search the workspace's symbols")
    find.add_argument("query", metavar="QUERY")
    find.add_argument("--limit", type=_positive, default=50)
    find.add_argument("--format", choices=("text", "json"), default="text")

    rename = command("rename", "the diff of renaming a target (--write applies it)")
    rename.add_argument("target", metavar="TARGET")
    rename.add_argument("new_name", metavar="NEW_NAME")
    rename.add_argument("--write", action="store_true")
    rename.add_argument("--format", choices=("text", "json"), default="text")

    for name, what in (
        ("format", "the diff of formatting files (--write applies it)"),
        ("fix", "the diff of the servers' fix-all actions (--write applies it)"),
    ):
        sub = command(name, what)
        sub.add_argument("paths", nargs="*", metavar="PATH")
        sub.add_argument("--write", action="store_true")
        sub.add_argument("--check", action="store_true", help="exit 1 when some file would change")
        sub.add_argument("--format", choices=("text", "json"), default="text")

    capabilities = command("capabilities", "what the server supports for a file")
    capabilities.add_argument("file", nargs="?", metavar="FILE")
    capabilities.add_argument("--format", choices=("text", "json"), default="text")

    servers = command("servers", "the servers the registry knows, and which are installed")
    servers.add_argument("--format", choices=("text", "json"), default="text")

    doctor = command("doctor", "start each installed server and say how it behaves")
    doctor.add_argument("ids", nargs="*", metavar="ID")
    doctor.add_argument("--format", choices=("text", "json"), default="text")

    trust = command(
        "trust",
        "trust a root: its configuration's commands and its own executables may then run "
        "(until its configuration changes)",
    )
    trust.add_argument(
        "dir", nargs="?", metavar="DIR", help="the root to trust (default: this project's)"
    )
    trust.add_argument("--list", action="store_true", help="the trusted roots, one a line")
    trust.add_argument("--remove", metavar="DIR", help="forget a trusted root")

    hook = command(
        "hook",
        "a coding agent's hook: read the host's hook input on stdin and answer, in the host's "
        "protocol, with what the agent's edits introduced (through the daemon)",
    )
    hook.add_argument("host", choices=sorted(HOSTS), metavar="HOST", help=", ".join(HOSTS))
    hook.add_argument("event", metavar="EVENT", help="as the host names it, e.g. PostToolUse")
    hook.add_argument(
        "--deadline",
        type=_seconds,
        default=HOOK_DEADLINE,
        metavar="SECONDS",
        help=f"answer by then, incomplete if need be (default {HOOK_DEADLINE:.0f})",
    )
    hook.add_argument("--input", default=None, help=argparse.SUPPRESS)
    # Exit status 2 blocks the agent in every host's hook protocol: a mistake in the hook's
    # own command line (an unknown host, no event, a bad --deadline) must never be read as
    # "the edit broke something", so it exits 1, each host's non-blocking failure.
    hook.error = functools.partial(_fail_with, hook, HOOK_USAGE_ERROR)  # type: ignore[method-assign]

    agents = command("agents", "set a coding agent's host up to use adecore-lsp in this project")
    agent_actions = agents.add_subparsers(dest="action", metavar="ACTION")
    agent_actions.required = True
    setup = agent_actions.add_parser(
        "setup",
        help="write the host's MCP entry, hooks and skill (merged: nothing else is touched)",
        description="write the host's MCP entry, hooks and skill into this project's files, "
        "merged into what is there (every other key and comment kept); all three unless some "
        "are named",
    )
    setup.add_argument("host", choices=sorted(HOSTS), metavar="HOST", help=", ".join(HOSTS))
    setup.add_argument("--mcp", action="store_true", help="the MCP server's entry")
    setup.add_argument("--hook", action="store_true", help="the hooks (adecore-lsp hook)")
    setup.add_argument("--skill", action="store_true", help="a skill naming the commands")
    setup.add_argument("--dry-run", action="store_true", help="print the diff, write nothing")
    setup.add_argument("--remove", action="store_true", help="take back what setup wrote")
    add_global_options(setup, defaults=False)

    mcp = command("mcp", "serve the workspace to coding agents over MCP (stdio, or --http)")
    add_http_options(mcp)
    # Kept below hosts' usual tool timeouts (mcp.md); --timeout after `mcp` sets it.
    mcp.set_defaults(timeout=MCP_TIMEOUT)

    daemon = command("daemon", "the daemon that keeps language servers warm between commands")
    actions = daemon.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    for action, what in (
        ("start", "start the daemon in the background (returns once it accepts commands)"),
        ("run", "run the daemon in the foreground (for systemd, containers and tests)"),
    ):
        sub = actions.add_parser(action, help=what, description=what)
        sub.add_argument(
            "--idle-timeout",
            type=_seconds,
            default=None,
            metavar="SECONDS",
            help="shut a workspace's servers down after this long unused (default 900)",
        )
        sub.add_argument(
            "--memory-budget",
            type=_positive,
            default=None,
            metavar="MIB",
            help="the servers' memory together at most (default: a quarter of the machine's)",
        )
    actions.add_parser("stop", help="stop the daemon and every server it holds")
    status = actions.add_parser("status", help="whether a daemon runs, and what it holds")
    status.add_argument("--format", choices=("text", "json"), default="text")
    return parser


def add_http_options(parser: argparse.ArgumentParser) -> None:
    """``--http``, ``--allow-remote`` and ``--allowed-host``, for ``mcp`` either way."""
    parser.add_argument("--http", metavar="HOST:PORT", default=None, help=HTTP_HELP)
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a bind that is not loopback; every request then needs the bearer token "
        "(ADECORE_LSP_MCP_TOKEN, or one printed on stderr)",
    )
    parser.add_argument(
        "--allowed-host",
        metavar="NAME",
        action="append",
        dest="allowed_hosts",
        help="a host name requests may carry in Host and Origin (with --allow-remote)",
    )


def build_mcp_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m adecore_lsp.mcp``: the global options and ``--http``."""
    parser = argparse.ArgumentParser(
        prog="adecore-lsp mcp",
        description="Serve the workspace layer to coding agents over MCP (stdio by default).",
    )
    add_global_options(parser, defaults=True)
    add_http_options(parser)
    parser.set_defaults(timeout=MCP_TIMEOUT, name="mcp")
    return parser


def parse(argv: Sequence[str]) -> argparse.Namespace | int:
    """The parsed command line, or the exit status when parsing ended it (``--help``,
    ``--version``, a usage error)."""
    parser = build_parser()
    misplaced = misplaced_option(parser, argv)
    if misplaced is not None:
        command_parser, message = misplaced
        command_parser.print_usage(sys.stderr)
        sys.stderr.write(f"adecore-lsp: error: {message}\n")
        return FAILURE
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit:
        code = exit.code
        return code if isinstance(code, int) else FAILURE
    if args.name is None:
        parser.print_help(sys.stderr)
        return FAILURE
    return args


def misplaced_option(
    parser: argparse.ArgumentParser, argv: Sequence[str]
) -> tuple[argparse.ArgumentParser, str] | None:
    """A command's own option given before the command (``--format json references X``):
    the command's parser and a message saying where the option belongs, with the command
    line that works; ``None`` when there is no such option (the parser then says what it
    says)."""
    before: list[str] = []
    held: list[tuple[str, list[str]]] = []
    """Each option not global: its name and its words (its value, when one seems to follow)."""
    index = 0
    while index < len(argv) and argv[index].startswith("-") and argv[index] not in ("-", "--"):
        name, equals, _value = argv[index].partition("=")
        known = _option(parser, name)
        takes = (known is None or known.nargs != 0) and not equals and index + 1 < len(argv)
        if takes and known is None:
            # Not global: it takes a value when the next word is no option and no command.
            following = argv[index + 1]
            takes = not following.startswith("-") and _command_at(parser, argv, index + 1) is None
        words = list(argv[index : index + 1 + takes])
        index += 1 + takes
        if known is not None:
            before += words
        else:
            held.append((name, words))
    found = _command_at(parser, argv, index) if held else None
    if found is None:
        return None
    command_parser, naming = found
    shown = []
    for name, words in held:
        own = _option(command_parser, name)
        valued = len(words) == 2 or "=" in words[0]
        if own is None or (own.nargs == 0) == valued:
            return None  # not the command's, or not as given: the parser says what is wrong
        shown.append(own.option_strings[-1])
    moved = [word for _name, words in held for word in words]
    rest = argv[index + len(naming) :]
    fixed = shlex.join(["adecore-lsp", *before, *naming, *moved, *rest])
    which, them = (
        (f"{shown[0]} is an option", "it")
        if len(shown) == 1
        else (f"{', '.join(shown)} are options", "them")
    )
    where = " ".join(naming)
    return command_parser, f"{which} of the command: put {them} after `{where}` ({fixed})"


def _option(parser: argparse.ArgumentParser, name: str) -> argparse.Action | None:
    """The option of ``parser`` that ``name`` names (in full, or as argparse takes an
    abbreviation: the start of one long option alone)."""
    options = {string: action for action in parser._actions for string in action.option_strings}
    if name in options:
        return options[name]
    if not name.startswith("--"):
        return None
    starting = {action for string, action in options.items() if string.startswith(name)}
    return starting.pop() if len(starting) == 1 else None


def _command_at(
    parser: argparse.ArgumentParser, argv: Sequence[str], index: int
) -> tuple[argparse.ArgumentParser, list[str]] | None:
    """The command named at ``argv[index]``: its parser (an action's, for a command with
    actions such as ``daemon start``) and the words that name it."""
    chosen = _subcommand(parser, argv[index]) if index < len(argv) else None
    if chosen is None:
        return None
    action = _subcommand(chosen, argv[index + 1]) if index + 1 < len(argv) else None
    if action is not None:
        return action, list(argv[index : index + 2])
    return chosen, [argv[index]]


def _subcommand(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found = action.choices.get(name)
            return found if isinstance(found, argparse.ArgumentParser) else None
    return None
