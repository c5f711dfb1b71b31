"""notebooks: nbformat 4 read and edited in place, IPython lines, the joined document, cell URIs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adecore_lsp.protocol.documents.json_spans import (
    array_items,
    decode_string,
    object_members,
    value_end,
)
from adecore_lsp.protocol.documents.notebooks import (
    CellPosition,
    CellReference,
    InvalidNotebookError,
    Notebook,
    join_code_cells,
    mask_ipython,
    parse_cell_uri,
    parse_notebook,
    write_cell_sources,
)

# -- fixtures: notebooks as Jupyter and other tools write them ---------------------------------

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9"
    "awAAAABJRU5ErkJggg=="
)

# nbformat 4.4 as Jupyter writes it (indent 1, sorted keys, non-ASCII raw): no cell ids, an image
# output in base64, a stream output, a raw cell and a markdown cell that are numbered too.
NB44 = """{
 "cells": [
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "# Données météo\\n",
    "\\n",
    "Les « températures » en °C."
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "metadata": {},
   "outputs": [
    {
     "data": {
      "image/png": "PNG_DATA",
      "text/plain": [
       "<Figure size 640x480 with 1 Axes>"
      ]
     },
     "metadata": {},
     "output_type": "display_data"
    }
   ],
   "source": [
    "import math\\n",
    "%matplotlib inline\\n",
    "t = [1, 2, 3]"
   ]
  },
  {
   "cell_type": "raw",
   "metadata": {},
   "source": [
    "raw \\"text\\""
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 2,
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "\\u001b[0;31m2.0\\u001b[0m\\n"
     ]
    }
   ],
   "source": [
    "print(math.sqrt(4))\\n",
    "files = !ls"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  },
  "language_info": {
   "name": "python",
   "version": "3.12.1"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 4
}
""".replace("PNG_DATA", PNG)

# nbformat 4.5: every cell has an id.
NB45 = """{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": null,
   "id": "a1b2c3",
   "metadata": {},
   "outputs": [],
   "source": [
    "def greet(name):\\n",
    "    return f\\"hi {name}\\""
   ]
  },
  {
   "cell_type": "markdown",
   "id": "md-1",
   "metadata": {},
   "source": []
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "id": "d4e5f6",
   "metadata": {},
   "outputs": [],
   "source": [
    "greet?"
   ]
  }
 ],
 "metadata": {
  "language_info": {
   "name": "python"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"""


def notebook_data(sources: list[tuple[str, str]], *, ids: bool = True) -> dict[str, Any]:
    """An nbformat 4 notebook as Python data, its sources cut into lines as nbformat does."""
    cells: list[dict[str, Any]] = []
    for index, (kind, source) in enumerate(sources):
        cell: dict[str, Any] = {"cell_type": kind, "metadata": {}, "source": lines_of(source)}
        if ids:
            cell["id"] = f"cell-{index}"
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        cells.append(cell)
    return {
        "cells": cells,
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5 if ids else 4,
    }


def lines_of(source: str) -> list[str]:
    """A source as a list cut after each newline: the form nbformat writes."""
    return source.splitlines(keepends=True) if "\r" not in source else [source]


def dumped(data: dict[str, Any], style: dict[str, Any], newline: str = "\n") -> str:
    """``data`` as json.dumps writes it in ``style`` (Jupyter: indent=1, sorted, raw non-ASCII)."""
    return json.dumps(data, sort_keys=True, **style).replace("\n", newline) + newline


SAMPLE = notebook_data(
    [
        ("markdown", "# Titre: café\n"),
        ("code", "import os\nx = 1"),
        ("code", ""),
        ("code", "y = 'naïve'\n"),
    ]
)

STYLES = {
    "jupyter": {"indent": 1, "ensure_ascii": False},
    "indent-2": {"indent": 2, "ensure_ascii": False},
    "indent-4": {"indent": 4, "ensure_ascii": False},
    "ascii-escaped": {"indent": 1, "ensure_ascii": True},
    "one-line": {"ensure_ascii": False},
    "minified": {"separators": (",", ":"), "ensure_ascii": False},
}


# -- reading -----------------------------------------------------------------------------------


def test_cells_are_numbered_among_all_cells_with_their_sources() -> None:
    """Markdown and raw cells count in the numbering; list sources are joined."""
    notebook = parse_notebook(NB44)
    assert [(cell.number, cell.kind, cell.id) for cell in notebook.cells] == [
        (1, "markdown", None),
        (2, "code", None),
        (3, "raw", None),
        (4, "code", None),
    ]
    assert notebook.cells[0].source == "# Données météo\n\nLes « températures » en °C."
    assert notebook.cells[1].source == "import math\n%matplotlib inline\nt = [1, 2, 3]"
    assert notebook.cells[2].source == 'raw "text"'
    assert [cell.number for cell in notebook.code_cells] == [2, 4]
    assert notebook.cells[1].is_code
    assert not notebook.cells[0].is_code
    assert notebook.language == "python"
    assert notebook.text is NB44


@pytest.mark.parametrize("text", [NB44, NB45])
def test_source_spans_hold_the_source_values(text: str) -> None:
    """Each span is exactly the JSON value of the cell's source in the original text."""
    notebook = parse_notebook(text)
    data = json.loads(text)
    for cell, cell_data in zip(notebook.cells, data["cells"], strict=True):
        start, end = cell.source_span
        assert json.loads(text[start:end]) == cell_data["source"]
        assert text[start] in '["'
        assert text[end - 1] in ']"'


def test_cell_ids_are_read() -> None:
    """nbformat 4.5 cells carry their ids."""
    notebook = parse_notebook(NB45)
    assert [cell.id for cell in notebook.cells] == ["a1b2c3", "md-1", "d4e5f6"]
    assert notebook.cells[1].source == ""
    assert notebook.has_cell_ids
    assert not parse_notebook(NB44).has_cell_ids


@pytest.mark.parametrize(
    ("metadata", "language"),
    [
        ({"kernelspec": {"language": "R"}, "language_info": {"name": "python"}}, "r"),
        ({"kernelspec": {"name": "ir"}, "language_info": {"name": "Julia"}}, "julia"),
        ({"kernelspec": {"language": ""}, "language_info": {"name": "scala"}}, "scala"),
        ({"kernelspec": "python3", "language_info": {"name": 3}}, "python"),
        ({}, "python"),
        ([], "python"),
    ],
)
def test_language_comes_from_the_kernel(metadata: Any, language: str) -> None:
    """kernelspec.language, else language_info.name, else python; in lower case."""
    data = notebook_data([("code", "x")])
    data["metadata"] = metadata
    assert parse_notebook(json.dumps(data)).language == language


def test_a_notebook_without_metadata_is_python() -> None:
    """No metadata at all: the default language."""
    assert parse_notebook('{"nbformat": 4, "cells": []}').language == "python"


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("", "not JSON: Expecting value at line 1 column 1"),
        ('{"cells": [}', "not JSON: Expecting value at line 1 column 12"),
        ('{"nbformat": 4, "cells": [], "x": NaN}', "not JSON: NaN is not a JSON value"),
        ("[" * 100_000 + "]" * 100_000, "not JSON: nested too deeply"),
        ("[]", "not a JSON object"),
        ('{"cells": []}', "no nbformat version"),
        ('{"nbformat": 3, "worksheets": []}', "nbformat 3 is not supported (only 4 is)"),
        ('{"nbformat": "4", "cells": []}', 'nbformat "4" is not supported (only 4 is)'),
        ('{"nbformat": true, "cells": []}', "nbformat true is not supported (only 4 is)"),
        ('{"nbformat": 4}', "no cells list"),
        ('{"nbformat": 4, "cells": {}}', "cells is not a list"),
        ('{"nbformat": 4, "cells": [[]]}', "cell 1 is not an object"),
        ('{"nbformat": 4, "cells": [{"source": ""}]}', "cell 1 has no cell_type string"),
        (
            '{"nbformat": 4, "cells": [{"cell_type": "code", "source": ""}, {"cell_type": "raw"}]}',
            "cell 2: source is missing or not a string or a list of strings",
        ),
        (
            '{"nbformat": 4, "cells": [{"cell_type": "code", "source": 1}]}',
            "cell 1: source is missing or not a string or a list of strings",
        ),
        (
            '{"nbformat": 4, "cells": [{"cell_type": "code", "source": ["a", 1]}]}',
            "cell 1: source is missing or not a string or a list of strings",
        ),
        (
            '{"nbformat": 4, "cells": [{"cell_type": "code", "source": "", "id": 7}]}',
            "cell 1: id is not a string",
        ),
    ],
)
def test_invalid_notebooks_say_why(text: str, detail: str) -> None:
    """A text that is not an nbformat 4 notebook raises a ValueError with a short detail."""
    with pytest.raises(InvalidNotebookError) as caught:
        parse_notebook(text)
    assert str(caught.value) == detail
    assert isinstance(caught.value, ValueError)


