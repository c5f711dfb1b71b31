#!/usr/bin/env bash
# The main job: installs the library and a real language server into .venv, then drives
# the server through adecore-lsp on the sample project under examples/sample_project.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
ensure_venv servers
exec "$VENV_PY" examples/check_project.py "$@"
