# Inputs and parameters of report_changes: what a build of an analysis keeps
# (rederive.changes.snapshots.KEPT_FOLDERS) and what its manifest records.
from rederive.changes.snapshots import KEPT_FOLDERS


def kept_outputs(wildcards):
    """Every table, check and audit file the analysis's rules declare."""
    return analysis_outputs(wildcards.analysis, KEPT_FOLDERS)


def analysis_raw_files(wildcards):
    return [str(p) for p in raw_files_of(wildcards.analysis)]


def run_inputs(wildcards):
    """Params function: each run id's input files (content-hashed in the manifest)."""
    name = wildcards.analysis
    runs = KINDS[kind_of(name)]["run_inputs"](name)
    return {run: [str(p) for p in files] for run, files in sorted(runs.items())}


def kind_library_version(wildcards):
    """Hash of the library code the analysis's kind imports (the manifest's code)."""
    return library_version(kind_of(wildcards.analysis))


def resolved_settings(wildcards):
    return ANALYSES[wildcards.analysis]
