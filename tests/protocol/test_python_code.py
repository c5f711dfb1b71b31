"""An edit that changes only comments and docstrings changes no code another file sees."""

from __future__ import annotations

import pytest

from adecore_lsp.protocol.workspace.python_code import same_code

BASE = '''"""A module."""

import os  # the system


def f(x: int) -> int:
    """Double it."""
    return x * 2


class C:
    """A class."""

    value = []  # type: list[int]

    def m(self) -> None:
        "One line."
        try:
            pass
        finally:
            "not a docstring, a bare string"
'''


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"""Double it."""', '"""Double it, twice."""'),
        ("# the system", "# the operating system"),
        ('"""A module."""\n', '"""A module,\nof two lines."""\n'),
        ("class C:\n", "class C:  # a comment\n"),
        ('"One line."', '"Another line."'),
        ('"not a docstring, a bare string"', '"still bare"'),
        ("    return x * 2\n", "\n    return x * 2\n"),  # a blank line: positions only
    ],
)
def test_comments_docstrings_and_positions_are_not_code(old: str, new: str) -> None:
    assert BASE.count(old) == 1
    assert same_code(BASE, BASE.replace(old, new))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("-> int:", "-> str:"),
        ("x * 2", "x * 3"),
        ("# type: list[int]", "# type: list[str]"),  # a type comment is a type
        ("import os", "import sys"),
        ('"""A class."""\n', '"""A class."""\n    extra = 1\n'),
    ],
)
def test_code_and_type_comments_are_code(old: str, new: str) -> None:
    assert not same_code(BASE, BASE.replace(old, new))


def test_a_text_that_does_not_parse_is_taken_as_changed() -> None:
    assert same_code(BASE, BASE)
    assert not same_code(BASE + "def broken(:\n", BASE + "def broken(:  # c\n")
    assert not same_code(BASE, BASE + "def broken(:\n")
    assert not same_code("x = '\0'", "x = '\0' ")  # a null byte: not parsed on every Python


def test_only_the_statements_the_change_meets_are_compared() -> None:
    """A change between two statements meets none; one that swallows the code after it
    (an unclosed string) changes the statements around it."""
    two = "x = 1\n\n# note\n\ny = 2\n"
    assert same_code(two, two.replace("# note", "# a longer note"))
    assert same_code(two, two.replace("# note\n", ""))
    assert not same_code(two, two.replace("# note", "z = 3"))
    swallowed = 'x = 1\n"""doc\n\ny = 2\n"""\n'
    assert not same_code("x = 1\n\n\ny = 2\n", swallowed)
    # A line continuation joins the next statement to the changed one: a = b = 2.
    assert not same_code("a = 1\nb = 2\nc = 3\n", "a =\\\nb = 2\nc = 3\n")


def test_an_edit_spanning_much_of_a_file_is_taken_as_code_unparsed() -> None:
    wide = "x = 1\n" + "# filler\n" * 1000 + "y = 2\n"
    assert not same_code(wide, wide.replace("x = 1", "x = 1  # a").replace("y = 2", "y = 2  # b"))
