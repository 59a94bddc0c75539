"""The validation figures docs/audit.md quotes are what ``bench/audit_validation.py
--copies 20`` prints (seed 20261203): run in-process (~10 s), so marked slow."""

import importlib.util

import pytest
from test_docs import DOCS, parse_blocks
from workflow_utils import REPO

pytestmark = pytest.mark.slow


def _validation():
    spec = importlib.util.spec_from_file_location(
        "audit_validation", REPO / "bench" / "audit_validation.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_planted_error_counts_are_the_documented_ones(capsys):
    (shown,) = [
        b.text for b in parse_blocks(DOCS / "audit.md") if b.text.startswith("bold inside MDE")
    ]
    _validation().main(["--copies", "20"])
    printed = capsys.readouterr().out
    correct, planted = printed.split("## Planted errors (found / planted)\n")
    # The planted counts, as the page lists them (the bench's last line, which tables
    # were planted, is not quoted).
    assert planted.strip().splitlines()[:-1] == shown.splitlines(), printed
    # "On the 20 correct published tables and the leaderboard: 0 errors".
    tables = [line for line in correct.splitlines() if " tables, " in line]
    assert sum(int(line.split(": ")[1].split()[0]) for line in tables) == 20
    assert all(" 0 errors" in line for line in correct.splitlines()[1:] if ":" in line)
