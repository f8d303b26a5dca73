"""Pausing Python's cyclic garbage collector while a step builds many long-lived objects.

The collector runs whenever allocations outnumber deallocations by a few hundred, and every
so often it walks every object alive. Building the model of a thousand candidates (a million
expression nodes), compiling it for the analyses and filling the workbook's million cells
allocate objects by the million while keeping them all, so those walks found nothing to free
and took about a quarter of `tco report`'s time (52 s with them, 39 s without, at the time).
Those steps make no reference cycles worth collecting early; they run with the collector
paused, and it resumes (if it was running) when they end.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run the block with the cyclic collector off; nesting is fine."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def keep_until_exit() -> None:
    """Tell the collector that everything alive now stays alive until the process ends (a
    command's computed result): later collections no longer walk those objects. For a
    thousand candidates that is a million objects, walked at every full collection (about two
    seconds of `tco report`'s time otherwise). Commands call it; the library does not, since
    a notebook's results do not live until the end."""
    gc.freeze()
