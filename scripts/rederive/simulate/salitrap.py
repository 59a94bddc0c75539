"""Seeded generator of the bundled, *simulated* SaliTrap raw data.

The SaliTrap authors' raw model outputs are not public. This module writes
files in their format (``eval/eval_phystrap.py``: one JSONL per model) whose
aggregates reproduce the published tables: Tables 1-3 exactly, Tables 6 and 7 as
closely as the integer counts and the tables' own consistency allow, and Table 5
(failure-set similarity of the published pairs, items failed by every model) by
calibrating which items each model fails (:mod:`rederive.simulate.salitrap_failsets`). HFR is read
as (Hard Fail + CoT Hijacked) / n, the paper's "strong failures" (labels 1-2):
only then do Tables 1 and 2 fit one set of counts. Every cell it cannot match,
and every inconsistency found between published tables, goes to
``simulation_report.md``.

Run ``python -m rederive.simulate.salitrap --out raw/salitrap --seed 20260501``.
Output is byte-identical for the same seed and published tables.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rederive.simulate import salitrap_labels as lab
from rederive.simulate.salitrap_counts import (
    ControlCounts,
    ControlTargets,
    LiberationCounts,
    OverallCounts,
    solve_control,
    solve_liberation,
    solve_overall,
)
from rederive.simulate.salitrap_failsets import (
    CalibrationResult,
    calibrate_failures,
    failure_targets,
)
from rederive.simulate.salitrap_items import Item, generate_items
from rederive.simulate.salitrap_published import MODEL_META, OVERALL, Published, load_published
from rederive.simulate.salitrap_report import render_report, render_simulated_note

DEFAULT_SEED = 20260501
DEFAULT_OUT = Path("raw/salitrap")
DEFAULT_PUBLISHED = Path("raw/salitrap/published")
MAX_INVALID_PER_RUN = 4


def rng_for(seed: int, stream: str) -> np.random.Generator:
    """Independent generator per named stream, derived from ``seed`` only.

    Separate streams keep e.g. the item text fixed when the label logic changes;
    CRC32 (not ``hash``) because string hashing is salted per process.
    """
    return np.random.default_rng([seed, zlib.crc32(stream.encode("utf-8"))])


@dataclass
class Simulation:
    """Everything generated for one seed (rows are ready to serialise)."""

    seed: int
    items: list[Item]
    control_counts: dict[str, ControlCounts]
    control_rows: dict[str, list[dict]]
    liberation_counts: dict[str, tuple[LiberationCounts, tuple[int, int]]]
    liberation_rows: dict[str, list[dict]]
    intervention_counts: dict[str, dict[str, OverallCounts]]
    intervention_rows: dict[str, list[dict]]
    calibration: CalibrationResult | None = None


def control_targets(published: Published, model: str) -> ControlTargets:
    """Table 1/2 targets of ``model`` (and its Table 6 SC count, if it has one)."""
    keys = (*published.dimensions, OVERALL)
    lib = published.table6.get(model)
    return ControlTargets(
        tar={d: published.table1[(model, d)][0] for d in keys},
        hfr={d: published.table1[(model, d)][1] for d in keys},
        scr={d: published.table2[(model, d)][0] for d in keys},
        si={d: published.table2[(model, d)][1] for d in keys},
        n_sc_main=lib.n_sc_main if lib else None,
    )


def _families(models: tuple[str, ...]) -> dict[str, str]:
    # An unknown model forms its own family rather than failing the generator.
    return {m: MODEL_META.get(m, (m, "unknown"))[0] for m in models}


def _abilities(published: Published) -> dict[str, float]:
    tar = {m: published.table1[(m, OVERALL)][0] / 1000 for m in published.models}
    return {m: float(np.log(p / (1 - p))) for m, p in tar.items()}


def _rows_for(
    items: list[Item], model: str, condition: str, labels: dict[int, str], invalid: dict[int, str]
) -> list[dict]:
    """Rows in item order; ``invalid`` maps item index -> invalid kind."""
    rows = []
    for i in sorted([*labels, *invalid]):
        if i in invalid:
            rows.append(lab.invalid_row(items[i], model, condition, invalid[i]))
        else:
            rows.append(lab.run_row(items[i], model, condition, labels[i]))
    return rows


def _dim_index(published: Published, items: list[Item]) -> dict[str, np.ndarray]:
    return {
        d: np.array([i for i, it in enumerate(items) if it.dimension == d])
        for d in published.dimensions
    }


def _control_counts(published: Published, seed: int) -> dict[str, ControlCounts]:
    """Every model's control-run label counts (Tables 1-2; independent of the items)."""
    dims = published.dimensions
    n_items = {d: published.n_items(d) for d in dims}
    prefs = rng_for(seed, "preferences")
    return {
        model: solve_control(
            n_items,
            control_targets(published, model),
            dims,
            preferred_invalid=int(prefs.integers(0, MAX_INVALID_PER_RUN + 1)),
            patch_share_permille=int(prefs.integers(200, 500)),
            max_invalid=MAX_INVALID_PER_RUN,
        )
        for model in published.models
    }


