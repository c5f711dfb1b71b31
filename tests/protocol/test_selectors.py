"""Globs, document selectors, RelativePatterns and file operation filters."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adecore_lsp.protocol.capabilities.globs import (
    CompiledGlob,
    GlobError,
    compile_glob,
    glob_matches,
)
from adecore_lsp.protocol.capabilities.globs import _Segment as _Segment  # for counting steps
from adecore_lsp.protocol.capabilities.selectors import (
    DocumentInfo,
    as_document,
    file_operation_filter_problems,
    file_operation_filters_match,
    filter_matches,
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
        # Only a lone last "/**" makes its slash optional; "**/" before it keeps its own.
        ("a/**/**", "a", False),
        ("a/**/**", "a/", True),
        ("{/**}{/**}", "", False),
        ("/**/**", "/", True),
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


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        ("STRASSE", "strasse", True),
        # "ß" casefolds to "ss", two characters: it is compared as its lower case instead.
        ("Maß", "MASS", False),
        ("Maß", "maß", True),
        # "İ" has no one-character lower case either: it only matches itself.
        ("İ.txt", "İ.TXT", True),
        ("İ.txt", "i.txt", False),
    ],
)
def test_ignore_case_keeps_each_character_one_character(
    glob: str, path: str, expected: bool
) -> None:
    """Case folding never changes a character into several, so positions stay aligned."""
    assert glob_matches(glob, path, ignore_case=True) is expected


def test_compiled_glob_repr_names_the_glob() -> None:
    """A compiled glob shows its source and its case rule."""
    assert repr(compile_glob("**/*.py", ignore_case=True)) == (
        "CompiledGlob('**/*.py', ignore_case=True)"
    )


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
        # The base itself is the empty relative path, which only a pattern like ** matches.
        ({"baseUri": "file:///ws", "pattern": "**"}, "file:///ws", True),
        ({"baseUri": "file:///ws/", "pattern": "*.py"}, "file:///ws", False),
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


def test_compiled_globs_match_whole_paths() -> None:
    """A compiled glob matches only whole paths, reading `\\` in the path as a separator."""
    compiled = compile_glob("a*/b")
    assert isinstance(compiled, CompiledGlob)
    assert compiled.matches("abc/b")
    assert compiled.matches("abc\\b")
    assert not compiled.matches("xabc/b")
    assert not compiled.matches("abc/bc")


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        # A glob with braces matches when one of its expansions does.
        ("a/{**,b}", "a", True),
        ("a/{**,b}", "a/x/y", True),
        ("x/{**}/y", "x/y", True),
        ("x/{**}/y", "x/p/q/y", True),
        ("{a/,}**", "p/q", True),
        ("{a/,}**", "a/p/q", True),
        ("*{*,}/x", "p/q/x", True),
        ("a{*,}b", "a/b", False),
        # ignore_case reaches character classes too.
        ("[A-C]", "b", True),
        ("[!a]", "A", False),
        ("[!a]", "B", True),
    ],
)
def test_brace_expansion_and_case_rules(glob: str, path: str, expected: bool) -> None:
    """Braces read as their expansions, and ignore_case folds classes as well as literals."""
    assert glob_matches(glob, path, ignore_case=glob.startswith("[")) is expected


# Inputs that took seconds to forever with backtracking regexes (a*b*... is polynomial in
# the number of stars per segment, globstars multiplied that per segment).
PATHOLOGICAL = [
    ("**/" + "*a" * 6 + "*b", "/" + "a" * 60, False),
    ("*a" * 10 + "*b", "a" * 60, False),
    ("*a" * 10 + "*b*", "a" * 60, False),
    ("*a" * 50 + "*b", "a" * 2000, False),
    ("*a" * 50 + "*b*", "a" * 2000, False),
    ("*[a]" * 30 + "*b*", "a" * 500, False),
    ("*?" * 30 + "*b*", "a" * 500, False),
    ("*" + "[a]" * 30 + "b*", "a" * 300, False),
    ("**/" * 10 + "x", "/".join(["a"] * 30), False),
    ("**/a/" * 10 + "b", "a/" * 60 + "c", False),
    ("**/*a*a*a*b/" * 8 + "c", "/".join(["a" * 30] * 40), False),
    ("{" * 32 + "*a" * 20 + "*b" + "}" * 32, "a" * 300, False),
    ("{*a,*b}" * 9, "ab" * 100, True),
]


@pytest.mark.parametrize(("glob", "path", "expected"), PATHOLOGICAL)
def test_pathological_globs_answer_quickly(glob: str, path: str, expected: bool) -> None:
    """Globs that make backtracking matchers explode are answered well within 0.2 s."""
    compile_glob(glob)  # reading is measured separately from matching, both bounded
    started = time.perf_counter()
    assert glob_matches(glob, path) is expected
    assert time.perf_counter() - started < 0.2


def test_globstar_matching_tries_each_segment_pair_at_most_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Segment-level matching makes at most (pattern segments) * (path segments) tries."""
    calls = 0
    original = _Segment.matches

    def counting(self: _Segment, segment: str, folded: str) -> bool:
        nonlocal calls
        calls += 1
        return original(self, segment, folded)

    monkeypatch.setattr(_Segment, "matches", counting)
    glob = "**/a/" * 10 + "b"  # 21 segments, 11 of them plain
    path = "/".join(["a"] * 60 + ["c"])  # 61 segments
    assert not glob_matches(glob, path)
    assert 0 < calls <= 11 * 61


