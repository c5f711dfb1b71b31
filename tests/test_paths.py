"""path_to_uri and uri_to_path: the round trip on names servers and shells get wrong."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adecore_lsp import path_to_uri, uri_to_path
from adecore_lsp.paths import canonical_uri


@pytest.mark.parametrize(
    "name", ["plain.py", "my proj/a b.py", "+[x]/%41.py", "café/ünï.py", "emoji 😀.py", "#hash?.py"]
)
def test_paths_round_trip_through_uris(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    uri = path_to_uri(path)
    assert uri.startswith("file:///")
    assert " " not in uri
    assert uri_to_path(uri) == path


def test_the_spelling_of_a_uri_does_not_matter() -> None:
    """Servers answer `+[x]` where the client sent `%2B%5Bx%5D`: both are one path."""
    assert path_to_uri("/w/my proj+[x]/a.py") == "file:///w/my%20proj%2B%5Bx%5D/a.py"
    assert uri_to_path("file:///w/my%20proj+[x]/a.py") == uri_to_path(
        "file:///w/my%20proj%2B%5Bx%5D/a.py"
    )
    assert uri_to_path("file://localhost/w/a.py") == Path("/w/a.py")


def test_relative_paths_are_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert path_to_uri("src/a.py") == (tmp_path / "src/a.py").as_uri()
    assert uri_to_path(path_to_uri(os.path.join("src", "a.py"))) == tmp_path / "src" / "a.py"


@pytest.mark.parametrize(
    "uri", ["untitled:Untitled-1", "https://example.com/a.py", "file://otherhost/share/a.py"]
)
def test_uris_that_name_no_local_file_are_refused(uri: str) -> None:
    with pytest.raises(ValueError, match=r"file|host"):
        uri_to_path(uri)


def test_a_uri_must_be_a_string() -> None:
    with pytest.raises(TypeError):
        uri_to_path(Path("/a"))  # type: ignore[arg-type]


@given(st.text(alphabet=st.sampled_from("/ab.+-_~[] %2F0é"), max_size=20))
def test_one_spelling_per_file_whatever_the_server_sent(tail: str) -> None:
    """canonical_uri gives what path_to_uri gives for the path a URI names, shortcut or not."""
    uri = "file:///" + tail
    assert canonical_uri(uri) == path_to_uri(uri_to_path(uri))