def test_a_key_written_twice_counts_once_as_a_parser_reads_it() -> None:
    """The last "source" of a cell is its source, and the one an edit replaces."""
    text = '{"nbformat": 4, "cells": [{"cell_type": "code", "source": "old", "source": "new"}]}'
    notebook = parse_notebook(text)
    assert notebook.cells[0].source == "new"
    assert notebook.with_sources({1: "newer"}) == text.replace('"new"', '"newer"')


def test_escaped_keys_are_read() -> None:
    """A key spelled with escapes ("sour\\u0063e") is still the source."""
    text = '{"nbformat": 4, "cells": [{"cell_type": "code", "sour\\u0063e": ["a\\n", "b"]}]}'
    notebook = parse_notebook(text)
    assert notebook.cells[0].source == "a\nb"
    assert notebook.with_sources({1: "c"}) == text.replace('["a\\n", "b"]', '["c"]')


def test_crlf_files_are_read() -> None:
    """A notebook saved with Windows line endings reads the same."""
    notebook = parse_notebook(NB45.replace("\n", "\r\n"))
    assert [cell.source for cell in notebook.cells] == [
        cell.source for cell in parse_notebook(NB45).cells
    ]


# -- writing -----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [NB44, NB45, NB45.replace("\n", "\r\n")])
def test_no_edits_give_the_same_text(text: str) -> None:
    """Applying no edits, or each cell's own source, returns the identical text."""
    notebook = parse_notebook(text)
    assert notebook.with_sources({}) is text
    assert notebook.with_sources({cell.number: cell.source for cell in notebook.cells}) is text


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("style", STYLES.values(), ids=list(STYLES))
@pytest.mark.parametrize("number", [2, 3, 4])
@pytest.mark.parametrize("new", ["a = 1\nb = 2\n", "", "ü = 'ß'  # «\n\tz", "\n\n", 'q = "\\"'])
def test_an_edit_is_what_the_writer_would_have_written(
    newline: str, style: dict[str, Any], number: int, new: str
) -> None:
    """The edited text equals the file re-dumped in its own style with the new source."""
    text = dumped(SAMPLE, style, newline)
    expected = json.loads(text)
    expected["cells"][number - 1]["source"] = lines_of(new)
    result = parse_notebook(text).with_sources({number: new})
    assert result == dumped(expected, style, newline)
    assert parse_notebook(result).cell(number).source == new


