"""rederive.stats.sampling: pass@k, pass^k, maj@k against brute force over k-subsets,
τ-bench's published pass^k (real trajectories) and Inspect's own pass@k (real log)."""

import itertools
import math
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rederive.errors import InputError
from rederive.io.inspect_log import read_eval_log, reported_scores
from rederive.stats.sampling import (
    AVG_AT_N,
    MAJ_AT_K,
    PASS_AT_K,
    PASS_HAT_K,
    avg_at_n,
    estimate_matrix,
    excluded_items,
    maj_at_k,
    pass_at_k,
    pass_hat_k,
    sample_counts,
)

FIXTURES = Path(__file__).parent / "fixtures" / "sampling"
TAU = FIXTURES / "tau_bench"
INSPECT_LOG = FIXTURES / "inspect_code" / "0.3.285" / "tiny_code.eval"


# --- independent implementations: every k-subset, exact fractions ------------------


def brute_pass_at_k(grades, k):
    subsets = list(itertools.combinations(grades, k))
    return float(Fraction(sum(any(s) for s in subsets), len(subsets)))


def brute_pass_hat_k(grades, k):
    subsets = list(itertools.combinations(grades, k))
    return float(Fraction(sum(all(s) for s in subsets), len(subsets)))


def brute_maj_at_k(answers, correct_answers, k):
    """Plurality vote of each k-subset; ties uniform; a subset with no vote counts 0."""
    total, count = Fraction(0), 0
    for subset in itertools.combinations(answers, k):
        count += 1
        votes = Counter(a for a in subset if a is not None)
        if not votes:
            continue
        top = max(votes.values())
        winners = [a for a, v in votes.items() if v == top]
        total += Fraction(sum(a in correct_answers for a in winners), len(winners))
    return float(total / count)


@pytest.mark.parametrize("n", range(1, 11))
def test_pass_at_k_and_pass_hat_k_equal_brute_force_over_all_subsets(n):
    for c in range(n + 1):
        grades = [1] * c + [0] * (n - c)
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(brute_pass_at_k(grades, k), abs=1e-12)
            assert pass_hat_k(n, c, k) == pytest.approx(brute_pass_hat_k(grades, k), abs=1e-12)


def test_closed_forms_at_large_n_equal_exact_binomials():
    # The product forms never build C(n, k); exact rationals check them where it overflows floats.
    for n, c, k in [(200, 37, 10), (1000, 1, 1), (1000, 999, 500), (5000, 2500, 64)]:
        chen = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
        yao = Fraction(math.comb(c, k), math.comb(n, k))
        assert pass_at_k(n, c, k) == pytest.approx(float(chen), rel=1e-12, abs=1e-300)
        assert pass_hat_k(n, c, k) == pytest.approx(float(yao), rel=1e-10, abs=1e-300)


def test_edge_cases():
    # c = 0: never passes; c = n: always; k = n: pass@n is "any", pass^n is "all".
    assert pass_at_k(5, 0, 3) == 0.0 and pass_hat_k(5, 0, 3) == 0.0
    assert pass_at_k(5, 5, 3) == 1.0 and pass_hat_k(5, 5, 3) == 1.0
    assert pass_at_k(5, 1, 5) == 1.0 and pass_hat_k(5, 4, 5) == 0.0
    assert pass_at_k(5, 2, 4) == 1.0  # n - c < k: every 4-subset holds a correct sample
    # k > n: no unbiased estimate.
    assert np.isnan(pass_at_k(3, 1, 4)) and np.isnan(pass_hat_k(3, 3, 4))
    # k = 1 is the mean for every metric.
    n, c = np.array([4, 4, 7, 1]), np.array([0, 3, 2, 1])
    np.testing.assert_allclose(pass_at_k(n, c, 1), c / n, atol=1e-15)
    np.testing.assert_allclose(pass_hat_k(n, c, 1), c / n, atol=1e-15)
    np.testing.assert_allclose(avg_at_n(n, c), c / n, atol=0)
    assert np.isnan(avg_at_n(0, 0))
    with pytest.raises(ValueError, match="k must be"):
        pass_at_k(3, 1, 0)
    with pytest.raises(ValueError, match="0 <= c <= n"):
        pass_hat_k(3, 4, 1)


