"""watchers: which file events a server's ``didChangeWatchedFiles`` watchers want."""

from __future__ import annotations

from typing import Any

import pytest

from adecore_lsp.protocol.capabilities.watchers import CHANGED, CREATED, DELETED, watched_changes

ROOT = "/w"


def changes(*items: tuple[str, int]) -> list[tuple[str, str, int]]:
    return [(f"file://{path}", path, kind) for path, kind in items]


def uris(events: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(event["uri"].removeprefix("file://"), event["type"]) for event in events]


@pytest.mark.parametrize(
    ("watcher", "wanted"),
    [
        # basedpyright's: every file, relative to the root
        ({"globPattern": "**"}, ["/w/a.py", "/w/pkg/b.py", "/w/README"]),
        ({"globPattern": "**/*.py"}, ["/w/a.py", "/w/pkg/b.py"]),
        ({"globPattern": "**/pyrightconfig.json"}, []),
        ({"globPattern": "/w/pkg/**"}, ["/w/pkg/b.py"]),  # absolute, as some servers write
        ({"globPattern": {"baseUri": "file:///w/pkg", "pattern": "*.py"}}, ["/w/pkg/b.py"]),
        (
            {"globPattern": {"baseUri": {"uri": "file:///w", "name": "w"}, "pattern": "*.py"}},
            ["/w/a.py"],
        ),
        ({"globPattern": {"baseUri": "file:///elsewhere", "pattern": "**"}}, []),
        ({"globPattern": {"baseUri": "https://x/", "pattern": "**"}}, []),
        ({"globPattern": {"baseUri": "file:///w"}}, []),  # no pattern
        ({"globPattern": 3}, []),
        ({"globPattern": "{" * 40}, []),  # a glob that cannot be read matches nothing
        ("not a watcher", []),
    ],
)
def test_globs(watcher: Any, wanted: list[str]) -> None:
    events = changes(("/w/a.py", CHANGED), ("/w/pkg/b.py", CHANGED), ("/w/README", CHANGED))
    found = watched_changes([{"watchers": [watcher]}], events, ROOT)
    assert [path for path, _kind in uris(found)] == wanted


def test_kinds_select_the_events() -> None:
    events = changes(("/w/a.py", CREATED), ("/w/b.py", CHANGED), ("/w/c.py", DELETED))
    only_deletes = [{"watchers": [{"globPattern": "**", "kind": 4}]}]
    assert uris(watched_changes(only_deletes, events, ROOT)) == [("/w/c.py", DELETED)]
    create_or_change = [{"watchers": [{"globPattern": "**", "kind": 3}]}]
    assert uris(watched_changes(create_or_change, events, ROOT)) == [
        ("/w/a.py", CREATED),
        ("/w/b.py", CHANGED),
    ]
    odd = [{"watchers": [{"globPattern": "**", "kind": "all"}]}]
    assert watched_changes(odd, events, ROOT) == []


def test_registrations_without_watchers_want_nothing() -> None:
    events = changes(("/w/a.py", CHANGED))
    assert watched_changes([], events, ROOT) == []
    assert watched_changes([{}, {"watchers": None}, "junk"], events, ROOT) == []  # type: ignore[list-item]
    root_itself = changes(("/w", CHANGED))
    assert uris(watched_changes([{"watchers": [{"globPattern": "**"}]}], root_itself, ROOT)) == [
        ("/w", CHANGED)
    ]
