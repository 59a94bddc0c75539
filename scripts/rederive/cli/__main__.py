"""``python -m rederive.cli``: the ``rederive`` command without its console script."""

import sys

from rederive.cli import main

sys.exit(main())
