"""Hostile-names corpus: one small analysis of every kind whose models, items and
categories carry the names real evaluations have.

Each analysis starts from the kind's own seeded generator at a small size (the
data the kind's workflow test uses) and then renames every model, in the run
files and in every CSV beside them (``models.csv``, ``published/*.csv``), so the
published check still finds its models. The names are the ones that broke
tables before: numbers (training checkpoints), NA-likes, Markdown and LaTeX
specials, mathtext dollars, a line break inside a quoted CSV field, formula-like
prefixes, HTML, CJK, emoji, right-to-left text and a 200-character name. The
benchmark analysis also gets hostile item ids, tasks and categories, and a
published leaderboard in percent naming every model (and one the run lacks).

Run ``python tests/names_corpus/make_names_corpus.py --out DIR`` to write the
raw folders and the config that analyses them
(``snakemake --configfile DIR/names.yaml``).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import shutil
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "salitrap"))

# Names a model may carry. Whitespace at either end is not here: ids are trimmed
# where two files are joined, so " padded " is not expected back byte for byte.
MODEL_NAMES = [
    "1000",
    "2000",
    "NA",
    "None",
    "null",
    "nan",
    "N/A",
    "org/model | v2",
    "line\nbreak",
    "$\\undefinedmacro$",
    "a$b$c",
    "50% & co_#1 {x}~^\\",
    "<script>alert(1)</script>",
    '=HYPERLINK("http://x")',
    "@org/model",
    "+7",
    'say "hi", twice',
    "中文模型",
    "😀-bot",
    "עברית-מודל",
    "BH q < 0.05 > p",
    "m" * 200,
]
# Item ids, tasks and categories of the benchmark analysis.
ITEM_NAMES = ["1", "01", "NA", "a|b", "x\ny", "$q$", "<i>", "=1+1", "題目", "😀", "a,b", 'q"'] + [
    f"item-{k:03d}" for k in range(28)
]
TASKS = ["task | one", "2", "NA"]
CATEGORIES = ["cat & co", "null", "中文", "$x$"]

MODEL_FIELDS = ("model", "model_id", "model_a", "model_b")
KINDS = ("salitrap", "tag_sycophancy", "bias_awareness", "cot_loadbearing", "benchmark")


def analysis_name(kind: str) -> str:
    return f"names_{kind}"


def rename_jsonl(path: Path, mapping: dict[str, str]) -> None:
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for field in MODEL_FIELDS:
            if isinstance(record.get(field), str) and record[field] in mapping:
                record[field] = mapping[record[field]]
        lines.append(json.dumps(record, ensure_ascii=False))
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


def rename_csv(path: Path, mapping: dict[str, str]) -> None:
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    if not rows:
        return
    header, body = rows[0], rows[1:]
    columns = [i for i, name in enumerate(header) if name in MODEL_FIELDS]
    for row in body:
        for i in columns:
            if i < len(row) and row[i] in mapping:
                row[i] = mapping[row[i]]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([header, *body])
    path.write_text(out.getvalue(), encoding="utf-8")


def models_in(raw: Path) -> list[str]:
    """Every model named in the run files, in first-seen order."""
    seen: dict[str, None] = {}
    for path in sorted((raw / "runs").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            for field in ("model", "model_id"):
                if isinstance(record.get(field), str):
                    seen.setdefault(record[field])
    return list(seen)


def rename_models(raw: Path, names: list[str]) -> dict[str, str]:
    """Rename every model of ``raw`` to the next hostile name; return the mapping."""
    originals = models_in(raw)
    if len(originals) > len(names):
        raise ValueError(f"{raw}: {len(originals)} models, only {len(names)} names")
    mapping = dict(zip(originals, names, strict=False))
    for path in sorted(raw.rglob("*.jsonl")):
        rename_jsonl(path, mapping)
    for path in sorted(raw.rglob("*.csv")):
        rename_csv(path, mapping)
    return mapping


def _names_from(offset: int, count: int) -> list[str]:
    return [MODEL_NAMES[(offset + k) % len(MODEL_NAMES)] for k in range(count)]


def make_salitrap(raw: Path) -> None:
    import tiny

    tiny.write_dataset(raw, models=("Model-A", "Model-B", "Model-C", "Model-D"), experiments=True)
    shutil.copytree(REPO / "raw" / "salitrap" / "published", raw / "published")
    (raw / "SIMULATED.md").write_text("hostile-names corpus: simulated test data\n")


def make_tag_sycophancy(raw: Path) -> None:
    from rederive.simulate.tag_sycophancy import generate

    published = REPO / "raw" / "tag_sycophancy" / "published"
    models = ["MythoMax-L2-13B", "Claude-Fable-5", "Gemini-3-Flash", "GPT-3.5-Turbo", "Grok-4.3"]
    generate(raw, published, models=models, n_items=8, n_samples=2)
    shutil.copytree(published, raw / "published")


def make_bias_awareness(raw: Path) -> None:
    from rederive.simulate.bias_awareness import generate

    shutil.copytree(REPO / "raw" / "bias_awareness" / "published", raw / "published")
    generate(raw, n_questions=30)
    (raw / "SIMULATED.md").write_text("hostile-names corpus: simulated test data\n")


def make_cot_loadbearing(raw: Path) -> None:
    from rederive.simulate.cot_loadbearing import generate

    published = REPO / "raw" / "cot_loadbearing" / "published"
    generate(raw, published, scale=0.04)
    shutil.copytree(published, raw / "published")
    (raw / "SIMULATED.md").write_text("hostile-names corpus: simulated test data\n")


def make_benchmark(raw: Path, models: list[str]) -> None:
    """A long CSV: every model on every item, hostile ids, tasks and categories."""
    rows = []
    for m, model in enumerate(models):
        for i, item in enumerate(ITEM_NAMES):
            # Deterministic, distinct accuracies; two models tie on purpose.
            correct = int((i * 7 + m * 3) % 10 < 4 + min(m, 4))
            rows.append(
                [model, item, correct, TASKS[i % len(TASKS)], CATEGORIES[i % len(CATEGORIES)]]
            )
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(
        [["model", "item_id", "correct", "task", "category"], *rows]
    )
    (raw / "long").mkdir(parents=True)
    (raw / "long" / "names.csv").write_text(out.getvalue(), encoding="utf-8")
    write_published_leaderboard(raw / "published" / "names_leaderboard.csv", rows)


#: A published model the run does not have: its check row is n/a, name and all.
GHOST_MODEL = "ghost | model\nnot in the run"


def write_published_leaderboard(path: Path, rows: list[list]) -> None:
    """Every model's accuracy as a leaderboard prints it: in percent, with a ``%``,
    one decimal (k/40 items is a multiple of 2.5 %), plus :data:`GHOST_MODEL`.

    The hostile names then reach the published check's cell rows and its
    Markdown, and the check reads the percentages as printed (issue 37).
    """
    totals: dict[str, list[int]] = {}
    for model, _, correct, *_ in rows:
        totals.setdefault(model, []).append(correct)
    board = [[m, f"{100 * sum(v) / len(v):.1f}%"] for m, v in totals.items()]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(
        [["model", "score"], *board, [GHOST_MODEL, "50.0%"]]
    )
    path.parent.mkdir(parents=True)
    path.write_text(out.getvalue(), encoding="utf-8")


def write_corpus(out: Path) -> dict:
    """Write one raw folder per kind under ``out`` and ``out/names.yaml``; return the config.

    Returns
    -------
    dict
        The config (``build`` and ``analyses``) plus ``names``: analysis → the model
        names it carries (what every table must give back byte for byte).
    """
    out = Path(out)
    analyses, names = {}, {}
    offset = 0
    for kind in KINDS:
        raw = out / "raw" / kind
        if kind == "benchmark":
            # Every name at once: a long CSV costs nothing to make bigger.
            models = list(MODEL_NAMES)
            make_benchmark(raw, models)
        else:
            {
                "salitrap": make_salitrap,
                "tag_sycophancy": make_tag_sycophancy,
                "bias_awareness": make_bias_awareness,
                "cot_loadbearing": make_cot_loadbearing,
            }[kind](raw)
            n = len(models_in(raw))
            models = list(rename_models(raw, _names_from(offset, n)).values())
        offset += len(models)
        name = analysis_name(kind)
        analyses[name] = {
            "kind": kind,
            "label": f"Names | {kind} <corpus> & $x$",
            "raw_dir": str(raw),
            "bootstrap": {"n_boot": 200},
        }
        names[name] = models
    analyses[analysis_name("salitrap")]["irt"] = {"epochs": 50, "n_boot": 20}
    analyses[analysis_name("cot_loadbearing")]["min_subject_n"] = 5
    config = {"build": list(analyses), "analyses": analyses}
    (out / "names.yaml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    return {**config, "names": names}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder to write (new)")
    args = parser.parse_args(argv)
    corpus = write_corpus(args.out)
    for name, models in corpus["names"].items():
        print(f"{name}: {len(models)} models")
    print(f"config: {args.out / 'names.yaml'}")


if __name__ == "__main__":
    main()
