import collections
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


# The order in which the workers take test files (with --no-loadscope-reorder in
# pyproject.toml, --dist loadfile hands files out in collection order): longest
# first, so that the two workers end together instead of one finishing a long
# file alone. First the files that mostly wait (a real one-node SLURM cluster
# scheduling its jobs: the suite's last two minutes on one worker when it came
# in alphabetical order or by test count), then files by their number of
# whole-workflow (slow) tests, then the rest by their number of tests.
RUN_FIRST = ("tests/cluster/test_slurm.py",)


def pytest_collection_modifyitems(config, items):
    slow = collections.Counter()
    tests = collections.Counter()
    for item in items:
        tests[item.path] += 1
        slow[item.path] += item.get_closest_marker("slow") is not None

    def file_order(item):
        return (
            not item.nodeid.startswith(RUN_FIRST),
            -slow[item.path],
            -tests[item.path],
            str(item.path),
        )

    items.sort(key=file_order)
