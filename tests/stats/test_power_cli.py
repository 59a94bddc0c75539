"""The planning entry point ``python -m rederive.power``."""

import subprocess
import sys

import pandas as pd
import pytest

from rederive.power import main
from rederive.stats.power import binary_difference_sd, n_needed, unpaired_two_proportion_n


def test_cli_accuracies_prints_paired_and_unpaired_n(capsys):
    assert main(["--acc-a", "0.72", "--acc-b", "0.68", "--corr", "0.5"]) == 0
    out = capsys.readouterr().out
    paired = int(n_needed(0.04, binary_difference_sd(0.72, 0.68, 0.5)))
    assert f"items needed, paired, 80% power at alpha = 0.05 (two-sided): {paired:,}" in out
    assert f"(Fleiss): {unpaired_two_proportion_n(0.72, 0.68):,}" in out
    assert "Benjamini-Hochberg" not in out
    assert main(["--acc-a", "0.72", "--acc-b", "0.68", "--pairs", "10"]) == 0
    worst = int(n_needed(0.04, binary_difference_sd(0.72, 0.68, 0.5), alpha=0.005))
    assert f"between {paired:,} and {worst:,} items (Bonferroni bound)" in capsys.readouterr().out


def test_cli_runs_as_a_module():
    done = subprocess.run(
        [sys.executable, "-m", "rederive.power", "--acc-a", "0.9", "--acc-b", "0.85", "--n", "500"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "with n = 500 items: minimum detectable difference" in done.stdout


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--acc-a", "0.9", "--acc-b", "0.2", "--corr", "0.9"], "impossible"),
        (["--acc-a", "72", "--acc-b", "0.68"], "acc-a must be a proportion"),
        (["--acc-a", "0.7"], "--acc-a needs --acc-b"),
        (["--acc-a", "0.7", "--acc-b", "0.6", "--power", "80"], "--power and --alpha"),
    ],
)
def test_cli_bad_arguments_are_one_line_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_results_folder(tmp_path, capsys):
    assert main(["--results", str(tmp_path)]) == 2
    assert "tables/power.csv: no power table here" in capsys.readouterr().err
    tables = tmp_path / "tables"
    tables.mkdir()
    pd.DataFrame(
        {
            "n_units": [400, 400, 400],
            "sd_unit_pp": [30.0, 40.0, 50.0],
            "unit": "item",
            "diff_pp": [1.0, 5.0, 9.0],
            "verdict": ["tie, underpowered", "significant", "significant"],
            "alpha_bh": 0.02,
            "relevant_pp": 2.0,
        }
    ).to_csv(tables / "power.csv", index=False)
    assert main(["--results", str(tmp_path), "--diff", "3"]) == 0
    out = capsys.readouterr().out
    assert f"items needed to detect 3 pp (median comparison): {int(n_needed(3, 40)):,}" in out
    assert "ties (not significant after BH): 1, of which underpowered (MDE > 2 pp): 1" in out
    (tables / "power.csv").write_text("a,b\n1,2\n")
    assert main(["--results", str(tmp_path)]) == 2
    assert "not a power table" in capsys.readouterr().err
