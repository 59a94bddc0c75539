"""The ``rederive`` command: its subcommands, their help and exit statuses, and
``rederive init`` on folders of real harness outputs.

The folders are built from the real tool outputs under
``tests/benchmark/fixtures/`` (lm-evaluation-harness 0.4.13 model folders,
Inspect 0.3.285 logs, AlpacaEval 2 annotations in the long CSV format) and the
bundled paper-kind folders under ``raw/``; every config ``rederive init``
writes is given to the real Snakefile unchanged.
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from workflow_utils import REPO, SNAKEMAKE

from rederive.analyses import kind_names
from rederive.changes.history import History
from rederive.cli import COMMANDS, main
from rederive.cli import init as cli_init
from rederive.cli.studies import PAPER_KINDS
from rederive.code_version import NOT_IN_JOBS

FIXTURES = REPO / "tests" / "benchmark" / "fixtures"
PREFERENCE_FIXTURES = REPO / "tests" / "preference" / "fixtures"
PYTHON = sys.executable


def run_cli(*argv, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def module(name: str, *argv, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``python -m <name> ARGV`` as a separate process."""
    return subprocess.run(
        [PYTHON, "-m", name, *map(str, argv)], capture_output=True, text=True, cwd=cwd
    )


# --- the command and its wrappers ---------------------------------------------------


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_command_has_complete_help(name, capsys):
    code, out, _ = run_cli(name, "--help", capsys=capsys)
    assert code == 0
    assert out.startswith(f"usage: rederive {name} ")
    assert "exit" in out.lower()  # each help says what its exit statuses mean


def test_top_level_help_lists_every_command_and_unknown_ones_are_refused(capsys):
    code, out, _ = run_cli("--help", capsys=capsys)
    assert code == 0
    for name, (_, summary) in COMMANDS.items():
        assert f"  {name}" in out and summary in out
    code, _, err = run_cli("bogus", capsys=capsys)
    assert code == 2 and "rederive: 'bogus' is not a command" in err
    code, _, err = run_cli(capsys=capsys)
    assert code == 2 and err.startswith("usage: rederive")


def test_python_m_runs_the_command_without_importing_the_library():
    proc = module("rederive.cli", "--help")
    assert proc.returncode == 0 and "rederive init" in proc.stdout
    # Start-up: the dispatcher imports no wrapped module, reader or pandas.
    probe = (
        "import sys; from rederive.cli import main; main(['--help']); "
        "print(sorted(m for m in sys.modules if m.startswith(('pandas', 'rederive.'))))"
    )
    proc = subprocess.run([PYTHON, "-c", probe], capture_output=True, text=True)
    assert proc.returncode == 0
    assert proc.stdout.strip().splitlines()[-1] == "['rederive.cli']"


def write_build(folder: Path, ranking: str) -> Path:
    """A results folder as the workflow leaves it (one table, its build recorded)."""
    manifest = {
        "analysis": "bench",
        "kind": "benchmark",
        "settings": {"label": "Bench"},
        "runs": {"m": {"sha256": "r1", "files": {"long/m.csv": "r1"}}},
        "inputs": {},
        "code": {"commit": "c1", "dirty": False, "library": "lib", "lock": "l"},
    }
    (folder / "tables").mkdir(parents=True)
    (folder / "tables" / "ranking.csv").write_text(ranking)
    History(folder / "history").record(manifest, {"tables/ranking.csv": ranking.encode()})
    return folder


@pytest.fixture
def builds(tmp_path) -> dict[str, Path]:
    header = "order,model,accuracy_pct,rank_best,rank_worst,tied_with,small_n\n"
    a = "1,A,60.0,1,1,,False\n2,B,50.0,2,2,,False\n"
    b = "1,B,60.0,1,1,,False\n2,A,50.0,2,2,,False\n"
    return {
        "a": write_build(tmp_path / "a", header + a),
        "a_copy": write_build(tmp_path / "a_copy", header + a),
        "b": write_build(tmp_path / "b", header + b),
        "missing": tmp_path / "nothing_here",
    }