def _calibrate(published, items, z, counts) -> CalibrationResult:
    """Swap latent scores so the control failure sets meet Table 5 (pairs and all-fail).

    Failure sets are computed from the full ranking of each dimension, so they are
    exact when the control runs carry no invalid rows (the solver's choice, see report).
    """
    dims = published.dimensions
    models = list(published.models)
    strict = np.array([[counts[m].strict[d] for d in dims] for m in models])
    n = len(items)
    fail_sizes = {m: n - int(strict[j].sum()) for j, m in enumerate(models)}
    pairs = [(p.group, p.model_a, p.model_b, p.co_failure, p.jaccard) for p in published.table5]
    targets = failure_targets(models, fail_sizes, n, pairs, published.table5_all_fail)
    index = _dim_index(published, items)
    return calibrate_failures(z, strict, [index[d] for d in dims], targets)


def _simulate_control(published, items, z, counts, seed, params):
    """Labels and rows of every model's control run."""
    dim_index = _dim_index(published, items)
    n_numbers = np.array([len(it.injected_numbers) for it in items], dtype=float)
    placement = rng_for(seed, "control")
    kinds = lab.kind_cycle(lab.INVALID_KINDS)
    rows, labels_by_model = {}, {}
    for j, model in enumerate(published.models):
        labels, invalid = lab.control_labels(
            counts[model], z[j], dim_index, n_numbers, params, placement
        )
        labels_by_model[model] = labels
        rows[model] = _rows_for(
            items, model, lab.CONTROL, labels, {i: next(kinds) for i in invalid}
        )
    return rows, labels_by_model


def _sc_items(labels: dict[int, str], items: list[Item], dims) -> dict[str, np.ndarray]:
    """Sorted indices of the control run's Sycophantic Compliance items, per dimension."""
    return {
        d: np.array(
            sorted(i for i, lbl in labels.items() if lbl == lab.SC and items[i].dimension == d),
            dtype=int,
        )
        for d in dims
    }


def _simulate_liberation(published, items, z, control_labels, seed, params):
    """Liberation re-queries (conditions A/B/C) of each Table 6 model's SC cases."""
    rng = rng_for(seed, "liberation")
    kinds = lab.kind_cycle(lab.LIBERATION_ERROR_KINDS)
    counts, rows = {}, {}
    for model, row in published.table6.items():
        if model not in published.models:
            continue
        j = published.models.index(model)
        sc_items = _sc_items(control_labels[model], items, published.dimensions)
        sol, cost = solve_liberation(
            {d: len(idx) for d, idx in sc_items.items()},
            row.rates,
            row.n_requeried,
            published.dimensions,
        )
        counts[model] = (sol, cost)
        rows[model] = []
        for cond, (labels, errors) in lab.liberation_labels(
            sol, sc_items, z[j], params, rng
        ).items():
            rows[model] += _rows_for(items, model, cond, labels, {i: next(kinds) for i in errors})
    return counts, rows