def test_an_edit_changes_only_the_edited_source() -> None:
    """Outside the edited cell's source, every character is the original's."""
    notebook = parse_notebook(NB44)
    start, end = notebook.cell(4).source_span
    result = notebook.with_sources({4: "print(math.pi)\n"})
    assert result[:start] == NB44[:start]
    assert result[len(result) - (len(NB44) - end) :] == NB44[end:]
    assert result[start : len(result) - (len(NB44) - end)] == '[\n    "print(math.pi)\\n"\n   ]'
    assert PNG in result
    assert parse_notebook(result).cell(4).source == "print(math.pi)\n"


def test_several_cells_are_edited_at_once() -> None:
    """Edits to two cells land in their own spans, in any order given."""
    notebook = parse_notebook(NB44)
    result = notebook.with_sources(
        {4: "b = 2", 2: "a = 1", 1: "# Données météo\n\nLes « températures » en °C."}
    )
    reread = parse_notebook(result)
    assert [cell.source for cell in reread.cells] == [
        notebook.cells[0].source,
        "a = 1",
        'raw "text"',
        "b = 2",
    ]
    assert '"# Données météo\\n"' in result  # the unchanged markdown cell is untouched


def test_a_string_source_stays_a_string() -> None:
    """A source written as one string is written back as one string."""
    text = '{\n "cells": [\n  {"cell_type": "code", "source": "x = 1\\ny = é"}\n ],\n'
    text += ' "nbformat": 4\n}\n'
    result = parse_notebook(text).with_sources({1: "x = 2\nz = ü\n"})
    assert result == text.replace('"x = 1\\ny = é"', '"x = 2\\nz = ü\\n"')


