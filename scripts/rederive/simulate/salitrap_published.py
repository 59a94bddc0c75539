"""Published SaliTrap aggregates, read exactly, plus fixed model/dimension metadata.

The simulator calibrates to the paper's printed numbers, so they are parsed with
:class:`decimal.Decimal` into integer *tenths* of a percent (``30.3`` -> ``303``).
Integers keep every later rounding comparison exact; binary floats would make
``k / n`` near an ``x.x5`` boundary depend on representation error.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

OVERALL = "overall"

#: Dimension id -> the ``dimension_tag`` string the authors' files carry.
#: The numbering skips 3 as in the paper's code (``Dimension 3`` was dropped).
DIMENSION_TAGS = {
    "missing_prerequisite": "Dimension 1: Missing Prerequisite",
    "environment_mismatch": "Dimension 2: Environment Mismatch",
    "temporal_physiological": "Dimension 4: Temporal/Physiological Violation",
    "rule_mismatch": "Dimension 5: Rule Mismatch",
}

#: Model -> (family, vendor). Families drive the shared item-level noise that
#: makes related models co-fail (paper Fig. 5 / Table 5).
MODEL_META = {
    "Claude-Opus-4.7": ("Claude", "Anthropic"),
    "Claude-Opus-4.6": ("Claude", "Anthropic"),
    "GPT-5.5": ("GPT", "OpenAI"),
    "GPT-5.4": ("GPT", "OpenAI"),
    "DeepSeek-R1": ("DeepSeek", "DeepSeek"),
    "DeepSeek-V4-Pro": ("DeepSeek", "DeepSeek"),
    "DeepSeek-V4-Flash": ("DeepSeek", "DeepSeek"),
    "Gemini-2.5-Pro": ("Gemini", "Google"),
    "GLM-5.1": ("GLM", "Zhipu AI"),
    "Kimi-K2": ("Kimi", "Moonshot AI"),
    "Doubao-Seed-2.0": ("Doubao-Seed", "ByteDance"),
    "MiniMax-M2.7": ("MiniMax", "MiniMax"),
}

TABLE_FILES = {
    "table1": "salitrap_table1_tar_hfr.csv",
    "table2": "salitrap_table2_scr_si.csv",
    "table3": "salitrap_table3_dataset.csv",
    "table5": "salitrap_table5_pairs.csv",
    "table5_all_fail": "salitrap_table5_all_fail.csv",
    "table6": "salitrap_table6_liberation.csv",
    "table7": "salitrap_table7_interventions.csv",
}


def to_tenths(text: str) -> int:
    """Parse a printed one-decimal number (``"30.3"``, ``"+31.4"``) into tenths."""
    return int(Decimal(text.strip()) * 10)


def to_thousandths(text: str) -> int:
    """Parse a printed three-decimal number (``"0.798"``) into thousandths."""
    return int(Decimal(text.strip()) * 1000)


def fmt_tenths(value: int | None) -> str:
    """Format tenths as the paper prints them (``303`` -> ``"30.3"``); ``None`` -> ``"--"``."""
    if value is None:
        return "--"
    sign = "-" if value < 0 else ""
    return f"{sign}{abs(value) // 10}.{abs(value) % 10}"


@dataclass(frozen=True)
class LiberationRow:
    """Table 6 for one model: SC count, valid re-queries, rates per dimension.

    ``rates`` maps dimension (incl. ``overall``) to the tenths of conditions A, B, C.
    """

    n_sc_main: int
    n_requeried: int
    rates: dict[str, tuple[int, int, int]]


@dataclass(frozen=True)
class InterventionRow:
    """One Table 7 row: printed TAR/HFR (tenths) and the printed delta text."""

    role: str
    tar: int
    hfr: int
    delta_printed: str


@dataclass(frozen=True)
class PairRow:
    """One Table 5 row (co-failure rate and Jaccard in thousandths)."""

    group: str
    model_a: str
    model_b: str
    co_failure: int
    jaccard: int


@dataclass(frozen=True)
class Published:
    """All published SaliTrap tables the simulator calibrates to.

    Attributes
    ----------
    models : tuple of str
        Models in Table 1 row order (the display order).
    dimensions : tuple of str
        Dimension ids in Table 3 order, without ``overall``.
    table1 : dict
        ``(model, dimension) -> (TAR, HFR)`` in tenths; dimension includes ``overall``.
    table2 : dict
        ``(model, dimension) -> (SCR, SI)`` in tenths; SI is ``None`` when printed ``--``.
    table3 : dict
        ``dimension -> (items, mean injected numbers, mean naturalness)``, means in tenths.
    table5 : tuple of PairRow
    table5_all_fail : int or None
        Items failed by every model (Table 5 caption); ``None`` if the file is absent.
    table6 : dict
        ``model -> LiberationRow``.
    table7 : dict
        ``model -> {condition -> InterventionRow}``.
    """

    models: tuple[str, ...]
    dimensions: tuple[str, ...]
    table1: dict[tuple[str, str], tuple[int, int]]
    table2: dict[tuple[str, str], tuple[int, int | None]]
    table3: dict[str, tuple[int, int, int]]
    table5: tuple[PairRow, ...]
    table6: dict[str, LiberationRow]
    table7: dict[str, dict[str, InterventionRow]]
    table5_all_fail: int | None = None

    def n_items(self, dimension: str) -> int:
        """Number of items in ``dimension`` (Table 3)."""
        return self.table3[dimension][0]


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _read_table6(path: Path) -> dict[str, LiberationRow]:
    grouped: dict[str, dict] = {}
    for row in _rows(path):
        entry = grouped.setdefault(
            row["model"], {"n_sc_main": int(row["n_sc_main"]), "n_req": None, "rates": {}}
        )
        if row["n_requeried"].strip():
            entry["n_req"] = int(row["n_requeried"])
        entry["rates"][row["dimension"]] = tuple(
            to_tenths(row[col]) for col in ("cond_A", "cond_B", "cond_C")
        )
    return {
        model: LiberationRow(e["n_sc_main"], e["n_req"], e["rates"]) for model, e in grouped.items()
    }


def _read_table7(path: Path) -> dict[str, dict[str, InterventionRow]]:
    out: dict[str, dict[str, InterventionRow]] = {}
    for row in _rows(path):
        out.setdefault(row["model"], {})[row["condition"]] = InterventionRow(
            row["role"],
            to_tenths(row["TAR"]),
            to_tenths(row["HFR"]),
            row["TAR_delta_vs_control_as_printed"].strip(),
        )
    return out


def load_published(published_dir: Path) -> Published:
    """Read the published SaliTrap CSVs from ``published_dir``.

    ``salitrap_table5_all_fail.csv`` is optional; every other file is required.

    Parameters
    ----------
    published_dir : Path
        Folder holding ``salitrap_table*.csv`` (the project copy of the paper's numbers).

    Returns
    -------
    Published
        Exact (integer) representation of every printed number.
    """
    files = {key: Path(published_dir) / name for key, name in TABLE_FILES.items()}
    t1_rows = _rows(files["table1"])
    table1 = {
        (r["model"], r["dimension"]): (to_tenths(r["TAR"]), to_tenths(r["HFR"])) for r in t1_rows
    }
    table2 = {
        (r["model"], r["dimension"]): (
            to_tenths(r["SCR"]),
            None if r["SI"].strip() in ("", "--") else to_tenths(r["SI"]),
        )
        for r in _rows(files["table2"])
    }
    t3_rows = _rows(files["table3"])
    table3 = {
        r["dimension"]: (
            int(r["items"]),
            to_tenths(r["mean_injected_numbers"]),
            to_tenths(r["mean_naturalness"]),
        )
        for r in t3_rows
    }
    table5 = tuple(
        PairRow(
            r["group"],
            r["model_a"],
            r["model_b"],
            to_thousandths(r["co_failure_rate"]),
            to_thousandths(r["jaccard"]),
        )
        for r in _rows(files["table5"])
    )
    all_fail_rows = _rows(files["table5_all_fail"]) if files["table5_all_fail"].exists() else []
    return Published(
        models=tuple(dict.fromkeys(r["model"] for r in t1_rows)),
        dimensions=tuple(r["dimension"] for r in t3_rows if r["dimension"] != OVERALL),
        table1=table1,
        table2=table2,
        table3=table3,
        table5=table5,
        table6=_read_table6(files["table6"]),
        table7=_read_table7(files["table7"]),
        table5_all_fail=int(all_fail_rows[0]["items_failed_by_all"]) if all_fail_rows else None,
    )
