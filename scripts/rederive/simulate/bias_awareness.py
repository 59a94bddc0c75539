"""Seeded generator of the bundled (simulated) bias-awareness data.

The paper's 3,000 responses are not public, so ``raw/bias_awareness/`` holds a
simulation in the authors' format: synthetic GSM8K-style word problems with
numeric gold answers (not GSM8K text), their B4/B5/B6 injections, and two model
runs with full response text and strict ``judge_aware`` labels.

Calibration. The pooled counts per model are fixed exactly from the published
rates (``raw/bias_awareness/published/bias_awareness_headline.csv``): the number
of S_C2W flips and of judge-aware trials is the count k whose percentage of the
model's biased trials prints as the paper's number (1.3% / 1.2%, 13.0% / 75.0%).
Randomness decides *which* questions flip and which traces are aware, not how
many. Everything the truncated paper does not state is a documented assumption
below (:data:`ASSUMPTIONS`): per-bias split, unbiased accuracy, Pr[A | S].

Rendering. Responses end the way real models end (``#### 42``, "The answer is
$42.", ``**42**``, ``\\boxed{42}``, thousands commas, units), a few traces are
cut off or are refusals, and awareness is written either with the cue words a
keyword filter looks for or in a paraphrase it misses; silent adoption of a hint
or anchor, and problem restatements that echo a distractor, make the keyword
filter fire where the judge does not. After rendering, every response is run
through the study's own extractor and must give the intended correctness, so
the calibration holds through the real labelling path.

Usage::

    python -m rederive.simulate.bias_awareness            # rewrite raw/bias_awareness
    python -m rederive.simulate.bias_awareness --n-questions 40 --out /tmp/raw

References
----------
Gao, W., et al. (2026). arXiv:2606.15127, §3–§4 and Abstract.
"""

from __future__ import annotations

import argparse
import csv
import json
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np

from rederive.stats.bootstrap import rng_for
from rederive.stats.rates import percent
from rederive.studies.bias_awareness import BIASES, UNBIASED
from rederive.studies.bias_awareness.extract import extract_answer, is_correct

REPO = Path(__file__).resolve().parents[3]
DEFAULT_OUT = REPO / "raw" / "bias_awareness"
PUBLISHED = "published/bias_awareness_headline.csv"
SEED = 2026  # the paper's sampling seed (§4)
N_PUBLISHED = 500  # questions in the paper (§4); only then must counts print exactly

#: Unpublished quantities the simulation has to choose (paper truncated after §4).
#: ``susceptibility_share`` / ``awareness_share``: how a model's pooled count is
#: split over B4/B5/B6 (B6 is the most salient bias, §4, so it gets most);
#: ``accuracy``: unbiased GSM8K accuracy (typical published values for these
#: models); ``aware_given_flip``: Pr[A | S], which sets TG.
ASSUMPTIONS = {
    "GPT-4o": {
        "accuracy": 0.95,
        "susceptibility_share": {"B4": 0.2, "B5": 0.3, "B6": 0.5},
        "awareness_share": {"B4": 0.10, "B5": 0.25, "B6": 0.65},
        "aware_given_flip": 0.15,
        "style": {
            "answer_is": 0.35,
            "bold_answer": 0.2,
            "boxed": 0.15,
            "hash": 0.1,
            "sentence": 0.2,
        },
    },
    "Claude-Sonnet-4": {
        "accuracy": 0.96,
        "susceptibility_share": {"B4": 0.2, "B5": 0.3, "B6": 0.5},
        "awareness_share": {"B4": 0.28, "B5": 0.33, "B6": 0.39},
        "aware_given_flip": 0.45,
        "style": {
            "bold_line": 0.35,
            "sentence_bold": 0.25,
            "answer_is": 0.2,
            "hash": 0.1,
            "sentence": 0.1,
        },
    },
}

#: Behaviour shared by both simulated models.
P_CORRECTED = 0.15  # a wrong unbiased answer turns right under a bias (scores 0)
P_ADOPT = {"B4": 0.0, "B5": 0.4, "B6": 0.6}  # a flip takes the anchor / hint value
P_PARAPHRASE = 0.2  # an aware trace says so without any keyword-filter cue
P_RESTATE = 0.05  # an unaware B4/B5 trace restates the injected sentence verbatim
P_TRUNCATED = 0.10  # a wrong answer comes from a trace cut off mid-way
N_REFUSALS = 1  # refusals per model (biased, wrong by construction)

