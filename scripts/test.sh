#!/usr/bin/env bash
# Installs everything into .venv (the library, the test tools, the real language servers)
# and runs the whole suite: ruff, mypy --strict and pytest. Extra arguments go to pytest.
#
# Without extra arguments pytest runs under coverage, and two gates follow: the package at
# 95% or more (fail_under in pyproject.toml), and src/adecore_lsp/protocol/ at 100% branch
# coverage. With extra arguments (a subset, `-k foo`) or with SKIP_COVERAGE_GATES=1, pytest
# runs without coverage and no gate applies.
#
# The whole run goes on TEST_WORKERS processes (2 by default, this project's CI machine's
# cores; pytest-xdist), each taking a test file at a time, so that a file's fixtures are
# made once: most tests wait on a language server, and the other worker uses the core.
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
if [ "$#" -gt 0 ] || [ "${SKIP_COVERAGE_GATES:-0}" = "1" ]; then
  "$VENV_PY" -m pytest "$@"
  exit
fi
# The gates below read the data; pytest itself reports nothing and fails nothing on coverage.
rm -f build/coverage/.coverage*
"$VENV_PY" -m pytest -n "${TEST_WORKERS:-2}" --dist loadfile \
  --cov --cov-report= --cov-fail-under=0 --durations=25
status=0
echo "== coverage: the package, at least 95%"
"$VENV_PY" -m coverage report || status=1
echo "== coverage: src/adecore_lsp/protocol/, 100% of branches"
"$VENV_PY" -m coverage report --include='*/adecore_lsp/protocol/*' --fail-under=100 || status=1
exit "$status"
