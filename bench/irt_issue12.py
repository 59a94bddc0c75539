"""Issue 12 table: the 1PL fit before and after, same run, same machine.

Usage::

    .venv/bin/python bench/irt_issue12.py                  # old vs new, ~5 min idle
    .venv/bin/python bench/irt_issue12.py --old REV        # compare with another commit
    .venv/bin/python bench/irt_issue12.py --convergence    # + old fit at 1,000-3,000 epochs
    .venv/bin/python bench/irt_issue12.py --large          # + 29 x 10,000 items

"old" is ``scripts/rederive/stats/irt.py`` at ``--old`` (default: the main commit
before issue 12), loaded from git into a scratch module with its configured
settings of that time (salitrap: 1,000 epochs at lr 0.1); "new" is the working
tree with today's config defaults. Wall times are printed with the load average,
never asserted. SaliTrap rows need ``results/salitrap/salitrap.duckdb`` (run the
workflow once); they are skipped without it.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import os
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from rederive.stats import irt as new  # noqa: E402
from rederive.stats.irt_mml import constrained_bayes  # noqa: E402

OLD_DEFAULT = "2c20363"  # main before issue 12
OLD = {"epochs": 1000, "lr": 0.1}
NEW = {"epochs": 1000, "lr": 0.02, "lr_decay": 0.99, "tol": 0.01}
LSAT6_COUNTS = [
    3, 6, 2, 11, 1, 1, 3, 4, 1, 8, 0, 16, 0, 3, 2, 15,
    10, 29, 14, 81, 3, 28, 15, 80, 16, 56, 21, 173, 11, 61, 28, 298,
]  # fmt: skip
# ltm::rasch(LSAT), discrimination free (py-irt's 1PL has a free ability spread).
LTM = np.array([-3.6153, -1.3224, -0.3176, -1.7301, -2.7802]) * 0.7551
SALITRAP_DB = REPO / "results" / "salitrap" / "salitrap.duckdb"


def load_old(rev: str):
    source = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{rev}:scripts/rederive/stats/irt.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "irt_old.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("irt_old", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["irt_old"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module, path


def simulate(n_models: int, n_items: int, seed: int):
    """Same generator as tests/stats/test_irt.py: N(0, 1) abilities and difficulties."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, n_models)
    b = rng.normal(0.0, 1.0, n_items)
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - b[None, :])))
    y = (rng.random(p.shape) < p).astype(float)
    frame = pd.DataFrame(
        y, index=[f"m{i}" for i in range(n_models)], columns=[f"i{j}" for j in range(n_items)]
    )
    return frame, b, p


def centred(x) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return x - x.mean()


def lsat6() -> pd.DataFrame:
    patterns = np.array(list(itertools.product([0, 1], repeat=5)))
    return pd.DataFrame(np.repeat(patterns, LSAT6_COUNTS, axis=0), columns=list("12345"))


def lsat_row(old) -> tuple[str, str]:
    ref = centred(LTM)
    out = []
    for fit in (old.fit_1pl(lsat6(), seed=0, **OLD), new.fit_1pl(lsat6(), seed=0, **NEW)):
        est = centred(fit.difficulty)
        out.append(
            f"r = {np.corrcoef(est, ref)[0, 1]:.4f}, spread {(est @ ref) / (ref @ ref):.2f}x, "
            f"max gap {np.max(np.abs(est - ref)):.3f}"
        )
    return out[0], out[1]


def ceiling(b, p) -> float:
    info = (p * (1 - p)).sum(axis=0)
    return float(np.sqrt(b.var() / (b.var() + np.mean(1 / info))))