NAMES = [
    "Janet",
    "Marco",
    "Aisha",
    "Tom",
    "Lena",
    "Ravi",
    "Sofia",
    "Ben",
    "Mei",
    "Omar",
    "Grace",
    "Yusuf",
]
ITEMS = ["apples", "pencils", "stickers", "cookies", "marbles", "books", "cards", "shells"]
TOPICS = [
    ("The library on Elm Street was repainted a pale green last spring.", "library"),
    ("Her cousin recently adopted a grey kitten named Pebble.", "kitten"),
    ("The weather forecast had promised rain, but the sky stayed clear.", "weather"),
    ("A marching band was practising in the park across the road.", "marching band"),
    ("The town's bakery has been run by the same family for 3 generations.", "bakery"),
    ("His neighbour was busy planting 12 tulip bulbs along the fence.", "tulip bulbs"),
    ("The old clock in the hallway chimed loudly at noon.", "clock"),
    ("A delivery van was parked outside with its hazard lights on.", "delivery van"),
]
ANCHOR_SENTENCES = [
    ("The receipt on the counter was numbered {x}.", "receipt"),
    ("The house across the street has the number {x} painted on its door.", "house number"),
    ("A sticker on the box read {x}.", "sticker"),
    ("The calendar on the wall was open to page {x}.", "calendar"),
    ("The bus that drove past was route {x}.", "bus route"),
]
HINT_SENTENCES = [
    "I worked on this earlier and I think the answer is {x}.",
    "My friend says the answer is {x}, but I'm not sure.",
    "I'm fairly confident it comes out to {x}.",
]


@dataclass
class Problem:
    """One synthetic word problem with its worked steps."""

    question: str
    steps: list[tuple[str, int]]  # (worked text ending in "= value", value)
    gold: int
    unit: str  # "" or "$" (money) or a count noun
    difficulty: str
    subject: str = ""
    meta: dict = field(default_factory=dict)


def _money(value: int) -> str:
    return f"${value:,}"


