"""Replication packages: `rederive.package` writes one, `rederive.verify` rebuilds
it and says, per result file, identical or where it differs; a changed raw run
and a package from another commit are named.

One built benchmark analysis (the bundled ChemBench matrix, fewer bootstrap
replicates) and one rebuild folder are shared; later verifies reuse the rebuild.
"""

import json
import shutil
import subprocess
import sys
import tarfile

import pytest
from workflow_utils import REPO, run_workflow

pytestmark = pytest.mark.slow

PYTHON = sys.executable


def rederive(module, *args, cwd):
    return subprocess.run(
        [PYTHON, "-m", f"rederive.{module}", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("package")
    shutil.copytree(REPO / "raw" / "benchmark", root / "raw" / "benchmark")
    overrides = {
        "build": ["benchmark"],
        "analyses": {
            "benchmark": {"raw_dir": str(root / "raw" / "benchmark"), "bootstrap": {"n_boot": 200}}
        },
    }
    run_workflow(root, overrides, targets=["results/benchmark/changes/changes.json"])
    config = root / "test-overrides.yaml"
    package = root / "benchmark.tar.gz"
    proc = rederive("package", "benchmark", package, "--configfile", config, cwd=root)
    assert proc.returncode == 0, proc.stderr
    return root, config, package


def repack(package, out, edit):
    """A copy of ``package`` with ``edit(folder)`` applied to its unpacked files."""
    work = out.with_suffix("")
    with tarfile.open(package) as tar:
        tar.extractall(work, filter="data")
    edit(work / "rederive-package")
    with tarfile.open(out, "w:gz") as tar:
        tar.add(work / "rederive-package", arcname="rederive-package")
    return out


def test_packages_are_deterministic_and_refuse_stale_inputs(built, tmp_path):
    root, config, package = built
    again = tmp_path / "again.tar.gz"
    assert rederive("package", "benchmark", again, "--configfile", config, cwd=root).returncode == 0
    assert again.read_bytes() == package.read_bytes()
    with tarfile.open(package) as tar:
        names = tar.getnames()
    assert "rederive-package/raw/matrix/chembench.csv" in names
    assert "rederive-package/results/tables/ranking.csv" in names
    assert "rederive-package/requirements.lock" in names
    assert not any("/figures/" in n for n in names)
    record = json.loads(tarfile.open(package).extractfile("rederive-package/package.json").read())
    assert record["manifest"]["runs"]["matrix-chembench"]["files"]
    assert record["manifest"]["settings"]["bootstrap"]["n_boot"] == 200
    # Raw inputs changed since the build: refused, naming the run.
    matrix = root / "raw" / "benchmark" / "matrix" / "chembench.csv"
    original = matrix.read_bytes()
    matrix.write_bytes(original.replace(b"1.0", b"0.0", 1))
    try:
        proc = rederive(
            "package", "benchmark", tmp_path / "stale.tar.gz", "--configfile", config, cwd=root
        )
        assert proc.returncode == 2
        assert "run matrix-chembench: matrix/chembench.csv changed since the build" in proc.stderr
    finally:
        matrix.write_bytes(original)


def test_an_untouched_package_is_reproduced(built):
    root, _, package = built
    proc = rederive("verify", package, "--workdir", root / "rebuild", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "raw inputs: all 1 runs and other inputs match" in proc.stdout
    assert "library code of kind benchmark: same" in proc.stdout
    assert "lock file: same" in proc.stdout
    assert "rederive: verify: REPRODUCED: all" in proc.stdout
    assert " differs " not in proc.stdout


def test_a_changed_cell_is_named_with_both_values(built, tmp_path):
    root, _, package = built

    def edit(folder):
        path = folder / "results" / "tables" / "ranking.csv"
        lines = path.read_text().splitlines()
        cells = lines[1].split(",")
        edit.model, edit.old = cells[1], cells[2]
        cells[2] = f"{float(cells[2]) + 0.1:.1f}"
        edit.new = cells[2]
        lines[1] = ",".join(cells)
        path.write_text("\n".join(lines) + "\n")

    changed = repack(package, tmp_path / "cell.tar.gz", edit)
    proc = rederive("verify", changed, "--workdir", root / "rebuild", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "differs    tables/ranking.csv: 1 cells in 1 rows" in proc.stdout
    assert (
        f'row {{"model": "{edit.model}"}}, column accuracy_pct: theirs {edit.new}, rebuilt {edit.old}'
        in proc.stdout
    )
    assert "results/tables/ranking.csv in the package differs from the hash recorded" in proc.stdout
    assert "NOT REPRODUCED: 1 of" in proc.stdout


def test_a_changed_run_and_another_commit_are_named(built, tmp_path):
    root, _, package = built

    def edit(folder):
        matrix = folder / "raw" / "matrix" / "chembench.csv"
        matrix.write_bytes(matrix.read_bytes().replace(b"1.0", b"0.0", 5))
        record = json.loads((folder / "package.json").read_text())
        record["code"]["commit"] = "0123456789abcdef0123456789abcdef01234567"
        (folder / "package.json").write_text(json.dumps(record))

    changed = repack(package, tmp_path / "raw.tar.gz", edit)
    proc = rederive("verify", changed, "--workdir", root / "rebuild", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (
        "run matrix-chembench: its inputs differ from the manifest (matrix/chembench.csv changed)"
        in proc.stdout
    )
    assert (
        "package made at commit 0123456789ab" in proc.stdout and "DIFFERENT commit" in proc.stdout
    )
    assert "differs    tables/accuracy.csv" in proc.stdout


def test_a_manifest_only_package_needs_the_raw_inputs(built, tmp_path):
    root, config, _ = built
    slim = tmp_path / "slim.tar.gz"
    proc = rederive(
        "package", "benchmark", slim, "--configfile", config, "--manifest-only", cwd=root
    )
    assert proc.returncode == 0 and "raw inputs: hashes only" in proc.stdout
    with tarfile.open(slim) as tar:
        assert not any("/raw/" in n for n in tar.getnames())
    proc = rederive("verify", slim, cwd=root)
    assert proc.returncode == 2 and "pass them with --raw DIR" in proc.stderr
    proc = rederive(
        "verify", slim, "--raw", root / "raw" / "benchmark", "--workdir", root / "rebuild", cwd=root
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_an_unreadable_package_exits_2(tmp_path):
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"not a tarball")
    proc = rederive("verify", bad, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.startswith("rederive: verify:")