def _simulate_interventions(published, items, z, control_counts, seed, params):
    """P1-P3 runs over all items for each Table 7 model.

    No control rows: the workflow takes Table 7's control row from the main control
    run, so the published control rows (which disagree with Table 1) stay a finding.
    """
    rng = rng_for(seed, "interventions")
    n_numbers = np.array([len(it.injected_numbers) for it in items], dtype=float)
    kinds = lab.kind_cycle(lab.INVALID_KINDS)
    counts, rows = {}, {}
    for model, conditions in published.table7.items():
        if model not in published.models:
            continue
        j = published.models.index(model)
        counts[model], rows[model] = {}, []
        for cond in lab.INTERVENTION_CONDITIONS:
            if cond not in conditions:
                continue
            target = conditions[cond]
            sol = solve_overall(len(items), target.tar, target.hfr, int(rng.integers(0, 3)))
            counts[model][cond] = sol
            labels, invalid = lab.intervention_labels(
                sol, control_counts[model], z[j], n_numbers, params, rng
            )
            rows[model] += _rows_for(items, model, cond, labels, {i: next(kinds) for i in invalid})
    return counts, rows


def simulate(published: Published, seed: int) -> Simulation:
    """Generate items and all runs for ``seed`` (pure: writes nothing).

    Parameters
    ----------
    published : Published
        Calibration targets.
    seed : int
        The only source of randomness.

    Returns
    -------
    Simulation
    """
    items = generate_items(published, rng_for(seed, "items"))
    params = lab.LatentParams()
    models = list(published.models)
    z = lab.latent_scores(
        items,
        models,
        _families(published.models),
        _abilities(published),
        params,
        rng_for(seed, "latent"),
    )
    c_counts = _control_counts(published, seed)
    calibration = _calibrate(published, items, z, c_counts)
    z = calibration.z
    c_rows, c_labels = _simulate_control(published, items, z, c_counts, seed, params)
    l_counts, l_rows = _simulate_liberation(published, items, z, c_labels, seed, params)
    i_counts, i_rows = _simulate_interventions(published, items, z, c_counts, seed, params)
    return Simulation(
        seed, items, c_counts, c_rows, l_counts, l_rows, i_counts, i_rows, calibration
    )


# ------------------------------------------------------------------------- writing


def _jsonl(records: list[dict]) -> str:
    # ensure_ascii=False and default separators: the authors' eval script's format.
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def _models_csv(published: Published) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["model", "family", "vendor", "display_order"])
    for order, model in enumerate(published.models, start=1):
        family, vendor = MODEL_META.get(model, (model, "unknown"))
        writer.writerow([model, family, vendor, order])
    return buf.getvalue()


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


def output_files(sim: Simulation, published: Published) -> dict[str, str]:
    """Relative path -> file content of every generated file."""
    files = {
        "items.jsonl": _jsonl([it.record() for it in sim.items]),
        "models.csv": _models_csv(published),
        "SIMULATED.md": render_simulated_note(sim.seed),
        "simulation_report.md": render_report(sim, published),
    }
    for model, rows in sim.control_rows.items():
        files[f"runs/{model}.jsonl"] = _jsonl(rows)
    for model, rows in sim.liberation_rows.items():
        files[f"runs/{model}__liberation.jsonl"] = _jsonl(rows)
    for model, rows in sim.intervention_rows.items():
        files[f"runs/{model}__interventions.jsonl"] = _jsonl(rows)
    return files


def generate(
    out_dir: Path, seed: int = DEFAULT_SEED, published_dir: Path = DEFAULT_PUBLISHED
) -> None:
    """Write the simulated SaliTrap raw data into ``out_dir``.

    Parameters
    ----------
    out_dir : Path
        Target folder (``raw/salitrap``); files are overwritten, ``published/`` is untouched.
    seed : int
        Generator seed; the same seed and published tables give byte-identical files.
    published_dir : Path
        Folder with the published ``salitrap_table*.csv``.
    """
    published = load_published(Path(published_dir))
    sim = simulate(published, seed)
    for rel, text in output_files(sim, published).items():
        _write(Path(out_dir) / rel, text)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="generator seed")
    parser.add_argument(
        "--published", type=Path, default=DEFAULT_PUBLISHED, help="folder of published CSVs"
    )
    args = parser.parse_args(argv)
    generate(args.out, args.seed, args.published)


if __name__ == "__main__":
    main()