@pytest.mark.parametrize(
    ("pair", "status"), [(("a", "a_copy"), 0), (("a", "b"), 1), (("a", "missing"), 2)]
)
def test_diff_passes_arguments_and_exit_status_through(builds, pair, status, capsys):
    argv = ["--brief", builds[pair[0]], builds[pair[1]]]
    code, out, err = run_cli("diff", *argv, capsys=capsys)
    direct = module("rederive.diff", *argv)
    assert code == direct.returncode == status
    assert out == direct.stdout
    assert err.replace("rederive diff", "python -m rederive.diff") == direct.stderr


@pytest.fixture
def two_models(tmp_path) -> Path:
    """A long CSV: model A right on every item, B on every other one."""
    path = tmp_path / "runs.csv"
    rows = ["model,item_id,correct"]
    rows += [f"A,q{i},1" for i in range(200)] + [f"B,q{i},{i % 2}" for i in range(200)]
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize(
    ("baseline", "candidate", "status"), [("A", "B", 1), ("B", "A", 0), ("A", None, 3)]
)
def test_gate_keeps_its_own_exit_statuses(two_models, baseline, candidate, status, capsys):
    argv = [two_models, "--baseline", baseline]
    argv += ["--candidate", candidate] if candidate else []
    code, out, _ = run_cli("gate", *argv, capsys=capsys)
    direct = module("rederive.gate", *argv)
    assert code == direct.returncode == status
    assert out == direct.stdout


def test_audit_power_package_verify_pass_through(tmp_path, capsys):
    table = REPO / "raw" / "salitrap" / "published" / "salitrap_table1_tar_hfr.csv"
    argv = [table, "--columns", "TAR", "--n", "1145"]
    code, out, _ = run_cli("audit", *argv, capsys=capsys)
    direct = module("rederive.audit", *argv)
    assert code == direct.returncode and out == direct.stdout
    code, out, _ = run_cli("power", "--acc-a", "0.72", "--acc-b", "0.68", capsys=capsys)
    direct = module("rederive.power", "--acc-a", "0.72", "--acc-b", "0.68")
    assert code == direct.returncode == 0 and out == direct.stdout
    code, _, err = run_cli("power", "--acc-a", "0.72", capsys=capsys)
    assert code == module("rederive.power", "--acc-a", "0.72").returncode == 2
    assert err.startswith("usage: rederive power")
    missing = tmp_path / "none.tar.gz"
    assert run_cli("verify", missing, capsys=capsys)[0] == 2
    assert module("rederive.verify", missing).returncode == 2
    code, _, err = run_cli("package", "no_such_analysis", tmp_path / "p.tar.gz", capsys=capsys)
    assert code == module("rederive.package", "no_such_analysis", tmp_path / "q.tar.gz").returncode
    assert code == 2 and "rederive: package:" in err


