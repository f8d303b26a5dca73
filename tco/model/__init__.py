"""The TCO model: every quantity defined once, as a formula over named inputs.

`build_model(structure)` returns a `Model`: an ordered list of `Quantity` (name, formula, unit,
label). One module per chapter of docs/methodology.md: cluster (§3), training (§4, one run of
a workload), capex (§5), operations and the timeline (§6), cashflows (§7-8), jobcost (§9), cloud (§10) and
decision (§12, §14: feasibility and the ranking tier); build puts them together per candidate.
The expression trees (tco.expr) evaluate as floats or numpy arrays and write themselves as
spreadsheet formulas.
"""

from .base import Builder, Model, Quantity
from .build import build_model
from .cashflows import (
    CAPEX_COMPONENTS,
    COMPONENT_LABELS,
    COMPONENTS,
    YEAR_SHARES,
    YEAR_TAX,
    YEAR_TOTALS,
)
from .decision import tier_formula
from .jobcost import JOB_COMPONENT_LABELS, JOB_COMPONENTS
from .units import (
    BYTES_PER_GB,
    COMPLETE_FRACTION,
    FLOP_PER_PFLOP_HOUR,
    FLOPS_PER_TFLOPS,
    HOURS_PER_DAY,
    HOURS_PER_YEAR,
    MONTHS_PER_YEAR,
    RATE_AS_ZERO,
    SECONDS_PER_HOUR,
    TOKENS_PER_MILLION,
    W_PER_KW,
)

__all__ = [
    "BYTES_PER_GB", "CAPEX_COMPONENTS", "COMPLETE_FRACTION", "COMPONENTS", "COMPONENT_LABELS",
    "FLOPS_PER_TFLOPS", "FLOP_PER_PFLOP_HOUR", "HOURS_PER_DAY", "HOURS_PER_YEAR",
    "JOB_COMPONENTS", "JOB_COMPONENT_LABELS", "MONTHS_PER_YEAR", "RATE_AS_ZERO",
    "SECONDS_PER_HOUR", "TOKENS_PER_MILLION", "W_PER_KW", "YEAR_SHARES", "YEAR_TAX", "YEAR_TOTALS", "Builder", "Model",
    "Quantity", "build_model", "tier_formula",
]