def random_items(seed, count):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(1, 10))
        n_answers = int(rng.integers(1, 5))
        pool = list(range(n_answers)) + [None] * int(rng.integers(0, 2))
        answers = [pool[int(rng.integers(len(pool)))] for _ in range(n)]
        correct = {a for a in range(n_answers) if rng.random() < 0.4}
        yield answers, correct, int(rng.integers(1, n + 1))


def test_maj_at_k_equals_brute_force_on_random_vote_patterns():
    for answers, correct, k in random_items(35, 600):
        votes = Counter(a for a in answers if a is not None)
        got = maj_at_k(
            list(votes.values()),
            [a in correct for a in votes],
            k,
            abstained=answers.count(None),
        )
        assert got == pytest.approx(brute_maj_at_k(answers, correct, k), abs=1e-12)


@pytest.mark.parametrize(
    "answers, correct, k, expected",
    [
        (["a", "a", "b", "b"], {"a"}, 4, 0.5),  # a 2-2 tie: half credit
        (["a", "b", "c"], {"a"}, 3, 1 / 3),  # three-way tie
        (["a", "a", "b"], {"a"}, 3, 1.0),
        ([None, None, "a"], {"a"}, 2, 2 / 3),  # a subset without a vote counts 0
        (["a"] * 5, set(), 3, 0.0),
        (["a", "b", "b"], {"a", "b"}, 2, 1.0),  # every answer correct
    ],
)
def test_maj_at_k_tie_rule_by_hand(answers, correct, k, expected):
    votes = Counter(a for a in answers if a is not None)
    got = maj_at_k(
        list(votes.values()), [a in correct for a in votes], k, abstained=answers.count(None)
    )
    assert got == pytest.approx(expected, abs=1e-15)
    assert got == pytest.approx(brute_maj_at_k(answers, correct, k), abs=1e-15)


def test_maj_at_k_many_samples_is_exact_without_enumeration():
    # 40 samples, k = 15: C(40, 15) = 4e10 subsets; the recursion checks against k = n.
    counts, correct = [14, 13, 8, 5], [True, False, False, False]
    assert maj_at_k(counts, correct, 40) == 1.0
    assert maj_at_k([13, 14], [True, False], 27) == 0.0
    value = maj_at_k(counts, correct, 15)
    assert 0.4 < value < 0.7
    assert np.isnan(maj_at_k(counts, correct, 41))


def long_frame(rows, answers=None):
    frame = pd.DataFrame(rows, columns=["model", "item_id", "epoch", "correct"])
    if answers is not None:
        frame["answer"] = answers
    return frame


def test_matrix_excludes_and_counts_items_with_fewer_than_k_samples():
    rows = [("m", "i1", e, g) for e, g in enumerate([1, 0, 1, 1])]
    rows += [("m", "i2", e, g) for e, g in enumerate([0, 0])]
    rows += [("m", "i3", 0, 1)]
    rows += [("n", "i1", e, 1) for e in range(3)] + [("n", "i2", e, 0) for e in range(3)]
    counts = sample_counts(long_frame(rows))
    at3 = estimate_matrix(counts, PASS_AT_K, 3)
    assert at3.values.loc["i1", "m"] == 1.0
    assert np.isnan(at3.values.loc["i2", "m"]) and np.isnan(at3.values.loc["i3", "m"])
    assert at3.n_excluded.tolist() == [2, 0]  # m: i2 (2 samples), i3 (1); n has no i3
    assert at3.n_items.tolist() == [1, 2] and at3.n_samples.tolist() == [4, 6]
    at1 = estimate_matrix(counts, PASS_HAT_K, 1)
    assert at1.n_excluded.tolist() == [0, 0] and at1.n_items.tolist() == [3, 2]
    avg = estimate_matrix(counts, AVG_AT_N)
    assert avg.values.loc["i1", "m"] == 0.75 and avg.k is None
    table = excluded_items(counts, [1, 2, 3])
    assert table[["model", "k", "n_items_excluded"]].values.tolist() == [["m", 2, 1], ["m", 3, 2]]
    assert table["reason"].iloc[1] == "fewer than 3 samples: no unbiased estimate at k = 3"