def test_run_refuses_another_snakefile_and_passes_snakemakes_status(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli("run", "-s", "Other.smk", capsys=capsys)
    assert code == 2 and "runs this workflow's Snakefile" in err
    bad = tmp_path / "bad.yaml"
    bad.write_text("analyses: {x: {kind: nope, raw_dir: .}}\nbuild: [x]\n")
    proc = module("rederive.cli", "run", "-n", "--configfile", bad, cwd=tmp_path)
    assert proc.returncode == 1
    assert "rederive: config error: analyses.x.kind: 'nope' is not a kind" in proc.stderr
    assert not (tmp_path / "results").exists()


def test_the_command_and_its_helpers_are_left_out_of_the_jobs_code_version():
    """No job imports rederive.cli, so editing it re-runs nothing (NOT_IN_JOBS)."""
    assert "cli" in NOT_IN_JOBS
    package = REPO / "scripts" / "rederive"
    files = [p for p in package.rglob("*.py") if p.relative_to(package).parts[0] != "cli"]
    files += [*(REPO / "rules").glob("*.smk"), REPO / "Snakefile"]
    pattern = re.compile(r"rederive\.cli\b|from rederive import cli")
    assert [str(p.relative_to(REPO)) for p in files if pattern.search(p.read_text())] == []


# --- rederive init ------------------------------------------------------------------


def harness_folder(root: Path) -> Path:
    """lm-eval, Inspect and long-CSV results where the tools put them."""
    folder = root / "my_evals"
    for model in ("dummy-a", "dummy-b"):
        shutil.copytree(FIXTURES / "lm_eval" / "out" / model, folder / "lm_eval_out" / model)
    (folder / "logs").mkdir()
    for log in ("at_least_1.eval", "sample_error.eval"):
        shutil.copy(FIXTURES / "inspect" / "0.3.285" / log, folder / "logs" / log)
    (folder / "scores").mkdir()
    for model in ("alpaca-7b", "phi-2"):
        shutil.copy(FIXTURES / "alpaca_eval" / "ae2" / "long" / f"{model}.csv", folder / "scores")
    return folder


def init(folder: Path, out: Path, *extra, capsys) -> tuple[int, str, str, dict]:
    code, stdout, stderr = run_cli("init", folder, "--out", out, *extra, capsys=capsys)
    config = yaml.safe_load(out.read_text()) if out.exists() else None
    return code, stdout, stderr, config


def dry_run(workdir: Path, configfile: Path) -> subprocess.CompletedProcess:
    cmd = [str(SNAKEMAKE), "-s", str(REPO / "Snakefile"), "--directory", str(workdir)]
    cmd += ["--configfile", str(configfile), "--cores", "2", "-n", "--quiet", "host"]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=workdir)


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def test_init_writes_one_analysis_per_group_of_runs_and_snakemake_accepts_it(
    tmp_path, workdir, capsys
):
    folder = harness_folder(tmp_path)
    out = workdir / "my_evals.yaml"
    code, stdout, stderr, config = init(folder, out, capsys=capsys)
    assert (code, stderr) == (0, "")
    assert stdout.endswith(f"Build with:\n  rederive run --cores 8 --configfile {out}\n")
    analyses = config["analyses"]
    assert (
        config["build"]
        == list(analyses)
        == [
            "my_evals-lm_eval_out",
            "my_evals-logs",
            "my_evals-scores",
        ]
    )
    # raw_dir is the runs' own folder: every file under it is hashed into provenance.
    assert analyses["my_evals-lm_eval_out"] == {
        "kind": "benchmark",
        "label": "my_evals: lm_eval_out",
        "raw_dir": str(folder / "lm_eval_out"),
        "inputs": {"auto": str(folder / "lm_eval_out")},
    }
    # Inspect: gamma's errored sample leaves it 2 of 3 items; AlpacaEval: phi-2 lacks 2.
    assert analyses["my_evals-logs"]["item_sets"] == "intersection"
    assert analyses["my_evals-scores"]["item_sets"] == "intersection"
    text = out.read_text()
    assert "(mockllm/gamma: 2 of 3 items)" in text and "(phi-2: 803 of 805 items)" in text
    assert "#   lm_eval    lm_eval_out/dummy-a  dummy-a: tiny_gen, tiny_mc" in text
    assert "#   inspect    logs/at_least_1.eval  mockllm/beta: legs_and_sums" in text
    proc = dry_run(workdir, out)
    assert proc.returncode == 0, proc.stderr[-4000:]
    for name in analyses:
        assert f"results/{name}/tables/accuracy.csv" in proc.stdout + proc.stderr


def test_init_then_run_as_the_readme_shows(tmp_path, workdir, capsys):
    folder = harness_folder(tmp_path)
    code, stdout, _, _ = init(folder, Path("my_evals.yaml"), capsys=capsys)
    assert code == 0
    command = stdout.splitlines()[-1].split()
    assert command[:2] == ["rederive", "run"]
    proc = module("rederive.cli", *command[1:], "-n", cwd=workdir)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Using workflow specific profile" in proc.stdout + proc.stderr


