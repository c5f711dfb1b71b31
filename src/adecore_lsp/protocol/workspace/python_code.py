"""Whether an edit of a Python file changed its code, or only its comments and docstrings.

What other files see of a module is its code: a comment or a docstring is no type a checker
gives an importer (a ``# type:`` comment is, and counts as code). So an edit that changes
neither the code nor a type comment can break nothing in the files that import the module,
and only the edited file itself needs to be asked again.

Both texts are parsed (:func:`ast.parse`, no code runs; a text that does not parse is taken
as changed, and so is an edit that spans more than :data:`MAX_SPAN` characters). The texts
are the same before and after the span the edit changed, so only the top-level statements
that overlap it can differ: those are compared, without their positions and with the
strings that stand alone as statements (docstrings) dropped; the statements around them
must be as many on both sides.

Sans-I/O: texts in, a yes or no out.
"""

from __future__ import annotations

import ast

from ..documents.textdiff import diff

# Internal to the library: nothing here is public API.
__all__: list[str] = []

MAX_SPAN = 4096
"""The most characters an edit may span (from its first change to its last, on either
side) to be looked at: a wider one (a rename's uses all over a module) is taken as a change
of code without parsing anything, as it nearly always is."""


class _Docstrings(ast.NodeTransformer):
    """Drops the statements that are a string alone (a docstring, a bare string)."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list):
                setattr(node, name, [item for item in body if not _bare_string(item)])
        return node


def _bare_string(node: object) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _parsed(text: str) -> list[ast.stmt] | None:
    try:
        return ast.parse(text, type_comments=True).body
    except (SyntaxError, ValueError):
        return None


def _overlapping(body: list[ast.stmt], first: int, last: int) -> tuple[int, int]:
    """The indexes ``[start, end)`` of the statements whose lines meet ``first..last``
    (1-based); an empty range at the place a change between statements falls."""
    start = 0
    while start < len(body) and (body[start].end_lineno or body[start].lineno) < first:
        start += 1
    end = start
    while end < len(body) and body[end].lineno <= last:
        end += 1
    return start, end


def _code(statements: list[ast.stmt]) -> str:
    module = ast.Module(body=statements, type_ignores=[])
    kept = [item for item in module.body if not _bare_string(item)]
    return ast.dump(_Docstrings().visit(ast.Module(body=kept, type_ignores=[])))


def same_code(old: str, new: str) -> bool:
    """Whether ``new`` differs from ``old`` in comments and docstrings only."""
    if old == new:
        return True
    start, old_end, new_end = diff(old, new)
    if max(old_end, new_end) - start > MAX_SPAN:
        return False
    before, after = _parsed(old), _parsed(new)
    if before is None or after is None:
        return False
    first = old.count("\n", 0, start) + 1
    old_range = _overlapping(before, first, old.count("\n", 0, old_end) + 1)
    new_range = _overlapping(after, first, new.count("\n", 0, new_end) + 1)
    # The text before the change is the same on both sides, and so are the statements
    # that end before it; a change that joins or splits the statements after it (a line
    # continuation) leaves another number of them.
    if len(before) - old_range[1] != len(after) - new_range[1]:
        return False
    return _code(before[slice(*old_range)]) == _code(after[slice(*new_range)])
