import sys
from pathlib import Path

# Tests import their helpers by name (pytest runs with --import-mode=importlib).
sys.path.insert(0, str(Path(__file__).parent))
