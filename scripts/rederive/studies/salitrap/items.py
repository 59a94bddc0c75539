"""Read and validate ``items.jsonl`` (SaliTrap Appendix A schema).

References
----------
SaliTrap (seed paper 000), Appendix A: item fields and the four trap dimensions.
"""

import numbers

import pandas as pd

from rederive.errors import InputError, relpath
from rederive.io.jsonl import iter_jsonl, require_fields, require_id

ITEM_FIELDS = [
    "item_id",
    "seed_id",
    "prompt",
    "trap_core",
    "ground_truth",
    "injected_numbers",
    "dimension_tag",
    "naturalness_score",
    "attack_tier",
]


def dimension_of(
    tag, mapping: dict[str, str], *, file: str, line: int, field: str = "dimension_tag"
) -> str:
    """Map an authors' ``dimension_tag`` ("Dimension 1: …") to a dimension id.

    Longest prefix wins so that "Dimension 1" does not capture "Dimension 10".
    """
    if not isinstance(tag, str):
        raise InputError(f"expected a string, got {tag!r}", file=file, line=line, field=field)
    for prefix in sorted(mapping, key=len, reverse=True):
        rest = tag[len(prefix) :]
        if tag.startswith(prefix) and (not rest or not rest[0].isdigit()):
            return mapping[prefix]
    known = ", ".join(sorted(mapping))
    raise InputError(
        f"unknown dimension tag {tag!r}; configured prefixes: {known}",
        file=file,
        line=line,
        field=field,
    )


def read_items(path, dimensions: dict[str, str]) -> pd.DataFrame:
    """Validated item table: one row per item, sorted by ``item_id``.

    Raises
    ------
    InputError
        Malformed line, missing field, duplicate ``item_id``, unknown dimension,
        non-numeric injected numbers or a naturalness score outside 1–5.
    """
    name = relpath(path)
    rows, seen = [], {}
    for line, record in iter_jsonl(path):
        require_fields(record, ITEM_FIELDS, file=name, line=line)
        item_id = require_id(record, "item_id", file=name, line=line)
        if item_id in seen:
            raise InputError(
                f"duplicate item_id {item_id!r} (first on line {seen[item_id]})",
                file=name,
                line=line,
                field="item_id",
            )
        seen[item_id] = line
        numbers_ = record["injected_numbers"]
        if not isinstance(numbers_, list) or not all(
            isinstance(v, numbers.Number) and not isinstance(v, bool) for v in numbers_
        ):
            raise InputError(
                "expected a list of numbers", file=name, line=line, field="injected_numbers"
            )
        score = record["naturalness_score"]
        if not isinstance(score, numbers.Number) or isinstance(score, bool) or not 1 <= score <= 5:
            raise InputError(
                f"expected a number from 1 to 5, got {score!r}",
                file=name,
                line=line,
                field="naturalness_score",
            )
        rows.append(
            {
                "item_id": item_id,
                "seed_id": require_id(record, "seed_id", file=name, line=line),
                "dimension": dimension_of(
                    record["dimension_tag"], dimensions, file=name, line=line
                ),
                "dimension_tag": record["dimension_tag"],
                "n_injected": len(numbers_),
                "naturalness": float(score),
                "attack_tier": str(record["attack_tier"]),
            }
        )
    if not rows:
        raise InputError("no items found", file=name)
    return pd.DataFrame(rows).sort_values("item_id", kind="stable").reset_index(drop=True)


def main(snakemake):
    items = read_items(snakemake.input.items_jsonl, snakemake.params.dimensions)
    items.to_parquet(snakemake.output.item_table, index=False)


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
