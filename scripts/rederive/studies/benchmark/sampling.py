"""Rule ``analyse_benchmark_sampling``: pass@k, pass^k, maj@k and avg@n of every model
with item-clustered intervals, for an analysis that sets ``sampling:``.

The samples are the warehouse's graded rows (``responses``: every epoch, trial,
repeat or evalplus sample is one row) of the (model, item) cells the statistics
use (the ``scores`` table: items kept by ``item_sets``, models in the shared
item set); a missing grade that ``item_sets: zero`` counts as 0 is no sample
and is not in these estimates. The statistics are :mod:`rederive.stats.sampling`'s
(:func:`~rederive.stats.sampling.sampling_table`); this module gathers their
input and says, per model, why a metric is not available:

* a model with a grade that is not 0 or 1 (partial credit, or epochs the harness
  already reduced: an Inspect log read with its ``pass_at_k`` reducer) has no
  pass@k, pass^k or maj@k: every row of it is ``n/a`` with the reason
  (:func:`binary_models`), the other models are estimated;
* maj@k needs the extracted answers: a model whose format logs none (the format
  module's ``ANSWERS``, :func:`rederive.io.formats.answers_note`), whose answers
  are all empty, or with an answer graded correct in one sample and incorrect in
  another (:func:`answer_conflicts`) has ``n/a`` maj@k with the reason in
  ``note``;
* items with fewer than ``k`` samples are left out of that model's estimates at
  ``k`` and counted (``n_items_excluded``, and one data-quality row per model and
  ``k``: :func:`quality_notes`).

The table's numbers are written at full precision (``%.15g``): the published
check compares them at the printed precision of a paper's table, and the
harness check with a tool's own pass@k to 1e-9.
"""

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from rederive.io import formats
from rederive.io.warehouse import query
from rederive.runner import run
from rederive.stats.sampling import (
    AVG_AT_N,
    METRICS,
    TABLE_COLUMNS,
    SampleCounts,
    excluded_items,
    sample_counts,
    sampling_table,
)
from rederive.studies.benchmark.common import (
    clusters_for,
    fixed_decimals,
    load_epochs,
    write_csv,
)

#: Start of the data-quality reason of items left out at a ``k`` (``rows`` 0: the
#: rows stay in every other table).
EXCLUDED_REASON = "left out of sampling.csv only"

#: ``float_format`` of the sampling tables: the estimates unrounded (the published
#: check reads them back), percentages already rounded in their own columns.
FLOAT_FORMAT = "%.15g"


@dataclass(frozen=True)
class Samples:
    """The sampling table's input: counts of the models it can estimate, and the others.

    Attributes
    ----------
    counts : SampleCounts or None
        Samples per item × model of the models whose grades are all 0/1 (None when
        no model's are), with each model's maj@k note.
    unavailable : dict of str to str
        Models without pass@k, pass^k or maj@k, with the reason (grades not 0/1).
    items : list of str
        The item keys, in the warehouse's order.
    clusters : pandas.Series or None
        Cluster of each item key under ``cluster_by`` (None: every item alone).
    n_samples, n_items : dict of str to int
        Samples and items behind every model, the unavailable ones included.
    """

    counts: SampleCounts | None
    unavailable: dict[str, str]
    items: list[str]
    clusters: pd.Series | None
    n_samples: dict[str, int]
    n_items: dict[str, int]


def binary_models(long: pd.DataFrame) -> dict[str, str]:
    """Models with a grade that is not 0 or 1, each with the reason it has no pass@k.

    Parameters
    ----------
    long : DataFrame
        One row per sample: ``model``, ``correct``.

    Returns
    -------
    dict of str to str
        Model → sentence (how many grades, an example), for the table's note.
    """
    grades = long["correct"].to_numpy(dtype=float)
    bad = ~np.isin(grades, (0.0, 1.0))
    out = {}
    if not bad.any():
        return out
    frame = pd.DataFrame({"model": long["model"].to_numpy(), "bad": bad, "grade": grades})
    for model, group in frame.groupby("model", sort=True):
        n_bad = int(group["bad"].sum())
        if not n_bad:
            continue
        example = float(group.loc[group["bad"], "grade"].iloc[0])
        out[str(model)] = (
            f"not available: {n_bad:,} of {len(group):,} samples have a grade that is not 0 or "
            f"1 (e.g. {example:g}: partial credit, or epochs the harness already reduced); "
            "pass@k, pass^k and maj@k count correct samples"
        )
    return out


