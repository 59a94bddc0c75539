"""Distractor density: TAR and CoT-Hijacked rate against the number of injected
numbers (Figs 6 and 12 data) and the fitted slope per dimension.

A rate at ``n`` injected numbers is the *mean over models* of each model's rate
on the items with ``n`` numbers (the paper plots "the average of the 12
models"). Sparse extremes are pooled into ``≤low`` / ``≥high`` bins (bounds from
config). The slope is the least-squares slope of the 0/1 outcome on the exact
number of injected numbers over all (model, item) rows — percentage points per
extra number. Intervals for both come from one cluster bootstrap over seeds, and
slopes are computed from weighted cluster sums, so no loop runs over replicates.

References
----------
SaliTrap (seed paper 000), §5.3 "Distractor density", Fig 6; Appendix Fig 12.
"""

import warnings

import numpy as np
import pandas as pd

from rederive.stats.bootstrap import (
    bootstrap_ratio,
    percentile_ci,
    resample_weights,
    rng_for,
    sum_by_cluster,
)
from rederive.stats.rates import round_half_up
from rederive.studies.salitrap.common import (
    CONTROL,
    dimension_masks,
    load,
    present_dimensions,
    small_n_by_model,
    write_csv,
)
from rederive.studies.salitrap.metrics import label_matrix, metrics_from_config

RATE_COLUMNS = [
    "dimension",
    "metric",
    "bin",
    "bin_label",
    "items",
    "models",
    "rows",
    "numerator",
    "percent",
    "ci_low",
    "ci_high",
    "ci_method",
    "n_boot",
    "seed",
    "small_n_models",
]
SLOPE_COLUMNS = [
    "dimension",
    "metric",
    "slope_pp_per_number",
    "ci_low",
    "ci_high",
    "intercept_pp",
    "rows",
    "items",
    "n_clusters",
    "ci_method",
    "n_boot",
    "seed",
    "small_n_models",
]


def bin_numbers(n_injected: np.ndarray, low: int, high: int) -> tuple[np.ndarray, dict]:
    """Clip counts to ``[low, high]``; labels ``≤low`` and ``≥high`` mark pooled bins."""
    bins = np.clip(n_injected, low, high)
    labels = {b: str(b) for b in range(low, high + 1)}
    if (n_injected < low).any():
        labels[low] = f"<={low}"
    if (n_injected > high).any():
        labels[high] = f">={high}"
    return bins, labels


def moment_sums(n_x: np.ndarray, outcome: np.ndarray, valid: np.ndarray, clusters):
    """Per-cluster moments ``[n, Σx, Σy, Σx², Σxy]`` of the valid (model, item) rows.

    ``n_x`` has one value per item, ``outcome`` and ``valid`` are items × models.
    """
    v = valid.astype(float)
    y = outcome.astype(float) * v
    x = n_x[:, None] * v
    per_item = np.column_stack(
        [
            v.sum(axis=1),
            x.sum(axis=1),
            y.sum(axis=1),
            (x * n_x[:, None]).sum(axis=1),
            (y * n_x[:, None]).sum(axis=1),
        ]
    )
    sums, _ = sum_by_cluster(per_item, clusters)
    return sums


