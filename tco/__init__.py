"""tco: total cost of ownership of AI accelerator clusters (see tco.api and docs/api.md)."""

from .api import Run, breakeven, compare, load, montecarlo, sensitivity, whatif
from .version import __version__

__all__ = ["Run", "__version__", "breakeven", "compare", "load", "montecarlo", "sensitivity",
           "whatif"]
