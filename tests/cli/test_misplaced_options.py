"""A command's own option given before the command (``adecore-lsp --format json references
X``) says where it belongs and the command line that works, exit 2: for every option of every
command."""

from __future__ import annotations

import argparse
import re
import shlex

import pytest

from adecore_lsp.cli.main import main
from adecore_lsp.cli.parser import build_parser
from tests.cli.conftest import no_traceback, run

POSITIONALS = {
    "target": "app.py:1:1",
    "new_name": "renamed",
    "file": "app.py",
    "query": "Greeter",
    "host": "claude-code",
    "event": "PostToolUse",
}
"""A word for each positional argument a command needs."""


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def commands() -> list[tuple[list[str], argparse.ArgumentParser]]:
    """Each command (and each action of the commands with actions) and its parser."""
    found = []
    for name, sub in subcommands(build_parser()).items():
        actions = subcommands(sub)
        found += [([name, action], parser) for action, parser in actions.items()]
        if not actions:
            found.append(([name], sub))
    return found


GLOBAL = {string for action in build_parser()._actions for string in action.option_strings}


def own_options() -> list[tuple[list[str], list[str], list[str]]]:
    """Each option a command has and the program has not: the command's words, the option
    with a value if it takes one, and the command's positional words."""
    cases = []
    for naming, parser in commands():
        positionals = [
            POSITIONALS[action.dest]
            for action in parser._actions
            if not action.option_strings
            and action.dest in POSITIONALS
            and action.nargs not in ("?", "*")
        ]
        for action in parser._actions:
            strings = [string for string in action.option_strings if string.startswith("--")]
            if not strings or strings[-1] in GLOBAL or action.help == argparse.SUPPRESS:
                continue
            option = [strings[-1]]
            if action.nargs != 0:
                option.append(str(next(iter(action.choices))) if action.choices else "1")
            cases.append((naming, option, positionals))
    return cases


CASES = own_options()


def test_every_command_has_its_options_tried() -> None:
    tried = {(" ".join(naming), option[0]) for naming, option, _ in CASES}
    assert {
        ("references", "--format"),
        ("check", "--new-since"),
        ("daemon start", "--idle-timeout"),
    } <= tried
    assert ("agents setup", "--dry-run") in tried
    assert len(tried) > 40


@pytest.mark.parametrize(
    ("naming", "option", "positionals"),
    CASES,
    ids=[f"{' '.join(naming)} {option[0]}" for naming, option, _ in CASES],
)
def test_an_option_before_its_command_says_where_it_belongs(
    naming: list[str],
    option: list[str],
    positionals: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    given = ["--quiet", *option, *naming, *positionals]
    assert main(given) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    where = " ".join(naming)
    said = re.search(
        rf"adecore-lsp: error: {option[0]} is an option of the command: put it after "
        rf"`{where}` \((.*)\)\n$",
        captured.err,
    )
    assert said is not None, captured.err
    fixed = shlex.split(said.group(1))
    assert fixed == ["adecore-lsp", "--quiet", *naming, *option, *positionals]
    build_parser().parse_args(fixed[1:])  # the command line said works


def test_as_the_issue_tried_it() -> None:
    ran = run("--format", "json", "references", "app.py:1:1")
    no_traceback(ran)
    assert ran.status == 2, ran
    assert ran.out == ""
    assert ran.err.endswith(
        "adecore-lsp: error: --format is an option of the command: put it after `references` "
        "(adecore-lsp references --format json app.py:1:1)\n"
    )
    assert ran.err.startswith("usage: adecore-lsp references")


@pytest.mark.parametrize(
    ("given", "said"),
    [
        # Two of them, an abbreviation, a value after `=`, a global option among them.
        (
            ["--limit", "3", "--root", ".", "--form=json", "find", "Foo"],
            "--limit, --format are options of the command: put them after `find` "
            "(adecore-lsp --root . find --limit 3 --form=json Foo)",
        ),
        # Neither the program's nor the command's: the parser's own word.
        (["--nope", "references", "x"], "unrecognized arguments: --nope"),
        # An option of the command without the value it takes: the parser's own word.
        (["--format", "references", "x"], "unrecognized arguments: --format"),
        (["--format", "json", "nothing", "x"], "argument COMMAND: invalid choice: 'json'"),
    ],
)
def test_what_is_not_one_commands_option_is_left_to_the_parser(
    given: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(given) == 2
    assert f"adecore-lsp: error: {said}" in capsys.readouterr().err
