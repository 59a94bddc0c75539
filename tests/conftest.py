import sys
from pathlib import Path

import pytest
from filelock import FileLock

# Make tests/ importable (workflow_utils) regardless of where pytest is started.
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent / "salitrap"))


@pytest.fixture(scope="session")
def bundled_build(tmp_path_factory, worker_id):
    """One cold build of the bundled five with the bundled config, shared by every
    test that reads it (and by every worker under pytest-xdist: the first one to
    ask builds it, the others wait). A test that changes it works on a copy
    (``workflow_utils.copy_build``)."""
    from workflow_utils import build_bundled

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if worker_id != "master" else base
    work = shared / "bundled_build"
    with FileLock(str(shared / "bundled_build.lock")):
        if not (work / "build.stderr").exists():
            build_bundled(work)
    return work


# Test files that spend most of their wall time waiting rather than computing
# (a real one-node SLURM cluster scheduling its jobs). Run first, the other
# worker's tests go on beside them; run last (their place in the alphabet),
# they were the suite's final two minutes on one worker.
RUN_FIRST = ("tests/cluster/test_slurm.py",)


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: not item.nodeid.startswith(RUN_FIRST))
