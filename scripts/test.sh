#!/usr/bin/env bash
# Installs everything into .venv (the library, the test tools, the real language servers)
# and runs the whole suite: ruff, mypy --strict and pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
ensure_venv test,servers
"$VENV_PY" scripts/install_servers.py
echo "== ruff"
"$VENV_PY" -m ruff check .
"$VENV_PY" -m ruff format --check .
echo "== mypy --strict"
"$VENV_PY" -m mypy
echo "== pytest"
"$VENV_PY" -m pytest "$@"
