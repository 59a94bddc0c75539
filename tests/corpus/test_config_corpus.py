"""Hostile configuration files (issue 37, item 8): YAML whose aliases expand to
billions of values is refused in a bounded time before anything walks it, in
every place an alias can sit; a large configuration written out is accepted.

The files are loaded with Snakemake's own config loader (``load_configfile``,
the one ``--configfile`` uses), which keeps an alias as one shared object."""

import time

import pytest
import yaml
from corpus.config_bombs import CASES
from snakemake.common.configfile import load_configfile
from workflow_utils import REPO

from rederive.analyses import MAX_CONFIG_VALUES, ConfigError, check_size, resolve

SCHEMAS = REPO / "config" / "schemas"
KINDS = ["salitrap", "tag_sycophancy", "bias_awareness", "cot_loadbearing", "benchmark"]


@pytest.mark.parametrize("case", list(CASES))
def test_an_alias_bomb_is_refused_in_bounded_time(tmp_path, case):
    path = tmp_path / "bomb.yaml"
    path.write_text(CASES[case] + "\n")
    assert path.stat().st_size < 2000  # a few lines expanding to billions
    config = load_configfile(str(path))
    start = time.perf_counter()
    with pytest.raises(ConfigError, match="more than 100,000 values once its YAML aliases"):
        resolve(config, SCHEMAS, KINDS)
    assert time.perf_counter() - start < 5


def test_the_message_names_where_the_bomb_is(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(CASES["unknown_key_in_an_analysis"] + "\n")
    with pytest.raises(ConfigError) as refused:
        check_size(load_configfile(str(path)))
    assert str(refused.value).startswith("analyses.mine.notes: ")


def test_a_large_config_written_out_is_accepted():
    """Values written out (no aliases) up to the limit pass the bound."""
    config = {"analyses": {f"a{i}": {"kind": "benchmark", "raw_dir": "r"} for i in range(9000)}}
    check_size(config)  # 9,000 entries x 5 values each
    big = {"values": list(range(MAX_CONFIG_VALUES - 10))}
    check_size(big)
    with pytest.raises(ConfigError):
        check_size({"values": list(range(MAX_CONFIG_VALUES + 1))})


def test_a_harmless_alias_is_accepted(tmp_path):
    """Aliases as people use them (a shared block) stay allowed."""
    path = tmp_path / "shared.yaml"
    path.write_text(
        "defaults: &defaults {bootstrap: {n_boot: 500}}\n"
        "analyses:\n"
        "  a: {<<: *defaults, kind: benchmark, raw_dir: raw/benchmark}\n"
        "  b: {<<: *defaults, kind: benchmark, raw_dir: raw/benchmark}\n"
        "build: [a, b]\n"
    )
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config.update(load_configfile(str(path)))
    del config["defaults"]
    analyses, build = resolve(config, SCHEMAS, KINDS)
    assert build == ["a", "b"] and analyses["b"]["bootstrap"]["n_boot"] == 500


def test_the_bundled_config_is_far_below_the_bound():
    config = load_configfile(str(REPO / "config" / "config.yaml"))
    check_size(config, limit=1000)