def answer_conflicts(long: pd.DataFrame, item: str = "item_key") -> dict[str, str]:
    """Models with an answer graded correct in one sample and incorrect in another.

    maj@k asks whether the majority answer is right, which has no meaning when
    the grade does not follow from the answer (a flaky test, a judge that
    disagrees with itself); such a model has no maj@k (its pass@k is not
    affected). Rows without an answer are ignored.

    Returns
    -------
    dict of str to str
        Model → sentence naming the first such answer (by item, then answer, sorted)
        and how many.
    """
    if "answer" not in long:
        return {}
    has = long["answer"].notna().to_numpy()
    if not has.any():
        return {}
    rows = long.loc[has, ["model", item, "answer", "correct"]]
    spread = rows.groupby(["model", item, "answer"], sort=True, observed=True)["correct"].agg(
        ["min", "max"]
    )
    mixed = spread[spread["min"] != spread["max"]].reset_index()
    out = {}
    for model, group in mixed.groupby("model", sort=True):
        first = group.iloc[0]
        answer = str(first["answer"])
        shown = answer if len(answer) <= 40 else answer[:37] + "..."
        out[str(model)] = (
            f"no maj@k: the answer {shown!r} of item {first[item]} is graded correct in one "
            f"sample and incorrect in another ({len(group):,} such answer(s)); maj@k needs the "
            "grade to follow from the extracted answer"
        )
    return out


def maj_notes(
    models: list[str], model_formats: dict[str, str], answered: dict[str, bool]
) -> dict[str, str]:
    """Per model, why it has no answers for maj@k ("" when it has some).

    ``answered`` says whether any sample of the model has an answer. A format that
    logs none says so (:func:`rederive.io.formats.answers_note`); one that may log
    them names where they were looked for.
    """
    out = {}
    for model in models:
        fmt = model_formats.get(model)
        note = formats.answers_note(fmt) if fmt else ""
        if not note and not answered.get(model, False):
            where = getattr(formats.get(fmt), "ANSWERS", "") if fmt else ""
            note = "no extracted answers: no sample of this model has one" + (
                f" ({fmt}: {where}, absent or empty)" if where else ""
            )
        out[model] = note
    return out


def gather(long: pd.DataFrame, items: list[str], model_formats: dict[str, str]) -> Samples:
    """:class:`Samples` of a long frame (``model, item_key, epoch, correct, answer``).

    Parameters
    ----------
    long : DataFrame
        One row per sample (:meth:`rederive.studies.benchmark.common.Epochs.frame`).
    items : list of str
        Item keys in the warehouse's order (every item of ``long`` among them).
    model_formats : dict of str to str
        Each model's input format (the warehouse's ``models`` table).
    """
    unavailable = binary_models(long)
    per_model = long.groupby("model", sort=True)
    n_samples = {str(m): int(n) for m, n in per_model.size().items()}
    n_items = {str(m): int(n) for m, n in per_model["item_key"].nunique().items()}
    usable = long[~long["model"].isin(set(unavailable))]
    if usable.empty:
        return Samples(None, unavailable, items, None, n_samples, n_items)
    conflicts = answer_conflicts(usable)
    if conflicts and "answer" in usable:
        usable = usable.assign(
            answer=usable["answer"].where(~usable["model"].isin(set(conflicts)), None)
        )
    present = set(usable["item_key"])
    used_items = [i for i in items if i in present]
    counts = sample_counts(usable, item="item_key", items=used_items)
    notes = dict(counts.answers_note)
    answered = {m: not notes.get(m) for m in counts.models}
    for model, note in maj_notes(counts.models, model_formats, answered).items():
        if note:
            notes[model] = note
    notes.update({m: n for m, n in conflicts.items() if m in notes})
    return Samples(
        replace(counts, answers_note=notes), unavailable, items, None, n_samples, n_items
    )


