"""Bradley–Terry libraries compared on accuracy and time (issue 36, item 6).

Fits the same games (ties as half a win, Chatbot Arena's convention) with

* ``rederive``: :func:`rederive.stats.preference.games.pair_counts` then
  :func:`rederive.stats.preference.bradley_terry.fit_bradley_terry` (Newton on the
  pair counts; the time includes the aggregation of the games);
* ``statsmodels``: a binomial GLM on the per-pair counts (IRLS), the independent
  reference the accuracy is measured against (its time includes the same
  aggregation done with pandas);
* ``scipy``: FastChat's ``compute_bt`` recipe — L-BFGS on the distinct
  (pair, outcome) rows with their counts (``rating_systems.fit_bt``, gtol 1e-6);
* ``evalica``: ``evalica.bradley_terry`` (Rust core, Newman's iteration) with
  ``Winner.Draw`` for ties, at its defaults (``tolerance=1e-6``, ``limit=100``) and
  tight (``evalica-tight``: ``1e-12``, 10,000);
* ``choix``: ``choix.ilsr_pairwise`` and ``choix.mm_pairwise`` on (winner, loser)
  tuples, a tie entered as one win each way and every decisive game twice (the
  same likelihood, doubled).

For each: wall and CPU seconds (best of ``--repeat``), and the largest absolute
difference of the centred strengths (natural log-odds) from the statsmodels fit.
Needs evalica and choix, which rederive does not depend on: run it in a throwaway
venv (bench/README.md)::

    python3.11 -m venv /tmp/venv-libs
    /tmp/venv-libs/bin/pip install evalica==0.4.2 choix==0.4.1 numpy pandas scipy statsmodels
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=scripts /tmp/venv-libs/bin/python \\
        bench/preference_libraries.py --models 50 --games 5000
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pandas as pd


def timed(fn, repeat):
    best = None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn()
        took = (time.perf_counter() - wall, time.process_time() - cpu)
        best = took if best is None or took[1] < best[1] else best
    return out, best


def centred(beta):
    beta = np.asarray(beta, dtype=float)
    return beta - beta.mean()


def run_rederive(games, models):
    from rederive.stats.preference.bradley_terry import fit_bradley_terry
    from rederive.stats.preference.games import pair_counts

    fit = fit_bradley_terry(pair_counts(games.drop(columns="item_id"), models=models))
    return fit.beta


def run_statsmodels(games, models):
    import statsmodels.api as sm

    pos = {m: k for k, m in enumerate(models)}
    a = games["model_a"].map(pos).to_numpy()
    b = games["model_b"].map(pos).to_numpy()
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    score = np.where(a < b, games["outcome"], 1 - games["outcome"])
    agg = (
        pd.DataFrame({"lo": lo, "hi": hi, "s": score})
        .groupby(["lo", "hi"])["s"]
        .agg(["sum", "count"])
        .reset_index()
    )
    x = np.zeros((len(agg), len(models)))
    x[np.arange(len(agg)), agg["lo"]] = 1.0
    x[np.arange(len(agg)), agg["hi"]] = -1.0
    y = np.column_stack([agg["sum"], agg["count"] - agg["sum"]])
    res = sm.GLM(y, x[:, 1:], family=sm.families.Binomial()).fit(tol=1e-14, maxiter=200)
    return np.concatenate([[0.0], res.params])


def run_scipy(games, models):
    from scipy.optimize import minimize
    from scipy.special import expit

    pos = {m: k for k, m in enumerate(models)}
    rows = pd.DataFrame(
        {
            "a": games["model_a"].map(pos).to_numpy(),
            "b": games["model_b"].map(pos).to_numpy(),
            "o": games["outcome"].to_numpy(),
        }
    )
    distinct = rows.value_counts().reset_index(name="w")
    ab = distinct[["a", "b"]].to_numpy()
    o, w = distinct["o"].to_numpy(), distinct["w"].to_numpy(dtype=float)

    def loss(r):
        p = expit(r[ab[:, 0]] - r[ab[:, 1]])
        value = -((np.log(p) * o + np.log(1 - p) * (1 - o)) * w).sum()
        g = -(o - p) * w
        grad = np.bincount(ab[:, 0], g, len(models)) - np.bincount(ab[:, 1], g, len(models))
        return value, grad

    res = minimize(
        loss,
        np.zeros(len(models)),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 100, "gtol": 1e-6},
    )
    return res.x


def run_evalica(tolerance=1e-6, limit=100):
    def fit(games, models):
        return _evalica(games, models, tolerance, limit)

    return fit


def _evalica(games, models, tolerance, limit):
    import evalica

    by_outcome = {1.0: evalica.Winner.X, 0.0: evalica.Winner.Y, 0.5: evalica.Winner.Draw}
    winner = [by_outcome[o] for o in games["outcome"].to_numpy()]
    res = evalica.bradley_terry(
        games["model_a"].tolist(),
        games["model_b"].tolist(),
        winner,
        tolerance=tolerance,
        limit=limit,
    )
    # evalica's scores are strengths pi (normalised); log-odds are their logs.
    scores = res.scores.reindex(models).to_numpy(dtype=float)
    return np.log(scores)


def choix_data(games, models):
    pos = {m: k for k, m in enumerate(models)}
    a = games["model_a"].map(pos).to_numpy()
    b = games["model_b"].map(pos).to_numpy()
    o = games["outcome"].to_numpy()
    win = o == 1
    lose = o == 0
    tie = ~win & ~lose
    pairs = [(int(x), int(y)) for x, y in zip(a[win], b[win], strict=True)] * 2
    pairs += [(int(y), int(x)) for x, y in zip(a[lose], b[lose], strict=True)] * 2
    pairs += [(int(x), int(y)) for x, y in zip(a[tie], b[tie], strict=True)]
    pairs += [(int(y), int(x)) for x, y in zip(a[tie], b[tie], strict=True)]
    return pairs


def run_choix(method):
    def fit(games, models):
        import choix

        data = choix_data(games, models)
        fn = {"ilsr": choix.ilsr_pairwise, "mm": choix.mm_pairwise}[method]
        return fn(len(models), data, max_iter=1000, tol=1e-10)

    return fit


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", type=int, default=50)
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip", nargs="*", default=[])
    args = parser.parse_args()

    from rederive.stats.preference.simulate import simulate_arena

    games, _ = simulate_arena(
        args.models,
        args.games,
        max(args.games // 1000, 50),
        rng=np.random.default_rng(36),
        tie_nu=0.3,
    )
    models = sorted(set(games["model_a"]) | set(games["model_b"]))
    methods = {
        "statsmodels": run_statsmodels,
        "rederive": run_rederive,
        "scipy": run_scipy,
        "evalica": run_evalica(),
        "evalica-tight": run_evalica(1e-12, 10_000),
        "choix-ilsr": run_choix("ilsr"),
        "choix-mm": run_choix("mm"),
    }
    reference = None
    print(f"{args.models} models, {args.games:,} games (ties as half a win)")
    for name, fn in methods.items():
        if name in args.skip:
            continue
        try:
            beta, (wall, cpu) = timed(lambda fn=fn: fn(games, models), args.repeat)
        except Exception as exc:  # a library that refuses the input is reported, not fatal
            print(f"{name:12s} failed: {type(exc).__name__}: {exc}")
            continue
        beta = centred(beta)
        if reference is None:
            reference = beta
        err = np.abs(beta - reference).max()
        print(f"{name:12s} wall {wall:8.3f} s  cpu {cpu:8.3f} s  max|beta - statsmodels| {err:.2e}")


if __name__ == "__main__":
    main()
