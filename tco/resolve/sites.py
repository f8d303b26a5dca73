"""The facility's sites (methodology §3, "Sites"): the first is the facility itself
(`facility: {region: ..., ...}`, inputs `facility.<key>`), each further one is listed under
`facility.sites` (inputs `facility.sites.<id>.<key>`, tco.inputs.site_path). A site's tariff,
colocation price and grid carbon come from its region in the catalog, in the region's own
currency, unless given (a buyer profile's colocation price, when the scenario names one that
sets it, at every site); its PUE and power budget only when given. An option runs at the site
it names (`candidates[].site`), by default the first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import UnknownId, did_you_mean
from ..inputs import FACILITY_INPUTS, SITE_INPUTS, site_path
from .figures import between
from .state import Resolution, SiteFacts

if TYPE_CHECKING:
    from ..scenario import Candidate, Facility, Site


def sites(r: Resolution) -> None:
    """Every site's inputs, the first's first; `r.sites` by id."""
    facility = r.sc.facility
    _site(r, "", facility.region, facility, ["facility"])
    for s in facility.sites:
        _site(r, s.id, s.region or facility.region, s, ["facility", "sites", s.id])


def _site(r: Resolution, sid: str, region_id: str, site: Facility | Site,
          where: list[str]) -> None:
    try:
        region = r.catalog.region(region_id)
    except UnknownId as exc:
        raise r.error(str(exc), [*where, "region"]) from None
    convert = between(r.catalog, region.currency, r.sc.currency)
    for key, spec in FACILITY_INPUTS.items():
        given = getattr(site, key)
        if given is not None:
            r.put(r.given([*where, key], given, spec))
        elif r.from_profile(site_path(sid, key), spec, f"facility.{key}"):
            continue  # the buyer profile's (tco.profiles), at every site of the buyer
        else:
            r.figure(site_path(sid, key), getattr(region, key), spec, convert)
    given_keys = []
    for key, spec in SITE_INPUTS.items():
        value = getattr(site, key)
        if value is not None:
            r.put(r.given([*where, key], value, spec))
            given_keys.append(key)
    r.sites[sid] = SiteFacts(sid, region.id, tuple(given_keys))
    if site.pue is not None and region.pue_cap is not None \
            and float(site.pue) > region.pue_cap.best + 1e-12:
        cap = region.pue_cap
        raise r.error(
            f"PUE {float(site.pue):g} is above the {cap.best:g} cap of region {region.id} "
            f"({cap.source}): a data centre there may not be approved to run at it; give a "
            f"PUE of at most {cap.best:g}, or another region", [*where, "pue"])


def site_of(r: Resolution, c: Candidate) -> SiteFacts:
    """The site candidate `c` runs at, checked."""
    if c.site is None:
        return r.sites[""]
    further = [sid for sid in r.sites if sid]
    if c.site not in further:
        hint = (did_you_mean(c.site, further) if further else
                "; the facility has no further sites (facility.sites)")
        raise r.error(f"unknown site '{c.site}'{hint}", ["candidates", c.id, "site"])
    return r.sites[c.site]
