"""``python -m rederive.power`` answering "more epochs or more items?"."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from rederive.power import main
from rederive.stats.noise import COLUMNS, ONE_EPOCH_PAIR, noise_table
from rederive.stats.power import (
    cheapest_design,
    design_cost,
    design_mde,
    epochs_needed,
    items_needed,
)

VB, VW = 0.005, 0.4


def test_between_within_prints_both_options_and_the_cheapest(capsys):
    argv = ["--between", str(VB), "--within", str(VW), "--items", "500", "--epochs", "5"]
    assert main([*argv, "--target-mde", "2"]) == 0
    out = capsys.readouterr().out
    k = int(epochs_needed(VB, VW, 500, 0.02))
    n = int(items_needed(VB, VW, 5, 0.02))
    best_n, best_k = cheapest_design(VB, VW, 0.02)
    assert f"{100 * design_mde(VB, VW, 500, 5):.2f} pp now" in out
    assert f"{100 * design_mde(VB, VW, 500, np.inf):.2f} pp with unlimited epochs" in out
    assert f"more epochs, same 500 items: {k:,} epochs, cost {500 * k:,}" in out
    assert f"more items, same 5 epochs: {n:,} items, cost {5 * n:,}" in out
    assert f"cheapest design from scratch: {best_n:,} items x {best_k} epoch" in out
    assert "cheaper from here: more items" in out
    # Items that are expensive to make turn the answer round.
    assert main([*argv, "--target-mde", "2", "--item-cost", "20"]) == 0
    out = capsys.readouterr().out
    assert f"cost {design_cost(500, k, 20):,.0f} (+{design_cost(500, k - 5, 0):,.0f})" in out
    assert "cheaper from here: more epochs" in out


def test_target_below_the_floor_and_already_reached(capsys):
    argv = ["--between", str(VB), "--within", str(VW), "--epochs", "5"]
    assert main([*argv, "--items", "90", "--target-mde", "2"]) == 0
    out = capsys.readouterr().out
    assert "more epochs, same 90 items: not reachable (floor above the target)" in out
    assert "cheaper from here" not in out
    assert main([*argv, "--items", "90", "--target-mde", "30"]) == 0
    assert "target 30 pp: already reached" in capsys.readouterr().out


def _table(tmp_path, epochs: int):
    rng = np.random.default_rng(2)
    p = rng.beta(2, 3, 300)
    rows = [
        pd.DataFrame(
            {
                "model": model,
                "item": np.repeat(np.arange(300), epochs),
                "correct": (rng.random(300 * epochs) < np.repeat(np.clip(p + d, 0, 1), epochs)),
            }
        )
        for model, d in (("a", 0.0), ("b", 0.05), ("c", 0.1))
    ]
    table = noise_table(pd.concat(rows))
    path = tmp_path / "noise.csv"
    table.to_csv(path, index=False)
    return table, path


def test_noise_table_pair_model_and_median(tmp_path, capsys):
    table, path = _table(tmp_path, 4)
    pair = table[(table["model"] == "a") & (table["model_b"] == "c")].iloc[0]
    assert main(["--noise", str(path), "--pair", "c", "a", "--target-mde", "3"]) == 0
    out = capsys.readouterr().out
    assert "pair c vs a (paired difference, epochs per model)" in out
    mde_now = design_mde(pair["var_between"], pair["var_within"], 300, 4)
    assert f"{100 * mde_now:.2f} pp now" in out and "now: 300 items x 4 epochs" in out
    assert main(["--noise", str(path), "--model", "b", "--target-mde", "3", "--items", "600"]) == 0
    assert "model b" in (out := capsys.readouterr().out) and "now: 600 items x 4 epochs" in out
    assert main(["--noise", str(path), "--target-mde", "3"]) == 0
    pairs = table[table["level"] == "pair"]
    mde_median = design_mde(pairs["var_between"].median(), pairs["var_within"].median(), 300, 4)
    out = capsys.readouterr().out
    assert "median over 3 pairs" in out and f"{100 * mde_median:.2f} pp now" in out


def test_single_epoch_table_and_bad_input_are_errors(tmp_path, capsys):
    _, path = _table(tmp_path, 1)
    assert main(["--noise", str(path), "--target-mde", "3"]) == 2
    assert "within-item variance not estimated" in (err := capsys.readouterr().err)
    assert ONE_EPOCH_PAIR in err
    assert main(["--noise", str(tmp_path / "none.csv"), "--target-mde", "3"]) == 2
    assert "no noise table here" in capsys.readouterr().err
    _, path = _table(tmp_path, 3)
    assert main(["--noise", str(path), "--model", "zz", "--target-mde", "3"]) == 2
    assert "no row for model zz" in capsys.readouterr().err
    pd.DataFrame({"x": [1]}).to_csv(path, index=False)
    assert main(["--noise", str(path), "--target-mde", "3"]) == 2
    assert "not a noise table" in capsys.readouterr().err
    assert set(COLUMNS) >= {"var_between", "var_within", "effective_epochs"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--between", "0.01", "--within", "0.2", "--items", "100"], "--target-mde"),
        (
            ["--between", "0.01", "--items", "100", "--epochs", "2", "--target-mde", "2"],
            "needs --within",
        ),
        (
            [
                "--between",
                "0.01",
                "--within",
                "-1",
                "--items",
                "9",
                "--epochs",
                "2",
                "--target-mde",
                "2",
            ],
            "--within must be",
        ),
        (
            [
                "--between",
                "0.01",
                "--within",
                "0.2",
                "--items",
                "1",
                "--epochs",
                "2",
                "--target-mde",
                "2",
            ],
            "--items must be",
        ),
        (
            [
                "--between",
                "0.01",
                "--within",
                "0.2",
                "--items",
                "9",
                "--epochs",
                "2",
                "--target-mde",
                "2",
                "--item-cost",
                "-1",
            ],
            "--item-cost",
        ),
    ],
)
def test_bad_arguments_are_one_line_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_runs_as_a_module():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "rederive.power",
            "--between",
            "0.01",
            "--within",
            "0.2",
            "--items",
            "200",
            "--epochs",
            "3",
            "--target-mde",
            "5",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "More epochs or more items?" in done.stdout
