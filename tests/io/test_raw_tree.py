"""The files of a raw_dir as provenance hashes them (issue 37, item 7): symlinked
folders followed, loops and links into the workflow's outputs refused, a raw_dir
inside (or holding) an output folder refused."""

import os

import pytest

from rederive.io.raw_tree import RawTreeError, list_files, output_folder_problem


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data" / "published").mkdir(parents=True)
    (tmp_path / "data" / "published" / "scores.csv").write_text("model,score\n")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "a.jsonl").write_text("{}\n")
    (tmp_path / "elsewhere" / "deeper").mkdir()
    (tmp_path / "elsewhere" / "deeper" / "b.jsonl").write_text("{}\n")
    return tmp_path


def names(files):
    return [p.as_posix() for p in files]


def test_a_symlinked_folder_is_followed_under_its_link_path(work):
    os.symlink(work / "elsewhere", work / "data" / "runs")
    assert names(list_files("data")) == [
        "data/published/scores.csv",
        "data/runs/a.jsonl",
        "data/runs/deeper/b.jsonl",
    ]


def test_a_relative_link_and_a_link_to_a_file_are_followed(work):
    os.symlink("../elsewhere", work / "data" / "runs")
    os.symlink(work / "elsewhere" / "a.jsonl", work / "data" / "linked.jsonl")
    assert "data/runs/deeper/b.jsonl" in names(list_files("data"))
    assert "data/linked.jsonl" in names(list_files("data"))


def test_a_dangling_link_is_not_a_file(work):
    os.symlink(work / "nowhere", work / "data" / "gone")
    assert names(list_files("data")) == ["data/published/scores.csv"]


@pytest.mark.parametrize("target", ["..", ".", "../.."])
def test_a_loop_is_refused_naming_the_link(work, target):
    os.symlink(work / "elsewhere", work / "data" / "runs")
    os.symlink(target, work / "elsewhere" / "deeper" / "loop")
    with pytest.raises(
        RawTreeError, match="data/runs/deeper/loop is a link that leads back to .*: a loop"
    ):
        list_files("data")


def test_two_links_to_one_folder_are_not_a_loop(work):
    os.symlink(work / "elsewhere", work / "data" / "runs")
    os.symlink(work / "elsewhere", work / "data" / "again")
    assert len(list_files("data")) == 5


@pytest.mark.parametrize("into", ["results", "results/other", ".snakemake"])
def test_a_link_into_an_output_folder_is_refused(work, into):
    (work / into).mkdir(parents=True)
    (work / into / "x.csv").write_text("x\n")
    os.symlink(work / into, work / "data" / "outputs")
    with pytest.raises(RawTreeError, match="data/outputs is a link into .*where the workflow"):
        list_files("data")


@pytest.mark.parametrize(
    "raw_dir, word",
    [
        ("results/mine", "is inside results/"),
        ("results", "is inside results/"),
        (".snakemake/x", "is inside .snakemake/"),
        (".", "holds results/"),
        ("data/..", "holds results/"),
    ],
)
def test_a_raw_dir_in_or_around_an_output_folder_is_refused(work, raw_dir, word):
    problem = output_folder_problem(raw_dir)
    assert problem is not None and problem.startswith(f"{raw_dir} {word}")


def test_a_raw_dir_linking_into_results_is_refused(work):
    (work / "results" / "mine").mkdir(parents=True)
    os.symlink(work / "results" / "mine", work / "shortcut")
    assert "is inside results/" in output_folder_problem("shortcut")


@pytest.mark.parametrize("raw_dir", ["data", "raw/benchmark", "/somewhere/else", "results_old"])
def test_ordinary_raw_dirs_pass(work, raw_dir):
    assert output_folder_problem(raw_dir) is None


def test_listing_the_working_directory_stops_at_results(work):
    (work / "results").mkdir()
    with pytest.raises(RawTreeError, match="^results is inside results/, where the workflow"):
        list_files(".")