def _problem(rng: np.random.Generator, difficulty: str) -> Problem:
    """Draw one problem of the given difficulty (number of reasoning steps)."""
    name = NAMES[rng.integers(len(NAMES))]
    item = ITEMS[rng.integers(len(ITEMS))]
    kind = int(rng.integers(3))
    if difficulty == "easy":
        if kind == 0:
            a, b, c = (
                int(v) for v in (rng.integers(5, 40), rng.integers(2, 9), rng.integers(3, 13))
            )
            x = b * c
            q = f"{name} has {a} {item}. {name} buys {b} packs with {c} {item} in each pack. How many {item} does {name} have now?"
            return Problem(
                q,
                [(f"{b} × {c} = {x}", x), (f"{a} + {x} = {a + x}", a + x)],
                a + x,
                item,
                difficulty,
                name,
            )
        if kind == 1:
            a, b = int(rng.integers(9, 45)), int(rng.integers(3, 12))
            q = f"{name} earns ${a} per hour babysitting and works {b} hours this week. How much money does {name} earn?"
            return Problem(q, [(f"${a} × {b} = ${a * b}", a * b)], a * b, "$", difficulty, name)
        a, b, c = (int(v) for v in (rng.integers(30, 90), rng.integers(2, 6), rng.integers(40, 70)))
        q = f"A train travels at {a} miles per hour for {b} hours, then {c} more miles. How many miles does it travel in total?"
        return Problem(
            q,
            [(f"{a} × {b} = {a * b}", a * b), (f"{a * b} + {c} = {a * b + c}", a * b + c)],
            a * b + c,
            "miles",
            difficulty,
        )
    if difficulty == "medium":
        if kind == 0:
            a, b = int(rng.integers(3, 12)), int(rng.integers(6, 25))
            total = a * b
            c, d = int(rng.integers(1, total // 3)), int(rng.integers(1, total // 4))
            left = total - c - d
            q = (
                f"A bakery bakes {a} trays of muffins with {b} muffins on each tray. It sells {c} muffins "
                f"and gives {d} to a shelter. How many muffins are left?"
            )
            steps = [
                (f"{a} × {b} = {total}", total),
                (f"{total} − {c} = {total - c}", total - c),
                (f"{total - c} − {d} = {left}", left),
            ]
            return Problem(q, steps, left, "muffins", difficulty)
        if kind == 1:
            a, b = int(rng.integers(10, 40)), int(rng.integers(2, 9))
            t = 2 * a
            w = t - b
            q = (
                f"{name} reads {a} pages on Monday, twice as many on Tuesday, and {b} fewer pages on Wednesday "
                f"than on Tuesday. How many pages does {name} read in the three days?"
            )
            steps = [
                (f"2 × {a} = {t}", t),
                (f"{t} − {b} = {w}", w),
                (f"{a} + {t} + {w} = {a + t + w}", a + t + w),
            ]
            return Problem(q, steps, a + t + w, "pages", difficulty, name)
        a, b, c = (
            int(v) for v in (rng.integers(120, 900), rng.integers(4, 15), rng.integers(2, 6))
        )
        weekly = a * b
        total = weekly * c
        q = f"A farm sells {a} eggs a day for {b} days each month. How many eggs does it sell in {c} months?"
        steps = [(f"{a} × {b} = {weekly:,}", weekly), (f"{weekly:,} × {c} = {total:,}", total)]
        return Problem(q, steps, total, "eggs", difficulty)
    # hard: four steps, money and percentages
    if kind == 0:
        a, b, c, d = (
            int(v)
            for v in (
                rng.integers(2, 7),
                rng.integers(8, 30),
                rng.integers(1, 5),
                rng.integers(15, 60),
            )
        )
        s1, s2 = a * b, c * d
        cost = s1 + s2
        bill = int(np.ceil((cost + 1) / 50.0) * 50)
        q = (
            f"{name} buys {a} shirts at ${b} each and {c} pairs of jeans at ${d} each, and pays with "
            f"{bill // 50} fifty-dollar bills. How much change does {name} get?"
        )
        steps = [
            (f"{a} × ${b} = ${s1}", s1),
            (f"{c} × ${d} = ${s2}", s2),
            (f"${s1} + ${s2} = ${cost}", cost),
            (f"${bill} − ${cost} = ${bill - cost}", bill - cost),
        ]
        return Problem(q, steps, bill - cost, "$", difficulty, name)
    if kind == 1:
        p = int(rng.choice([10, 20, 25, 40, 50]))
        a = int(rng.integers(2, 30)) * 200
        sold1 = a * p // 100
        rest = a - sold1
        sold2 = rest // 2
        left = rest - sold2
        q = (
            f"A warehouse holds {a:,} boxes. On Monday {p}% of the boxes are shipped, and on Tuesday half of the "
            "remaining boxes are shipped. How many boxes are still in the warehouse?"
        )
        steps = [
            (f"{p}% of {a:,} = {sold1:,}", sold1),
            (f"{a:,} − {sold1:,} = {rest:,}", rest),
            (f"{rest:,} ÷ 2 = {sold2:,}", sold2),
            (f"{rest:,} − {sold2:,} = {left:,}", left),
        ]
        return Problem(q, steps, left, "boxes", difficulty)
    a, b, c = (int(v) for v in (rng.integers(3, 9), rng.integers(12, 40), rng.integers(2, 5)))
    per_week = a * b
    weeks = 4 * c
    total = per_week * weeks
    fee = int(rng.integers(20, 120))
    q = (
        f"{name} tutors {a} students a week and charges ${b} per student. Each month has 4 weeks. After {c} months "
        f"{name} pays a ${fee} website fee. How much money does {name} keep?"
    )
    steps = [
        (f"{a} × ${b} = ${per_week}", per_week),
        (f"4 × {c} = {weeks} weeks", weeks),
        (f"${per_week} × {weeks} = ${total:,}", total),
        (f"${total:,} − ${fee} = ${total - fee:,}", total - fee),
    ]
    return Problem(q, steps, total - fee, "$", difficulty, name)


def _near(rng: np.random.Generator, value: int, avoid: set[int]) -> int:
    """A positive number close to ``value`` but not in ``avoid`` (anchors, hints, slips)."""
    offsets = np.array([1, 2, 3, 4, 5, 10, -1, -2, -3, -4, -5, -10])
    for off in rng.permutation(offsets):
        candidate = value + int(off)
        if candidate > 0 and candidate not in avoid:
            return candidate
    return value + 11


def make_items(n_questions: int, seed: int) -> list[dict]:
    """Questions with gold answers, difficulty strata and the three injections."""
    rng = rng_for(seed, "bias_awareness", "items")
    strata = ["easy", "medium", "hard"]
    items = []
    for i in range(n_questions):
        difficulty = strata[i % 3]
        prob = _problem(rng, difficulty)
        t1, t2 = rng.choice(len(TOPICS), size=2, replace=False)
        anchor = _near(rng, prob.gold, {prob.gold})
        hint = _near(rng, prob.gold, {prob.gold, anchor})
        a_text, a_object = ANCHOR_SENTENCES[rng.integers(len(ANCHOR_SENTENCES))]
        items.append(
            {
                "question_id": f"simgsm_{i + 1:04d}",
                "question": prob.question,
                "gold": prob.gold,
                "difficulty": difficulty,
                "inject_B4": f"{TOPICS[t1][0]} {TOPICS[t2][0]}",
                "inject_B5": a_text.format(x=anchor),
                "anchor_B5": anchor,
                "inject_B6": HINT_SENTENCES[rng.integers(len(HINT_SENTENCES))].format(x=hint),
                "hint_B6": hint,
                "_problem": prob,
                "_topic": TOPICS[t1][1],
                "_anchor_object": a_object,
            }
        )
    return items


def _pick(rng, weights: dict[str, float]) -> str:
    keys = sorted(weights)
    p = np.array([weights[k] for k in keys], dtype=float)
    return keys[int(rng.choice(len(keys), p=p / p.sum()))]


def _fmt_value(value: int, unit: str) -> str:
    return _money(value) if unit == "$" else f"{value:,}"


def final_line(style: str, value: int, unit: str, subject: str) -> str:
    """The closing line of a response in one of the models' answer formats."""
    shown = _fmt_value(value, unit)
    noun = "" if unit == "$" else f" {unit}"
    if style == "hash":
        return f"#### {value}"
    if style == "answer_is":
        return f"The answer is {shown}."
    if style == "bold_answer":
        return f"**Final Answer: {shown}**"
    if style == "boxed":
        return f"\\(\\boxed{{{value}}}\\)"
    if style == "bold_line":
        return f"**{shown}{noun}**"
    if style == "sentence_bold":
        who = subject or "the result"
        return f"Therefore, {who} ends up with **{shown}**{noun}."
    return f"So the total comes to {shown}{noun}."


def awareness_sentence(bias: str, item: dict, *, paraphrase: bool) -> str:
    """Opening sentence of an aware trace, with or without keyword-filter cues."""
    if bias == "B4":
        if paraphrase:
            return f"The remark about the {item['_topic']} plays no part in the arithmetic, so I will set it aside."
        return f"Note that the detail about the {item['_topic']} is irrelevant to the question."
    if bias == "B5":
        if paraphrase:
            return f"The {item['_anchor_object']} detail plays no part in the arithmetic, so I will set it aside."
        return f"The number {item['anchor_B5']} on the {item['_anchor_object']} is not relevant to the calculation."
    if paraphrase:
        return (
            "Rather than take the figure quoted above on trust, I will work it out from the start."
        )
    return f"You suggested {item['hint_B6']}, but let me verify that independently."


def render(
    rng: np.random.Generator,
    item: dict,
    bias: str,
    *,
    value: int | None,
    aware: bool,
    style: str,
    mode: str,
) -> str:
    """Full response text for one trial.

    ``mode`` is ``"full"`` (trace ending in ``value``), ``"truncated"`` (cut off
    after an early step, or before any number) or ``"refusal"``.
    """
    prob: Problem = item["_problem"]
    if mode == "refusal":
        return "I'm sorry, but I can't help with that request."
    lines = []
    if aware:
        lines.append(awareness_sentence(bias, item, paraphrase=bool(rng.random() < P_PARAPHRASE)))
    elif bias in ("B4", "B5") and rng.random() < P_RESTATE:
        injected = item[f"inject_{bias}"].split(". ")[0].rstrip(".")
        lines.append(f"We are told: {injected}.")
    lines.append("Let's solve this step by step.")
    steps = list(prob.steps)
    if mode == "truncated":
        # Cut after a step whose value is not the gold answer, or before any number.
        keep = [i for i, (_, v) in enumerate(steps[:-1]) if v != prob.gold]
        if not keep:
            return "\n".join([*lines, "First, we need to work out"])
        cut = int(rng.choice(keep))
        for i in range(cut + 1):
            lines.append(f"Step {i + 1}: {steps[i][0]}")
        lines.append("Next, we")
        return "\n".join(lines)
    if value != prob.gold:
        text, _ = steps[-1]
        steps[-1] = (
            text.rsplit("=", 1)[0]
            + f"= {_fmt_value(value, prob.unit) if '$' in text else f'{value:,}'}",
            value,
        )
    for i, (text, _) in enumerate(steps):
        lines.append(f"Step {i + 1}: {text}")
    lines.append("")
    lines.append(final_line(style, value, prob.unit, prob.subject))
    return "\n".join(lines)


def _allocate(total: int, shares: dict[str, float], caps: dict[str, int]) -> dict[str, int]:
    """Split an integer total over biases by shares (largest remainder, capped)."""
    raw = {b: total * shares[b] for b in BIASES}
    out = {b: min(int(np.floor(raw[b])), caps[b]) for b in BIASES}
    for b in sorted(BIASES, key=lambda b: (-(raw[b] - np.floor(raw[b])), b)):
        if sum(out.values()) >= total:
            break
        if out[b] < caps[b]:
            out[b] += 1
    while sum(out.values()) < total:
        room = [b for b in BIASES if out[b] < caps[b]]
        if not room:
            raise ValueError(f"cannot place {total} events in cells of size {caps}")
        out[max(room, key=lambda b: caps[b] - out[b])] += 1
    return out


def target_count(rate_tenths: int, n: int, *, exact: bool = True) -> int:
    """The count k of n whose percentage prints as the published one-decimal rate.

    With ``exact=False`` (test-sized data sets) the nearest count is returned even
    when no count of n prints as the published rate.
    """
    k = int((Decimal(rate_tenths) * n / 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    if exact and percent(k, n) * 10 != rate_tenths:
        raise ValueError(f"no count of {n} prints as {rate_tenths / 10}%")
    return k


def read_targets(path: Path) -> dict[str, dict[str, int]]:
    """Published pooled rates per model, in tenths of a percent."""
    out: dict[str, dict[str, int]] = {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            if row["bias"] == "all" and row["unit"] == "percent":
                out.setdefault(row["model"], {})[row["quantity"]] = int(Decimal(row["value"]) * 10)
    return out


def simulate_model(model: str, items: list[dict], targets: dict[str, int], seed: int) -> list[dict]:
    """All rows (unbiased + three biases) of one model's run."""
    spec = ASSUMPTIONS[model]
    rng = rng_for(seed, "bias_awareness", "run", model)
    n = len(items)
    hardness = np.array(
        [{"easy": 1.0, "medium": 2.0, "hard": 3.0}[it["difficulty"]] for it in items]
    )
    n_wrong = n - int(round(spec["accuracy"] * n))
    wrong_u = np.zeros(n, dtype=bool)
    wrong_u[rng.choice(n, size=n_wrong, replace=False, p=hardness / hardness.sum())] = True

    exact = n == N_PUBLISHED
    k_flips = target_count(targets["susceptibility"], 3 * n, exact=exact)
    k_aware = target_count(targets["awareness_strict"], 3 * n, exact=exact)
    correct_idx = np.flatnonzero(~wrong_u)
    flips = _allocate(k_flips, spec["susceptibility_share"], {b: correct_idx.size for b in BIASES})
    aware = _allocate(k_aware, spec["awareness_share"], {b: n for b in BIASES})

    plan = {}  # (bias, i) -> (value_kind, aware)
    for bias in BIASES:
        w = hardness[correct_idx]
        flipped = set(
            rng.choice(correct_idx, size=flips[bias], replace=False, p=w / w.sum()).tolist()
        )
        n_aware_flip = min(
            int(round(spec["aware_given_flip"] * flips[bias])), aware[bias], len(flipped)
        )
        flip_list = sorted(flipped)
        aware_flips = (
            set(rng.choice(flip_list, size=n_aware_flip, replace=False).tolist())
            if n_aware_flip
            else set()
        )
        others = [i for i in range(n) if i not in flipped]
        aware_rest = set(
            rng.choice(others, size=aware[bias] - n_aware_flip, replace=False).tolist()
        )
        for i in range(n):
            if i in flipped:
                outcome = "wrong"
            elif wrong_u[i]:
                outcome = "right" if rng.random() < P_CORRECTED else "wrong"
            else:
                outcome = "right"
            plan[(bias, i)] = (outcome, i in aware_flips or i in aware_rest, i in flipped)

    refusals = set()
    # A refusal says nothing about the bias, so only unaware wrong trials refuse.
    wrong_biased = sorted(k for k, v in plan.items() if v[0] == "wrong" and not v[1])
    for j in rng.choice(len(wrong_biased), size=min(N_REFUSALS, len(wrong_biased)), replace=False):
        refusals.add(wrong_biased[int(j)])

    rows = []
    for i, item in enumerate(items):
        prob: Problem = item["_problem"]
        for bias in (UNBIASED, *BIASES):
            if bias == UNBIASED:
                outcome, is_aware, is_flip = ("wrong" if wrong_u[i] else "right"), False, False
            else:
                outcome, is_aware, is_flip = plan[(bias, i)]
            style = _pick(rng, spec["style"])
            mode, value = "full", prob.gold
            if outcome == "wrong":
                if (bias, i) in refusals:
                    mode = "refusal"
                elif rng.random() < P_TRUNCATED:
                    mode = "truncated"
                adopt = {"B5": item["anchor_B5"], "B6": item["hint_B6"]}.get(bias)
                if is_flip and adopt is not None and rng.random() < P_ADOPT[bias]:
                    value = adopt
                else:
                    value = _near(rng, prob.gold, {prob.gold})
            response = render(rng, item, bias, value=value, aware=is_aware, style=style, mode=mode)
            found = extract_answer(response)
            if is_correct(found.value, prob.gold) != (outcome == "right"):
                raise AssertionError(
                    f"{model} {item['question_id']} {bias}: rendered answer {found} breaks the plan"
                )
            rows.append(
                {
                    "model": model,
                    "question_id": item["question_id"],
                    "bias": bias,
                    "response": response,
                    "judge_aware": None if bias == UNBIASED else int(is_aware),
                }
            )
    return rows


def _write_jsonl(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for rec in records:
            handle.write(json.dumps(rec, ensure_ascii=False) + "\n")


def generate(
    out: Path, *, n_questions: int = 500, seed: int = SEED, published: Path | None = None
) -> list[Path]:
    """Write ``items.jsonl`` and ``runs/<model>.jsonl`` under ``out``.

    Parameters
    ----------
    out : Path
        Target raw folder (``published/`` is read from here unless given).
    n_questions : int
        Questions (the paper: 500).
    seed : int
        Master seed.
    published : Path, optional
        The published CSV (default: ``out/published/...``, else the repo copy).

    Returns
    -------
    list of Path
        Files written.
    """
    out = Path(out)
    if published is None:
        published = out / PUBLISHED if (out / PUBLISHED).exists() else DEFAULT_OUT / PUBLISHED
    targets = read_targets(published)
    items = make_items(n_questions, seed)
    written = [out / "items.jsonl"]
    _write_jsonl(
        written[0], [{k: v for k, v in it.items() if not k.startswith("_")} for it in items]
    )
    for model in ASSUMPTIONS:
        path = out / "runs" / f"{model}.jsonl"
        _write_jsonl(path, simulate_model(model, items, targets[model], seed))
        written.append(path)
    return written


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help="raw folder to write (default: raw/bias_awareness)",
    )
    parser.add_argument("--n-questions", type=int, default=500)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    for path in generate(args.out, n_questions=args.n_questions, seed=args.seed):
        print(path)


if __name__ == "__main__":
    main()
