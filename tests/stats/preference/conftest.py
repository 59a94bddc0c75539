import sys
from pathlib import Path

# Make preference_fixtures (test scaffolding shared by this folder's tests) importable.
sys.path.insert(0, str(Path(__file__).parent))