def load(db_path: str | Path, cluster_by: str = "none", *, answers: bool = True) -> Samples:
    """:func:`gather` on the warehouse: the scored cells' samples, with their answers
    (unless ``answers`` is False: counts only) and clusters."""
    epochs = load_epochs(db_path, scored_only=True, zeros=False, answers=answers)
    items = query(db_path, "SELECT * FROM items")
    models = query(db_path, "SELECT model, format FROM models ORDER BY model")
    long = epochs.frame()
    samples = gather(
        long, list(items["item_key"]), dict(zip(models["model"], models["format"], strict=True))
    )
    labels = clusters_for(items, cluster_by)
    clusters = None if labels is None else pd.Series(labels, index=items["item_key"].to_numpy())
    return replace(samples, clusters=clusters)


def unavailable_rows(
    samples: Samples, ks, metrics, *, cluster_by: str, n_boot: int, seed: int, level: float
) -> pd.DataFrame:
    """Rows of :data:`~rederive.stats.sampling.TABLE_COLUMNS` for the models without
    0/1 grades: every metric and ``k`` ``n/a``, the reason in ``note``."""
    rows = []
    ks = sorted({int(k) for k in ks})
    for model, reason in sorted(samples.unavailable.items()):
        for metric in metrics:
            for k in [None] if metric == AVG_AT_N else ks:
                rows.append(
                    {
                        "model": model,
                        "metric": metric,
                        "k": k,
                        "n_items": samples.n_items.get(model, 0),
                        "n_samples": samples.n_samples.get(model, 0),
                        "n_items_excluded": 0,
                        "method": "",
                        "level": level,
                        "cluster_by": cluster_by,
                        "n_boot": n_boot,
                        "seed": seed,
                        "note": reason,
                    }
                )
    frame = pd.DataFrame(rows, columns=TABLE_COLUMNS)
    frame["k"] = frame["k"].astype("Int64")
    return frame


def table(
    samples: Samples,
    *,
    ks,
    metrics=METRICS,
    cluster_by: str = "none",
    n_boot: int,
    seed: int,
    level: float = 0.95,
    interval: str,
) -> pd.DataFrame:
    """``tables/sampling.csv``: every model × metric × k (the unavailable models' rows
    ``n/a`` with the reason), rows by model, then metric in ``metrics`` order, then k."""
    frames = []
    if samples.counts is not None:
        frames.append(
            sampling_table(
                samples.counts,
                ks=ks,
                metrics=metrics,
                clusters=samples.clusters,
                cluster_by=cluster_by,
                n_boot=n_boot,
                seed=seed,
                level=level,
                interval=interval,
            )
        )
    if samples.unavailable:
        frames.append(
            unavailable_rows(
                samples, ks, metrics, cluster_by=cluster_by, n_boot=n_boot, seed=seed, level=level
            )
        )
    out = pd.concat([f for f in frames if len(f)], ignore_index=True) if frames else None
    if out is None or out.empty:
        return pd.DataFrame(columns=TABLE_COLUMNS)
    order = {m: i for i, m in enumerate(metrics)}
    out = out.assign(_m=out["metric"].map(order), _k=out["k"].fillna(0).astype(int))
    out = out.sort_values(["model", "_m", "_k"], kind="stable").drop(columns=["_m", "_k"])
    out["k"] = out["k"].astype("Int64")
    return out.reset_index(drop=True)[TABLE_COLUMNS]


def excluded_at_k(samples: Samples, ks) -> pd.DataFrame:
    """Items left out at each ``k`` (fewer than ``k`` samples), per model with any.

    :func:`rederive.stats.sampling.excluded_items` of the estimable models; empty
    without them.
    """
    if samples.counts is None:
        return pd.DataFrame(columns=["model", "k", "n_items", "n_items_excluded", "reason"])
    return excluded_items(samples.counts, ks)


