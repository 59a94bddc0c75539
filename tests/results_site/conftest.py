import sys
from pathlib import Path

# site_checks (this folder) and benchmark_formats (tests/benchmark) as plain imports.
HERE = Path(__file__).parent
sys.path[:0] = [str(HERE), str(HERE.parent / "benchmark")]
