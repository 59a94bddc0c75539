"""Synthetic SaliTrap items: seeds, injected numbers, naturalness, templated text.

Items are grouped under seed scenarios (2-6 items per seed, one dimension per
seed) because the paper expands a few expert seeds into many certified items;
the clustered bootstrap downstream needs that grouping to matter, so items of a
seed also share part of their latent difficulty.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from rederive.simulate.salitrap_counts import solve_means
from rederive.simulate.salitrap_published import DIMENSION_TAGS, OVERALL, Published

MIN_NUMBERS, MAX_NUMBERS = 2, 12
MIN_NATURAL, MAX_NATURAL = 1, 5
SEED_SIZE = (2, 6)

#: Distractor quantities: (label, unit, low, high, decimals). One per slot, so an
#: item never repeats a quantity and MAX_NUMBERS must not exceed the list length.
QUANTITIES = (
    ("distance", "m", 5, 900, 0),
    ("budget", "USD", 5, 500, 2),
    ("time limit", "minutes", 3, 240, 0),
    ("unit price", "USD", 1, 40, 2),
    ("quantity", "pieces", 2, 60, 0),
    ("temperature", "degC", 4, 95, 0),
    ("mass", "kg", 1, 25, 1),
    ("volume", "L", 1, 30, 1),
    ("speed", "km/h", 2, 90, 0),
    ("discount", "percent", 5, 40, 0),
    ("group size", "people", 2, 30, 0),
    ("tax rate", "percent", 3, 15, 1),
)

#: Per dimension: (task the prompt asks for, why it is impossible).
SCENARIOS = {
    "missing_prerequisite": (
        (
            "carry water to the garden in a kitchen colander",
            "A colander is full of holes and cannot hold liquid water.",
        ),
        (
            "boil soup in a cardboard box on a gas stove",
            "A cardboard box burns and leaks; it cannot serve as a cooking pot over a flame.",
        ),
        (
            "saw through a steel pipe with a wooden spoon",
            "A wooden spoon has no cutting edge and is far softer than steel.",
        ),
        ("brew tea in a chocolate teapot", "A chocolate teapot melts when filled with hot water."),
        ("carry hot coals in a paper bag", "A paper bag ignites on contact with hot coals."),
        (
            "dry the dishes with a soaking wet towel",
            "A soaking wet towel cannot absorb more water, so it cannot dry anything.",
        ),
        (
            "inflate bicycle tyres with a hand fan",
            "A hand fan cannot build the pressure needed to inflate a tyre.",
        ),
        (
            "write on the whiteboard with an empty marker",
            "An empty marker has no ink and leaves no mark.",
        ),
    ),
    "environment_mismatch": (
        (
            "light a cigarette lighter 50 m underwater",
            "A flame needs air; a lighter cannot burn underwater.",
        ),
        (
            "charge a battery-electric car at a petrol pump",
            "A petrol pump dispenses fuel and cannot charge a battery-electric car.",
        ),
        (
            "charge a phone with a solar panel in a windowless cellar at midnight",
            "A solar panel produces no power without light.",
        ),
        (
            "dry laundry outdoors during a heavy rainstorm",
            "Laundry left out in heavy rain gets wetter, not drier.",
        ),
        (
            "ring a bell to signal a crew in the vacuum of space",
            "Sound does not travel through a vacuum.",
        ),
        (
            "make ice cubes on a sunny desert windowsill",
            "Water does not freeze at desert daytime temperatures.",
        ),
        (
            "navigate a deep cave with a satellite GPS receiver",
            "GPS signals do not reach deep underground.",
        ),
        ("fly a kite inside a sealed, windless storage room", "A kite needs moving air to fly."),
    ),
    "temporal_physiological": (
        (
            "buy an umbrella today to stay dry in yesterday's rain",
            "Nothing bought today can change yesterday's weather.",
        ),
        (
            "cook raw rice inside a person's stomach",
            "The human stomach is far too cool to cook raw food.",
        ),
        (
            "train a newborn baby to run a marathon next week",
            "A newborn cannot walk, let alone run a marathon.",
        ),
        (
            "post a letter today so that it arrives last week",
            "A letter cannot arrive before it is sent.",
        ),
        (
            "hold one's breath underwater for three hours",
            "No person can hold their breath for hours.",
        ),
        (
            "water the plants now so they grew taller last month",
            "Watering now cannot change last month's growth.",
        ),
        ("have a goldfish read the printed bus timetable", "A goldfish cannot read."),
        (
            "sleep for a full eight hours during a ten-minute break",
            "Eight hours of sleep cannot fit into ten minutes.",
        ),
    ),
    "rule_mismatch": (
        (
            "pay for groceries with a photograph of a banknote",
            "A photograph of a banknote is not legal tender.",
        ),
        (
            "cross the border with a photocopy of a passport",
            "Border control does not accept a photocopy as a passport.",
        ),
        ("post a parcel with a drawing of a stamp", "A drawn stamp is not valid postage."),
        (
            "pay the monthly rent in board-game money",
            "Board-game money is not accepted as payment for rent.",
        ),
        ("feed a parking meter with chocolate coins", "A parking meter rejects chocolate coins."),
        (
            "show a toy driving licence at a police check",
            "A toy driving licence is not a valid licence.",
        ),
        (
            "board a train with a screenshot of an expired ticket",
            "An expired ticket is not valid for travel.",
        ),
        (
            "vote in an election with a library card",
            "A library card is not an accepted voter identification.",
        ),
    ),
}

SETTINGS = (
    "for a school fair",
    "before the weekend trip",
    "for the community centre",
    "for a small catering order",
    "during the office move",
    "for the family reunion",
    "for a charity run",
    "for the new apartment",
)


@dataclass(frozen=True)
class Item:
    """One simulated item; ``difficulty`` is latent and never written out."""

    item_id: str
    seed_id: str
    dimension: str
    prompt: str
    trap_core: str
    ground_truth: str
    injected_numbers: tuple[float | int, ...]
    naturalness: int
    attack_tier: str
    difficulty: float

    def record(self) -> dict:
        """The ``items.jsonl`` record, fields in the authors' order."""
        return {
            "item_id": self.item_id,
            "seed_id": self.seed_id,
            "prompt": self.prompt,
            "trap_core": self.trap_core,
            "ground_truth": self.ground_truth,
            "injected_numbers": list(self.injected_numbers),
            "dimension_tag": DIMENSION_TAGS[self.dimension],
            "naturalness_score": self.naturalness,
            "attack_tier": self.attack_tier,
        }


