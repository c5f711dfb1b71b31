"""Whether an edit of a Python file changed its code, or only its comments and docstrings.

What other files see of a module is its code: a comment or a docstring is no type a checker
gives an importer (a ``# type:`` comment is, and counts as code). So an edit that changes
neither the code nor a type comment can break nothing in the files that import the module,
and only the edited file itself needs to be asked again. Both texts are parsed
(:func:`ast.parse`, no code runs), the strings that stand alone as statements (docstrings)
dropped, and the trees compared without their positions; a text that does not parse is
taken as changed.

Sans-I/O: texts in, a yes or no out.
"""

from __future__ import annotations

import ast

# Internal to the library: nothing here is public API.
__all__: list[str] = []


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


def _code(text: str) -> str | None:
    """The text's code, positions, comments and docstrings left out; ``None`` when it does
    not parse."""
    try:
        tree = ast.parse(text, type_comments=True)
    except (SyntaxError, ValueError):
        return None
    return ast.dump(_Docstrings().visit(tree), include_attributes=False)


def same_code(old: str, new: str) -> bool:
    """Whether ``new`` differs from ``old`` in comments and docstrings only."""
    if old == new:
        return True
    before = _code(old)
    return before is not None and before == _code(new)
