"""resolve(scenario, catalog) -> Resolved: every model input with its value and source.

One builder per section of the scenario, in the order the inputs are listed everywhere
(assumptions, top level, finance, team, facility, held stock, workloads, candidates), then the
checks across sections, the rent options `rent_options: auto` adds, the per-token API options
and the model's shape (`Structure`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import modes
from ..resolved import CandidateInfo, Resolved, Structure
from .api_options import resolve_api_options
from .benchmarks import apply_benchmarks
from .candidates import candidate
from .checks import check_distributions, check_licences_used, check_stock_used
from .china_rules import china_rules
from .held import held_stock_inputs
from .policy import check_policy
from .portfolio import portfolios
from .renting import check_rent_term, mark_rent_bars, rent_options
from .sites import sites
from .state import Resolution
from .tax import tax_terms
from .terms import assumptions, finance, team, top_level
from .vouchers import vouchers
from .workloads import workloads

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..benchmarks import Measured
    from ..catalog import Catalog
    from ..scenario import Loaded


def _shortfalls(r: Resolution, infos: dict[str, CandidateInfo], priced: list[str],
                rent: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The options whose shortfall is rented (§8), and the bought ones among them whose
    shortfall buying more cards may close too: not one sized to the plan (none), to a power
    cap or at a site with a power budget (more cards would break it), or drawing on held stock
    (the added cards' price would differ from the cluster's average)."""
    shortfall_rent = tuple(cid for cid in priced if cid in rent or f"candidates."
                           f"{infos[cid].inputs_of or cid}.shortfall_price_per_card_hour"
                           in r.inputs)
    closing = tuple(cid for cid in shortfall_rent if infos[cid].acquire == modes.BUY
                    and infos[cid].sizing in ("cards", "deadline_days")
                    and not infos[cid].inputs_of
                    and infos[cid].card not in r.sc.policy.holds_stock
                    and "power_budget_kw" not in r.sites[infos[cid].site].given)
    return shortfall_rent, closing


def resolve(loaded: Loaded, catalog: Catalog, measured: Sequence[Measured] | None = None
            ) -> Resolved:
    r = Resolution(loaded, catalog)
    sc = r.sc
    assumptions(r)
    top_level(r)
    finance(r)
    tax_schedule, tax_table, decision_basis = tax_terms(r)
    team(r)
    sites(r)
    held_by_age = held_stock_inputs(r)  # existing stock (tco.resolve.held)
    plan = workloads(r)
    infos: dict[str, CandidateInfo] = {}
    rent: list[str] = []
    for c in sc.candidates:
        infos[c.id], rented = candidate(r, c)
        if rented:
            rent.append(c.id)
    check_policy(loaded, catalog)
    check_rent_term(r)
    check_stock_used(r, infos)
    check_licences_used(r, infos)
    rent += rent_options(r, infos, rent)
    mark_rent_bars(r, infos, rent)
    apply_benchmarks(r, infos, measured)  # the user's measured efficiencies
    priced = [cid for cid, info in infos.items() if not info.infeasible]
    voucher_shape = vouchers(r, infos, priced)  # compute vouchers (tco.resolve.vouchers)
    revoked = china_rules(r, infos, priced)  # quotas and revoked licences
    api = resolve_api_options(r, [*infos, *(p.id for p in sc.portfolios)])
    check_distributions(r)  # every input known, the API options' prices included
    shortfall_rent, closing = _shortfalls(r, infos, priced, rent)
    structure = Structure(
        currency=sc.currency, horizon_years=sc.finance.horizon_years,
        workloads=tuple(plan), candidates=tuple(priced),
        stacks=tuple(infos[cid].stack for cid in priced),
        sizing=tuple(infos[cid].sizing for cid in priced),
        acquire=tuple(infos[cid].acquire for cid in priced),
        inputs_of=tuple(infos[cid].inputs_of or cid for cid in priced),
        barred=tuple(cid for cid in priced if infos[cid].blocking),
        rent=tuple(cid for cid in rent if cid in priced),
        objectives=tuple(r.objectives),
        shortfall_rent=shortfall_rent, closing=closing,
        assigned=tuple(tuple(infos[cid].workloads) for cid in priced),
        portfolios=portfolios(loaded, infos, priced, [w[0] for w in plan],
                              {a[0]: list(a[2:]) for a in api}),
        api=api,
        held=tuple(infos[cid].card if infos[cid].acquire in (modes.BUY, modes.HYBRID)
                   and infos[cid].card in sc.policy.holds_stock else "" for cid in priced),
        deliveries=tuple(infos[cid].deliveries if infos[cid].acquire != modes.RENT else 0
                         for cid in priced),
        held_by_age=held_by_age,
        sites=tuple((s.id, *s.given) for s in r.sites.values()),
        site_of=tuple(infos[cid].site for cid in priced),
        precisions=tuple(r.allowed(w.id) for w in sc.workloads)
        if any(w.precisions for w in sc.workloads) else (),
        speculative=tuple(w.id for w in sc.workloads
                          if w.kind == "serve" and w.speculative_accepted_tokens is not None),
        measured=tuple(r.measured.get(infos[cid].inputs_of or cid, ()) for cid in priced)
        if r.measured else (),
        storage_per_card="storage_tb_per_card" in sc.assumptions,
        tax_depreciation=tax_schedule, tax_table=tax_table, decision_basis=decision_basis,
        resale_curve=tuple(cid for cid in infos
                           if f"candidates.{cid}.resale_retention_per_year" in r.inputs),
        vouchers=voucher_shape, revoked=revoked,
        supply_limits=tuple((card, float(n)) for card, n in
                            sc.policy.supply_limit_cards_per_quarter.items()),
    )
    return Resolved(structure=structure, inputs=dict(r.inputs), candidates=infos,
                    file=loaded.file, scenario_data=sc.model_dump(mode="json"),
                    catalog_digest=catalog.digest(), usd_to_currency=r.usd.scale,
                    read_by_resolve=frozenset(r.inputs.read), scenario=sc,
                    catalog_files=catalog.overlays())
