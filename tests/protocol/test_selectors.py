"""Globs, document selectors, RelativePatterns and file operation filters."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adecore_lsp.protocol.selectors import (
    DocumentInfo,
    GlobError,
    as_document,
    compile_glob,
    file_operation_filter_problems,
    file_operation_filters_match,
    filter_matches,
    glob_matches,
    pattern_matches,
    pattern_problems,
    selector_matches,
    selector_problems,
    uri_path,
)

TS = DocumentInfo("file:///a/b.ts", "typescript")


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        # `*`: zero or more characters within one segment.
        ("*", "", True),
        ("a*b", "ab", True),
        ("a*b", "axyzb", True),
        ("a*b", "a/b", False),
        ("*.ts", "b.ts", True),
        ("*.ts", "/a/b.ts", False),
        # `?`: exactly one character within a segment.
        ("?.ts", "b.ts", True),
        ("?.ts", ".ts", False),
        ("a?b", "a/b", False),
        # `**`: whole segments, including none.
        ("**/*.ts", "/a/b.ts", True),
        ("**/*.ts", "b.ts", True),
        ("**/*.ts", "/a/b/c/d.ts", True),
        ("**/*.ts", "/a/b.js", False),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("a/**/b", "ab", False),
        ("a/**", "a", True),
        ("a/**", "a/b/c", True),
        ("a/**", "ab", False),
        ("**", "/any/thing", True),
        ("**", "", True),
        ("/src/**/*.py", "/src/pkg/mod.py", True),
        ("/src/**/*.py", "/lib/pkg/mod.py", False),
        # `**` inside a segment is a single star.
        ("**.ts", "b.ts", True),
        ("**.ts", "a/b.ts", False),
        ("a**", "a/b", False),
        # Braces: alternatives hold any glob and may nest.
        ("{a,ab}", "ab", True),
        ("{a,ab}", "a", True),
        ("{a,ab}", "abc", False),
        ("**/*.{mdx}", "/docs/x.mdx", True),
        ("**/*.{ts,js}", "/a/b.js", True),
        ("**/*.{ts,js}", "/a/b.py", False),
        ("{**/*.ts,src/**}", "src/x/y.js", True),
        ("{**/*.ts,src/**}", "/deep/y.ts", True),
        ("{**/*.ts,src/**}", "lib/y.js", False),
        ("a{b,{c,d}}", "ad", True),
        ("{,x}a", "a", True),
        ("x,}", "x,}", True),
        ("]", "]", True),
        # Brackets: sets, ranges, negation; never a separator.
        ("example.[0-9]", "example.7", True),
        ("example.[0-9]", "example.a", False),
        ("example.[!0-9]", "example.a", True),
        ("example.[!0-9]", "example.0", False),
        ("example.[^0-9]", "example.a", True),
        ("[abc]", "b", True),
        ("[]]", "]", True),
        ("[!]]", "a", True),
        ("[a-]", "-", True),
        ("[/a]", "/", False),
        ("[!a]", "/", False),
        # Separators and literals.
        ("a\\b", "a/b", True),
        ("a/b", "a\\b", True),
        ("a.b", "axb", False),
        ("A.ts", "a.ts", False),
        ("(x)+", "(x)+", True),
    ],
)
def test_glob_rules(glob: str, path: str, expected: bool) -> None:
    """Each glob matches the whole path by the published rule table."""
    assert glob_matches(glob, path) is expected


@pytest.mark.parametrize("glob", ["{a", "a{b,c", "{a,{b}", "[a", "[!]", "x[0-9", "[z-a]"])
def test_unreadable_globs_raise(glob: str) -> None:
    """An unbalanced brace or bracket, or a reversed range, raises GlobError naming the glob."""
    with pytest.raises(GlobError) as caught:
        compile_glob(glob)
    assert caught.value.glob == glob
    assert glob in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_unreadable_glob_raises_each_time() -> None:
    """A cached failure still raises a fresh error on every call."""
    with pytest.raises(GlobError) as first:
        compile_glob("{x")
    with pytest.raises(GlobError) as second:
        compile_glob("{x")
    assert first.value is not second.value


def test_compiled_globs_are_cached() -> None:
    """Compiling the same glob twice returns the same regex object."""
    assert compile_glob("**/*.py") is compile_glob("**/*.py")
    assert compile_glob("**/*.py") is not compile_glob("**/*.py", ignore_case=True)


def test_ignore_case() -> None:
    """ignore_case makes literal characters match either case."""
    assert glob_matches("**/*.TS", "/a/b.ts", ignore_case=True)
    assert not glob_matches("**/*.TS", "/a/b.ts")


_LITERAL = st.text(
    alphabet=st.characters(exclude_characters="*?[]{}\\/,"),
    max_size=20,
)


@given(text=_LITERAL, other=_LITERAL)
def test_literal_globs_match_only_themselves(text: str, other: str) -> None:
    """A glob without special characters matches exactly its own text."""
    assert glob_matches(text, text)
    assert glob_matches(text, other) is (text == other)


@given(segment=st.text(alphabet=st.characters(exclude_characters="/\\"), max_size=15))
def test_star_matches_any_single_segment(segment: str) -> None:
    """`*` matches any text without a separator, and `**/x` finds it under any prefix."""
    assert glob_matches("*", segment)
    assert not glob_matches("*", segment + "/x")
    assert glob_matches("**/" + "x", segment + "/x")


@given(parts=st.lists(st.text(alphabet="ab.", min_size=1, max_size=4), min_size=1, max_size=5))
def test_globstar_prefix_matches_every_depth(parts: list[str]) -> None:
    """`**/name` matches `name` at every depth, and with a leading slash."""
    path = "/".join([*parts, "name"])
    assert glob_matches("**/name", path)
    assert glob_matches("**/name", "/" + path)


@pytest.mark.parametrize(
    ("uri", "path"),
    [
        ("file:///a/b%20c.ts", "/a/b c.ts"),
        ("file:///a/%E2%82%AC.ts", "/a/€.ts"),
        ("file:///C:/src/x.ts", "C:/src/x.ts"),
        ("file:///c%3A/src/x.ts", "c:/src/x.ts"),
        ("untitled:Untitled-1", "Untitled-1"),
        ("file:///a/b.ts?query#frag", "/a/b.ts"),
        ("vscode-remote://host/a/b.ts", "/a/b.ts"),
    ],
)
def test_uri_path(uri: str, path: str) -> None:
    """Patterns see the percent-decoded path of the URI, without query or fragment."""
    assert uri_path(uri) == path


def test_pattern_matches_decoded_path() -> None:
    """A string pattern is matched against the decoded path, so spaces match literally."""
    assert pattern_matches("**/b c.ts", "file:///a/b%20c.ts")
    assert pattern_matches("**/*.ts", "file:///a/b.ts")
    assert not pattern_matches("*.ts", "file:///a/b.ts")


@pytest.mark.parametrize(
    ("pattern", "uri", "expected"),
    [
        ({"baseUri": "file:///ws", "pattern": "src/*.py"}, "file:///ws/src/a.py", True),
        ({"baseUri": "file:///ws/", "pattern": "src/*.py"}, "file:///ws/src/a.py", True),
        ({"baseUri": "file:///ws", "pattern": "*.py"}, "file:///ws/src/a.py", False),
        ({"baseUri": "file:///ws", "pattern": "**/*.py"}, "file:///ws/src/a.py", True),
        ({"baseUri": "file:///ws", "pattern": "**/*.py"}, "file:///wsx/a.py", False),
        ({"baseUri": "file:///ws", "pattern": "**/*.py"}, "file:///other/a.py", False),
        ({"baseUri": "file:///ws", "pattern": "**/*.py"}, "untitled:/ws/a.py", False),
        ({"baseUri": "file:///my%20ws", "pattern": "a.py"}, "file:///my%20ws/a.py", True),
        (
            {"baseUri": {"uri": "file:///ws", "name": "ws"}, "pattern": "**/*.py"},
            "file:///ws/a.py",
            True,
        ),
        ({"baseUri": "file:///ws", "pattern": "{x"}, "file:///ws/x", False),
        ({"baseUri": 5, "pattern": "**"}, "file:///ws/x", False),
        ({"pattern": "**"}, "file:///ws/x", False),
        (7, "file:///ws/x", False),
        ("{x", "file:///x", False),
    ],
)
def test_relative_patterns(pattern: object, uri: str, expected: bool) -> None:
    """A RelativePattern matches the path below its base; malformed ones match nothing."""
    assert pattern_matches(pattern, uri) is expected


@pytest.mark.parametrize(
    ("document_filter", "expected"),
    [
        ({"language": "typescript"}, True),
        ({"language": "python"}, False),
        ({"language": "*"}, True),
        ({"scheme": "file"}, True),
        ({"scheme": "FILE"}, True),
        ({"scheme": "untitled"}, False),
        ({"scheme": "*"}, True),
        ({"pattern": "**/*.ts"}, True),
        ({"pattern": "*.ts"}, False),
        ({"pattern": {"baseUri": "file:///a", "pattern": "*.ts"}}, True),
        ({"language": "typescript", "scheme": "file", "pattern": "**/b.ts"}, True),
        ({"language": "typescript", "scheme": "untitled"}, False),
        ({"language": "typescript", "pattern": "**/*.js"}, False),
        ({}, False),
        ({"other": "x"}, False),
        ({"language": None}, False),
        ({"notebook": "jupyter-notebook", "language": "typescript"}, False),
        ({"notebook": "*"}, False),
        ("typescript", True),
        ("*", True),
        ("python", False),
        ({"language": "typescript", "pattern": "{bad"}, False),
        ({"language": 5}, False),
        ({"scheme": 5}, False),
        (None, False),
        (["typescript"], False),
    ],
)
def test_document_filters(document_filter: object, expected: bool) -> None:
    """Every field a filter has must match; a filter without fields matches nothing."""
    assert filter_matches(document_filter, TS) is expected


def test_filter_language_needs_a_known_language() -> None:
    """A document whose language is unknown matches no filter naming a language."""
    bare = DocumentInfo("file:///a/b.ts")
    assert not filter_matches({"language": "typescript"}, bare)
    assert filter_matches({"pattern": "**/*.ts"}, bare)


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        (None, True),
        ([], False),
        ([{"language": "python"}, {"language": "typescript"}], True),
        ([{"language": "python"}, {}], False),
        ([{"pattern": "{bad"}, {"scheme": "file"}], True),
        ("typescript", False),
        ({"language": "typescript"}, False),
    ],
)
def test_selectors(selector: object, expected: bool) -> None:
    """Any matching filter selects; None selects all; an empty or non-list selector none."""
    assert selector_matches(selector, TS) is expected


def test_selector_problems_name_each_fault() -> None:
    """selector_problems reports bad shapes, empty filters and unreadable globs, not notebooks."""
    assert selector_problems(None) == []
    assert selector_problems([{"language": "python"}, "rust", {"notebook": "*"}]) == []
    assert selector_problems([{"pattern": {"baseUri": "file:///w", "pattern": "*"}}]) == []
    assert len(selector_problems("python")) == 1
    problems = selector_problems([{}, 5, {"language": 3}, {"pattern": "[a"}, {"pattern": 9}])
    assert len(problems) == 5
    assert [type(p) for p in problems].count(GlobError) == 1
    glob_error = next(p for p in problems if isinstance(p, GlobError))
    assert glob_error.glob == "[a"


def test_pattern_problems() -> None:
    """pattern_problems accepts globs and RelativePatterns and reports everything else."""
    assert pattern_problems("**/*.py") == []
    assert pattern_problems({"baseUri": {"uri": "file:///w"}, "pattern": "*.py"}) == []
    assert isinstance(pattern_problems({"baseUri": "file:///w", "pattern": "{"})[0], GlobError)
    assert len(pattern_problems(None)) == 1


def test_file_operation_filters() -> None:
    """File operation filters match scheme and glob against the URI, optionally without case."""
    filters: list[Any] = [
        {"scheme": "file", "pattern": {"glob": "**/*.py"}},
        {"pattern": {"glob": "**/*.MD", "options": {"ignoreCase": True}}},
        {"pattern": {"glob": "{broken"}},
        "junk",
    ]
    assert file_operation_filters_match(filters, "file:///a/b.py")
    assert not file_operation_filters_match(filters, "untitled:/a/b.py")
    assert file_operation_filters_match(filters, "untitled:/a/readme.md")
    assert not file_operation_filters_match(filters, "file:///a/b.rs")
    assert not file_operation_filters_match(None, "file:///a/b.py")
    assert not file_operation_filters_match([{"scheme": 1, "pattern": {"glob": "**"}}], "file:///a")


def test_file_operation_filter_problems() -> None:
    """file_operation_filter_problems reports a non-list, a missing glob and a bad glob."""
    assert file_operation_filter_problems([{"pattern": {"glob": "**/*.py"}}]) == []
    assert len(file_operation_filter_problems({"glob": "x"})) == 1
    problems = file_operation_filter_problems([{"pattern": {}}, {"pattern": {"glob": "[x"}}])
    assert len(problems) == 2
    assert isinstance(problems[1], GlobError)


def test_as_document_forms() -> None:
    """A DocumentInfo, a URI, or a mapping with languageId or language_id are all accepted."""
    assert as_document(TS) is TS
    assert as_document("file:///x") == DocumentInfo("file:///x", None)
    assert as_document({"uri": "file:///x", "languageId": "py"}) == DocumentInfo("file:///x", "py")
    assert as_document({"uri": "file:///x", "language_id": "py"}).language_id == "py"
    assert as_document({"uri": "file:///x", "languageId": 3}).language_id is None
    with pytest.raises(TypeError):
        as_document({"languageId": "py"})
    with pytest.raises(TypeError):
        as_document(5)  # type: ignore[arg-type]


def test_regexes_are_anchored_by_fullmatch() -> None:
    """The compiled regex of a glob matches only whole paths when used with fullmatch."""
    regex = compile_glob("a*")
    assert isinstance(regex, re.Pattern)
    assert regex.fullmatch("abc")
    assert not regex.fullmatch("xabc")