def test_an_empty_list_takes_the_layout_of_the_other_lists() -> None:
    """A cell whose source was [] gets its lines laid out as the other cells' lists are."""
    result = parse_notebook(NB45).with_sources({2: "# Heading\nText"})
    assert '"source": [\n    "# Heading\\n",\n    "Text"\n   ]' in result
    assert result.replace('[\n    "# Heading\\n",\n    "Text"\n   ]', "[]") == NB45


@pytest.mark.parametrize("style", [{"indent": 1}, {"indent": 2}, {"indent": "\t"}])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_without_any_list_to_copy_the_file_indentation_is_used(
    style: dict[str, Any], newline: str
) -> None:
    """When every list source is empty, the layout is built from the file's indentation."""
    data = notebook_data([("code", ""), ("markdown", "")])
    text = dumped(data, style, newline)
    expected = json.loads(text)
    expected["cells"][0]["source"] = ["a\n", "b"]
    assert parse_notebook(text).with_sources({1: "a\nb"}) == dumped(expected, style, newline)


@pytest.mark.parametrize("style", [{"separators": (",", ":")}, {}], ids=["minified", "one-line"])
def test_a_file_on_one_line_keeps_new_lists_on_one_line(style: dict[str, Any]) -> None:
    """A minified file whose lists are all empty gets a one-line list, in its own separators."""
    data = notebook_data([("code", ""), ("markdown", "")])
    text = dumped(data, style)
    expected = json.loads(text)
    expected["cells"][1]["source"] = ["a\n", "b"]
    assert parse_notebook(text).with_sources({2: "a\nb"}) == dumped(expected, style)


def test_a_file_whose_root_opens_on_its_first_line_indents_by_one_space() -> None:
    """No indentation to learn from: nbformat's one space."""
    text = '{"nbformat": 4, "cells": [\n{"cell_type": "code", "source": []}]}'
    result = parse_notebook(text).with_sources({1: "a\nb"})
    assert result == text.replace("[]", '[\n "a\\n",\n "b"\n]')


@pytest.mark.parametrize(
    ("text", "expected_list"),
    [
        # one item a line: the next item goes where the first one went
        (
            '{"nbformat": 4, "cells": [{"cell_type": "code", "source": [\n  "a"\n ]}]}',
            '[\n  "x\\n",\n  "y"\n ]',
        ),
        # a one-line list with one item, after ": "
        ('{"nbformat": 4, "cells": [{"cell_type": "code", "source": ["a"]}]}\n', '["x\\n", "y"]'),
        # a one-line list in a minified file
        ('{"nbformat":4,"cells":[{"cell_type":"code","source":["a"]}]}\n', '["x\\n","y"]'),
    ],
)
def test_a_one_item_list_gives_its_layout(text: str, expected_list: str) -> None:
    """A list of one item still shows where items go and what separates them."""
    result = parse_notebook(text).with_sources({1: "x\ny"})
    assert result == text.replace('[\n  "a"\n ]', expected_list).replace('["a"]', expected_list)


def test_non_ascii_is_escaped_only_when_the_file_escapes_it() -> None:
    """A file with raw non-ASCII, or with only ASCII escapes, gets raw non-ASCII."""
    escaped = '{"nbformat": 4, "cells": [{"cell_type": "code", "source": "\\u00e9"}]}'
    assert parse_notebook(escaped).with_sources({1: "ü"}) == escaped.replace("\\u00e9", "\\u00fc")
    raw = '{"nbformat": 4, "cells": [{"cell_type": "code", "source": "é"}]}'
    assert parse_notebook(raw).with_sources({1: "ü"}) == raw.replace("é", "ü")
    mixed = escaped.replace('"\\u00e9"', '"\\u00e9 ñ"')
    assert parse_notebook(mixed).with_sources({1: "ü"}) == mixed.replace('"\\u00e9 ñ"', '"ü"')
    # ANSI colours in outputs are escaped (\u001b) by every writer: they say nothing of the style
    ansi = '{"nbformat": 4, "cells": [{"cell_type": "code", "source": "\\u001b[0m"}]}'
    assert parse_notebook(ansi).with_sources({1: "ü"}) == ansi.replace("\\u001b[0m", "ü")
    # an escaped backslash followed by "u00e9" is not an escape of é
    backslash = '{"nbformat": 4, "cells": [{"cell_type": "code", "source": "\\\\u00e9"}]}'
    assert parse_notebook(backslash).with_sources({1: "ü"}) == backslash.replace(
        '"\\\\u00e9"', '"ü"'
    )


