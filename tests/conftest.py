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


# The money figures of pricing/ as they were before the 2026-12 refresh (tests/data): for
# tests whose numbers were worked out on them and that are about the model, not the prices.
FROZEN = os.path.join(os.path.dirname(__file__), "data", "catalog_2026_11.yaml")


@pytest.fixture(scope="session")
def catalog():
    return load_catalog()


@pytest.fixture(scope="session")
def frozen():
    """The shipped catalog with the pre-refresh money figures layered over it (FROZEN)."""
    return load_catalog([FROZEN])


@pytest.fixture(scope="session")
def example(catalog):
    return compute(load_scenario(), catalog)