@pytest.mark.slow
def test_init_config_builds_unchanged(tmp_path, workdir, capsys):
    folder = harness_folder(tmp_path)
    out = workdir / "my_evals.yaml"
    assert init(folder, out, capsys=capsys)[0] == 0
    cmd = [str(SNAKEMAKE), "-s", str(REPO / "Snakefile"), "--directory", str(workdir)]
    proc = subprocess.run(
        [*cmd, "--configfile", str(out), "--cores", "2"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-6000:]
    expected = {
        "my_evals-lm_eval_out": ({"dummy-a", "dummy-b"}, "lm_eval"),
        "my_evals-logs": ({"mockllm/beta", "mockllm/gamma"}, "inspect"),
        "my_evals-scores": ({"alpaca-7b", "phi-2"}, "long"),
    }
    for name, (models, fmt) in expected.items():
        tables = workdir / "results" / name / "tables"
        assert set(pd.read_csv(tables / "accuracy.csv")["model"]) == models
        assert set(pd.read_csv(tables / "data_quality.csv")["format"].dropna()) == {fmt}


def test_init_lists_what_it_cannot_separate_and_still_writes_the_rest(tmp_path, workdir, capsys):
    folder = tmp_path / "evals"
    shutil.copytree(FIXTURES / "lm_eval" / "out", folder / "lm_eval")
    shutil.copy(FIXTURES / "alpaca_eval" / "ae2" / "long" / "phi-2.csv", folder / "phi-2.csv")
    (folder / "notes.txt").write_text("which runs these are\n")
    out = workdir / "evals.yaml"
    code, _, stderr, config = init(folder, out, capsys=capsys)
    assert code == 1
    # The loose CSV of another task cannot be selected apart from the lm-eval folders.
    assert config["analyses"] == {
        "evals": {
            "kind": "benchmark",
            "label": "evals",
            "raw_dir": str(folder / "lm_eval"),
            "inputs": {"auto": str(folder / "lm_eval")},
        }
    }
    assert (
        "rederive: init: problem: 1 run(s) are not analysed (phi-2.csv; tasks alpaca_eval): "
        "they share no task with the runs beside them, and no folder selects exactly them "
        f"(inputs: {{'auto': '{folder}'}} is refused: " in stderr
    )
    assert "notes.txt: inputs.auto: no input format recognises this file" in stderr
    text = out.read_text()
    assert "#   phi-2.csv (long): no folder selects exactly its group of runs" in text
    assert "#   notes.txt: no input format recognises it" in text
    assert dry_run(workdir, out).returncode == 0


def test_init_names_a_run_its_reader_refuses(tmp_path, workdir, capsys):
    folder = tmp_path / "logs"  # a name the workflow keeps for results/logs/
    folder.mkdir()
    for log in ("at_least_1.eval", "error.eval"):
        shutil.copy(FIXTURES / "inspect" / "0.3.285" / log, folder / log)
    code, _, stderr, config = init(folder, workdir / "c.yaml", capsys=capsys)
    assert code == 1
    assert config["analyses"]["logs_own"]["inputs"] == {"auto": str(folder)}
    assert (
        "# Refused by its reader, the build stops at it: error.eval"
        in (workdir / "c.yaml").read_text()
    )
    assert "error.eval (inspect) is refused (the build stops at it)" in stderr
    assert "field 'status': the eval did not complete" in stderr


def test_init_mixes_a_paper_study_folder_and_benchmark_files(tmp_path, workdir, capsys):
    folder = tmp_path / "everything"
    folder.mkdir()
    (folder / "bias_runs").symlink_to(REPO / "raw" / "bias_awareness")
    shutil.copytree(FIXTURES / "lm_eval" / "out", folder / "harness")
    out = workdir / "all.yaml"
    code, _, stderr, config = init(folder, out, "--name", "ours", capsys=capsys)
    assert (code, stderr) == (0, "")
    assert config["analyses"] == {
        "ours-bias_runs": {
            "kind": "bias_awareness",
            "label": "everything: bias_runs",
            "raw_dir": str(folder / "bias_runs"),
        },
        "ours-harness": {
            "kind": "benchmark",
            "label": "everything: harness",
            "raw_dir": str(folder / "harness"),
            "inputs": {"auto": str(folder / "harness")},
        },
    }
    text = out.read_text()
    assert "#   study folder bias_runs/: kind bias_awareness, 2 run file(s)" in text
    assert "# Not read by the kind: SIMULATED.md" in text
    proc = dry_run(workdir, out)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "results/ours-bias_runs/" in proc.stdout + proc.stderr


@pytest.mark.parametrize("kind", [k.name for k in PAPER_KINDS])
def test_each_paper_kind_is_told_by_its_fields(kind, tmp_path, workdir, capsys):
    code, _, _, config = init(REPO / "raw" / kind, workdir / "c.yaml", capsys=capsys)
    assert code == 0
    assert config["analyses"] == {
        f"{kind}_own": {"kind": kind, "label": kind, "raw_dir": str(REPO / "raw" / kind)}
    }


def test_a_study_folder_of_no_kind_is_named_not_guessed(tmp_path, workdir, capsys):
    folder = tmp_path / "study"
    (folder / "runs").mkdir(parents=True)
    (folder / "items.jsonl").write_text('{"id": 1, "text": "x"}\n')
    (folder / "runs" / "m.jsonl").write_text('{"model": "m", "id": 1}\n')
    code, _, stderr, config = init(folder, workdir / "c.yaml", capsys=capsys)
    assert code == 2 and config is None
    assert "laid out for salitrap or tag_sycophancy or bias_awareness" in stderr
    assert "kind: salitrap | tag_sycophancy | bias_awareness" in stderr


def test_the_paper_kind_table_is_the_registered_layouts():
    for kind in PAPER_KINDS:
        text = (REPO / "rules" / f"{kind.name}.smk").read_text()
        (files,) = re.findall(r"layout=paper_layout\(\s*\[([^\]]*)\]", text)
        assert tuple(re.findall(r'"([^"]+)"', files)) == kind.files


def test_benchmark_raw_dir_layout_and_name_clash(workdir, capsys):
    folder = REPO / "raw" / "benchmark"
    code, _, _, config = init(folder, workdir / "c.yaml", capsys=capsys)
    # The documented layout needs no inputs:, and its published/ is read.
    assert code == 0
    assert config["analyses"] == {
        "benchmark_own": {"kind": "benchmark", "label": "benchmark", "raw_dir": str(folder)}
    }
    text = (workdir / "c.yaml").read_text()
    assert "#   published/: published per-model scores" in text
    assert "#   README.md: no input format recognises it" in text
    code, _, stderr, _ = init(folder, workdir / "d.yaml", "--name", "benchmark", capsys=capsys)
    assert (
        code == 2 and "--name 'benchmark' is taken by the workflow (a bundled analysis)" in stderr
    )


def test_a_mixed_folder_gets_one_analysis_per_kind(tmp_path, workdir, capsys):
    folder = tmp_path / "mixed"
    shutil.copytree(PREFERENCE_FIXTURES / "mt_bench", folder / "judgments")
    shutil.copytree(FIXTURES / "lm_eval" / "out", folder / "lm_eval")
    code, _, stderr, config = init(folder, workdir / "c.yaml", capsys=capsys)
    assert code == 0
    kinds = {name: a["kind"] for name, a in config["analyses"].items()}
    assert sorted(kinds.values()) == ["benchmark", "preference"]
    (preference,) = (a for a in config["analyses"].values() if a["kind"] == "preference")
    assert preference["raw_dir"] == str(folder / "judgments")
    assert "not analysed" not in stderr


def test_preference_files_are_listed_when_the_workflow_lacks_the_kind(tmp_path):
    schemas = tmp_path / "schemas"
    shutil.copytree(REPO / "config" / "schemas", schemas)
    (schemas / "preference.schema.yaml").unlink()
    folder = tmp_path / "mixed"
    shutil.copytree(PREFERENCE_FIXTURES / "mt_bench", folder / "judgments")
    shutil.copytree(FIXTURES / "lm_eval" / "out", folder / "lm_eval")
    text, plan, _ = cli_init.init_config(folder, schema_dir=schemas)
    assert [a["kind"] for a in yaml.safe_load(text)["analyses"].values()] == ["benchmark"]
    assert [r.format for r in plan.preference_waiting] == ["mt_bench"]
    assert "#   mt_bench     judgments/gpt-4_pair.jsonl" in text


def test_preference_gets_an_analysis_once_the_kind_exists(tmp_path, workdir):
    schemas = tmp_path / "schemas"
    shutil.copytree(REPO / "config" / "schemas", schemas)
    # A kind is its schema (rederive.analyses.kind_names); the smallest kind schema with the benchmark's way of reading a mixed folder.
    (schemas / "preference.schema.yaml").write_text(
        yaml.safe_dump(
            {
                "type": "object",
                "properties": {
                    "raw_dir": {"type": "string"},
                    "inputs": {
                        "type": "object",
                        "default": {},
                        "properties": {"auto": {"type": ["string", "null"], "default": None}},
                        "additionalProperties": False,
                    },
                },
                "additionalProperties": False,
            }
        )
    )
    assert "preference" in kind_names(schemas)
    folder = tmp_path / "prefs"
    shutil.copytree(PREFERENCE_FIXTURES / "mt_bench", folder / "mt")
    shutil.copytree(PREFERENCE_FIXTURES / "arena_hard", folder / "arena")
    text, plan, _ = cli_init.init_config(folder, schema_dir=schemas)
    assert yaml.safe_load(text)["analyses"] == {
        "prefs": {
            "kind": "preference",
            "label": "prefs",
            "raw_dir": str(folder),
            "inputs": {"auto": str(folder)},
        }
    }
    assert len(plan.analyses[0].runs) == 3


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda f: f.mkdir(), "is empty"),
        (lambda f: (f.mkdir(), (f / ".DS_Store").write_bytes(b"\0")), "1 hidden entry"),
        (
            lambda f: (f.mkdir(), (f / "notes.txt").write_text("hello\n")),
            "nothing readable in {folder}: 1 file(s) of no known format (notes.txt)",
        ),
        (lambda f: None, "{folder}: no such folder"),
        (lambda f: f.write_text("x"), "{folder}: not a folder"),
    ],
)
def test_init_refuses_what_it_cannot_configure(tmp_path, workdir, setup, message, capsys):
    folder = tmp_path / "results_folder"
    setup(folder)
    code, stdout, stderr, config = init(folder, workdir / "c.yaml", capsys=capsys)
    assert code == 2 and config is None and stdout == ""
    assert stderr.startswith("rederive: init: ")
    assert message.format(folder=folder) in stderr