def recovery_rows(old, old_seeds, new_seeds) -> list[tuple[str, str, str]]:
    r_old, sd_old, ext_old, r_new, sd_new, sd_cb, ext_new, ceil, used = ([] for _ in range(9))
    seed_pair = None
    for seed in sorted(set(old_seeds) | set(new_seeds)):
        y, b, p = simulate(12, 1145, seed)
        if seed in old_seeds:
            f = old.fit_1pl(y, seed=1, **OLD)
            d = centred(f.difficulty)
            r_old.append(np.corrcoef(d, b)[0, 1])
            sd_old.append(d.std() / b.std())
            ext_old.append(int((np.abs(d) > 4).sum()))
        if seed in new_seeds:
            f = new.fit_1pl(y, seed=1, **NEW)
            d = f.difficulty.to_numpy()
            ceil.append(ceiling(b, p))
            r_new.append(np.corrcoef(d, b)[0, 1])
            sd_new.append(d.std() / b.std())
            sd_cb.append(constrained_bayes(d, f.difficulty_sd.to_numpy()).std() / b.std())
            ext_new.append(int((np.abs(d) > 4).sum()))
            used.append(f"{f.epochs_used} ({f.final_change:.4f})")
            if seed_pair is None:
                other = new.fit_1pl(y, seed=2, **NEW)
                seed_pair = np.corrcoef(d, other.difficulty)[0, 1]

    def fmt(xs):
        return " / ".join(str(x) if isinstance(x, int) else f"{x:.3f}" for x in xs)

    return [
        (
            f"12 x 1,145 Rasch sim, difficulty r with truth (seeds {old_seeds} old, {new_seeds} new)",
            fmt(r_old),
            f"{fmt(r_new)}  [ceiling {fmt(ceil)}]",
        ),
        (
            "same, SD(estimate) / SD(truth)",
            fmt(sd_old),
            f"posterior mean {fmt(sd_new)}; spread-matched {fmt(sd_cb)}",
        ),
        ("same, items with |difficulty| > 4", fmt(ext_old), fmt(ext_new)),
        ("same, epochs used (final change, logit)", f"{OLD['epochs']} (no rule)", ", ".join(used)),
        ("same, difficulty r between fit seeds 1 and 2", "-", f"{seed_pair:.4f}"),
    ]


def convergence_row(old) -> tuple[str, str, str]:
    y, b, _ = simulate(12, 1145, 0)
    sds = [
        centred(old.fit_1pl(y, seed=1, epochs=e, lr=0.1).difficulty).std() / b.std()
        for e in (1000, 2000, 3000)
    ]
    return (
        "old at 1,000 / 2,000 / 3,000 epochs, SD ratio",
        " -> ".join(f"{s:.2f}" for s in sds),
        "stops by rule",
    )


RULE = textwrap.dedent(
    """
    import sys, time
    start = time.perf_counter()
    sys.path.insert(0, {scripts!r})
    import importlib.util
    spec = importlib.util.spec_from_file_location("irt_x", {module!r})
    irt = importlib.util.module_from_spec(spec); sys.modules["irt_x"] = irt
    spec.loader.exec_module(irt)
    from rederive.studies.salitrap.common import CONTROL, load
    from rederive.studies.salitrap.metrics import label_matrix
    from rederive.studies.salitrap.irt_fit import binary_responses
    items, labels = load({db!r})
    r = binary_responses(label_matrix(labels, items, CONTROL), ["Strict Pass"])
    r = r.loc[:, r.notna().any(axis=0)]
    fit = irt.fit_1pl(r, seed=20261130, **{settings!r})
    clusters = items.set_index("item_id").loc[r.columns, "seed_id"].to_numpy()
    irt.bootstrap_ability(r, fit.difficulty, n_boot=400, seed=1, clusters=clusters)
    d = fit.difficulty - fit.difficulty.mean()
    print(time.perf_counter() - start, int((d.abs() > 4).sum()), len(fit.items_all_correct) + len(fit.items_all_wrong))
    """
)


