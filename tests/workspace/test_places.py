"""A target is resolved once per call, where it comes in, into the :class:`Place` that every
layer below takes: counted here per call (the lookups that make it, the target's parse, the
offset's computation), with a scripted server, from the library, the command line and a
Place handed back in."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from adecore_lsp import LspError, Workspace
from adecore_lsp.cli.main import main as cli
from adecore_lsp.protocol.workspace import targets as parsing
from adecore_lsp.workspace.disk import units
from adecore_lsp.workspace.questions import places
from tests.workspace.conftest import write
from tests.workspace.test_scripted import SCRIPT, scripted

TEXT = "class Foo:\n    value = 1\n\nFoo.value\n"


def _range(line: int, start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


CONFIG: dict[str, Any] = {
    "hover": "**Foo.value**",
    "references": [
        {"uri": "$ROOT/app.txt", "range": _range(1, 4, 9)},
        {"uri": "$ROOT/app.txt", "range": _range(3, 4, 9)},
    ],
    "rename": {"changes": {"$ROOT/app.txt": [{"range": _range(3, 4, 9), "newText": "worth"}]}},
    "document_symbols": {
        "*": [
            {
                "name": "Foo",
                "kind": 5,
                "range": _range(0, 0, 13),
                "selectionRange": _range(0, 6, 9),
                "children": [
                    {
                        "name": "value",
                        "kind": 8,
                        "range": _range(1, 4, 13),
                        "selectionRange": _range(1, 4, 9),
                    }
                ],
            }
        ]
    },
}


class Counts:
    """How often, since the last :meth:`reset`, a target was located, parsed, and turned
    into an offset."""

    def __init__(self) -> None:
        self.located = self.parsed = self.offsets = 0

    def reset(self) -> None:
        self.located = self.parsed = self.offsets = 0

    @property
    def each(self) -> tuple[int, int, int]:
        return self.located, self.parsed, self.offsets


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> Counts:
    """Counters around the three steps that make a place."""
    found = Counts()
    locate, parse, position = places._locate, parsing.parse_target, units.lsp_position

    async def counted_locate(*args: Any) -> Any:
        found.located += 1
        return await locate(*args)

    def counted_parse(text: str) -> parsing.Target:
        found.parsed += 1
        return parse(text)

    def counted_position(*args: Any) -> dict[str, int]:
        found.offsets += 1
        return position(*args)

    monkeypatch.setattr(places, "_locate", counted_locate)
    monkeypatch.setattr(parsing, "parse_target", counted_parse)
    monkeypatch.setattr(places, "lsp_position", counted_position)
    return found


async def test_each_call_resolves_its_target_once(tmp_path: Path, counts: Counts) -> None:
    """hover, references (whose declaration is asked at the very place), rename, and the
    calls the server does not answer: one place made each, one parse, one offset."""
    write(tmp_path, {"app.txt": TEXT})
    async with Workspace(tmp_path, servers=[scripted(CONFIG)]) as ws:
        assert await ws.hover("app.txt:4:5") == "**Foo.value**"
        assert counts.each == (1, 1, 1)
        counts.reset()
        found = await ws.references("app.txt:2:5")
        # The declaration is dropped by asking for the definition at the same place: no
        # second resolution (the scripted server has no definitions, so both uses stay).
        assert [(r.location.line, r.location.column) for r in found] == [(2, 5), (4, 5)]
        assert counts.each == (1, 1, 1)
        counts.reset()
        plan = await ws.rename("app.txt:4:5", "worth")
        assert plan.files["app.txt"].new_text == TEXT.replace("Foo.value", "Foo.worth")
        assert counts.each == (1, 1, 1)
        for call in (ws.definition, ws.type_definition, ws.implementation, ws.callers):
            counts.reset()
            with pytest.raises(LspError, match=r"no server of app\.txt answers"):
                await call("app.txt:4:5")
            assert counts.each == (1, 1, 1), call.__name__


async def test_a_symbol_target_is_looked_up_once(tmp_path: Path, counts: Counts) -> None:
    """``path#Name``: the outline is asked once, and the symbol it names comes with the
    place (references drop its declaration without asking anything more)."""
    write(tmp_path, {"app.txt": TEXT})
    async with Workspace(tmp_path, servers=[scripted(CONFIG)]) as ws:
        place = await ws.place("app.txt#Foo/value")
        assert place.symbol is not None
        assert place.symbol.name_path == "Foo/value"
        assert (place.shown, place.uri) == ("app.txt", (tmp_path / "app.txt").as_uri())
        assert TEXT[place.offset :].startswith("value")
        assert counts.each == (1, 1, 1)
        found = await ws.references(place)
        assert [(r.location.line, r.location.column) for r in found] == [(4, 5)]
        assert counts.each == (1, 1, 1)


async def test_a_place_handed_in_is_not_resolved_again(tmp_path: Path, counts: Counts) -> None:
    """A Place made once serves every call; one made without ``whole`` gets the root
    prepared for a question about every file, and keeps its file and offset."""
    write(tmp_path, {"app.txt": TEXT, "other.txt": "Foo\n"})
    async with Workspace(tmp_path, servers=[scripted(CONFIG)]) as ws:
        place = await ws.place("app.txt:4:5")
        assert place.whole is None
        assert [handle.spec.id for handle in place.handles] == ["scripted"]
        assert await ws.hover(place) == "**Foo.value**"
        assert len(await ws.references(place, include_declaration=True)) == 2
        whole = await ws.place(place, whole=True)
        assert whole.whole is not None
        assert whole.whole.complete
        assert (whole.path, whole.offset) == (place.path, place.offset)
        assert await ws.place(whole, whole=True) is whole
        assert counts.each == (1, 1, 1)


async def test_a_bad_target_is_refused_before_the_root_is_opened(tmp_path: Path) -> None:
    """A target that does not parse, or whose path the caller's check refuses, fails before
    any file is opened for a question about every file."""
    write(tmp_path, {"app.txt": TEXT})
    async with Workspace(tmp_path, servers=[scripted(CONFIG)]) as ws:
        with pytest.raises(ValueError, match="bad target"):
            await ws.place("app.txt:0", whole=True)

        def refuse(path: str) -> None:
            raise ValueError(f"{path} refused")

        with pytest.raises(ValueError, match=r"app\.txt refused"):
            await ws.place("app.txt:1", check=refuse, whole=True)
        assert ws.started() == []


def test_the_command_line_resolves_the_target_once(
    tmp_path: Path, counts: Counts, capsys: pytest.CaptureFixture[str]
) -> None:
    """``hover`` and ``references`` from the command line: the target, relative to the
    current folder, is made into one place there and handed down."""
    root = write(tmp_path / "project", {"app.txt": TEXT})
    command = f"{sys.executable} {SCRIPT} '{json.dumps(CONFIG)}'"
    common = ["--root", str(root), "--command", command, "--daemon", "off", "--quiet"]
    target = str(Path("project", "app.txt")) + ":4:5"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        assert cli(["hover", target, *common]) == 0
        assert "Foo.value" in capsys.readouterr().out
        assert (counts.located, counts.offsets) == (1, 1)
        counts.reset()
        assert cli(["references", target, "--include-declaration", *common]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert [line.split(": ", 1)[0] for line in lines] == [
            "project/app.txt:2:5",
            "project/app.txt:4:5",
        ]
        assert (counts.located, counts.offsets) == (1, 1)
