#!/usr/bin/env bash
# The LSP-Fidelity benchmark in one command, from a fresh clone: installs the project and its
# servers into .venv (as the tests do), then runs benchmarks/fidelity with the arguments given.
# Its subjects install themselves into build/fidelity/peers, never into .venv.
#
#   bash scripts/fidelity.sh --json build/fidelity/run.json    # the full run
#   bash scripts/fidelity.sh --quick                            # one small tree per language
#   bash scripts/fidelity.sh --tree ~/code/mine --language python
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
ensure_venv test,servers
"$VENV_PY" scripts/install_servers.py
exec "$VENV_PY" benchmarks/fidelity "$@"