def test_a_cell_out_of_range_is_refused() -> None:
    """Editing cell 0 or a cell past the last is a ValueError naming it."""
    notebook = parse_notebook(NB45)
    for number in (0, 4):
        with pytest.raises(ValueError, match=rf"no cell {number}: the notebook has 3 cells"):
            notebook.with_sources({number: "x"})


def test_write_cell_sources_reads_and_writes() -> None:
    """The one-call form parses the text and returns the edited text."""
    result = write_cell_sources(NB45, {3: "greet('you')"})
    assert parse_notebook(result).cell(3).source == "greet('you')"
    with pytest.raises(InvalidNotebookError):
        write_cell_sources("{}", {1: "x"})


@given(
    st.dictionaries(
        st.integers(min_value=1, max_value=4),
        st.text(st.characters(codec="utf-8"), max_size=40),
    ),
    st.sampled_from(list(STYLES.values())),
)
def test_any_sources_round_trip(sources: dict[int, str], style: dict[str, Any]) -> None:
    """Whatever the new sources, the result parses back to them, other cells unchanged."""
    text = dumped(SAMPLE, style)
    notebook = parse_notebook(text)
    reread = parse_notebook(notebook.with_sources(sources))
    for cell in notebook.cells:
        assert reread.cell(cell.number).source == sources.get(cell.number, cell.source)
        assert reread.cell(cell.number).id == cell.id
    assert json.loads(reread.text)["metadata"] == SAMPLE["metadata"]


# -- IPython-only lines ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "masked"),
    [
        ("%matplotlib inline\nimport os", {0}),
        ("  !pip install numpy\nx = 1", {0}),
        ("?print\nprint??", {0, 1}),
        ("len?\nobj.attr??  ", {0, 1}),
        ("files = !ls\nx = %time f()\na, b = !echo 1 2", {0, 1, 2}),
        ("%%time\nx = 1\ny = 2", {0, 1, 2}),
        ("\n  %%bash\necho hi", {0, 1, 2}),
        ("x = 1  # is this right?\ns = 'what?'\nt = \"why?\"", set()),
        ("x = a % b\ny != !z\nz = 5 % 3\nw %= 2", set()),
        ("if x:\n    %time f()\n", {1}),
        ("", set()),
    ],
)
def test_ipython_lines_are_masked(source: str, masked: set[int]) -> None:
    """Magics, shell escapes, help and assignments from them are blanked, lines kept."""
    text, lines = mask_ipython(source)
    assert lines == masked
    original = source.split("\n")
    assert text.split("\n") == [
        "" if index in masked else line for index, line in enumerate(original)
    ]


def test_masking_keeps_the_line_breaks() -> None:
    """CRLF and CR breaks stay as they were; a source without IPython lines is returned as is."""
    assert mask_ipython("a\r\n!ls\rb\n") == ("a\r\n\rb\n", frozenset({1}))
    source = "x = 1\r\ny = 2"
    assert mask_ipython(source)[0] is source


# -- the joined document -----------------------------------------------------------------------


def test_the_joined_document_is_the_code_cells_with_blank_lines() -> None:
    """Code cells in order, each followed by a blank line, IPython lines blank."""
    joined = join_code_cells(parse_notebook(NB44))
    assert joined.text == "import math\n\nt = [1, 2, 3]\n\nprint(math.sqrt(4))\n\n"
    assert joined.line_cells == ((2, 0), (2, 1), (2, 2), None, (4, 0), (4, 1), None)
    assert joined.masked_lines == {1, 5}
    assert joined.is_masked(1)
    assert joined.is_masked(5)
    assert not joined.is_masked(0)


def test_positions_map_both_ways() -> None:
    """A joined position maps to its cell position and back; columns pass through."""
    joined = join_code_cells(parse_notebook(NB44))
    assert joined.to_cell(4, 6) == CellPosition(cell=4, line=0, character=6)
    assert joined.from_cell(4, 0, 6) == (4, 6)
    assert joined.to_cell(2, 3) == CellPosition(2, 2, 3)
    assert joined.from_cell(2, 2, 3) == (2, 3)
    for line in range(len(joined.line_cells)):
        position = joined.to_cell(line, 1)
        if position is not None:
            assert joined.from_cell(position.cell, position.line, 1) == (line, 1)


