import pytest

from tco.catalog import load_catalog
from tco.engine import compute
from tco.scenario import load_scenario


@pytest.fixture(scope="session")
def catalog():
    return load_catalog()


@pytest.fixture(scope="session")
def example(catalog):
    return compute(load_scenario(), catalog)
