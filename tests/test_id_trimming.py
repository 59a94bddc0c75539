"""Ids joined across two files are matched after trimming surrounding whitespace
(issue 26 item 3): every reader and side table trims an id when it reads it, so
``"GPT-4o "`` in a spreadsheet-edited models.csv keeps its lineage and its place
in the trend fit instead of silently becoming a model of its own."""

import json

import pytest
import yaml
from workflow_utils import REPO

from rederive.errors import InputError
from rederive.studies.bias_awareness.ingest import label_run as bias_label_run
from rederive.studies.bias_awareness.items import read_items as bias_items
from rederive.studies.salitrap.warehouse import read_models as salitrap_models
from rederive.studies.tag_sycophancy import ARMS
from rederive.studies.tag_sycophancy.ingest import label_run
from rederive.studies.tag_sycophancy.inputs import read_items
from rederive.studies.tag_sycophancy.inputs import read_models as tagsyc_models

MODELS_CSV = (
    "model,lineage,vendor,release_date,tier\n"
    "GPT-4o ,GPT,OpenAI,2024-05-13,frontier\n"
    " Claude-3-Opus,Claude,Anthropic,2024-03-04,frontier\n"
)


@pytest.mark.parametrize("read", [tagsyc_models, salitrap_models])
def test_models_csv_names_are_trimmed_so_the_run_keeps_its_metadata(tmp_path, read):
    path = tmp_path / "models.csv"
    path.write_text(MODELS_CSV)
    frame = read(path, ["Claude-3-Opus", "GPT-4o"]).set_index("model")
    assert sorted(frame.index) == ["Claude-3-Opus", "GPT-4o"]  # no third, untrimmed model
    assert frame.loc["GPT-4o", "vendor"] == "OpenAI"
    assert frame.loc["Claude-3-Opus", "vendor"] == "Anthropic"


def test_two_rows_equal_after_trimming_are_listed_twice(tmp_path):
    path = tmp_path / "models.csv"
    path.write_text(MODELS_CSV + "GPT-4o,GPT,OpenAI,2024-05-13,frontier\n")
    with pytest.raises(InputError, match="listed twice") as err:
        tagsyc_models(path, ["GPT-4o"])
    assert err.value.line == 4


@pytest.mark.parametrize("read", [tagsyc_models, salitrap_models])
def test_a_blank_model_in_models_csv_is_an_error(tmp_path, read):
    path = tmp_path / "models.csv"
    path.write_text("model,lineage\n  ,GPT\n")
    with pytest.raises(InputError, match="model is blank") as err:
        read(path, ["GPT-4o"])
    assert (err.value.line, err.value.field) == (2, "model")


def run_rows(model_spellings):
    return [
        {"model": m, "item_id": "T01", "option": "x", "arm": arm, "sample": 0, "response": "Yes."}
        for m, arm in zip(model_spellings, ["ask", "tag"], strict=False)
    ]


def test_run_file_model_names_are_trimmed(tmp_path):
    items = tmp_path / "items.jsonl"
    item = {"item_id": "T01 ", "decision": "d", "option_x": "a", "option_y": "b"}
    items.write_text(json.dumps({**item, "category": "taste"}) + "\n")
    run = tmp_path / "M.jsonl"
    run.write_text("".join(json.dumps(r) + "\n" for r in run_rows(["GPT-4o ", " GPT-4o"])))
    labelled, acct = label_run(
        run, read_items(items), run="M", arms=ARMS, endorse_words=["yes"], reject_words=["no"]
    )
    assert set(labelled["model"]) == {"GPT-4o"}  # one model, not a "mixes models" error
    assert set(labelled["item_id"]) == {"T01"}
    assert acct.rows_used == 2


def test_bias_awareness_model_names_are_trimmed(tmp_path):
    raw = REPO / "raw" / "bias_awareness"
    keywords = yaml.safe_load((REPO / "config" / "kinds" / "bias_awareness.yaml").read_text())[
        "keyword_awareness"
    ]
    lines = (raw / "runs" / "GPT-4o.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["model"] = "GPT-4o  "
    run = tmp_path / "GPT-4o.jsonl"
    run.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    labelled, _ = bias_label_run(
        run, bias_items(raw / "items.jsonl"), run="GPT-4o", keyword_config=keywords
    )
    assert set(labelled["model"]) == {"GPT-4o"}
