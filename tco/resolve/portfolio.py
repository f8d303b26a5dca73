"""Workload assignment and portfolios, checked at resolution (methodology §14, "Portfolios").

An option may carry only some workloads of the plan (`candidates[].workloads`); a portfolio
(`portfolios[]`) costs options together, and together they must carry every workload exactly
once. Each mistake is one message naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .. import modes
from ..errors import did_you_mean
from ..resolved import CandidateInfo
from ..scenario import Candidate, Loaded


def assigned_workloads(loaded: Loaded, c: Candidate) -> list[str]:
    """The workloads option `c` carries, checked; [] when it carries every one."""
    if c.workloads is None:
        return []
    known = [w.id for w in loaded.scenario.workloads]
    where = ["candidates", c.id, "workloads"]
    seen: set[str] = set()
    for wid in c.workloads:
        if wid not in known:
            hint = did_you_mean(wid, known, list_up_to=len(known))  # says what is expected
            raise loaded.error(f"unknown workload '{wid}'{hint}", where)
        if wid in seen:
            raise loaded.error(f"workload '{wid}' is listed twice", where)
        seen.add(wid)
    if len(seen) == len(known):
        return []  # every workload: the same as not assigning
    return [wid for wid in known if wid in seen]  # in the plan's order


def portfolios(loaded: Loaded, infos: Mapping[str, CandidateInfo], priced: Sequence[str],
               workloads: Sequence[str], apis: Mapping[str, list[str]] | None = None
               ) -> tuple[tuple[str, ...], ...]:
    """Each portfolio as (id, option, ...), checked: known options (candidates, or per-token
    API options carrying `apis[id]`), each workload of the plan carried by exactly one of
    them. Portfolios with an option that cannot be priced are left out (that option's reason
    is shown with it)."""
    out = []
    apis = apis or {}
    ids = set(infos) | set(apis)
    for p in loaded.scenario.portfolios:
        where = ["portfolios", p.id, "options"]
        if p.id in ids:
            raise loaded.error(f"portfolio id '{p.id}' is also an option's id; give it "
                               "another", ["portfolios", p.id, "id"])
        ids.add(p.id)
        carrier: dict[str, str] = {}
        for oid in p.options:
            if oid not in infos and oid not in apis:
                raise loaded.error(f"unknown option '{oid}'"
                                   f"{did_you_mean(oid, [*infos, *apis])}", where)
            if p.options.count(oid) > 1:
                raise loaded.error(f"option '{oid}' is listed twice", where)
            for wid in apis[oid] if oid in apis else infos[oid].workloads or workloads:
                if wid in carrier:
                    raise loaded.error(
                        f"workload '{wid}' is carried by both '{carrier[wid]}' and '{oid}'; "
                        "give each option its own workloads (candidates[].workloads)", where)
                carrier[wid] = oid
        _one_draw_on_stock(loaded, infos, p.options, where)
        missing = [wid for wid in workloads if wid not in carrier]
        if missing:
            raise loaded.error(f"no option of the portfolio carries workload(s) "
                               f"{', '.join(missing)}", where)
        if all(oid in priced or oid in apis for oid in p.options):
            out.append((p.id, *p.options))
    return tuple(out)


def _one_draw_on_stock(loaded: Loaded, infos: Mapping[str, CandidateInfo],
                       options: Sequence[str], where: list[str]) -> None:
    """Held stock (tco.resolve.held) is drawn on by every owned option of its card; two such options
    costed together would count the same cards twice."""
    stock = loaded.scenario.policy.holds_stock
    drawing: dict[str, str] = {}
    for oid in options:
        info = infos.get(oid)  # a per-token API option (tco.resolve.api_options) holds no cards
        if info is None or info.acquire == modes.RENT or info.card not in stock:
            continue
        if info.card in drawing:
            raise loaded.error(
                f"options '{drawing[info.card]}' and '{oid}' both draw on the held stock of "
                f"'{info.card}' (policy.holds_stock); a portfolio may use it in one option",
                where)
        drawing[info.card] = oid
