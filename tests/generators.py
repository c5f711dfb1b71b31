"""Loading the repository's generator scripts (under ``scripts/``) as modules, for the tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO_ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = REPO_ROOT / "scripts"
META_MODEL = REPO_ROOT / "spec/lsp/3.17/metaModel.json"
"""The copy vendored into the repository; the tests fail (never skip) when it is missing."""


def load_script(name: str) -> ModuleType:
    """Import ``scripts/<name>.py``, with ``scripts/`` on the path for its own imports."""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module