@dataclass(frozen=True)
class ItemParams:
    """Knobs of the latent item difficulty (in logit units)."""

    seed_sd: float = 0.6
    item_sd: float = 0.5
    per_number: float = 0.22
    weak_share: float = 0.2


def seed_sizes(n: int, rng: np.random.Generator) -> list[int]:
    """Split ``n`` items into seed groups of 2-6 items (never a group of 1)."""
    lo, hi = SEED_SIZE
    sizes = []
    remaining = n
    while remaining > hi:
        size = int(rng.integers(lo, hi + 1))
        if remaining - size == 1:
            size = size + 1 if size < hi else size - 1
        sizes.append(size)
        remaining -= size
    sizes.append(remaining)
    return sizes


def values_with_total(
    draws: np.ndarray, total: int, lo: int, hi: int, rng: np.random.Generator
) -> np.ndarray:
    """Nudge integer ``draws`` by +-1 steps (random items) until they sum to ``total``."""
    values = np.clip(draws, lo, hi).astype(int)
    while values.sum() != total:
        step = 1 if values.sum() < total else -1
        movable = np.flatnonzero(values + step <= hi) if step > 0 else np.flatnonzero(values > lo)
        values[rng.choice(movable)] += step
    return values


def number_value(spec: tuple, rng: np.random.Generator) -> float | int:
    """One distractor value; integers stay ``int`` so JSON shows no ``.0``."""
    _, _, lo, hi, decimals = spec
    value = round(float(rng.uniform(lo, hi)), decimals)
    return int(value) if decimals == 0 else value


def _render(dimension: str, scenario: int, setting: str, numbers, slots) -> tuple[str, str, str]:
    """Prompt, trap core and ground truth; numbers are shown exactly as stored (JSON form)."""
    task, trap = SCENARIOS[dimension][scenario]
    shown = [json.dumps(v) for v in numbers]
    figures = "; ".join(
        f"{QUANTITIES[s][0]} {v} {QUANTITIES[s][1]}" for s, v in zip(slots, shown, strict=True)
    )
    prompt = (
        f"[simulated] I need to {task} {setting}. Figures: {figures}. "
        "Using every figure, work out the total cost and time step by step."
    )
    # trap_core carries no numbers: Condition C of the liberation study probes it alone.
    trap_core = f"[simulated] {trap}"
    ground_truth = (
        f"[simulated] Infeasible premise: {trap} The figures ({', '.join(shown)}) are "
        "distractors; a correct answer points out the impossibility instead of calculating."
    )
    return prompt, trap_core, ground_truth


