"""What every test shares: the user's own folders kept out of reach.

The trust store (``$XDG_CONFIG_HOME``), the write journals (``$XDG_STATE_HOME``) and the
daemon's runtime folder (``$ADECORE_LSP_RUNTIME_DIR``) of the whole run live in one
temporary folder, so that no test reads or writes the person's real ones, and every
command line a test starts inherits the same.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

import pytest

_OWN = ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "ADECORE_LSP_RUNTIME_DIR", "ADECORE_LSP_TRUST")


@pytest.fixture(autouse=True, scope="session")
def own_user_folders() -> Iterator[None]:
    """Point the user's configuration and state folders at a folder of the run's own."""
    saved = {name: os.environ.get(name) for name in _OWN}
    with tempfile.TemporaryDirectory(prefix="adecore-lsp-user-") as folder:
        os.environ["XDG_CONFIG_HOME"] = os.path.join(folder, "config")
        os.environ["XDG_STATE_HOME"] = os.path.join(folder, "state")
        os.environ["ADECORE_LSP_RUNTIME_DIR"] = os.path.join(folder, "runtime")
        os.environ.pop("ADECORE_LSP_TRUST", None)
        try:
            yield
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
