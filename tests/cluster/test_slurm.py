"""The benchmark study through ``--executor slurm`` on a real single-node SLURM
cluster, compared byte for byte with a local run.

The cluster is Debian's slurm-wlm + munge, started by ``.ci/slurm/start.sh``
(``.ci/run`` starts it before the tests; otherwise this module starts it and
stops it afterwards, by PID). The command is the one in README's "Run on a
SLURM cluster" section, read from the README so the two cannot drift apart; it
runs in a scratch directory with a smaller bootstrap and IRT fit (the same
settings for both runs).
"""

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from workflow_utils import REPO, SNAKEMAKE, prepare_workdir, run_workflow

START = REPO / ".ci" / "slurm" / "start.sh"
STOP = REPO / ".ci" / "slurm" / "stop.sh"
OVERRIDES = {
    "build": ["benchmark"],
    "analyses": {"benchmark": {"bootstrap": {"n_boot": 200}, "irt": {"epochs": 100}}},
}
# Exit codes of start.sh that mean "this machine cannot host the test cluster".
CANNOT_HOST = {2: "not root", 3: "slurm-wlm/munge missing and no apt-get", 5: "own SLURM config"}


def readme_command() -> list[str]:
    """The command of README's "Run on a SLURM cluster" section, as argv."""
    text = (REPO / "README.md").read_text()
    section = text.split("## Run on a SLURM cluster", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    line = " ".join(part.rstrip("\\").strip() for part in block.strip().splitlines())
    return shlex.split(line)


@pytest.fixture(scope="module")
def slurm_cluster():
    if os.geteuid() != 0:
        pytest.skip("starting a SLURM cluster (.ci/slurm/start.sh) needs root")
    if not shutil.which("slurmctld") and not shutil.which("apt-get"):
        pytest.skip("slurm-wlm is not installed and there is no apt-get to install it")
    proc = subprocess.run([str(START)], capture_output=True, text=True, timeout=900)
    if proc.returncode in CANNOT_HOST:
        pytest.skip(f"no test cluster here ({CANNOT_HOST[proc.returncode]}): {proc.stderr}")
    assert proc.returncode == 0, f"start.sh failed:\n{proc.stderr}"
    started_here = "already up" not in proc.stderr
    conf = proc.stdout.strip().removeprefix("export SLURM_CONF=")
    yield {**os.environ, "SLURM_CONF": conf}
    if started_here:
        stop = subprocess.run([str(STOP)], capture_output=True, text=True, timeout=120)
        assert stop.returncode == 0, f"stop.sh failed:\n{stop.stderr}"


def result_files(root: Path) -> dict[str, bytes]:
    """Tables, figures, checks and provenance; not the DuckDB file (its bytes
    depend on write order), nor logs and timings, nor the history's build times."""
    skip = ("results/logs/", "results/benchmarks/")
    files = {}
    for path in sorted((root / "results").rglob("*")):
        rel = path.relative_to(root).as_posix()
        if "history" in path.parts:
            continue
        if path.is_file() and not rel.startswith(skip) and path.suffix != ".duckdb":
            files[rel] = path.read_bytes()
    return files


def test_readme_command_uses_the_slurm_profile():
    argv = readme_command()
    assert argv[0] == ".venv/bin/snakemake"
    assert argv[argv.index("--profile") + 1] == "profiles/slurm"


@pytest.mark.slow
def test_benchmark_study_on_slurm_equals_local_run(tmp_path, slurm_cluster):
    on_slurm, local = tmp_path / "slurm", tmp_path / "local"
    for workdir in (on_slurm, local):
        workdir.mkdir()
        (workdir / "raw").symlink_to(REPO / "raw")  # the bundled data, as in a checkout
    override_file = prepare_workdir(on_slurm, OVERRIDES)
    argv = readme_command()
    argv[0] = str(SNAKEMAKE)
    argv[argv.index("--profile") + 1] = str(REPO / "profiles" / "slurm")
    argv[1:1] = ["-s", str(REPO / "Snakefile"), "--directory", str(on_slurm)]
    argv += ["--configfile", str(override_file)]
    proc = subprocess.run(
        argv, capture_output=True, text=True, cwd=on_slurm, env=slurm_cluster, timeout=1500
    )
    assert proc.returncode == 0, f"SLURM run failed:\n{proc.stderr[-6000:]}"
    submitted = re.findall(r"submitted with SLURM jobid (\d+)", proc.stderr)
    assert len(submitted) >= 10, proc.stderr[-3000:]  # every job went through SLURM

    run_workflow(local, OVERRIDES)
    ours, theirs = result_files(on_slurm), result_files(local)
    assert sorted(ours) == sorted(theirs)
    assert any(name.endswith("tables/pairwise.csv") for name in ours)
    different = [name for name in ours if ours[name] != theirs[name]]
    assert different == []
