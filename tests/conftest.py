import sys
from pathlib import Path

# Make tests/ importable (workflow_utils) regardless of where pytest is started.
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent / "salitrap"))
