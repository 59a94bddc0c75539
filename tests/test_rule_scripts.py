"""Every ``script:`` of a rule runs under Snakemake, which puts its own preamble
before the file's first line: a ``from __future__`` import there is a SyntaxError
that only a workflow run would show."""

import re

from workflow_utils import REPO

SCRIPT = re.compile(r'^\s*"\.\./(scripts/[^"]+\.py)"', re.M)


def test_no_rule_script_has_a_future_import():
    scripts = set()
    for smk in (REPO / "rules").glob("*.smk"):
        text = smk.read_text()
        for block in text.split("script:")[1:]:
            match = SCRIPT.match(block)
            if match:
                scripts.add(match.group(1))
    assert len(scripts) > 30
    offenders = [s for s in sorted(scripts) if "from __future__" in (REPO / s).read_text()]
    assert not offenders, offenders