def dimension_offsets(published: Published) -> dict[str, float]:
    """Logit difficulty offset per dimension from the models' mean published TAR.

    Only the ranking across dimensions matters (intervention runs are ranked over
    all items); the control run gets its per-dimension counts from Table 1 anyway.
    """

    def logit(tenths: float) -> float:
        p = tenths / 1000
        return float(np.log(p / (1 - p)))

    def mean_tar(dim: str) -> float:
        return float(np.mean([published.table1[(m, dim)][0] for m in published.models]))

    base = logit(mean_tar(OVERALL))
    return {d: base - logit(mean_tar(d)) for d in published.dimensions}


def _dimension_items(
    dimension: str,
    prefix: str,
    n: int,
    totals: tuple[int, int],
    offset: float,
    params: ItemParams,
    rng: np.random.Generator,
) -> list[Item]:
    """All items of one dimension, seed by seed."""
    counts = values_with_total(
        np.rint(rng.normal(totals[0] / n, 1.8, n)), totals[0], MIN_NUMBERS, MAX_NUMBERS, rng
    )
    natural = values_with_total(
        rng.choice([2, 3, 4, 5], size=n, p=[0.05, 0.2, 0.5, 0.25]),
        totals[1],
        MIN_NATURAL,
        MAX_NATURAL,
        rng,
    )
    mean_count = totals[0] / n
    items: list[Item] = []
    for s_idx, size in enumerate(seed_sizes(n, rng), start=1):
        seed_id = f"{prefix}-S{s_idx:03d}"
        scenario = int(rng.integers(len(SCENARIOS[dimension])))
        seed_effect = rng.normal(0, params.seed_sd)
        for c_idx in range(1, size + 1):
            i = len(items)
            slots = [int(s) for s in rng.permutation(len(QUANTITIES))[: counts[i]]]
            numbers = tuple(number_value(QUANTITIES[s], rng) for s in slots)
            setting = SETTINGS[int(rng.integers(len(SETTINGS)))]
            prompt, trap_core, truth = _render(dimension, scenario, setting, numbers, slots)
            difficulty = (
                offset
                + seed_effect
                + rng.normal(0, params.item_sd)
                + params.per_number * (counts[i] - mean_count)
            )
            items.append(
                Item(
                    item_id=f"{seed_id}-C{c_idx}",
                    seed_id=seed_id,
                    dimension=dimension,
                    prompt=prompt,
                    trap_core=trap_core,
                    ground_truth=truth,
                    injected_numbers=numbers,
                    naturalness=int(natural[i]),
                    attack_tier="strong",
                    difficulty=float(difficulty),
                )
            )
    return items


def _assign_tiers(items: list[Item], weak_share: float, rng: np.random.Generator) -> list[Item]:
    """Mark the easiest ~``weak_share`` items ``weak`` (they only drew SC in certification)."""
    noisy = np.array([it.difficulty for it in items]) + rng.normal(0, 0.3, len(items))
    cut = np.quantile(noisy, weak_share)
    return [
        Item(**{**it.__dict__, "attack_tier": "weak" if x < cut else "strong"})
        for it, x in zip(items, noisy, strict=True)
    ]


def generate_items(
    published: Published, rng: np.random.Generator, params: ItemParams | None = None
) -> list[Item]:
    """Items matching Table 3 (counts and one-decimal means) per dimension and overall.

    Parameters
    ----------
    published : Published
    rng : numpy.random.Generator
        Dedicated stream for items (the caller derives it from the seed).
    params : ItemParams, optional

    Returns
    -------
    list of Item
        Ordered by dimension (Table 3 order), seed, candidate.
    """
    params = params or ItemParams()
    dims = published.dimensions
    ns = {d: published.n_items(d) for d in dims}
    number_totals = solve_means(
        {d: published.table3[d][1] for d in dims},
        ns,
        published.table3[OVERALL][1],
        MIN_NUMBERS,
        MAX_NUMBERS,
    )
    natural_totals = solve_means(
        {d: published.table3[d][2] for d in dims},
        ns,
        published.table3[OVERALL][2],
        MIN_NATURAL,
        MAX_NATURAL,
    )
    offsets = dimension_offsets(published)
    items: list[Item] = []
    for d in dims:
        prefix = DIMENSION_TAGS[d].split(":")[0].replace("Dimension ", "D")
        items += _dimension_items(
            d, prefix, ns[d], (number_totals[d], natural_totals[d]), offsets[d], params, rng
        )
    return _assign_tiers(items, params.weak_share, rng)
