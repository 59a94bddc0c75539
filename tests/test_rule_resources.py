"""Every rule sizes its job from its inputs (rules/common.smk), never by a literal."""

import re
from pathlib import Path

RULES = Path(__file__).resolve().parents[1] / "rules"


def _rule_blocks():
    for path in sorted(RULES.glob("*.smk")):
        for block in re.split(r"\n(?=rule )", path.read_text()):
            name = re.match(r"rule (\w+):", block)
            if name:
                yield path.name, name.group(1), block


def test_resources_come_from_job_helpers():
    literal = []
    for file, rule, block in _rule_blocks():
        for key in ("mem_mb", "runtime"):
            match = re.search(rf"^\s+{key}=(.+),$", block, flags=re.M)
            if match and not match.group(1).startswith(("job_mem_mb(", "job_runtime(")):
                literal.append(f"{file}:{rule} {key}={match.group(1)}")
    assert not literal, literal


def test_power_rules_are_seen():
    # One estimate rule per kind, in its own file, and one figure rule for all.
    estimates = sorted(rule for _, rule, _ in _rule_blocks() if rule.startswith("estimate_"))
    assert len(estimates) == 5
    assert [rule for file, rule, _ in _rule_blocks() if file == "power.smk"] == ["plot_power"]
