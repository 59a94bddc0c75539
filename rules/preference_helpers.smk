# Input functions, caption texts and targets of the preference rules (kept apart
# from the rules, as `snakemake --lint` asks). Every function takes the analysis
# name (or the job's wildcards, whose `analysis` names it).

from rederive.errors import InputError
from rederive.io import preference
from rederive.studies.preference.sources import discover as discover_games
from rederive.studies.preference.sources import input_dirs as preference_dirs

PREFERENCE_FIGURE_NAMES = ["elo", "win_rates"]


def length_control_paths(name):
    """The length-control input files an analysis names (relative to the working
    directory, or absolute), whether or not they exist."""
    settings = ANALYSES[name]["length_control"]
    return [
        Path(settings[key])
        for key in ("instruction_difficulty", "gamed")
        if settings.get(key)
    ]


@cache
def preference_sources(name):
    entry = ANALYSES[name]
    missing = [str(p) for p in length_control_paths(name) if not p.is_file()]
    if missing:
        stop(
            "config",
            f"analyses.{name}.length_control: no such file {', '.join(missing)} (paths are "
            f"taken from the working directory, {Path.cwd()})",
        )
    try:
        return discover_games(
            entry["raw_dir"],
            entry.get("inputs"),
            skip=tuple(length_control_paths(name)),
        )
    except (InputError, RunFilesError, ValueError) as exc:
        stop("input", f"analysis {name}: {exc}")


def preference_layout(name):
    """What a preference raw_dir lacks: at least one of the input-format folders."""
    folders = preference_dirs(ANALYSES[name]["raw_dir"], ANALYSES[name].get("inputs"))
    if any(path.is_dir() for path in folders.values()):
        return [], ""
    names = [f"{fmt}/" for fmt in preference.names()]
    return [f"input-format folder ({', '.join(names)})"], (
        f"at least one of {', '.join(names)} (docs/kinds/preference-inputs.md), or "
        "inputs: {auto: <folder>} (optional: published/*.csv)"
    )


def preference_runs(name):
    runs = list(preference_sources(name))
    if not runs:
        searched = ", ".join(
            f"{fmt}: {path}{'' if path.is_dir() else ' (no such folder)'}"
            for fmt, path in preference_dirs(
                ANALYSES[name]["raw_dir"], ANALYSES[name].get("inputs")
            ).items()
        )
        stop(
            "input",
            f"analysis {name}: no runs found ({searched}; expected runs of one of the "
            f"formats {', '.join(preference.names())}; docs/kinds/preference-inputs.md)",
        )
    return runs


def preference_run_inputs(name):
    """Each run's input files (AlpacaEval's annotations with their companions)."""
    sources = preference_sources(name)
    return {
        run: [str(p) for p in sources[run].files()] for run in preference_runs(name)
    }


def preference_batch_sources(wildcards):
    """The runs of one ingest batch, each with what its reader needs."""
    sources = preference_sources(wildcards.analysis)
    return [
        {
            "run": run,
            "format": sources[run].format,
            "path": str(sources[run].path),
            "files": [str(p) for p in sources[run].files()],
        }
        for run in analysis_batches(wildcards.analysis).get(wildcards.batch, [])
    ]


def preference_batch_files(wildcards):
    return [
        f for source in preference_batch_sources(wildcards) for f in source["files"]
    ]


def preference_readers(wildcards):
    """The reader options of the job's analysis: each format's block."""
    entry = analysis(wildcards)
    return {key: entry[key] for key in preference.names() if key in entry}


def length_control_files(wildcards):
    """Input function: the length-control files (a change re-runs the win rates)."""
    return [str(p) for p in length_control_paths(wildcards.analysis)]


def bootstrap_text(wildcards):
    """Caption text: what the intervals resample, how many times, at which level."""
    entry = analysis(wildcards)
    boot = entry["bootstrap"]
    unit = (
        "prompts (items, each with all its games; a game without an item id is its own "
        "unit, as the table's unit_kind says)"
        if entry["resample"] == "prompts"
        else "games (resample: games, a strong label as that many games: what the arena "
        "notebooks and Arena-Hard's show_result.py do; too narrow when prompts matter)"
    )
    return (
        f"{boot['level']:.0%} percentile intervals from {boot['n_boot']:,} bootstrap "
        f"replicates over {unit}, seed {boot['seed']}."
    )


def scores_text(wildcards):
    """Caption text: the tie model, the strong labels, the Elo scale and its anchor."""
    entry = analysis(wildcards)
    ties = {
        "half": "a tie (or both bad) counts half a win, a graded preference its value",
        "rao_kupper": "ties modelled as Rao–Kupper",
        "davidson": "ties modelled as Davidson",
    }[entry["ties"]]
    strong = ", ".join(
        f"{fmt} {weight:g} times"
        for fmt, weight in sorted(entry["strong_weight"].items())
    )
    elo = entry["elo"]
    anchor = elo["anchor"]
    fixed = (
        f"the baseline (when there is one) fixed at {elo['anchor_rating']:g}, else the mean "
        f"rating {elo['init_rating']:g}"
        if anchor == "baseline"
        else (
            f"{anchor} fixed at {elo['anchor_rating']:g} when it has games, else the mean "
            f"rating {elo['init_rating']:g}"
            if anchor
            else f"the mean rating {elo['init_rating']:g}"
        )
    )
    return (
        f"Bradley–Terry by maximum likelihood: {ties}"
        + (f"; a strong label counted {strong}" if strong else "")
        + f". Elo scale: {elo['scale']:g} points per factor {elo['base']:g} of odds, "
        f"{fixed} (the scores.csv note says which applied)."
    )


def win_interval_text(wildcards):
    """Caption text: how the interval of the predicted win rate is built."""
    if analysis(wildcards)["win_rate_interval"] == "elo_bounds":
        return (
            "The win-rate interval is Arena-Hard v0.1's construction (win_rate_interval: "
            "elo_bounds): the win rate of the model's Elo bound against the baseline's "
            "bound, far narrower than the percentiles of the win rate itself."
        )
    return (
        "The win-rate interval is the percentile interval of the replicates' win rates."
    )


def length_control_text(wildcards):
    """Caption text: whether and how the length-controlled win rate is computed."""
    settings = analysis(wildcards)["length_control"]
    if not settings["instruction_difficulty"]:
        return (
            "The length-controlled columns are empty: length_control.instruction_difficulty "
            "is not set (AlpacaEval publishes its difficulties on the Hugging Face Hub)."
        )
    glm = "length_controlled_v1" if settings["gamed"] else "length_controlled_noreg"
    return (
        f"Length-controlled win rate: AlpacaEval 2's GLM ({glm}), fitted per model with the "
        "instruction difficulties given, the mean predicted preference at zero length "
        "difference; empty for a model whose games carry no output lengths (lc_glm says why)."
    )


def preference_targets(name):
    tables = f"results/{name}/tables"
    return [
        f"{tables}/scores.csv",
        f"{tables}/ranking.csv",
        f"{tables}/win_rates.csv",
        f"{tables}/position_bias.csv",
        f"{tables}/data_quality.csv",
        f"results/{name}/check/published_check.md",
        *[f"results/{name}/figures/{fig}.png" for fig in PREFERENCE_FIGURE_NAMES],
    ]