def test_fractional_or_missing_grades_are_refused_naming_the_row():
    rows = [("m", "i1", 0, 1.0), ("m", "i1", 1, 0.5), ("m", "i2", 0, 0.0)]
    frame = long_frame(rows).assign(source_file="runs/m.jsonl", line=[2, 3, 4])
    with pytest.raises(InputError, match="0/1 grade") as err:
        sample_counts(frame)
    assert err.value.file == "runs/m.jsonl" and err.value.line == 3
    assert err.value.field == "correct" and "model m, item i1, epoch 1" in err.value.message
    rows[1] = ("m", "i1", 1, None)
    with pytest.raises(InputError, match="a missing grade"):
        sample_counts(long_frame(rows), file="warehouse.duckdb")
    # Booleans are 0/1.
    counts = sample_counts(long_frame([("m", "i", 0, True), ("m", "i", 1, False)]))
    assert counts.c.tolist() == [[1]]


def test_maj_at_k_from_the_answer_column_and_its_absence():
    answers = ["4", "4", "5", None, "7", "7", "7", "8"]
    rows = [("m", "q1", e, int(a == "4")) for e, a in enumerate(answers[:4])]
    rows += [("m", "q2", e, int(a == "8")) for e, a in enumerate(answers[4:])]
    counts = sample_counts(long_frame(rows, answers))
    got = estimate_matrix(counts, MAJ_AT_K, 3).values["m"]
    assert got["q1"] == pytest.approx(brute_maj_at_k(answers[:4], {"4"}, 3), abs=1e-12)
    assert got["q2"] == pytest.approx(brute_maj_at_k(answers[4:], {"8"}, 3), abs=1e-12)
    assert counts.n_abstained.tolist() == [1]
    none = estimate_matrix(sample_counts(long_frame(rows)), MAJ_AT_K, 3)
    assert none.values["m"].isna().all()
    assert none.notes == {"m": "no extracted answers: the input has no answer column"}
    empty = estimate_matrix(sample_counts(long_frame(rows, [None] * 8)), MAJ_AT_K, 3)
    assert empty.values["m"].isna().all() and "every sample's answer is empty" in empty.notes["m"]


def test_an_answer_graded_both_ways_is_refused():
    rows = [("m", "q1", 0, 1), ("m", "q1", 1, 0)]
    with pytest.raises(InputError, match="graded correct in one sample and incorrect"):
        sample_counts(long_frame(rows, ["4", "4"]))


# --- τ-bench airline, gpt-4o: the README's pass^1..4 --------------------------------


def printed(value: str) -> int:
    return len(value.split(".")[1])


def test_tau_bench_airline_gpt4o_pass_hat_k_equals_the_readme():
    long = pd.read_csv(TAU / "gpt-4o-airline.csv")
    published = pd.read_csv(TAU / "published.csv", dtype={"value": str})
    counts = sample_counts(long)
    assert counts.n.shape == (50, 1) and (counts.n == 4).all() and counts.c.sum() == 84
    for row in published.itertuples(index=False):
        matrix = estimate_matrix(counts, PASS_HAT_K, int(row.k))
        ours = float(matrix.values.mean().iloc[0])
        assert round(ours, printed(row.value)) == pytest.approx(float(row.value), abs=1e-12)
        # τ-bench's own formula (tau_bench/run.py, display_metrics), independently.
        c = long.groupby("item_id")["correct"].sum()
        theirs = sum(math.comb(int(x), int(row.k)) / math.comb(4, int(row.k)) for x in c) / 50
        assert ours == pytest.approx(theirs, abs=1e-12)
        assert matrix.n_items.tolist() == [50] and matrix.n_samples.tolist() == [200]


# --- a real code benchmark: Inspect's pass_at_k / pass_k reducers --------------------


@pytest.fixture(scope="module")
def inspect_epochs():
    return read_eval_log(INSPECT_LOG, scorer="run_asserts", reducer="mean")


