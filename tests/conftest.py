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


def bought_or_rented_h100(basis: str = "", delay_per_week: float = 0) -> str:
    """A scenario whose ranking the tax flips (tests of the decision basis, methodology §20):
    64 H100 bought cost less than renting as many before tax (about 4.2M against 5.3M USD),
    but more after a 40 % tax with every cost qualifying R&D deducted twice and the purchase
    deducted over 30 years (about 2.05M against 1.05M). `basis`: finance.decision_basis (its
    default, after_tax, when empty); `delay_per_week`: cost_of_delay_per_week."""
    chosen = f", decision_basis: {basis}" if basis else ""
    return f"""
name: bought or rented after tax
currency: USD
utilization: 0.85
cost_of_delay_per_week: {delay_per_week:g}
workloads:
  - {{id: w, kind: pretrain, params: 7.0e+9, tokens: 1.0e+11, precision: bf16, runs_per_year: 150}}
candidates:
  - {{id: buy, card: h100-sxm, cards: 64, lead_time_weeks: 0}}
  - {{id: rent, card: h100-sxm, cards: 64, acquire: rent}}
rent_options: none
finance: {{horizon_years: 5, discount_rate: 0.08, tax_rate: 0.4, tax_life_years: 30,
          tax_rd_share: 1, tax_rd_extra_deduction_fraction: 1{chosen}}}
"""
