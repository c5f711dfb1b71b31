#!/usr/bin/env bash
# The main job: installs the library with its default server (ruff, from PyPI) into .venv,
# then runs `adecore-lsp check` on examples/sample_project, whose pyproject.toml chooses ruff.
# The sample project is meant to have findings: check exits 1 for them, which is success here;
# any other failure (2: the tool or the server failed, 3: incomplete) is passed on.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
ensure_venv python
cd examples/sample_project
status=0
../../.venv/bin/adecore-lsp check "$@" || status=$?
if [ "$status" -eq 1 ]; then
  echo "(exit status 1: the findings above, which the sample project is meant to have)" >&2
  exit 0
fi
exit "$status"