def test_lines_of_no_cell_are_told_apart() -> None:
    """Separators and lines outside the document belong to no cell."""
    joined = join_code_cells(parse_notebook(NB44))
    assert joined.to_cell(3, 0) is None
    assert joined.to_cell(7, 0) is None
    assert joined.to_cell(-1, 0) is None
    assert joined.cell_of_line(3) is None
    assert joined.cell_of_line(5) == 4
    assert joined.from_cell(1, 0, 0) is None  # a markdown cell
    assert joined.from_cell(2, 3, 0) is None  # past the cell's last line
    assert joined.from_cell(2, -1, 0) is None
    assert joined.from_cell(9, 0, 0) is None


def test_masking_follows_the_kernel_language_unless_told() -> None:
    """A Python notebook is masked by default; another language is not, unless asked."""
    python = parse_notebook(NB44)
    assert join_code_cells(python, mask=False).text.startswith("import math\n%matplotlib inline\n")
    assert join_code_cells(python, mask=False).masked_lines == frozenset()
    data = notebook_data([("code", "x <- 1\n!ls")])
    data["metadata"] = {"kernelspec": {"language": "R"}}
    other = parse_notebook(json.dumps(data))
    assert join_code_cells(other).text == "x <- 1\n!ls\n"
    assert join_code_cells(other, mask=True).text == "x <- 1\n\n"


def test_cell_line_breaks_are_lsp_line_breaks() -> None:
    """A cell with CRLF or CR breaks has the lines a server counts; the joined text uses LF."""
    text = '{"nbformat": 4, "cells": [{"cell_type": "code", "source": "a\\r\\nb\\rc"}]}'
    joined = join_code_cells(parse_notebook(text))
    assert joined.text == "a\nb\nc\n"
    assert joined.to_cell(2, 0) == CellPosition(1, 2, 0)


def test_a_notebook_without_code_cells_joins_to_nothing() -> None:
    """No code cell: an empty document, no line of which is a cell's."""
    joined = join_code_cells(parse_notebook(dumped(notebook_data([("markdown", "# x")]), {})))
    assert joined.text == ""
    assert joined.to_cell(0, 0) is None


# -- cell URIs ---------------------------------------------------------------------------------


def test_cell_uris_use_ids_when_every_cell_has_one() -> None:
    """nbformat 4.5: the fragment is the cell's id; the path stays percent-encoded."""
    notebook = parse_notebook(NB45)
    uri = notebook.cell_uri("file:///home/me/my%20notes/nb.ipynb", 3)
    assert uri == "vscode-notebook-cell:/home/me/my%20notes/nb.ipynb#d4e5f6"
    reference = parse_cell_uri(uri)
    assert reference == CellReference("file:///home/me/my%20notes/nb.ipynb", "d4e5f6", False)
    assert reference is not None
    assert notebook.cell_for(reference) == notebook.cell(3)


def test_cell_uris_use_numbers_without_ids() -> None:
    """nbformat 4.4: the fragment is cellN, N the cell's number among all cells."""
    notebook = parse_notebook(NB44)
    uri = notebook.cell_uri("file:///c%3A/work/nb.ipynb", 4)
    assert uri == "vscode-notebook-cell:/c%3A/work/nb.ipynb#cell4"
    reference = parse_cell_uri(uri)
    assert reference is not None
    assert reference.notebook_uri == "file:///c%3A/work/nb.ipynb"
    assert notebook.cell_for(reference) == notebook.cell(4)


@pytest.mark.parametrize(
    "ids", [["a", None, "c"], ["same", "same", "other"]], ids=["missing", "repeated"]
)
def test_ids_that_cannot_name_every_cell_are_not_used(ids: list[str | None]) -> None:
    """If a cell has no id, or two share one, every cell is named by number."""
    data = notebook_data([("code", "x"), ("code", "y"), ("code", "z")])
    for cell, cell_id in zip(data["cells"], ids, strict=True):
        if cell_id is None:
            del cell["id"]
        else:
            cell["id"] = cell_id
    notebook = parse_notebook(json.dumps(data))
    assert not notebook.has_cell_ids
    assert notebook.cell_uri("file:///nb.ipynb", 1) == "vscode-notebook-cell:/nb.ipynb#cell1"
    assert notebook.cell_for(CellReference("file:///nb.ipynb", "cell3", False)) == notebook.cell(3)
    assert notebook.cell_for(CellReference("file:///nb.ipynb", ids[0] or "c", False)) is None