@pytest.mark.parametrize(
    ("glob", "reason"),
    [
        ("{" * 33 + "a" + "}" * 33, "nested more than 32 deep"),
        ("{" * 500 + "a" + "}" * 500, "nested more than 32 deep"),
        ("{" * 100_000, "longer than 4096 characters"),
        ("{a,b}" * 11, "more than 1024 alternatives"),
        ("{" + ",".join(str(n) for n in range(1025)) + "}", "more than 1024 alternatives"),
        ("{{a,b}{a,b}{a,b}{a,b}{a,b},{a,b}{a,b}{a,b}{a,b}{a,b}x}" * 2, "more than 1024"),
        ("{a,b}" * 10 + "x" * 40, "expand to more than 16384 characters"),
    ],
)
def test_costly_braces_are_unreadable(glob: str, reason: str) -> None:
    """Braces nested too deep or expanding too far raise GlobError saying which limit."""
    with pytest.raises(GlobError) as caught:
        compile_glob(glob)
    assert reason in caught.value.reason
    assert caught.value.glob == glob


def test_braces_within_the_limits_are_readable() -> None:
    """Braces at exactly the nesting and alternative limits still work."""
    assert glob_matches("{" * 32 + "a" + "}" * 32, "a")
    assert glob_matches("{a,b}" * 10, "ab" * 5)
    assert not glob_matches("{a,b}" * 10, "ab" * 4 + "c")
    assert glob_matches("{" + ",".join(str(n) for n in range(1024)) + "}", "1023")


@given(st.text(alphabet="{},[]!^-*?/\\ab", max_size=40))
def test_any_text_reads_as_a_glob_or_raises_glob_error(glob: str) -> None:
    """Reading any text either gives a matcher or raises GlobError, never another error."""
    try:
        compiled = compile_glob(glob)
    except GlobError:
        return
    compiled.matches("a/b\\{,}[]")


# -- the matcher agrees with a plain regex translation where backtracking cannot hurt ---------

# Bracket expressions the generated globs use, with their regex (never matching "/").
_REFERENCE_CLASSES = {
    "[ab]": "[ab]",
    "[!a]": "[^/a]",
    "[^b]": "[^/b]",
    "[a-c]": "[a-c]",
    "[]a]": "[\\]a]",
}


def _reference_regex(glob: str, ignore_case: bool) -> re.Pattern[str]:
    """The regex of a brace-free glob, translated by the rule table the simple way."""
    nodes: list[tuple[str, str]] = []
    pos = 0
    while pos < len(glob):
        bracket = next((b for b in _REFERENCE_CLASSES if glob.startswith(b, pos)), None)
        if bracket is not None:
            nodes.append(("set", _REFERENCE_CLASSES[bracket]))
            pos += len(bracket)
            continue
        run = len(glob[pos:]) - len(glob[pos:].lstrip("*"))
        if run:
            nodes.append(("star", "*" * run))
            pos += run
            continue
        char = glob[pos]
        nodes.append(
            ("sep", "/") if char in "/\\" else ("one", "") if char == "?" else ("lit", char)
        )
        pos += 1

    def globstar_at(i: int) -> bool:
        before = i == 0 or nodes[i - 1][0] == "sep"
        after = i == len(nodes) - 1 or nodes[i + 1][0] == "sep"
        return nodes[i][0] == "star" and len(nodes[i][1]) >= 2 and before and after

    out: list[str] = []
    index = 0
    while index < len(nodes):
        kind, value = nodes[index]
        if kind == "sep" and index + 2 == len(nodes) and globstar_at(index + 1):
            out.append("(?:/.*)?")
            index += 2
        elif globstar_at(index) and index + 1 < len(nodes):
            out.append("(?:[^/]*/)*")
            index += 2
        elif globstar_at(index):
            out.append(".*")
            index += 1
        else:
            simple = {"star": "[^/]*", "one": "[^/]", "sep": "/", "set": value}
            out.append(simple.get(kind, re.escape(value)))
            index += 1
    return re.compile("".join(out), re.DOTALL | (re.IGNORECASE if ignore_case else 0))