@pytest.mark.parametrize("k", [1, 2, 3, 4, 6])
@pytest.mark.parametrize(
    "metric, reducer, brute",
    [(PASS_AT_K, "pass_at", brute_pass_at_k), (PASS_HAT_K, "pass_k", brute_pass_hat_k)],
)
def test_pass_at_k_equals_inspects_own_report(inspect_epochs, metric, reducer, brute, k):
    assert len(inspect_epochs) == 30
    matrix = estimate_matrix(sample_counts(inspect_epochs), metric, k)
    ours = matrix.values["mockllm/coder"]
    # Inspect's per-sample reductions, read by the project's reader.
    per_sample = read_eval_log(INSPECT_LOG, scorer="run_asserts", reducer=f"{reducer}_{k}")
    theirs = per_sample.set_index("item_id")["correct"].reindex(ours.index)
    np.testing.assert_allclose(ours.to_numpy(), theirs.to_numpy(), rtol=0, atol=1e-12)
    # The brute force over every k-subset of each problem's epochs.
    for item, grades in inspect_epochs.groupby("item_id")["correct"]:
        assert ours[item] == pytest.approx(brute([int(g) for g in grades], k), abs=1e-12)
    # The metric Inspect reported for the reducer (results.scores).
    report = reported_scores(INSPECT_LOG, scorer="run_asserts", reducer=f"{reducer}_{k}")
    assert float(ours.mean()) == pytest.approx(float(report["value"].iloc[0]), abs=1e-12)


def test_maj_at_k_float_path_equals_the_exact_one(monkeypatch):
    from rederive.stats import sampling

    cases = [
        ([14, 13, 8, 5], [True, False, False, False], 15, 2),
        ([3, 3, 2], [False, True, True], 5, 1),
    ]
    exact = [maj_at_k(m, ok, k, abstained=a) for m, ok, k, a in cases]
    monkeypatch.setattr(sampling, "EXACT_MAJ_SAMPLES", 0)
    sampling._maj_at_k_signature.cache_clear()
    try:
        floats = [maj_at_k(m, ok, k, abstained=a) for m, ok, k, a in cases]
    finally:
        sampling._maj_at_k_signature.cache_clear()
    np.testing.assert_allclose(floats, exact, rtol=1e-12, atol=0)


# --- the table, the comparisons and the ranking --------------------------------------


def three_models(seed=35, n_items=40, epochs=6):
    """Three models sampled ``epochs`` times on ``n_items`` items; model c misses epochs."""
    rng = np.random.default_rng(seed)
    p = rng.beta(0.6, 0.6, n_items)
    frames = []
    for model, shift in (("a", 0.15), ("b", 0.0), ("c", -0.1)):
        q = np.clip(p + shift, 0, 1)
        grades = rng.random((n_items, epochs)) < q[:, None]
        item, epoch = np.meshgrid(np.arange(n_items), np.arange(epochs), indexing="ij")
        frame = pd.DataFrame(
            {
                "model": model,
                "item_id": [f"q{i:02d}" for i in item.ravel()],
                "epoch": epoch.ravel(),
                "correct": grades.ravel().astype(int),
            }
        )
        if model == "c":  # three items with only 2 epochs
            frame = frame[~(frame["item_id"].isin(["q00", "q01", "q02"]) & (frame["epoch"] >= 2))]
        frame["answer"] = np.where(
            frame["correct"] == 1, "42", rng.choice(["41", "43"], len(frame))
        )
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def test_sampling_table_rows_columns_and_intervals():
    from scipy import stats

    from rederive.stats.clustered import clustered_wilson
    from rederive.stats.sampling import TABLE_COLUMNS, sampling_table

    counts = sample_counts(three_models())
    table = sampling_table(counts, ks=[4, 1, 2], n_boot=400, seed=7)
    assert list(table.columns) == TABLE_COLUMNS
    assert len(table) == 3 * (3 * 3 + 1)
    first = table[table["model"] == "a"]
    assert first["metric"].tolist() == ["pass@k"] * 3 + ["pass^k"] * 3 + ["maj@k"] * 3 + ["avg@n"]
    assert first["k"].tolist()[:3] == [1, 2, 4] and pd.isna(first["k"].iloc[-1])
    row = table[(table["model"] == "c") & (table["metric"] == "pass^k") & (table["k"] == 4)].iloc[0]
    assert row["n_items"] == 37 and row["n_items_excluded"] == 3
    values = estimate_matrix(counts, PASS_HAT_K, 4).values["c"].dropna()
    assert row["estimate"] == pytest.approx(values.mean(), abs=1e-15)
    assert row["n_samples"] == 37 * 6
    se = values.std(ddof=1) / np.sqrt(values.size)
    assert row["se"] == pytest.approx(se, rel=1e-12)
    low, high = clustered_wilson([values.mean()], [se], [222], [37])
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low[0], high[0]), abs=1e-15)
    t_table = sampling_table(counts, ks=[4], metrics=[PASS_HAT_K], n_boot=400, seed=7, interval="t")
    got = t_table[t_table["model"] == "c"].iloc[0]
    expected = stats.t.interval(0.95, values.size - 1, loc=values.mean(), scale=se)
    assert (got["ci_low"], got["ci_high"]) == pytest.approx(expected, abs=1e-12)
    assert got["estimate_pct"] == round(100 * values.mean(), 1)
    # Deterministic: the same seed gives the same bootstrap bounds, another seed others.
    again = sampling_table(counts, ks=[4, 1, 2], n_boot=400, seed=7)
    pd.testing.assert_frame_equal(table, again)
    other = sampling_table(counts, ks=[4, 1, 2], n_boot=400, seed=8)
    assert not np.allclose(other["boot_low"], table["boot_low"])
    with pytest.raises(ValueError, match="interval must be"):
        sampling_table(counts, ks=[1], n_boot=10, seed=1, interval="bca")


