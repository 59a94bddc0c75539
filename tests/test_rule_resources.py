"""Rules carry only what is theirs; the job directives come from one helper.

Every rule's log, benchmark, environment and resources are given by
``give_job_directives`` in rules/common.smk (``snakemake --lint`` checks they
are there); a rule file's ``size_jobs(...)`` table sizes its rules from their
inputs (``job_size``), never by a literal per rule.
"""

import re
from pathlib import Path

RULES = Path(__file__).resolve().parents[1] / "rules"
DIRECTIVES = ("log", "benchmark", "conda", "threads", "resources", "wildcard_constraints")


def _rule_blocks():
    for path in sorted(RULES.glob("*.smk")):
        for block in re.split(r"\n(?=rule )", path.read_text()):
            name = re.match(r"rule (\w+):", block)
            if name:
                yield path.name, name.group(1), block.split("\n\n\n")[0]


def test_no_rule_writes_a_job_directive():
    written = [
        f"{file}:{rule} {key}"
        for file, rule, block in _rule_blocks()
        for key in DIRECTIVES
        if re.search(rf"^    {key}:", block, flags=re.M)
    ]
    assert not written, written


def test_the_repeated_stanza_is_gone():
    # Issue 33: the stanza (log, benchmark, conda, threads, resources, wildcard
    # constraints) was 32% of the rule lines; what is left per rule file is one
    # size_jobs table, one line per rule.
    lines = [line for path in RULES.glob("*.smk") for line in path.read_text().splitlines()]
    sizing = [line for line in lines if "job_size(" in line]
    assert len(sizing) / len(lines) < 0.10


def test_every_sized_rule_exists_and_sizes_come_from_job_size():
    rules = {rule for _, rule, _ in _rule_blocks()}
    for path in sorted(RULES.glob("*.smk")):
        text = path.read_text()
        for table in re.findall(r"^size_jobs\((.*?)^\)", text, flags=re.M | re.S):
            for name, value in re.findall(r"^\s+(\w+)=(.*),$", table, flags=re.M):
                assert name in rules, f"{path.name}: size_jobs names {name}, not a rule"
                assert value.startswith("job_size("), f"{path.name}:{name} = {value}"


def test_power_rules_are_seen():
    # One estimate rule per kind, in its own file, and one figure rule for all.
    estimates = sorted(rule for _, rule, _ in _rule_blocks() if rule.startswith("estimate_"))
    assert len(estimates) == 5
    assert [rule for file, rule, _ in _rule_blocks() if file == "power.smk"] == ["plot_power"]
