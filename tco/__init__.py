"""tco: total cost of ownership of AI accelerator clusters (see tco.api and docs/api.md)."""

__version__ = "0.1.0"

from .api import Run, breakeven, compare, load, montecarlo, sensitivity, whatif

__all__ = ["Run", "__version__", "breakeven", "compare", "load", "montecarlo", "sensitivity",
           "whatif"]