def test_sampling_table_with_clusters_counts_clusters_and_notes_missing_answers():
    from rederive.stats.sampling import sampling_table

    long = three_models()
    long.loc[long["model"] == "b", "answer"] = None
    long.loc[(long["model"] == "a") & (long["epoch"] == 0), "answer"] = ""
    counts = sample_counts(long)
    clusters = pd.Series({f"q{i:02d}": f"g{i // 4}" for i in range(40)})
    table = sampling_table(
        counts, ks=[2], clusters=clusters, cluster_by="group", n_boot=200, seed=3
    )
    assert set(table.loc[table["estimate"].notna(), "n_clusters"]) == {10}
    assert table["method"].iloc[0].startswith("clustered Wilson")
    maj = table[table["metric"] == MAJ_AT_K].set_index("model")
    assert np.isnan(maj.loc["b", "estimate"]) and "no extracted answers" in maj.loc["b", "note"]
    assert maj.loc["a", "note"] == "40 of 240 samples without an extracted answer do not vote"


def test_pairwise_at_k_is_the_paired_t_test_on_per_item_estimates():
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    from rederive.stats.sampling import comparison_matrix, sampling_pairwise

    counts = sample_counts(three_models())
    pairs = sampling_pairwise(counts, PASS_AT_K, 2, n_boot=300, seed=5, fdr_q=0.05, min_n=20)
    chosen = comparison_matrix(counts, PASS_AT_K, 2, min_n=20)
    assert len(chosen.values) == 40 and chosen.n_items_dropped == 0
    for row in pairs.itertuples(index=False):
        a, b = chosen.values[row.a], chosen.values[row.b]
        assert row.p_method == "paired t on item differences"
        assert row.p_value == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)
        assert row.diff == pytest.approx(a.mean() - b.mean(), abs=1e-15)
    _, q, _, _ = multipletests(pairs["p_value"], alpha=0.05, method="fdr_bh")
    np.testing.assert_allclose(pairs["q_value"], q, rtol=1e-12)
    assert (pairs["metric"] == PASS_AT_K).all() and (pairs["k"] == 2).all()


def test_pairwise_at_k_equal_n_is_mcnemar_and_short_items_are_dropped():
    from scipy import stats

    from rederive.stats.sampling import comparison_matrix, sampling_pairwise

    counts = sample_counts(three_models())
    chosen = comparison_matrix(counts, PASS_HAT_K, 6, min_n=20)
    # Model c has 2 epochs on 3 items: those items leave every comparison at k = 6.
    assert len(chosen.values) == 37 and chosen.n_items_dropped == 3
    pairs = sampling_pairwise(counts, PASS_HAT_K, 6, n_boot=300, seed=5, fdr_q=0.05, min_n=20)
    assert (pairs["n_items_dropped"] == 3).all() and (pairs["n_items"] == 37).all()
    for row in pairs.itertuples(index=False):
        assert row.p_method.startswith("exact McNemar")
        exact = stats.binomtest(row.a_only, row.a_only + row.b_only, 0.5).pvalue
        assert row.p_value == pytest.approx(exact, rel=1e-12)


