"""Income tax (methodology §20, "Tax"): the rate and the depreciation schedule a scenario's
after-tax NPV uses, from its own `finance.tax_*` values or its jurisdiction's rule
(pricing/tax.yaml) in force on the acquisition date, and the basis the options are ranked on.

Without a rate or a jurisdiction the rate is 0: every after-tax NPV equals its NPV and the
options are ranked on the NPV, as before tax existed. With a rate above 0 they are ranked on
the after-tax NPV unless `finance.decision_basis: pre_tax` says otherwise."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..catalog import as_of_text
from ..errors import did_you_mean
from ..inputs import TAX_INPUTS, Input
from .state import Resolution

if TYPE_CHECKING:
    from ..catalog import TaxRule

SCHEDULES = ("straight_line", "macrs_5", "one_time")


def tax_rule(r: Resolution) -> TaxRule | None:
    """The rule of the scenario's jurisdiction in force on its acquisition date (the latest
    rule without a date); None without a jurisdiction."""
    fin = r.sc.finance
    if fin.tax_jurisdiction is None:
        if fin.tax_acquired_on is not None:
            raise r.error("'tax_acquired_on' picks a jurisdiction's rule, but no "
                          "tax_jurisdiction is given", ["finance", "tax_acquired_on"])
        return None
    rules = [t for t in r.catalog.tax_rules.values() if t.jurisdiction == fin.tax_jurisdiction]
    if not rules:
        known = sorted({t.jurisdiction for t in r.catalog.tax_rules.values()})
        hint = did_you_mean(fin.tax_jurisdiction, known)  # its own list when none is close
        listed = "" if "expected one of" in hint else f"; expected one of {', '.join(known)}"
        raise r.error(f"unknown tax jurisdiction '{fin.tax_jurisdiction}'{hint}{listed}",
                      ["finance", "tax_jurisdiction"])
    rules.sort(key=lambda t: _date_key(t.acquired_from))
    if fin.tax_acquired_on is None:
        return rules[-1]
    try:
        day = _date_key(as_of_text(fin.tax_acquired_on))
    except ValueError as exc:
        raise r.error(str(exc), ["finance", "tax_acquired_on"]) from None
    for t in rules:
        if _date_key(t.acquired_from) <= day and (
                t.acquired_until is None or day <= _date_key(t.acquired_until)):
            return t
    spans = "; ".join(f"{t.acquired_from} to {t.acquired_until or 'now'}" for t in rules)
    raise r.error(f"no {fin.tax_jurisdiction} tax rule covers equipment acquired on "
                  f"{fin.tax_acquired_on}; the catalog's rules cover {spans}",
                  ["finance", "tax_acquired_on"])


def _date_key(text: str) -> tuple[int, ...]:
    parts = [int(x) for x in text.split("-")]
    return tuple(parts + [1] * (3 - len(parts)))


def tax_terms(r: Resolution) -> tuple[str, tuple[float, ...], str]:
    """Put the tax inputs (`finance.tax_*`); return the schedule's name, its table (macrs_5's
    shares, else empty) and the decision basis."""
    fin = r.sc.finance
    rule = tax_rule(r)
    for key, spec in TAX_INPUTS.items():
        path = f"finance.{key}"
        given = getattr(fin, key)
        if given is not None:
            r.put(r.given(["finance", key], given, spec))
            continue
        fig = None if rule is None else {
            "tax_rate": rule.rate, "tax_life_years": rule.life_years,
            "tax_bonus_fraction": rule.bonus_fraction,
            "tax_expensing_threshold_per_unit": rule.expensing_threshold_per_unit,
            "tax_rd_extra_deduction_fraction": rule.rd_extra_deduction_fraction,
            "tax_rd_share": None}[key]
        if fig is not None:
            # money in the rule's currency: into USD, then the scenario's (figure_input)
            factor = 1 / r.catalog.usd_to(rule.currency) if spec.money else 1.0  # type: ignore[union-attr]
            r.figure(path, fig, spec, why=f"tax rule {rule.id}", factor=factor)  # type: ignore[union-attr]
            continue
        value, why = _default(r, key)
        r.put(Input(path=path, value=value, spec=spec, origin="default", source=why))
    _check_deductions_below_cost(r)
    schedule = fin.tax_depreciation or (rule.depreciation if rule is not None else
                                        "straight_line")
    table: tuple[float, ...] = ()
    if schedule == "macrs_5":
        table = tuple(float(x) for x in r.catalog.tax_tables["macrs_5"].shares)
    # read through r.inputs: a what-if of the rate resolves again, and the basis follows it
    taxed = r.inputs["finance.tax_rate"].value > 0
    basis = fin.decision_basis or ("after_tax" if taxed else "pre_tax")
    return schedule, table, basis


def _check_deductions_below_cost(r: Resolution) -> None:
    """A qualifying R&D cost deducted `1 + share x extra` times at `rate` must still cost
    something after tax: rate x (1 + share x extra) below 1. At or above it every research cost
    would return at least itself in tax, and the cheapest option would be the one that spends
    most (methodology §20)."""
    value = {k: r.inputs[f"finance.{k}"].value
             for k in ("tax_rate", "tax_rd_share", "tax_rd_extra_deduction_fraction")}
    rd = 1 + value["tax_rd_share"] * value["tax_rd_extra_deduction_fraction"]
    if value["tax_rate"] * rd >= 1:
        given = [k for k in value if getattr(r.sc.finance, k) is not None] or ["tax_rate"]
        raise r.error(
            f"a tax rate of {value['tax_rate']:g} with qualifying R&D costs deducted {rd:g} "
            f"times (1 + tax_rd_share {value['tax_rd_share']:g} x "
            f"tax_rd_extra_deduction_fraction {value['tax_rd_extra_deduction_fraction']:g}) "
            f"saves {value['tax_rate'] * rd:g} of every unit of such a cost: spending would "
            "earn money; expected tax_rate x (1 + tax_rd_share x "
            "tax_rd_extra_deduction_fraction) below 1", ["finance", given[0]])


def _default(r: Resolution, key: str) -> tuple[float, str]:
    if key == "tax_rate":
        return 0.0, ("default: no income tax modelled (give finance.tax_rate or "
                     "finance.tax_jurisdiction)")
    if key == "tax_life_years":
        return 5.0, ("default: 5 years, the recovery period of computers in the US (26 U.S.C. "
                     "168(e)(3)(B)(iv))")
    if key == "tax_bonus_fraction":
        return 0.0, "default: no bonus depreciation"
    if key == "tax_rd_extra_deduction_fraction":
        return 0.0, "default: no R&D super-deduction"
    if key == "tax_rd_share":
        return 0.0, ("default: none of the costs counted as qualifying R&D (give "
                     "finance.tax_rd_share)")
    return 0.0, "default: no per-unit one-time deduction"