def test_init_refuses_an_existing_out_unless_forced_and_places_that_break_a_build(
    tmp_path, workdir, monkeypatch, capsys
):
    folder = tmp_path / "evals"
    shutil.copytree(FIXTURES / "lm_eval" / "out", folder / "lm_eval")
    out = workdir / "c.yaml"
    out.write_text("mine\n")
    code, _, stderr, _ = init(folder, out, capsys=capsys)
    assert code == 2 and "exists; give another --out, or --force" in stderr
    assert out.read_text() == "mine\n"
    assert init(folder, out, "--force", capsys=capsys)[0] == 0
    assert "mine" not in out.read_text()
    code, _, stderr, _ = init(folder, folder / "c.yaml", capsys=capsys)
    assert code == 2 and "is inside" in stderr and not (folder / "c.yaml").exists()
    code, _, stderr, _ = init(folder, workdir / "f.yaml", "--name", "bad name", capsys=capsys)
    assert code == 2 and "--name 'bad name'" in stderr
    monkeypatch.chdir(folder / "lm_eval")
    code, _, stderr, _ = init(folder, workdir / "e.yaml", capsys=capsys)
    assert code == 2 and "holds the current folder" in stderr


def test_init_is_deterministic_and_escapes_names_in_comments(tmp_path, workdir, capsys):
    folder = tmp_path / "evals"
    shutil.copytree(FIXTURES / "lm_eval" / "out", folder / "lm_eval")
    odd = folder / "notes\nbuild: [oops].txt"
    odd.write_text("x\n")
    code, _, _, config = init(folder, workdir / "a.yaml", capsys=capsys)
    assert code == 0 and config["build"] == ["evals"]
    text = (workdir / "a.yaml").read_text()
    assert "#   notes\\x0abuild: [oops].txt: no input format recognises it" in text
    (workdir / "a.yaml").rename(workdir / "first.yaml")
    assert init(folder, workdir / "a.yaml", capsys=capsys)[0] == 0
    assert (workdir / "a.yaml").read_text() == text


