"""Rule ``gate_benchmark_candidates``: the analysis's ``gate:`` block, baseline against candidates.

Built only for a benchmark analysis whose ``gate:`` block is set
(``register_kind(only_when=...)`` in ``rules/benchmark.smk``; docs/gate.md, "In
the workflow"). From the analysis's warehouse (read-only: the ``scores`` behind
``pairwise.csv`` and the ``responses`` epochs behind them), each candidate is
gated against the baseline by :func:`rederive.gate.compare.run_gate`
(statistics: :mod:`rederive.stats.gate`): the paired difference on the items
both answered, its interval by the analysis's method (Tango's paired score
interval with the exact McNemar test for 0/1 scores, paired t for fractional
ones, clustered t with ``cluster_by``), the verdict (better, not worse, worse,
inconclusive) and, per task with ``by: task``, BH across tasks.

Writes ``gate.csv``, ``gate.md`` and ``gate.json`` (docs/gate.md). The verdict
never fails the job: ``fail_on`` sets ``exit_code`` and ``passed`` in
``gate.json``, for a CI step to read (or run ``python -m rederive.gate`` on the
built analysis, which exits with that status).

Params: ``gate`` (the block: ``baseline``, ``candidate`` (a name or a list),
``margin_pp``, ``level``, ``by``, ``fail_on``), ``cluster_by``, ``min_n`` and
``power`` (the analysis's power block; its ``target`` is the power of the MDE
and of the items needed); ``gate_text`` (:func:`rederive.gate.outputs.describe`)
is the captions' sentence.
"""

from rederive.errors import InputError
from rederive.gate.compare import Settings, run_gate
from rederive.gate.data import WarehouseSource
from rederive.gate.outputs import write_csv, write_json, write_markdown
from rederive.runner import run


def candidates_of(block: dict) -> list[str]:
    """The ``candidate`` entry as a list (one name or several)."""
    value = block["candidate"]
    return [value] if isinstance(value, str) else list(value)


def settings_of(block: dict, *, cluster_by: str, min_n: int, power: dict) -> Settings:
    """:class:`Settings` from the gate block and the analysis's shared settings."""
    return Settings(
        margin_pp=float(block["margin_pp"]),
        level=float(block["level"]),
        by=block["by"],
        cluster_by=cluster_by,
        fail_on=block["fail_on"],
        min_n=max(int(min_n), 2),
        power=float(power["target"]),
    )


def main(snakemake):
    p = snakemake.params
    block = dict(p.gate)
    name = snakemake.wildcards.analysis
    source = WarehouseSource(snakemake.input.db, label=f"analysis {name}")
    try:
        report = run_gate(
            source,
            block["baseline"],
            source,
            candidates_of(block),
            settings_of(block, cluster_by=p.cluster_by, min_n=p.min_n, power=dict(p.power)),
        )
    except InputError as exc:
        # The names come from the config, not from a file: say where to change them.
        raise InputError(
            f"{exc.message} (analyses.{name}.gate names the baseline and candidates; "
            "gate: null builds no gate)",
            file=exc.file,
            field="gate",
        ) from None
    write_csv(report, snakemake.output.csv)
    write_markdown(report, snakemake.output.md)
    write_json(report, snakemake.output.json)


if __name__ == "__main__" and "snakemake" in globals():
    run(main, snakemake)  # noqa: F821
