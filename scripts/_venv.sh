# Sourced by the scripts: creates .venv with the first Python 3.10+ it finds and installs the
# project into it, editable, with the extras given to ensure_venv.
VENV_PY=.venv/bin/python

find_python() {
  for candidate in "${PYTHON:-}" python3 python3.13 python3.12 python3.11 python3.10 python; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  echo "adecore-lsp needs Python 3.10 or newer on PATH" >&2
  return 1
}

ensure_venv() {
  local extras="$1"
  if [ ! -x "$VENV_PY" ]; then
    "$(find_python)" -m venv .venv
    "$VENV_PY" -m pip install --quiet --upgrade pip
  fi
  "$VENV_PY" -m pip install --quiet --disable-pip-version-check -e ".[$extras]"
}