def test_help_of_init_names_its_exit_statuses(capsys):
    code, out, _ = run_cli("init", "--help", capsys=capsys)
    assert code == 0
    for line in ("  0  written", "  1  written, but", "  2  nothing written"):
        assert line in out


def test_items_csv_beside_the_runs_is_read_not_refused(tmp_path, workdir, capsys):
    folder = tmp_path / "evals"
    shutil.copytree(FIXTURES / "lm_eval" / "out", folder / "out")
    with open(folder / "items.csv", "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["task", "item_id", "category"])
        writer.writerows(["tiny_mc", i, "sums"] for i in range(20))
    code, _, _, config = init(folder, workdir / "c.yaml", capsys=capsys)
    assert code == 0
    assert config["analyses"]["evals"]["raw_dir"] == str(folder)
    text = (workdir / "c.yaml").read_text()
    assert "#   items.csv: item metadata" in text and "nobody reads" not in text


def test_the_config_shown_in_the_docs_is_what_init_writes(tmp_path, workdir, capsys):
    folder = tmp_path / "my_evals"
    for model in ("dummy-a", "dummy-b"):
        shutil.copytree(FIXTURES / "lm_eval" / "out" / model, folder / "lm_eval_out" / model)
    assert init(folder, Path("my_evals.yaml"), capsys=capsys)[0] == 0
    written = (workdir / "my_evals.yaml").read_text().replace(str(folder), "/data/my_evals")
    page = (REPO / "docs" / "configuration.md").read_text()
    shown = re.findall(r"<!-- config-example: auto -->\n```yaml\n(.*?)```", page, re.S)
    assert written in shown


def test_an_earlier_builds_results_are_not_taken_for_runs(tmp_path, workdir, capsys):
    folder = tmp_path / "evals"
    shutil.copytree(FIXTURES / "lm_eval" / "out", folder / "lm_eval")
    old = folder / "old_build"
    (old / "summary").mkdir(parents=True)
    (old / "summary" / "provenance.json").write_text("{}")
    (old / "evals" / "ingested").mkdir(parents=True)
    shutil.copy(FIXTURES / "alpaca_eval" / "ae2" / "long" / "phi-2.csv", old / "evals" / "ingested")
    code, _, _, config = init(folder, workdir / "c.yaml", capsys=capsys)
    assert code == 0
    assert config["analyses"]["evals"]["inputs"] == {"auto": str(folder / "lm_eval")}
    assert (
        "#   old_build: the outputs of an earlier build, not inputs"
        in (workdir / "c.yaml").read_text()
    )