def test_a_unc_host_and_an_id_with_odd_characters_survive() -> None:
    """The file URI's authority stays; the id is percent-encoded and decoded back."""
    data = notebook_data([("code", "x")])
    data["cells"][0]["id"] = "a b#c"
    notebook = parse_notebook(json.dumps(data))
    uri = notebook.cell_uri("file://server/share/nb.ipynb", 1)
    assert uri == "vscode-notebook-cell://server/share/nb.ipynb#a%20b%23c"
    reference = parse_cell_uri(uri)
    assert reference == CellReference("file://server/share/nb.ipynb", "a b#c", False)
    assert notebook.cell_for(reference) == notebook.cell(1)


def test_a_cell_uri_needs_a_file_uri() -> None:
    """A notebook that is not a file: URI has no cell URIs."""
    with pytest.raises(ValueError, match="must be a file: URI"):
        parse_notebook(NB45).cell_uri("untitled:nb.ipynb", 1)


def test_basedpyright_file_uris_name_code_cells_from_zero() -> None:
    """file:///.../nb.ipynb#K is the K-th code cell (from 0), mapped to its cell number."""
    notebook = parse_notebook(NB44)
    reference = parse_cell_uri("file:///home/me/nb.ipynb#1")
    assert reference == CellReference("file:///home/me/nb.ipynb", "1", True)
    cell = notebook.cell_for(reference)
    assert cell is not None
    assert cell.number == 4
    assert notebook.cell_for(CellReference("file:///nb.ipynb", "0", True)) == notebook.cell(2)
    assert notebook.cell_for(CellReference("file:///nb.ipynb", "2", True)) is None
    assert notebook.cell_for(CellReference("file:///nb.ipynb", "x", True)) is None


@pytest.mark.parametrize(
    "uri",
    ["file:///home/me/nb.ipynb", "vscode-notebook-cell:/home/me/nb.ipynb", "https://x/y#z"],
)
def test_uris_that_name_no_cell(uri: str) -> None:
    """A URI without a fragment, or of another scheme, is no cell URI."""
    assert parse_cell_uri(uri) is None


def test_a_stale_id_names_no_cell() -> None:
    """An id the notebook no longer has resolves to None, for the caller to report."""
    notebook = parse_notebook(NB45)
    assert notebook.cell_for(CellReference("file:///nb.ipynb", "gone", False)) is None
    assert notebook.cell_for(CellReference("file:///nb.ipynb", "cell1", False)) is None


# -- the JSON span scanner ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"a": [1, -2.5e3, true, null, "x\\"]}"], "b": {"c": {}}, "d": []}',
        '{ "a" :\r\n\t[ 1 ,2 ] , "é\\u00e9" : "ü\\\\" }',
        '{"a":[{"b":["\\\\",{"c":"[{"}]}],"d":false}',
        "{ }",
    ],
)
def test_the_scanner_finds_the_spans_a_parser_reads(text: str) -> None:
    """Every member's value span parses to the value json.loads gives for it."""
    data = json.loads(text)
    members = object_members(text, 0)
    assert [member.key for member in members] == list(data)
    for member in members:
        assert json.loads(text[member.value_start : member.value_end]) == data[member.key]
        assert decode_string(text, member.key_start, member.key_end) == member.key
    assert value_end(text, 0) == len(text)


def test_the_scanner_lists_array_items() -> None:
    """Items of arrays, empty or not, nested or not."""
    text = '[ [], [1, [2]], "a,b", 3 ]'
    assert [text[start:end] for start, end in array_items(text, 0)] == [
        "[]",
        "[1, [2]]",
        '"a,b"',
        "3",
    ]
    assert array_items("[ ]", 0) == []


def test_the_model_is_immutable() -> None:
    """A parsed notebook and its joined document cannot be changed by their users."""
    notebook = parse_notebook(NB45)
    with pytest.raises(AttributeError):
        notebook.text = ""  # type: ignore[misc]
    assert isinstance(notebook, Notebook)
    assert isinstance(notebook.cells, tuple)
    joined = join_code_cells(notebook)
    assert hash(joined) == hash(join_code_cells(parse_notebook(NB45)))
    with pytest.raises(TypeError):
        joined.cell_lines[9] = (0, 0)  # type: ignore[index]
