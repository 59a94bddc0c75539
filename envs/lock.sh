#!/usr/bin/env bash
# Rebuild envs/requirements.lock from envs/requirements.in in a scratch venv.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
python3.11 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet -r envs/requirements.in
{
  echo "# Exact, tested environment: pip freeze of a venv built from envs/requirements.in"
  echo "# (Python 3.11, Linux x86_64). Regenerate with envs/lock.sh after changing requirements.in."
  # The local CPU wheel reports 2.13.0+cpu; pin the public version so pip may use either.
  "$tmp/venv/bin/pip" freeze | sed 's/^torch==\(.*\)+cpu$/torch==\1/'
} > envs/requirements.lock
rm -rf "$tmp"
