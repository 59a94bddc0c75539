"""Ingest SaliTrap run files (authors' eval JSONL), validate and label each.

Rule ``ingest_salitrap_batch`` runs this on one batch of runs
(``rederive.io.batches``); each run is read and written on its own.

Decisions per kind of bad input (documented in README, tested in
``tests/salitrap/test_ingest.py``):

=============================================  ===========================================
input                                          outcome
=============================================  ===========================================
malformed JSON line                            error (file, line): the row is unknowable
missing required field                         error (file, line, field)
``condition`` not configured                   error (file, line, field)
label neither valid nor a known invalid label  error (file, line, field) — spec: data error
``item_id`` absent from items.jsonl            counted exclusion ``unknown_item``
``seed_id``/``dimension_tag`` ≠ items.jsonl    error: the run was made on another item set
``skipped: true``                              counted exclusion ``skipped``
invalid label (JudgeError, Unknown, …)         counted exclusion under its configured reason
``error`` set on an otherwise valid label     counted exclusion ``api_error``
duplicate (model, item, condition), same label counted exclusion ``duplicate`` (first kept)
duplicate with a different label               error naming both lines
=============================================  ===========================================
"""

import pandas as pd

from rederive.errors import InputError, relpath
from rederive.io.accounting import Accounting, ingest_batch
from rederive.io.hashing import sha256_file
from rederive.io.jsonl import iter_jsonl, require_fields, require_id, require_type
from rederive.studies.salitrap.items import dimension_of

RUN_FIELDS = ["item_id", "model_id", "seed_id", "dimension_tag", "judge_label", "skipped", "error"]


def _non_blank(value: str) -> bool:
    return value.strip() != ""


LABELLED_COLUMNS = [
    "run",
    "model_id",
    "item_id",
    "seed_id",
    "dimension",
    "condition",
    "label",
    "line",
]


def label_run(
    path,
    items: pd.DataFrame,
    *,
    run: str,
    valid_labels: list[str],
    invalid_labels: dict[str, str],
    conditions: list[str],
    dimensions: dict[str, str],
) -> tuple[pd.DataFrame, Accounting]:
    """Validate and label every row of one run file.

    Parameters
    ----------
    path : path-like
        ``runs/<run>.jsonl``.
    items : DataFrame
        Validated items (:func:`rederive.studies.salitrap.items.read_items`).
    run : str
        Run id (file stem).
    valid_labels, invalid_labels, conditions, dimensions
        Vocabulary from config.

    Returns
    -------
    labelled : DataFrame
        Usable rows, columns :data:`LABELLED_COLUMNS`.
    accounting : Accounting
        Rows read / used / excluded by reason; balances by construction.
    """
    name = relpath(path)
    acct = Accounting(study="salitrap", run=run, file=name, sha256=sha256_file(path))
    # Plain dicts: a pandas .loc per row was 58% of the time of a 20k-row run.
    item_facts = zip(items["seed_id"], items["dimension"], strict=True)
    by_item = dict(zip(items["item_id"], item_facts, strict=True))
    dimension_of_tag: dict[str, str] = {}
    valid = set(valid_labels)
    rows, first_seen = [], {}
    for line, rec in iter_jsonl(path):
        acct.rows_read += 1
        require_fields(rec, RUN_FIELDS, file=name, line=line)
        # A null or numeric model would become a model called "None" / "3".
        model_id = require_type(
            rec,
            "model_id",
            str,
            file=name,
            line=line,
            message=f"expected the model name, got {rec['model_id']!r}",
            valid=_non_blank,
        )
        item_id = require_id(rec, "item_id", file=name, line=line)
        condition = rec.get("condition") or "control"
        if condition not in conditions:
            raise InputError(
                f"unknown condition {condition!r}; configured: {', '.join(conditions)}",
                file=name,
                line=line,
                field="condition",
            )
        if not isinstance(rec["skipped"], bool):
            raise InputError(
                f"expected true/false, got {rec['skipped']!r}",
                file=name,
                line=line,
                field="skipped",
            )
        label = rec["judge_label"]
        if not isinstance(label, str) or not (label in valid or label in invalid_labels):
            raise InputError(
                f"unknown judge label {label!r}; valid: {', '.join(valid_labels)}; "
                f"invalid (excluded): {', '.join(invalid_labels)}",
                file=name,
                line=line,
                field="judge_label",
            )
        if item_id not in by_item:
            acct.exclude("unknown_item", line)
            continue
        seed_id, dimension = by_item[item_id]
        if str(rec["seed_id"]) != seed_id:
            raise InputError(
                f"seed_id {rec['seed_id']!r} disagrees with items.jsonl ({seed_id!r}) for item {item_id}: "
                "was this run made on another version of the item set?",
                file=name,
                line=line,
                field="seed_id",
            )
        tag = rec["dimension_tag"]
        if not isinstance(tag, str) or tag not in dimension_of_tag:
            # Raises with this line for an unknown or non-string tag.
            dimension_of_tag[tag] = dimension_of(tag, dimensions, file=name, line=line)
        if dimension_of_tag[tag] != dimension:
            raise InputError(
                f"dimension_tag {rec['dimension_tag']!r} disagrees with items.jsonl for item {item_id}",
                file=name,
                line=line,
                field="dimension_tag",
            )
        if rec["skipped"]:
            acct.exclude("skipped", line)
            continue
        # The label's own reason first: a JudgeError row carries its message in `error`.
        if label in invalid_labels:
            acct.exclude(invalid_labels[label], line)
            continue
        if rec["error"] not in (None, ""):
            acct.exclude("api_error", line)
            continue
        key = (model_id.strip(), item_id, condition)
        if key in first_seen:
            first_line, first_label = first_seen[key]
            if first_label != label:
                raise InputError(
                    f"duplicate row for model {key[0]}, item {item_id}, condition {condition} "
                    f"with a different label than line {first_line} ({first_label!r} vs {label!r})",
                    file=name,
                    line=line,
                    field="judge_label",
                )
            acct.exclude("duplicate", line)
            continue
        first_seen[key] = (line, label)
        rows.append(
            {
                "run": run,
                "model_id": key[0],
                "item_id": item_id,
                "seed_id": seed_id,
                "dimension": dimension,
                "condition": condition,
                "label": label,
                "line": line,
            }
        )
        acct.rows_used += 1
    if acct.rows_read == 0:
        raise InputError("run file has no rows", file=name)
    acct.check_balance()
    return pd.DataFrame(rows, columns=LABELLED_COLUMNS), acct


def main(snakemake):
    items = pd.read_parquet(snakemake.input.item_table)
    p = snakemake.params
    ingest_batch(
        snakemake.output.ingested,
        p.runs,
        snakemake.input.runs,
        lambda run, path: label_run(
            path,
            items,
            run=run,
            valid_labels=p.valid_labels,
            invalid_labels=p.invalid_labels,
            conditions=p.conditions,
            dimensions=p.dimensions,
        ),
        root=snakemake.params.raw_dir,
        analysis=snakemake.wildcards.analysis,
    )


if __name__ == "__main__" and "snakemake" in globals():
    from rederive.runner import run

    run(main, snakemake)  # noqa: F821