def quality_notes(excluded: pd.DataFrame, runs: dict[str, str], metrics) -> pd.DataFrame:
    """``run, reason`` data-quality rows: the items each model leaves out of the
    sampling table at each ``k`` (their rows stay in every other table, so nothing
    moves from ``used``: ``rows`` 0, as a note)."""
    which = ", ".join(m for m in metrics if m != AVG_AT_N) or "the metrics at k"
    rows = [
        (
            runs.get(row.model),
            f"{EXCLUDED_REASON} (sampling.k): {row.n_items_excluded:,} of {row.n_items:,} items "
            f"have fewer than {row.k} samples, no estimate at k = {row.k} ({which}) "
            f"[{row.model}]",
        )
        for row in excluded.itertuples(index=False)
    ]
    return pd.DataFrame(rows, columns=["run", "reason"]).dropna(subset=["run"])


def sampling_notes(db_path: str | Path, sampling: dict | None) -> pd.DataFrame:
    """The data-quality notes of the sampling table (``run, reason``; none without
    ``sampling``): :func:`quality_notes` on the warehouse."""
    if not sampling:
        return pd.DataFrame(columns=["run", "reason"])
    samples = load(db_path, answers=False)
    runs = query(db_path, "SELECT model, run FROM models ORDER BY model")
    metrics = [m for m in sampling["metrics"] if m != AVG_AT_N]
    if not metrics:
        return pd.DataFrame(columns=["run", "reason"])
    return quality_notes(
        excluded_at_k(samples, sampling["k"]),
        dict(zip(runs["model"], runs["run"], strict=True)),
        metrics,
    )


#: Percentage columns, written at one decimal (62.0, not 62).
PCT_COLUMNS = ("estimate_pct", "ci_low_pct", "ci_high_pct")


def write_table(frame: pd.DataFrame, path: str | Path) -> None:
    """A sampling table as CSV: percentages at one decimal, the rest at
    :data:`FLOAT_FORMAT`, rows as given."""
    pct = {c: 1 for c in PCT_COLUMNS if c in frame and pd.api.types.is_numeric_dtype(frame[c])}
    write_csv(fixed_decimals(frame, pct), path, float_format=FLOAT_FORMAT)


#: How each ``sampling.interval`` is named in captions.
INTERVAL_WORDS = {
    "wilson": "the Wilson score interval on the effective n (t quantile with C − 1 df)",
    "t": "the mean ± t · SE (t with C − 1 df)",
    "bootstrap": "the percentile item bootstrap",
}


def describe(sampling: dict | None, cluster_by: str = "none") -> str:
    """Caption text: the k, metrics, interval and comparison of an analysis's sampling
    block ("" without one)."""
    if not sampling:
        return ""
    ks = ", ".join(str(k) for k in sorted(sampling["k"]))
    unit = "items" if cluster_by == "none" else f"clusters of items ({cluster_by})"
    text = (
        f"Metrics {', '.join(sampling['metrics'])} at k = {ks}; intervals over {unit}: "
        f"{INTERVAL_WORDS[sampling['interval']]}."
    )
    if sampling.get("rank_at") is not None:
        text += f" Models compared and ranked on {sampling['rank_metric']} at k = {sampling['rank_at']}."
    return text


def require(sampling: dict | None, analysis: str) -> dict:
    """The analysis's ``sampling`` block, or the error a job without one stops with."""
    if not sampling:
        raise ValueError(
            f"analysis {analysis}: sampling is not set, so there is no sampling table; "
            "set sampling: {k: [1, 2, 4, 8]} (docs/kinds/benchmark.md)"
        )
    return sampling


def main(snakemake):
    p = snakemake.params
    sampling = require(p.sampling, snakemake.wildcards.analysis)
    samples = load(snakemake.input.db, p.cluster_by)
    frame = table(
        samples,
        ks=sampling["k"],
        metrics=sampling["metrics"],
        cluster_by=p.cluster_by,
        n_boot=p.n_boot,
        seed=p.seed,
        level=p.ci_level,
        interval=sampling["interval"],
    )
    write_table(frame, snakemake.output.sampling)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
