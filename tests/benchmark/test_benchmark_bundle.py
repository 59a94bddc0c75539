"""The bundled real ChemBench input: unchanged copy, licence and source note present."""

import hashlib
from pathlib import Path

import pytest
from benchmark_formats import REPO

RAW = REPO / "raw" / "benchmark"
SOURCE = REPO.parent / "shared" / "realdata" / "chembench"
COPIES = {
    RAW / "matrix" / "chembench.csv": "binary_matrix_2854q_x_22models.csv",
    RAW / "published" / "chembench_model_score_allcorrect.csv": "model_score_allcorrect.csv",
}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.skipif(not SOURCE.is_dir(), reason="shared real-data folder not present (fresh clone)")
@pytest.mark.parametrize("copy", sorted(COPIES))
def test_bundled_files_are_unchanged_copies(copy):
    assert _sha(copy) == _sha(SOURCE / COPIES[copy])


def test_licence_and_source_note_say_real_data():
    licence = (RAW / "LICENSE-chembench.txt").read_text()
    assert "MIT License" in licence and "irt-on-bench" in licence
    readme = (RAW / "README.md").read_text()
    assert "real, not simulated" in readme and "lamalab-org/irt-on-bench" in readme
    assert not (RAW / "SIMULATED.md").exists()


def test_matrix_shape_and_cells():
    lines = (RAW / "matrix" / "chembench.csv").read_text().splitlines()
    header = lines[0].split(",")
    assert len(lines) == 2855 and len(header) == 23 and header[0] == ""
    cells = {cell for line in lines[1:] for cell in line.split(",")[1:]}
    assert cells == {"0.0", "1.0"}
