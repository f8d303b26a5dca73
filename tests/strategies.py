"""Hypothesis strategies for property tests of the TCO model.

The model is built once from the built-in example scenario (eight candidates, one of them sized
for a deadline). A drawn `Point` is that scenario's inputs with some of them moved within their
catalog low..high range, and with finance terms drawn from sensible ranges: the domain the
properties are claimed for. Everything is evaluated with `Model.evaluate`, on arrays where a
test sweeps one input, so each example costs one model evaluation (about 10 ms).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from hypothesis import strategies as st

from tco.catalog import Catalog, load_catalog
from tco.inputs import Input
from tco.model import Model, build_model
from tco.resolve import resolve
from tco.resolved import Resolved, input_values
from tco.scenario import Loaded, load_scenario
from tco.sizing import size_clusters

# Costs that are not money but scale money linearly (effort, shares of capex, staffing).
COST_DRIVERS = ("porting_engineer_months", "maintenance_engineer_months_per_year",
                "installation_fraction", "support_fraction_per_year",
                "ops_engineers_per_1000_cards")


@dataclass(frozen=True)
class Example:
    catalog: Catalog
    loaded: Loaded
    resolved: Resolved
    model: Model
    values: dict[str, float]  # after sizing: every input, by path

    @property
    def inputs(self) -> dict[str, Input]:
        return self.resolved.inputs

    @property
    def candidates(self) -> tuple[str, ...]:
        return self.resolved.structure.candidates

    @property
    def workloads(self) -> list[str]:
        return [w for w, _, _ in self.resolved.structure.workloads]


@cache
def example() -> Example:
    catalog = load_catalog()
    loaded = load_scenario()
    resolved = resolve(loaded, catalog)
    model = build_model(resolved.structure)
    resolved = size_clusters(model, resolved)
    return Example(catalog, loaded, resolved, model, input_values(resolved))


@cache
def ranged_paths() -> tuple[str, ...]:
    """Inputs with a catalog range that Monte Carlo would vary (not card counts)."""
    ex = example()
    return tuple(p for p, i in ex.inputs.items()
                 if i.low is not None and i.high is not None and i.low < i.high
                 and not i.spec.structural and not p.endswith(".cards"))


@cache
def cost_paths() -> tuple[str, ...]:
    """Every price or cost input: money inputs and the non-money cost drivers."""
    ex = example()
    return tuple(p for p, i in ex.inputs.items()
                 if i.spec.money or p.rsplit(".", 1)[-1] in COST_DRIVERS)


@cache
def money_paths() -> tuple[str, ...]:
    return tuple(p for p, i in example().inputs.items() if i.spec.money)


@st.composite
def points(draw: st.DrawFn) -> dict[str, float]:
    """The example's inputs, some moved within their catalog range, finance terms drawn."""
    ex = example()
    values = dict(ex.values)
    moved = draw(st.lists(st.sampled_from(ranged_paths()), max_size=12, unique=True))
    for path in moved:
        inp = ex.inputs[path]
        assert inp.low is not None and inp.high is not None
        share = draw(st.floats(0.0, 1.0))
        values[path] = inp.low + share * (inp.high - inp.low)
    values["finance.discount_rate"] = draw(st.floats(0.0, 0.3))
    values["finance.financed_fraction"] = draw(st.sampled_from([0.0, 0.5, 1.0]))
    values["finance.loan_rate"] = draw(st.floats(0.0, 0.2))
    values["finance.loan_term_years"] = float(draw(st.integers(1, 5)))  # horizon is 5 years
    values["finance.residual_value_fraction"] = draw(st.floats(0.0, 0.5))
    values["utilization"] = draw(st.floats(0.3, 1.0))
    return values


# Increasing multipliers for sweeping one input; the first is the unchanged value.
increases = st.lists(st.floats(1.0, 20.0), min_size=2, max_size=6).map(
    lambda xs: [1.0] + sorted(xs))

positive_scales = st.floats(1e-3, 1e4)

cash_flows = st.lists(st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False),
                      min_size=1, max_size=31)
rates = st.floats(0.0, 0.99)
