"""The headline of an analysis: its top-ranked model and the models tied with it,
read from the ranking table the workflow wrote (the site ranks nothing itself)."""

from __future__ import annotations

from dataclasses import dataclass, field

from rederive.site.layout import HeadlineSpec
from rederive.site.tables import Table


@dataclass
class Headline:
    """``top`` is None when the table ranks no model (or is missing)."""

    table: str
    top: str | None = None
    score: str = ""
    tied: list[str] = field(default_factory=list)
    rule: str = ""  # how the tie group was read, for the page


def _cells(table: Table, row: list[str]) -> dict[str, str]:
    return dict(zip(table.columns, row, strict=False))


def _split_tied(text: str, models: list[str]) -> list[str]:
    """The names in a ``tied_with`` cell ("a; b"), matched against the table's
    model names in table order, so a name holding "; " is still one name."""
    out, rest = [], text
    for model in models:
        if not rest:
            break
        if rest == model or rest.startswith(model + "; "):
            out.append(model)
            rest = rest[len(model) + 2 :]
    if rest:  # a name we could not match: keep the cell's own split
        out += [part for part in rest.split("; ") if part]
    return out


def _score(cells: dict[str, str], spec: HeadlineSpec) -> str:
    if not spec.score or not cells.get(spec.score):
        return ""
    text = f"{spec.score_label} {cells[spec.score]}{spec.unit}".strip()
    if spec.low and spec.high and cells.get(spec.low) and cells.get(spec.high):
        text += f" [{cells[spec.low]}, {cells[spec.high]}]"
    return text


def read_headline(table: Table | None, spec: HeadlineSpec) -> Headline:
    """The top model of ``table`` (its first ranked row) and its tie group."""
    headline = Headline(table=spec.table)
    if table is None or not spec.ranks_models or "model" not in table.columns or not table.rows:
        return headline
    ranked = [r for r in table.rows if _cells(table, r).get("small_n", "False") != "True"]
    if not ranked:
        return headline
    top = _cells(table, ranked[0])
    models = [_cells(table, r)["model"] for r in ranked]
    headline.top = top["model"]
    headline.score = _score(top, spec)
    if "tied_with" in table.columns:
        headline.tied = _split_tied(top["tied_with"], models)
        headline.rule = (
            "not separable from it in the paired comparisons, column tied_with of ranking.csv"
        )
    elif "tier" in table.columns:
        headline.tied = [
            _cells(table, r)["model"] for r in ranked[1:] if _cells(table, r)["tier"] == top["tier"]
        ]
        headline.rule = (
            f"in its tier ({top['tier']}) of ranking.csv, no significant step between neighbours"
        )
    return headline
