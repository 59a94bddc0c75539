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
want=$(sha256sum envs/requirements.lock envs/requirements-slurm.lock pyproject.toml | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi

packages=$(grep -c '^[A-Za-z0-9]' envs/requirements.lock)
echo "rederive setup: creating .venv from envs/requirements.lock ($packages pinned packages; first time about 2 minutes, 1.8 GB)" >&2
step() { echo "rederive setup: [$1/3] $2" >&2; }
# pip --quiet prints nothing for minutes; a ticker says it is still working.
tick() { local start=$SECONDS; while sleep 20; do echo "rederive setup:       ... still installing ($((SECONDS - start)) s)" >&2; done; }
# The SLURM executor plugins go to .venv/slurm-plugins/, on sys.path only when an
# argument names SLURM (`--profile profiles/slurm`, `--executor slurm`, the
# jobs' `--executor slurm-jobstep`): Snakemake imports every plugin it can see at
# start-up, and plugin 2.8.0 runs `scontrol show config` when imported, which
# waits ~9 s on a machine with SLURM's client tools and no reachable controller.
install_slurm_plugins() {
  # A venv built before this layout has them in site-packages, always imported.
  .venv/bin/python -m pip uninstall --quiet --yes snakemake-executor-plugin-slurm \
    snakemake-executor-plugin-slurm-jobstep 2>/dev/null || true
  rm -rf .venv/slurm-plugins
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps \
    --target .venv/slurm-plugins -r envs/requirements-slurm.lock 2> >(grep -v "^WARNING: Location" >&2)
  local site
  site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo 'import sys, os; any("slurm" in a for a in sys.argv[1:]) and sys.path.append(os.path.join(sys.prefix, "slurm-plugins"))' \
    > "$site/rederive-slurm.pth"
}
step 1 "virtual environment"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
step 2 "pinned packages (torch CPU, py-irt, snakemake, ...)"
tick & ticker=$!
trap 'kill $ticker 2>/dev/null || true' EXIT
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r envs/requirements.lock 2> >(grep -v "^WARNING: Location" >&2)
kill $ticker 2>/dev/null || true
step 3 "rederive itself (editable)"
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e . 2> >(grep -v "^WARNING: Location" >&2)
install_slurm_plugins
echo "$want" > "$stamp"
echo "rederive setup: environment ready in .venv. Next: .venv/bin/snakemake --cores 8 (bundled data) or .venv/bin/python -m pytest (tests)" >&2