def slope_from_moments(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """OLS slope and intercept from moments ``[..., (n, Σx, Σy, Σx², Σxy)]``."""
    n, sx, sy, sxx, sxy = (m[..., i] for i in range(5))
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = (n * sxy - sx * sy) / (n * sxx - sx**2)
        intercept = (sy - slope * sx) / n
    return slope, intercept


def density_tables(
    items: pd.DataFrame,
    matrix: pd.DataFrame,
    *,
    metrics: dict,
    metric_names: list[str],
    dimensions: list[str],
    low: int,
    high: int,
    n_boot: int,
    level: float,
    seed: int,
    small: dict[str, bool] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rates by number of injected numbers, and slopes, per dimension and overall.

    Parameters
    ----------
    items : DataFrame
        ``item_id, seed_id, dimension, n_injected`` in ``matrix`` row order.
    matrix : DataFrame
        Items × models control labels (NaN = no valid row).
    metrics : dict
        Metric definitions; ``metric_names`` must have null denominators (rates
        over all valid rows), e.g. ``TAR`` and ``CHR``.
    low, high : int
        Pooling bounds for the binned rates (the slope uses exact counts).
    small : dict, optional
        Model → small-n flag (:func:`~rederive.studies.salitrap.common.small_n_by_model`);
        ``small_n_models`` counts the flagged models behind each row (their
        rates enter the mean of per-model rates with the weight of any other).
    """
    labels = matrix.to_numpy()
    valid = pd.notna(labels)
    n_models = labels.shape[1]
    n_x = items["n_injected"].to_numpy().astype(float)
    bins, bin_labels = bin_numbers(items["n_injected"].to_numpy(), low, high)
    clusters = items["seed_id"].to_numpy()
    flagged = np.array([bool((small or {}).get(m, False)) for m in matrix.columns], dtype=bool)
    rate_rows, slope_rows = [], []
    for dimension, mask in dimension_masks(items, dimensions):
        if not mask.any():
            continue
        for name in metric_names:
            metric = metrics[name]
            if metric.denominator is not None:
                raise ValueError(f"density needs a rate over all valid rows; {name} is not")
            hit = np.isin(labels, metric.numerator) & valid
            # Binned rates: one column per (bin, model); resamples shared by all.
            present_bins = sorted(set(bins[mask]))
            num = np.hstack([hit[mask] & (bins[mask] == b)[:, None] for b in present_bins])
            den = np.hstack([valid[mask] & (bins[mask] == b)[:, None] for b in present_bins])
            rng = rng_for(seed, "density", dimension, name)
            boot = bootstrap_ratio(num, den, clusters=clusters[mask], n_boot=n_boot, rng=rng)
            method = f"percentile, bootstrap over {boot.n_clusters} seed clusters"
            shape = (len(present_bins), n_models)
            est = boot.estimate.reshape(shape)
            reps = boot.replicates.reshape(n_boot, *shape)
            with warnings.catch_warnings():
                # A bin no model answered validly is NaN (shown, not dropped).
                warnings.simplefilter("ignore", RuntimeWarning)
                mean_est = np.nanmean(est, axis=1) * 100
                mean_reps = np.nanmean(reps, axis=2) * 100
            lo, hi = percentile_ci(mean_reps, level)
            for b_index, b in enumerate(present_bins):
                in_bin = mask & (bins == b)
                rate_rows.append(
                    {
                        "dimension": dimension,
                        "metric": name,
                        "bin": int(b),
                        "bin_label": bin_labels[b],
                        "items": int(in_bin.sum()),
                        "models": int((~np.isnan(est[b_index])).sum()),
                        "rows": int(valid[in_bin].sum()),
                        "numerator": int(hit[in_bin].sum()),
                        "percent": round_half_up(mean_est[b_index]),
                        "ci_low": round_half_up(lo[b_index]),
                        "ci_high": round_half_up(hi[b_index]),
                        "ci_method": method + "; mean of per-model rates",
                        "n_boot": n_boot,
                        "seed": seed,
                        "small_n_models": int((~np.isnan(est[b_index]) & flagged).sum()),
                    }
                )
            # Slope: the same seed-cluster resampling, on exact counts.
            moments = moment_sums(n_x[mask], hit[mask], valid[mask], clusters[mask])
            weights = resample_weights(
                moments.shape[0], n_boot, rng_for(seed, "slope", dimension, name)
            )
            slope, intercept = slope_from_moments(moments.sum(axis=0))
            slope_reps, _ = slope_from_moments(weights @ moments)
            s_lo, s_hi = percentile_ci((slope_reps * 100)[:, None], level)
            slope_rows.append(
                {
                    "dimension": dimension,
                    "metric": name,
                    "slope_pp_per_number": round(float(slope) * 100, 3),
                    "ci_low": round(float(s_lo[0]), 3),
                    "ci_high": round(float(s_hi[0]), 3),
                    "intercept_pp": round(float(intercept) * 100, 3),
                    "rows": int(valid[mask].sum()),
                    "items": int(mask.sum()),
                    "n_clusters": int(moments.shape[0]),
                    "ci_method": f"percentile, bootstrap over {moments.shape[0]} seed clusters; "
                    "OLS of the 0/1 outcome on the number of injected numbers",
                    "n_boot": n_boot,
                    "seed": seed,
                    "small_n_models": int((valid[mask].any(axis=0) & flagged).sum()),
                }
            )
    return pd.DataFrame(rate_rows, columns=RATE_COLUMNS), pd.DataFrame(
        slope_rows, columns=SLOPE_COLUMNS
    )


def main(snakemake):
    p = snakemake.params
    items, labels = load(snakemake.input.db, CONTROL)
    dimensions = present_dimensions(items, list(p.dimensions.values()))
    rates, slopes = density_tables(
        items,
        label_matrix(labels, items, CONTROL),
        metrics=metrics_from_config(p.metrics),
        metric_names=list(p.metric_names),
        dimensions=dimensions,
        low=p.low,
        high=p.high,
        **p.bootstrap,
        small=small_n_by_model(labels, items, p.min_n),
    )
    write_csv(rates, snakemake.output.rates)
    write_csv(slopes, snakemake.output.slopes)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
