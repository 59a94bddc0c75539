import sys
from pathlib import Path

# Tests import the fixture writers as `benchmark_formats` (pytest runs with
# --import-mode=importlib, which does not put test folders on sys.path).
sys.path.insert(0, str(Path(__file__).parent))
