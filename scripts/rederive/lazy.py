"""pandas, imported on first use.

Snakemake imports the input-format registry (:mod:`rederive.io.formats`) each
time it parses the Snakefile, and every ingest job imports the readers: with
``import pandas`` at the top of each module, a no-op ``snakemake`` paid 0.3 s
and each ingest job 0.4 s of CPU for a library that a clean Parquet run
(:mod:`rederive.io.verbatim`) never touches. Modules on those paths write
``from rederive.lazy import pandas as pd``; the first attribute read imports
pandas, and from then on the attributes are this module object's own.
"""

from __future__ import annotations

import importlib
import types


class LazyModule(types.ModuleType):
    """A module imported when one of its attributes is first read."""

    def __init__(self, name: str):
        super().__init__(name)

    def __getattr__(self, attribute: str):
        module = importlib.import_module(self.__name__)
        # Copy the namespace so that later reads never come back here.
        self.__dict__.update(module.__dict__)
        return getattr(module, attribute)


pandas = LazyModule("pandas")