def test_ranking_at_k_has_ranking_columns_small_n_and_unavailable_models():
    from rederive.stats.sampling import sampling_pairwise, sampling_ranking

    long = three_models()
    long.loc[long["model"] == "b", "answer"] = None
    counts = sample_counts(long)
    pairs = sampling_pairwise(counts, MAJ_AT_K, 3, n_boot=300, seed=5, fdr_q=0.05, min_n=38)
    rank = sampling_ranking(counts, pairs, MAJ_AT_K, 3, n_boot=300, seed=5, min_n=38)
    assert list(rank.columns) == [
        "order", "model", "accuracy_pct", "ci_low_pct", "ci_high_pct", "rank_best",
        "rank_worst", "rank", "n_tied", "tied_with", "small_n", "metric", "k",
    ]  # fmt: skip
    by_model = rank.set_index("model")
    assert by_model.loc["c", "rank"] == "small n"  # 37 items at k = 3 < min_n 38
    assert by_model.loc["b", "rank"] == "n/a" and np.isnan(by_model.loc["b", "accuracy_pct"])
    assert by_model.loc["a", "rank"] == "1"
    assert rank["order"].tolist() == [1, 2, 3]


def test_a_rare_estimate_carried_by_few_items_is_noted():
    from rederive.stats.sampling import SPARSE_ITEMS, sampling_table

    rows = [
        ("m", f"q{i:02d}", e, int(i < 2 or (e == 0 and i < 12)))
        for i in range(30)
        for e in range(4)
    ]
    table = sampling_table(sample_counts(long_frame(rows)), ks=[1, 4], n_boot=50, seed=1)
    note = table.set_index(["metric", "k"])["note"]
    assert note[(PASS_HAT_K, 4)] == (
        "only 2 of 30 items above 0: the interval is approximate (rare events under-cover, "
        "bench/README.md)"
    )
    assert note[(PASS_AT_K, 1)] == "" and SPARSE_ITEMS == 5


def test_distinct_answer_patterns_packed_or_not_are_the_same():
    from rederive.stats.sampling import _distinct_rows

    rng = np.random.default_rng(3)
    small = rng.integers(0, 4, (500, 3))
    large = small * (2**40)  # does not pack into one int64: np.unique's path
    for table in (small, large):
        patterns, codes = _distinct_rows(table)
        expected, inverse = np.unique(table, axis=0, return_inverse=True)
        np.testing.assert_array_equal(patterns, expected)
        np.testing.assert_array_equal(codes, inverse.ravel())


def test_a_k_beyond_every_items_samples_is_a_row_that_says_so():
    from rederive.stats.sampling import sampling_table

    counts = sample_counts(pd.read_csv(TAU / "gpt-4o-airline.csv"))
    row = sampling_table(counts, ks=[8], metrics=[PASS_AT_K], n_boot=50, seed=1).iloc[0]
    assert row["n_items"] == 0 and row["n_items_excluded"] == 50 and np.isnan(row["estimate"])
    assert row["note"] == "no item has 8 samples (at most 4): not estimable at k = 8"


def test_no_bootstrap_leaves_the_default_interval_and_empties_the_bootstrap_columns():
    from rederive.stats.sampling import sampling_table

    counts = sample_counts(three_models())
    with_boot = sampling_table(counts, ks=[2], n_boot=200, seed=1)
    without = sampling_table(counts, ks=[2], n_boot=0, seed=1)
    pd.testing.assert_series_equal(with_boot["ci_low"], without["ci_low"])
    assert without["boot_low"].isna().all() and with_boot["boot_low"].notna().all()
    with pytest.raises(ValueError, match="needs n_boot"):
        sampling_table(counts, ks=[2], n_boot=0, seed=1, interval="bootstrap")
