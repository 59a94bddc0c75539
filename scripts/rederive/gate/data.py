"""The gate's input: two models' per-item scores, from a built analysis or from run files.

A *source* is where a model's scores come from:

* a built benchmark analysis, ``results/<name>`` (or its ``<name>.duckdb``):
  the warehouse, opened read-only; the scores are the analysis's own (the
  ``scores`` table: epoch means on the analysis's item set, the numbers of
  ``pairwise.csv``) and the epochs behind them its ``responses`` rows;
* run files, or folders of them, in any registered format
  (:mod:`rederive.io.formats`): a folder laid out as a ``raw_dir`` (``matrix/``,
  ``lm_eval/``, … and an optional ``items.csv``) is read as the workflow reads
  it; any other folder is searched as ``inputs: {auto: …}`` does; a file is one
  run of the format that detects it (or ``fmt``). The rows are read and checked
  by the workflow's own readers and warehouse checks
  (:func:`rederive.studies.benchmark.warehouse.build_tables`: one run per model
  and task, one document per item id, one category per item), and every row a
  reader excludes is counted in the source's notes.

Items are matched on ``task:item_id`` (the warehouse's ``item_key``), within a
source and across two sources alike, so the same model in last release's
folder and today's can be gated if their item ids are shared.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from rederive.errors import InputError, relpath
from rederive.io import formats
from rederive.io.run_files import RunFilesError, run_id
from rederive.io.warehouse import read_only

#: How items are matched: the warehouse's ``item_key`` (``task:item_id``).
ITEM_KEY = "item_key"
ITEM_COLUMNS = ["item_key", "task", "item_id", "category", "group"]
SCHEMA = Path(__file__).resolve().parents[3] / "config" / "schemas" / "benchmark.schema.yaml"


@dataclass(frozen=True)
class ModelScores:
    """One model's per-item scores from one source.

    Attributes
    ----------
    model : str
        The model's name in its source.
    source : str
        The source as given (a path).
    items : pandas.DataFrame
        One row per scored item, in the source's item order: :data:`ITEM_COLUMNS`,
        ``score`` (the epoch mean) and ``n_epochs``.
    epochs : pandas.DataFrame
        One row per graded epoch of those items: ``item_key``, ``correct``.
    n_unshared : int
        Items the model answered in its source that the other model(s) loaded
        with it did not (left out by the source's intersection).
    notes : tuple of str
        What the source says about this model's items (items an analysis left
        out, rows a reader excluded).
    """

    model: str
    source: str
    items: pd.DataFrame
    epochs: pd.DataFrame
    n_unshared: int = 0
    notes: tuple[str, ...] = ()


def _refuse_unknown(model: str, known: list[str], source: str) -> None:
    shown = ", ".join(known[:30]) + (" …" if len(known) > 30 else "")
    raise InputError(f"no model {model!r} here; the models are: {shown}", file=source)


class WarehouseSource:
    """A built benchmark analysis: ``results/<name>/<name>.duckdb``, read-only."""

    kind = "analysis"

    def __init__(self, db: str | Path, label: str | None = None):
        self.db = Path(db)
        self.label = label or relpath(self.db)

    @cached_property
    def models(self) -> list[str]:
        with read_only(self.db) as con:
            return sorted(m for (m,) in con.execute("SELECT DISTINCT model FROM scores").fetchall())

    def _left_out(self, model: str) -> None:
        """Refuse a model the warehouse read but did not score, saying why."""
        with read_only(self.db) as con:
            seen = con.execute(
                "SELECT count(*) FROM responses WHERE model = $m", {"m": model}
            ).fetchall()[0][0]
            reason = con.execute(
                "SELECT reason FROM shared_items WHERE model = $m", {"m": model}
            ).fetchall()
        if not seen:
            _refuse_unknown(model, self.models, self.label)
        why = f" ({reason[0][0]})" if reason and reason[0][0] else ""
        raise InputError(
            f"model {model!r} was read but left out of this analysis's shared item set{why}, "
            "so it has no scores here; gate it on its run files instead (python -m "
            "rederive.gate <raw folder> …), which compares on the items the two models share",
            file=self.label,
        )

    def load(self, models: list[str]) -> dict[str, ModelScores]:
        """Each model's scores: the analysis's item set (the same for every scored model)."""
        for model in models:
            if model not in self.models:
                self._left_out(model)
        out = {}
        with read_only(self.db) as con:
            items = con.execute("SELECT * FROM items").df()
            items = items.reindex(columns=ITEM_COLUMNS)
            for model in models:
                scores = con.execute(
                    "SELECT item_key, score, n_epochs FROM scores WHERE model = $m", {"m": model}
                ).df()
                epochs = con.execute(
                    "SELECT r.item_key, CAST(r.correct AS DOUBLE) AS correct FROM responses r "
                    "SEMI JOIN scores s ON s.model = r.model AND s.item_key = r.item_key "
                    "WHERE r.model = $m AND r.correct IS NOT NULL ORDER BY r.rowid",
                    {"m": model},
                ).df()
                overlap = con.execute(
                    "SELECT n_items_answered, n_dropped FROM overlap WHERE model = $m",
                    {"m": model},
                ).fetchall()
                notes = []
                if overlap and overlap[0][1]:
                    answered, dropped = overlap[0]
                    notes.append(
                        f"{model}: the analysis scored {answered - dropped:,} of its "
                        f"{answered:,} items ({dropped:,} not shared by every model it kept)"
                    )
                table = items.merge(scores, on=ITEM_KEY, how="inner", sort=False)
                out[model] = ModelScores(model, self.label, table, epochs, 0, tuple(notes))
        return out


@dataclass(frozen=True)
class Run:
    format: str
    name: str
    path: Path

    @property
    def id(self) -> str:
        return f"{self.format}-{run_id(self.name)}"


def _raw_layout(folder: Path) -> bool:
    """A ``raw_dir``: it has a sub-folder named after an input format."""
    return any((folder / name).is_dir() for name in formats.names())


def find_runs(paths: list[str | Path], fmt: str | None = None) -> tuple[list[Run], Path | None]:
    """The runs behind ``paths`` and the ``items.csv`` that goes with them (or None).

    A ``raw_dir`` folder is read as the workflow reads it (each format's folder);
    any other folder as ``inputs: {auto: folder}`` (or with ``fmt``'s
    ``find_runs``); a file is a run of ``fmt`` or of the one format that detects it.
    """
    from rederive.studies.benchmark.sources import discover

    runs: list[Run] = []
    items_file = None
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise InputError("no such file or folder", file=str(raw))
        if path.is_dir() and fmt is None and _raw_layout(path):
            try:
                found = discover(path)
            except (RunFilesError, ValueError) as exc:
                raise InputError(str(exc), file=relpath(path)) from None
            runs += [Run(s.format, s.run.split("-", 1)[1], s.path) for s in found.values()]
            if (path / "items.csv").is_file():
                items_file = path / "items.csv"
        elif path.is_dir():
            if fmt is not None:
                try:
                    found = formats.get(fmt).find_runs(path)
                except RunFilesError as exc:
                    raise InputError(str(exc), file=relpath(path)) from None
                runs += [Run(fmt, name, p) for name, p in found]
            else:
                skip = (path / "items.csv", path / "published")
                runs += [Run(f, n, p) for f, n, p in formats.find_auto_runs(path, skip=skip)]
        else:
            if fmt is not None:
                runs.append(Run(fmt, path.stem, path))
                continue
            matches = formats.detected(path)
            if len(matches) != 1:
                formats.refuse(path, matches)
            runs.append(Run(matches[0], path.stem, path))
    if not runs:
        raise InputError(
            "no run found (see docs/input-formats.md for what each format looks like)",
            file=", ".join(str(p) for p in paths),
        )
    return runs, items_file


def reader_params() -> dict:
    """Every reader's options at the benchmark kind's defaults (and the zip limits)."""
    from rederive.analyses import fill_defaults, load_schema

    defaults = fill_defaults({}, load_schema(SCHEMA))
    return {key: defaults[key] for key in (*formats.names(), "zip_limits") if key in defaults}


def _excluded_notes(accounting) -> list[str]:
    return [
        f"{accounting.file}: {n:,} row(s) excluded ({reason})"
        for reason, n in sorted(accounting.excluded.items())
        if n
    ]


@dataclass
class RunsSource:
    """Run files (or folders of them) read without a workflow."""

    paths: list[str | Path]
    fmt: str | None = None
    kind: str = "runs"
    label: str = field(init=False)

    def __post_init__(self):
        self.label = ", ".join(relpath(p) for p in self.paths)

    @cached_property
    def _read(self) -> tuple[pd.DataFrame, list[str], pd.DataFrame | None]:
        from rederive.studies.benchmark.ingest import ingest
        from rederive.studies.benchmark.warehouse import read_item_metadata

        runs, items_file = find_runs(self.paths, self.fmt)
        ids = [run.id for run in runs]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise InputError(
                f"two runs map to one run id {twice[0]!r}; rename one", file=self.label
            )
        params = reader_params()
        frames, notes = [], []
        for run in runs:
            files = formats.get(run.format).files(run.path)
            frame, accounting = ingest(run.id, run.format, run.path, files, params)
            frames.append(frame)
            notes += _excluded_notes(accounting)
        rows = pd.concat(frames, ignore_index=True)
        return rows, notes, read_item_metadata(items_file)

    @property
    def models(self) -> list[str]:
        return sorted(self._read[0]["model"].dropna().astype(str).unique())

    def load(self, models: list[str]) -> dict[str, ModelScores]:
        """The models' scores on the items they all answered (the workflow's checks).

        Each model's ``n_unshared`` counts the items it answered that another of
        ``models`` did not.
        """
        from rederive.studies.benchmark.warehouse import build_tables

        rows, notes, metadata = self._read
        for model in models:
            if model not in self.models:
                _refuse_unknown(model, self.models, self.label)
        mine = rows[rows["model"].isin(models)]
        tables = build_tables(
            mine,
            metadata,
            "intersection",
            {"min_n": 1, "partial_share": 1.0, "mode": "intersection"},
        )
        items = tables["items"].reindex(columns=ITEM_COLUMNS)
        scores = tables["scores"]
        dropped = tables["overlap"].set_index("model")["n_dropped"]
        responses = tables["responses"]
        out = {}
        for model in models:
            table = items.merge(
                scores.loc[scores["model"] == model, [ITEM_KEY, "score", "n_epochs"]],
                on=ITEM_KEY,
                how="inner",
                sort=False,
            )
            kept = set(table[ITEM_KEY])
            epochs = responses.loc[
                (responses["model"] == model)
                & responses[ITEM_KEY].isin(kept)
                & responses["correct"].notna(),
                [ITEM_KEY, "correct"],
            ].astype({"correct": float})
            out[model] = ModelScores(
                model,
                self.label,
                table,
                epochs.reset_index(drop=True),
                int(dropped.get(model, 0)),
                tuple(notes),
            )
        return out


def open_source(paths: list[str | Path], fmt: str | None = None):
    """A :class:`WarehouseSource` for a built analysis, else a :class:`RunsSource`.

    A built analysis is a folder ``<name>`` holding ``<name>.duckdb`` (the
    workflow's ``results/<name>``) or the ``.duckdb`` file itself, given alone.
    """
    if len(paths) == 1 and fmt is None:
        path = Path(paths[0])
        if path.is_dir() and (path / f"{path.name}.duckdb").is_file():
            return WarehouseSource(path / f"{path.name}.duckdb", label=relpath(path))
        if path.is_file() and path.suffix == ".duckdb":
            return WarehouseSource(path)
    return RunsSource(list(paths), fmt)


@dataclass(frozen=True)
class Pair:
    """Baseline and candidate scores on the items both answered, aligned.

    Attributes
    ----------
    baseline, candidate : ModelScores
    items : pandas.DataFrame
        The shared items in the baseline source's order: :data:`ITEM_COLUMNS`
        (the baseline source's task, category and group), ``baseline``,
        ``candidate`` (scores), ``n_epochs_baseline``, ``n_epochs_candidate``.
    n_baseline_only, n_candidate_only : int
        Items only the baseline (only the candidate) answered: left out.
    epochs : pandas.DataFrame
        Per graded epoch of the shared items: ``model`` (``baseline`` /
        ``candidate``), ``item``, ``correct`` (:func:`rederive.stats.noise.item_summary`'s input).
    """

    baseline: ModelScores
    candidate: ModelScores
    items: pd.DataFrame
    n_baseline_only: int
    n_candidate_only: int
    epochs: pd.DataFrame


def _examples(keys) -> str:
    keys = sorted(keys)
    return ", ".join(keys[:3]) + (" …" if len(keys) > 3 else "")


def align(baseline: ModelScores, candidate: ModelScores, cluster_by: str = "none") -> Pair:
    """The two models on the items both answered (matched on ``task:item_id``).

    Raises
    ------
    InputError
        When no item is shared (with both models' counts and examples), or when
        ``cluster_by`` names a column whose value differs between the two
        sources on a shared item (the clusters would not be defined).
    """
    b, c = baseline.items, candidate.items
    shared = b[ITEM_KEY].isin(set(c[ITEM_KEY]))
    only_b = set(b.loc[~shared, ITEM_KEY])
    only_c = set(c[ITEM_KEY]) - set(b[ITEM_KEY])
    if not shared.any():
        raise InputError(
            f"baseline {baseline.model!r} ({baseline.source}) and candidate "
            f"{candidate.model!r} ({candidate.source}) share no item id: "
            f"{len(b):,} items (e.g. {_examples(b[ITEM_KEY])}) against {len(c):,} "
            f"(e.g. {_examples(c[ITEM_KEY])}); items are matched on task:item_id, so both "
            "runs must name the task and the items the same way",
            file=candidate.source,
            field="item_id",
        )
    merged = b[shared].merge(
        c[[ITEM_KEY, "score", "n_epochs", "category", "group"]],
        on=ITEM_KEY,
        how="left",
        suffixes=("", "_candidate"),
        sort=False,
    )
    if cluster_by != "none":
        left, right = merged[cluster_by], merged[f"{cluster_by}_candidate"]
        differ = left.notna() & right.notna() & (left.astype(str) != right.astype(str))
        if differ.any():
            row = merged[differ].iloc[0]
            raise InputError(
                f"item {row[ITEM_KEY]!r} has {cluster_by} {row[cluster_by]!r} for the baseline "
                f"and {row[f'{cluster_by}_candidate']!r} for the candidate "
                f"({int(differ.sum())} item(s) differ): cluster_by {cluster_by} needs one value "
                "per item",
                file=candidate.source,
                field=cluster_by,
            )
    items = pd.DataFrame(
        {
            **{column: merged[column].to_numpy() for column in ITEM_COLUMNS},
            "baseline": merged["score"].to_numpy(dtype=float),
            "candidate": merged["score_candidate"].to_numpy(dtype=float),
            "n_epochs_baseline": merged["n_epochs"].to_numpy(),
            "n_epochs_candidate": merged["n_epochs_candidate"].to_numpy(),
        }
    )
    kept = set(items[ITEM_KEY])
    epochs = pd.concat(
        [
            side.epochs[side.epochs[ITEM_KEY].isin(kept)].assign(model=role)
            for role, side in (("baseline", baseline), ("candidate", candidate))
        ],
        ignore_index=True,
    ).rename(columns={ITEM_KEY: "item"})[["model", "item", "correct"]]
    return Pair(
        baseline,
        candidate,
        items,
        baseline.n_unshared + len(only_b),
        candidate.n_unshared + len(only_c),
        epochs,
    )


def clusters_of(items: pd.DataFrame, cluster_by: str) -> np.ndarray | None:
    """Cluster label per shared item (:func:`rederive.studies.benchmark.common.clusters_for`)."""
    from rederive.studies.benchmark.common import clusters_for

    return clusters_for(items, cluster_by)
