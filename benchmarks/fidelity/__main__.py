"""``python benchmarks/fidelity``: the LSP-Fidelity harness (see :mod:`fidelity.run`)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fidelity.run import main

if __name__ == "__main__":
    raise SystemExit(main())
