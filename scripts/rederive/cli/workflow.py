"""Where this workflow is: the Snakefile, its profile, its config and schemas.

The command is installed editable (``envs/setup.sh``: ``pip install -e .``), so
the package's own folder, ``<repo>/scripts/rederive``, sits in the repository
whose Snakefile it runs.
"""

from __future__ import annotations

from pathlib import Path

#: The repository holding this package (``<repo>/scripts/rederive/cli/workflow.py``).
REPO = Path(__file__).resolve().parents[3]
SNAKEFILE = REPO / "Snakefile"
PROFILE = REPO / "profiles" / "default"
CONFIG = REPO / "config" / "config.yaml"
SCHEMA_DIR = REPO / "config" / "schemas"


class NoWorkflow(RuntimeError):
    """The package runs without the repository around it (a non-editable install)."""


def require_workflow() -> Path:
    """The Snakefile, or :class:`NoWorkflow` saying how to install."""
    if not SNAKEFILE.is_file():
        raise NoWorkflow(
            f"no Snakefile at {REPO}: this rederive is installed without its workflow; "
            "install the repository editable (bash envs/setup.sh, or pip install -e <repo>)"
        )
    return SNAKEFILE


def kinds(schema_dir: Path = SCHEMA_DIR) -> list[str]:
    """The kinds the config may name: one per ``config/schemas/<kind>.schema.yaml``."""
    from rederive.analyses import kind_names

    return kind_names(schema_dir)


def bundled_config(path: Path = CONFIG) -> dict:
    """The bundled ``config/config.yaml``, which Snakemake merges a ``--configfile`` into."""
    import yaml

    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}
