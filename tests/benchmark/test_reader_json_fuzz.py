"""Every field of one record of the HELM, evalplus and OpenCompass fixtures set to
each wrong JSON type: the reader reads it, counts it, or names the file in an
InputError; it never fails with another exception.

(lighteval's details are parquet, whose schema fixes each column's type; its
broken-row cases are in test_reader_lighteval.py.)
"""

import json
import shutil
from pathlib import Path

import pytest

from rederive.errors import InputError
from rederive.io.accounting import Accounting
from rederive.io.formats import evalplus, helm, opencompass

FIXTURES = Path(__file__).parent / "fixtures"
HELM_RUN = FIXTURES / "helm/benchmark_output/runs/fixture/simple_mcqa:model=helmfix_guesser-b"
EVALPLUS = FIXTURES / "evalplus/0.4.0.dev44/tiny-coder_openai_temp_0.8.eval_results.json"
OPENCOMPASS = (
    next((FIXTURES / "opencompass/outputs").iterdir()) / "results/guesser-a/parity_rep.json"
)
BAD = [None, 7, 2.5, [], {}, "", True, "x"]


def _paths(record, prefix=()):
    """Key paths of one representative record inside each fixture document."""
    if isinstance(record, dict):
        for key, value in record.items():
            yield (*prefix, key)
            if isinstance(value, dict | list):
                yield from _paths(value, (*prefix, key))
    elif isinstance(record, list) and record:
        yield from _paths(record[0], (*prefix, 0))


def _set(document, path, value):
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


def _outcome(module, path, params):
    accounting = Accounting(study="t", run="r", file=str(path), sha256="")
    try:
        module.read(path, params=params, accounting=accounting)
        module.reported(path, params=params)
    except InputError as error:
        assert error.file, error
        return
    accounting.check_balance()


def _cases(document, root, limit=None):
    paths = list(_paths(document, root))
    return [(p, bad) for p in paths[:limit] for bad in BAD]


HELM_ENTRIES = json.loads((HELM_RUN / "per_instance_stats.json").read_text())
HELM_CASES = _cases(HELM_ENTRIES[0], (0,), limit=12)


@pytest.mark.parametrize(("where", "bad"), HELM_CASES, ids=str)
def test_helm_per_instance_fields(tmp_path, where, bad):
    run = tmp_path / HELM_RUN.name
    shutil.copytree(HELM_RUN, run)
    entries = json.loads((run / "per_instance_stats.json").read_text())
    _set(entries, where, bad)
    (run / "per_instance_stats.json").write_text(json.dumps(entries))
    _outcome(helm, run, {"helm": {}})


RUN_SPEC = json.loads((HELM_RUN / "run_spec.json").read_text())


@pytest.mark.parametrize("key", ["name", "adapter_spec", "groups"])
@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_helm_run_spec_fields(tmp_path, key, bad):
    run = tmp_path / HELM_RUN.name
    shutil.copytree(HELM_RUN, run)
    spec = dict(RUN_SPEC, **{key: bad})
    (run / "run_spec.json").write_text(json.dumps(spec))
    _outcome(helm, run, {"helm": {}})


EVALPLUS_DOC = json.loads(EVALPLUS.read_text())


@pytest.mark.parametrize(
    ("where", "bad"), _cases(EVALPLUS_DOC["eval"]["HumanEval/0"], ("eval", "HumanEval/0")), ids=str
)
def test_evalplus_sample_fields(tmp_path, where, bad):
    document = json.loads(EVALPLUS.read_text())
    _set(document, where, bad)
    path = tmp_path / EVALPLUS.name
    path.write_text(json.dumps(document))
    _outcome(evalplus, path, {})


@pytest.mark.parametrize("key", ["eval", "pass_at_k"])
@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_evalplus_top_level_fields(tmp_path, key, bad):
    document = dict(EVALPLUS_DOC, **{key: bad})
    path = tmp_path / EVALPLUS.name
    path.write_text(json.dumps(document))
    _outcome(evalplus, path, {})


OC_DOC = json.loads(OPENCOMPASS.read_text())


@pytest.mark.parametrize(("where", "bad"), _cases(OC_DOC["details"][0], ("details", 0)), ids=str)
def test_opencompass_detail_fields(tmp_path, where, bad):
    document = json.loads(OPENCOMPASS.read_text())
    _set(document, where, bad)
    path = tmp_path / "results" / "guesser-a" / OPENCOMPASS.name
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(document))
    _outcome(opencompass, path, {})


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_opencompass_details_and_score(tmp_path, bad):
    for key in ("details", "score (2 runs average)"):
        document = dict(OC_DOC, **{key: bad})
        path = tmp_path / key / "results" / "guesser-a" / OPENCOMPASS.name
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(document))
        _outcome(opencompass, path, {})


@pytest.mark.parametrize("key", ["mean", "count", "name"])
@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_helm_scored_stat_fields(tmp_path, key, bad):
    run = tmp_path / HELM_RUN.name
    shutil.copytree(HELM_RUN, run)
    entries = json.loads((run / "per_instance_stats.json").read_text())
    for stat in entries[0]["stats"]:
        if stat["name"]["name"] == "quasi_exact_match":
            stat[key] = bad
    (run / "per_instance_stats.json").write_text(json.dumps(entries))
    _outcome(helm, run, {"helm": {"metrics": ["quasi_exact_match"]}})
