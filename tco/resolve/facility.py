"""The facility: the region's tariff, colocation price and grid carbon, from the catalog in
the region's own currency unless the scenario gives them."""

from __future__ import annotations

from ..errors import UnknownId
from ..inputs import FACILITY_INPUTS
from .figures import between
from .state import Resolution


def facility(r: Resolution) -> None:
    sc, catalog = r.sc, r.catalog
    try:
        region = catalog.region(sc.facility.region)
    except UnknownId as exc:
        raise r.error(str(exc), ["facility", "region"]) from None
    convert = between(catalog, region.currency, sc.currency)
    for key, spec in FACILITY_INPUTS.items():
        given = getattr(sc.facility, key)
        if given is not None:
            r.put(r.given(["facility", key], given, spec))
        else:
            r.figure(f"facility.{key}", getattr(region, key), spec, convert)
