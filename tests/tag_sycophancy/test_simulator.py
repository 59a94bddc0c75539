"""The bundled raw data equals a fresh generation, byte for byte."""

import filecmp
from pathlib import Path

from rederive.simulate.tag_sycophancy import DEFAULT_SEED, generate

RAW = Path(__file__).resolve().parents[2] / "raw" / "tag_sycophancy"


def test_bundled_files_equal_fresh_generation(tmp_path):
    written = generate(tmp_path, RAW / "published", seed=DEFAULT_SEED)
    assert len(written) == 48
    for path in written:
        bundled = RAW / path.relative_to(tmp_path)
        assert bundled.exists(), bundled
        assert filecmp.cmp(path, bundled, shallow=False), (
            f"{bundled} differs from a fresh generation"
        )
    bundled_runs = sorted(p.name for p in (RAW / "runs").glob("*.jsonl"))
    assert bundled_runs == sorted(p.name for p in (tmp_path / "runs").glob("*.jsonl"))


def test_subset_has_the_full_panel_replies(tmp_path):
    generate(tmp_path, RAW / "published", seed=DEFAULT_SEED, models=["Grok-4.3"])
    assert (tmp_path / "runs" / "Grok-4.3.jsonl").read_bytes() == (
        RAW / "runs" / "Grok-4.3.jsonl"
    ).read_bytes()
