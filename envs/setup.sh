#!/usr/bin/env bash
# Create ./.venv with the pinned environment and rederive installed (editable).
# Idempotent: a venv already built from the current lock file is left alone, so
# this is cheap to run before every command.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
  echo "rederive needs Python 3.11 (py-irt 0.7.1 and the pinned torch wheel); found $("$PYTHON" --version)." >&2
  echo "Set PYTHON=/path/to/python3.11 and run again." >&2
  exit 1
fi

stamp=.venv/.rederive-lock.sha256
want=$(sha256sum envs/requirements.lock pyproject.toml | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi

echo "Setting up .venv from envs/requirements.lock (first time: about 2 minutes, 1.8 GB)..." >&2
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r envs/requirements.lock 2> >(grep -v "^WARNING: Location" >&2)
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e . 2> >(grep -v "^WARNING: Location" >&2)
echo "$want" > "$stamp"
echo "Environment ready: .venv" >&2