def salitrap_rows(old_path: Path) -> list[tuple[str, str, str]]:
    if not SALITRAP_DB.exists():
        return [("SaliTrap rows", "skipped: no results/salitrap/salitrap.duckdb", "")]
    out = {}
    for name, module, settings in (
        ("old", old_path, OLD),
        ("new", Path(new.__file__), NEW),
    ):
        code = RULE.format(
            scripts=str(REPO / "scripts"),
            module=str(module),
            db=str(SALITRAP_DB),
            settings=settings,
        )
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode:
            raise SystemExit(proc.stderr[-2000:])
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        out[name] = [*proc.stdout.split(), cpu]
    return [
        (
            "SaliTrap fit (process: import + load + fit + 400-rep bootstrap), wall / CPU s",
            f"{float(out['old'][0]):.1f} / {out['old'][3]:.1f}",
            f"{float(out['new'][0]):.1f} / {out['new'][3]:.1f}",
        ),
        (
            "SaliTrap bundled data: items at |difficulty| > 4 (Fig 4a mode) / all-pass+all-fail",
            f"{out['old'][1]} / {out['old'][2]}",
            f"{out['new'][1]} / {out['new'][2]}",
        ),
    ]


def warm_rows() -> list[tuple[str, str, str]]:
    """Swap one model in (12th of 12) on the SaliTrap shape: cold vs warm SVI."""
    y, _, _ = simulate(12, 1145, 0)
    cold = new.fit_1pl(y, seed=1, **NEW)
    previous = new.fit_1pl(y.iloc[:11], seed=1, **NEW)
    start = time.perf_counter()
    warm = new.fit_1pl(y, seed=1, warm_start=previous.to_frame(), **NEW)
    warm_s = time.perf_counter() - start
    rms = np.sqrt(np.mean((warm.difficulty - cold.difficulty) ** 2))
    return [
        (
            "add a 12th model: SVI s / epochs, cold vs warm start",
            f"cold {cold.fit_seconds:.1f} s / {cold.epochs_used}",
            f"warm {warm.fit_seconds:.1f} s / {warm.epochs_used} ({warm_s:.1f} s with MML); "
            f"RMS gap to cold {rms:.3f}",
        )
    ]


def large_row(old) -> tuple[str, str, str]:
    """MMLU-Pro shape (29 models x 10,000 items), simulated; benchmark settings."""
    y, _, _ = simulate(29, 10_000, 5)
    out = []
    for module, settings in ((old, {"epochs": 1500, "lr": 0.1}), (new, {**NEW, "epochs": 1500})):
        start = time.perf_counter()
        fit = module.fit_1pl(y, seed=20250107, **settings)
        out.append(
            f"{time.perf_counter() - start:.1f} s, {getattr(fit, 'epochs_used', 1500)} epochs, "
            f"attempts {fit.attempts}"
        )
    return ("29 x 10,000 simulated (MMLU-Pro shape), fit wall s", *out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", default=OLD_DEFAULT)
    parser.add_argument("--convergence", action="store_true")
    parser.add_argument("--large", action="store_true", help="+ 29 x 10,000 fit, old vs new")
    args = parser.parse_args()
    old, old_path = load_old(args.old)
    load_before = os.getloadavg()
    start = time.perf_counter()
    rows = [("LSAT-6 vs ltm Rasch MML (centred)", *lsat_row(old))]
    rows += recovery_rows(old, [0, 1, 2], [0, 1, 2, 3, 4])
    if args.convergence:
        rows.append(convergence_row(old))
    rows += salitrap_rows(old_path)
    rows += warm_rows()
    if args.large:
        rows.append(large_row(old))
    width = max(len(r[0]) for r in rows)
    w_old = max(len(r[1]) for r in rows)
    print(f"{'measurement':<{width}} | {'old (' + args.old + ')':<{w_old}} | new")
    print(f"{'-' * width}-|-{'-' * w_old}-|----")
    for name, o, n in rows:
        print(f"{name:<{width}} | {o:<{w_old}} | {n}")
    print(
        f"\nload average before {tuple(round(x, 2) for x in load_before)}, after "
        f"{tuple(round(x, 2) for x in os.getloadavg())}; {os.cpu_count()} CPUs; "
        f"bench wall {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