def _reference_expand(glob: str) -> list[str]:
    """The brace-free globs a generated glob stands for, by plain recursive descent."""

    def sequence(pos: int, nested: bool) -> tuple[list[str], int]:
        results = [""]
        while pos < len(glob) and not (nested and glob[pos] in ",}"):
            if glob[pos] == "{":
                options: list[str] = []
                while glob[pos] != "}":  # pos is at "{" or ","
                    alternative, pos = sequence(pos + 1, True)
                    options += alternative
                pos += 1
            else:
                bracket = next((b for b in _REFERENCE_CLASSES if glob.startswith(b, pos)), None)
                options = [bracket or glob[pos]]
                pos += len(options[0])
            results = [done + more for done in results for more in options]
        return results, pos

    return sequence(0, False)[0]


_ATOMS = st.sampled_from(["a", "b", "A", ".", "*", "**", "?", "/", *_REFERENCE_CLASSES])


def _with_braces(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    alternative = st.lists(inner, max_size=3).map("".join)
    return st.lists(alternative, min_size=1, max_size=3).map(
        lambda alts: "{" + ",".join(alts) + "}"
    )


_GLOBS = st.lists(st.recursive(_ATOMS, _with_braces, max_leaves=6), max_size=5).map("".join)
_PATHS = st.text(alphabet="abA./\\", max_size=10)


def test_reference_expansion() -> None:
    """The reference expander reads nested braces and keeps brackets whole."""
    assert _reference_expand("x{a,{b,}c}[]a]") == ["xa[]a]", "xbc[]a]", "xc[]a]"]


@st.composite
def _glob_and_path(draw: st.DrawFn) -> tuple[str, str]:
    """A glob, and a random path or one filled in from an expansion (so it often matches)."""
    glob = draw(_GLOBS)
    if draw(st.booleans()):
        return glob, draw(_PATHS)
    expansion = draw(st.sampled_from(_reference_expand(glob)))
    path, pos = "", 0
    while pos < len(expansion):
        bracket = next((b for b in _REFERENCE_CLASSES if expansion.startswith(b, pos)), None)
        if bracket or expansion[pos] == "?":
            path += draw(st.sampled_from("abA]c"))
            pos += len(bracket or "?")
        elif expansion.startswith("**", pos):
            path += draw(st.sampled_from(["", "a/b", "A", "/"]))
            pos += 2
        elif expansion[pos] == "*":
            path += draw(st.sampled_from(["", "a", "bA", "."]))
            pos += 1
        else:
            char = expansion[pos]
            path += draw(st.sampled_from([char, char.swapcase(), "\\" if char == "/" else "a"]))
            pos += 1
    return glob, path


@settings(max_examples=400, deadline=None)
@given(glob_and_path=_glob_and_path(), ignore_case=st.booleans())
def test_matcher_agrees_with_reference(glob_and_path: tuple[str, str], ignore_case: bool) -> None:
    """On short globs and paths the matcher answers as the plain regex translation does.

    A glob whose braces give more alternatives than the limit is refused instead.
    """
    glob, path = glob_and_path
    expansions = _reference_expand(glob)
    if len(expansions) > 1024:
        with pytest.raises(GlobError, match="more than 1024 alternatives"):
            glob_matches(glob, path, ignore_case=ignore_case)
        return
    expected = any(
        _reference_regex(expansion, ignore_case).fullmatch(path.replace("\\", "/"))
        for expansion in expansions
    )
    assert glob_matches(glob, path, ignore_case=ignore_case) is expected


def test_a_glob_longer_than_the_limit_is_unreadable() -> None:
    """A glob over 4096 characters is refused at once, so no match can cost more than that."""
    at_limit = "a" * 4096
    assert glob_matches(at_limit, at_limit)
    with pytest.raises(GlobError, match="longer than 4096"):
        compile_glob("[a]" * 2000)
