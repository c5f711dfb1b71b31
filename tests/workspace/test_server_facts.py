"""A server's version as a version: what ``servers`` lists and ``check``'s summary line says,
read from ``serverInfo.version`` or from what the server's version command prints."""

from __future__ import annotations

import json

import pytest

from adecore_lsp.cli.common import short_version
from adecore_lsp.workspace.servers.server_facts import version_in

DEBIAN_GOPLS_INFO = (
    '{"GoVersion":"go1.19.5","Path":"golang.org/x/tools/gopls","Main":{"Path":"","Version":"",'
    '"Sum":"","Replace":null},"Deps":null,"Settings":[{"Key":"-compiler","Value":"gc"},'
    '{"Key":"-trimpath","Value":"true"},{"Key":"CGO_ENABLED","Value":"1"},'
    '{"Key":"GOARCH","Value":"amd64"},{"Key":"GOOS","Value":"linux"},'
    '{"Key":"GOAMD64","Value":"v1"}],"Version":"master"}'
)
"""Debian bookworm's gopls 0.5.0, as its ``initialize`` answer's ``serverInfo.version``."""

RELEASED_GOPLS_INFO = json.dumps(
    {
        "GoVersion": "go1.22.5",
        "Path": "golang.org/x/tools/gopls",
        "Main": {"Path": "golang.org/x/tools/gopls", "Version": "v0.16.1", "Sum": "h1:x"},
        "Deps": [{"Path": "golang.org/x/mod", "Version": "v0.19.0", "Sum": "h1:y"}],
        "Settings": [{"Key": "GOARCH", "Value": "amd64"}],
        "Version": "v0.16.1",
    },
    indent="\t",
)
"""A released gopls's ``version -json`` (the shape of its ``debug.ServerVersion``)."""


@pytest.mark.parametrize(
    ("said", "version"),
    [
        (DEBIAN_GOPLS_INFO, "master"),
        (RELEASED_GOPLS_INFO, "0.16.1"),
        # gopls before 0.6: lower-case keys; a build without a version of its own.
        ('{"path": "golang.org/x/tools/gopls", "version": "v0.5.5"}', "0.5.5"),
        ('{"Main": {"Version": "(devel)"}, "Version": "(unknown)"}', None),
        ('{"Main": {"Version": "v0.9.0"}}', "0.9.0"),
        ("golang.org/x/tools/gopls v0.16.1\n    golang.org/x/tools/gopls@v0.16.1 h1:x\n", "0.16.1"),
        ("golang.org/x/tools/gopls master\n    @\n", None),
        ("clangd version 22.1.1 linux x86_64-unknown-linux-gnu", "22.1.1"),
        ("basedpyright 1.31.4\nbased on pyright 1.1.404\n", "1.31.4"),
        ("nightly", "nightly"),
        ("{not json", None),
        ("", None),
    ],
)
def test_the_version_in_what_a_server_says(said: str, version: str | None) -> None:
    assert version_in(said) == version


def test_the_summary_line_shows_gopls_version_not_its_build_info() -> None:
    assert short_version(DEBIAN_GOPLS_INFO) == "master"
    assert short_version(RELEASED_GOPLS_INFO) == "0.16.1"
    assert short_version('{"Version": "(devel)"}') is None
    # A server's own words without a number stay as they are, on one line.
    assert short_version("0.4.1") == "0.4.1"
    assert short_version("a  build\nof today") == "a build of today"
    assert short_version("  ") is None
    assert short_version(None) is None
