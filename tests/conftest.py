import os
import shutil
import tempfile

import pytest

from tco.catalog import load_catalog
from tco.engine import compute
from tco.scenario import load_scenario

# Kept baselines (tco/snapshot.py) go to a directory of this test run, never to ~/.cache; the
# CLI processes the tests start inherit it.
_CACHE = tempfile.mkdtemp(prefix="tco-test-cache-")
os.environ["TCO_CACHE_DIR"] = _CACHE
os.environ.pop("TCO_NO_CACHE", None)


def pytest_unconfigure(config):
    shutil.rmtree(_CACHE, ignore_errors=True)


@pytest.fixture(scope="session")
def catalog():
    return load_catalog()


@pytest.fixture(scope="session")
def example(catalog):
    return compute(load_scenario(), catalog)
