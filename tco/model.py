"""The TCO model: every quantity defined once, as a formula over named inputs.

`build_model(structure)` returns a `Model`: an ordered list of `Quantity` (name, formula, unit,
label). The model holds no numbers; `Model.evaluate(values)` computes every quantity from a
mapping of input paths to floats or numpy arrays (all broadcasting together), and the workbook
exporter writes the same formulas into cells. docs/methodology.md explains each formula, in the
order they appear here.

Sign and timing conventions: costs are positive, inflows (residual value, loan proceeds)
negative. Year 0 is the purchase date (capex, one-time porting, cost of delay); operating costs
fall at the end of years 1..H; residual value at the end of year H. NPV discounts year t by
(1 + r)^t, so year 0 is undiscounted (numpy-financial's `npv` convention).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .expr import (
    AND,
    IF,
    MAX,
    MIN,
    NPV0,
    PMT,
    ROUNDUP,
    SUM,
    Const,
    Expr,
    ExprLike,
    Ref,
    Value,
    lift,
)
from .resolved import Structure

HOURS_PER_YEAR = 8760.0
HOURS_PER_DAY = 24.0
SECONDS_PER_HOUR = 3600.0
FLOPS_PER_TFLOPS = 1e12
FLOP_PER_PFLOP_HOUR = 1e15 * 3600.0
BYTES_PER_GB = 1e9
W_PER_KW = 1000.0
MONTHS_PER_YEAR = 12.0
TOKENS_PER_MILLION = 1e6
RATE_AS_ZERO = 1e-6  # a discount rate below this is treated as zero in the annuity factor
COMPLETE_FRACTION = 1 - 1e-9  # a share of planned runs completed at or above this is all of them

# Cash-flow components, in the order every table shows them.
CAPEX_COMPONENTS = ("cards", "servers", "network", "cooling", "installation")
COMPONENTS = CAPEX_COMPONENTS + (
    "porting", "lead_time_delay", "electricity", "colocation", "support", "licences",
    "operations_staff", "porting_maintenance", "financing", "residual_value",
)
# Each year's totals, after its components: the net flow and the running (undiscounted) total.
YEAR_TOTALS = ("net", "cumulative")
# Per-job cost lines (their sum is the job's total).
JOB_COMPONENTS = ("hardware", "electricity", "facility", "operations", "porting")
JOB_COMPONENT_LABELS = {"hardware": "Hardware", "electricity": "Electricity",
                        "facility": "Facility", "operations": "Operations", "porting": "Porting"}


@dataclass(frozen=True)
class Quantity:
    name: str  # "<candidate>.<key>", "<candidate>.<workload>.<key>" or "<candidate>.y<t>.<component>"
    expr: Expr
    unit: str
    label: str
    candidate: str
    group: str  # cluster | job | year | horizon
    workload: str | None = None
    year: int | None = None


@dataclass
class Model:
    structure: Structure
    quantities: list[Quantity] = field(default_factory=list)
    # Look-ups built from `quantities` when first asked for, again after an `add`: a scenario
    # of many candidates must not scan every candidate's formulas for each one of them.
    _index: dict[str, Any] = field(default_factory=dict, init=False, repr=False,
                                   compare=False)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_index": {}}  # a kept baseline (tco/snapshot.py) stays small

    def add(self, q: Quantity) -> Ref:
        self.quantities.append(q)
        self._index.clear()
        return Ref(q.name)

    def __iter__(self) -> Iterator[Quantity]:
        return iter(self.quantities)

    def _cached(self, key: str, build: Callable[[], Any]) -> Any:
        if key not in self._index:
            self._index[key] = build()
        return self._index[key]

    def expressions(self) -> dict[str, Expr]:
        """Quantity name -> formula."""
        return self._cached("exprs", lambda: {q.name: q.expr for q in self.quantities})  # type: ignore[no-any-return]

    def of_candidate(self, cid: str) -> list[Quantity]:
        """The quantities of one candidate, in model order."""
        def build() -> dict[str, list[Quantity]]:
            out: dict[str, list[Quantity]] = {}
            for q in self.quantities:
                out.setdefault(q.candidate, []).append(q)
            return out
        return self._cached("by_candidate", build).get(cid, [])  # type: ignore[no-any-return]

    def reads(self, name: str) -> list[str]:
        """The names (inputs and quantities) quantity `name`'s formula reads, in order."""
        cache: dict[str, list[str]] = self._index.setdefault("reads", {})
        out = cache.get(name)
        if out is None:
            out = cache[name] = [r.name for r in self.expressions()[name].refs()]
        return out

    def inputs_used(self) -> list[str]:
        """Input paths the formulas read, in first-use order."""
        return list(self._cached("inputs_used", lambda: self._inputs_read(self.quantities)))

    def _inputs_read(self, quantities: Iterable[Quantity]) -> list[str]:
        exprs = self.expressions()
        seen: dict[str, None] = {}
        for q in quantities:
            for name in self.reads(q.name):
                if name not in exprs:
                    seen.setdefault(name, None)
        return list(seen)

    def inputs_feeding(self, names: Iterable[str]) -> set[str]:
        """The input paths that quantities `names` depend on, directly or through others."""
        exprs = self.expressions()
        todo, seen, inputs = list(names), set(), set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            if name not in exprs:
                inputs.add(name)
                continue
            todo.extend(self.reads(name))
        return inputs

    def feeding(self, names: Iterable[str]) -> Model:
        """A model of only the quantities `names` depend on (themselves included), in this
        model's order: evaluating it gives those quantities exactly as `evaluate` does."""
        exprs = self.expressions()
        todo, seen = list(names), set()
        while todo:
            name = todo.pop()
            if name in seen or name not in exprs:
                continue
            seen.add(name)
            todo.extend(self.reads(name))
        position: dict[str, int] = self._cached(
            "position", lambda: {q.name: i for i, q in enumerate(self.quantities)})
        sub = Model(self.structure, [self.quantities[i] for i in sorted(position[n]
                                                                        for n in seen)])
        sub._index["reads"] = self._index.setdefault("reads", {})  # the same formulas
        return sub

    def evaluate(self, values: Mapping[str, Value], candidate: str | None = None
                 ) -> dict[str, Value]:
        """Every quantity (or one candidate's), from input values (floats or broadcasting arrays)."""
        env: dict[str, Value] = dict(values)
        for q in self.quantities if candidate is None else self.of_candidate(candidate):
            env[q.name] = q.expr.evaluate(env)
        return env


class _Builder:
    """Adds the quantities of one candidate; `q()` names a formula and returns its reference."""

    def __init__(self, model: Model, cid: str) -> None:
        self.model = model
        self.cid = cid

    def i(self, path: str) -> Ref:
        return Ref(path)

    def c(self, key: str) -> Ref:
        return Ref(f"candidates.{self.cid}.{key}")

    def q(self, key: str, expr: Expr, unit: str, label: str, group: str,
          workload: str | None = None, year: int | None = None) -> Ref:
        parts = [self.cid] + ([workload] if workload else []) + (
            [f"y{year}"] if year is not None else []) + [key]
        return self.model.add(Quantity(".".join(parts), expr, unit, label, self.cid, group,
                                       workload, year))


def build_model(structure: Structure) -> Model:
    model = Model(structure)
    for cid in structure.candidates:
        _candidate(model, structure, cid)
    return model


def _candidate(model: Model, st: Structure, cid: str) -> None:
    b = _Builder(model, cid)
    a = lambda key: Ref(f"assumptions.{key}")
    c, q = b.c, b.q
    money = st.currency

    # --- cluster ---------------------------------------------------------------------------
    cards = c("cards")
    nodes = q("nodes", ROUNDUP(cards / c("cards_per_node")), "nodes", "Servers", "cluster")
    spares = q("spare_cards", ROUNDUP(cards * a("hot_spare_fraction")), "cards",
               "Hot-spare cards", "cluster")
    rated_w = q("rated_power_w", cards * c("tdp_w") + nodes * c("node_power_w"), "W",
                "Rated IT power (cards and servers)", "cluster")
    train_w = q("training_power_w", rated_w * a("training_power_fraction"), "W",
                "IT power while training", "cluster")
    idle_w = q("idle_power_w", rated_w * a("idle_power_fraction"), "W", "IT power while idle",
               "cluster")
    it_kw = q("it_capacity_kw", rated_w / W_PER_KW, "kW", "Provisioned IT capacity", "cluster")
    facility_kw = q("facility_power_kw", it_kw * c("pue"), "kW",
                    "Facility power at rated IT load (IT x PUE)", "cluster")
    failures = q("interruptions_per_hour", cards * a("card_failure_rate_per_hour"), "1/h",
                 "Expected interruptions per hour", "cluster")
    goodput = q(
        "goodput",
        1 - a("checkpoint_overhead_fraction")
        - failures * (a("restart_hours") + a("checkpoint_interval_hours") / 2),
        "fraction", "Goodput: share of wall time doing useful training", "cluster",
    )

    # --- per job, per workload ----------------------------------------------------------------
    busy_terms: list[Expr] = []
    job_refs: dict[str, dict[str, Ref]] = {}
    for wid, precision, _kind in st.workloads:
        w = lambda key: Ref(f"workloads.{wid}.{key}")  # noqa: B023

        def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
            return q(key, expr, unit, label, "job", workload=wid)  # noqa: B023

        flops = jq("train_flops", a("flops_per_param_token") * w("active_params") * w("tokens"),
                   "FLOP", "Training compute (6·N·D)")
        tp = jq("tensor_parallel",
                MIN(c("scaleup_domain_cards"), a("tensor_parallel_max"), cards,
                    MAX(1, ROUNDUP(w("params") / a("params_per_tensor_rank")))),
                "cards", "Tensor-parallel group (within the scale-up domain, sized to the model)")
        hidden = jq("hidden_size", (a("hidden_per_layer_ratio") * w("active_params") / 12)
                    ** (1.0 / 3.0), "units", "Inferred hidden size")
        layers = jq("layers", hidden / a("hidden_per_layer_ratio"), "layers",
                    "Inferred number of layers")
        mem_need = jq(
            "memory_needed_gb",
            (a("state_bytes_per_param") * w("params") / cards
             + (a("activation_checkpoint_bytes") * layers + a("activation_working_bytes"))
             * w("seq_len_tokens") * hidden / tp) / BYTES_PER_GB,
            "GB", "Memory needed per card (sharded state + activations)")
        mem_have = jq("memory_usable_gb", c("memory_gb") * a("usable_memory_fraction"), "GB",
                      "Usable memory per card")
        fits = jq("fits_memory", mem_need.le(mem_have), "flag", "Job fits in memory")
        sustained = jq(
            "sustained_flops_per_card",
            c(f"peak_tflops_{precision}") * FLOPS_PER_TFLOPS * c("mfu") * c("stack_efficiency"),
            "FLOP/s", f"Sustained {precision.upper()} compute per card before communication")
        replica = jq(
            "replica_cards",
            MIN(cards, tp * ROUNDUP(a("state_bytes_per_param") * w("params")
                                    / (tp * c("memory_gb") * BYTES_PER_GB
                                       * a("usable_memory_fraction")
                                       * a("replica_state_memory_share")))),
            "cards", "Cards holding one model replica (tensor x pipeline)")
        up_ratio = jq(
            "scaleup_comm_ratio",
            2 * (tp - 1) * sustained
            / (9 * hidden * c("scaleup_bandwidth_bidir_gb_per_s") / 2 * BYTES_PER_GB),
            "ratio", "Tensor-parallel traffic time / compute time")
        out_ratio = jq(
            "scaleout_comm_ratio",
            2 * (cards / replica - 1) * sustained
            / (3 * c("scaleout_bandwidth_gb_per_s") * BYTES_PER_GB * w("global_batch_tokens")),
            "ratio", "Data-parallel gradient traffic time / compute time")
        scaling = jq("scaling_efficiency",
                     1 / (1 + (1 - a("comm_overlap_fraction")) * (up_ratio + out_ratio)),
                     "fraction", "Scaling efficiency (exposed communication)")
        eff = jq("effective_flops_per_card", sustained * scaling, "FLOP/s",
                 "Effective compute per card")
        wall_h = jq("wall_hours", flops / (cards * eff * SECONDS_PER_HOUR) / goodput, "h",
                    "Wall-clock time per run")
        wall_d = jq("wall_days", wall_h / HOURS_PER_DAY, "days", "Wall-clock days per run")
        gpu_h = jq("gpu_hours", cards * wall_h, "card-h", "Accelerator-hours per run")
        jq("mfu_effective", flops / (gpu_h * SECONDS_PER_HOUR * c(f"peak_tflops_{precision}")
                                     * FLOPS_PER_TFLOPS), "fraction",
           "Effective utilization of peak over the run (incl. lost time)")
        e_it = jq("energy_it_kwh", train_w * wall_h / W_PER_KW, "kWh", "IT energy per run")
        e_fac = jq("energy_facility_kwh", e_it * c("pue"), "kWh",
                   "Facility energy per run (IT x PUE)")
        jq("co2e_kg", e_fac * Ref("facility.carbon_kg_per_kwh"), "kg CO2e", "Emissions per run")
        feasible = jq("feasible", AND(fits, goodput.gt(0)), "flag",
                      "Feasible: fits in memory and makes progress")
        busy_terms.append(w("runs_per_year") * wall_h)
        job_refs[wid] = {"flops": flops, "wall_h": wall_h, "wall_d": wall_d, "gpu_h": gpu_h, "e_fac": e_fac,
                         "feasible": feasible}

    # --- feasibility and ranking tier: the one rule every command and exporter follows ------
    runnable = q("runnable", AND(*[r["feasible"] for r in job_refs.values()]), "flag",
                 "Runs every workload: fits in memory and makes progress", "cluster")
    sizing = st.sizing[st.candidates.index(cid)]
    if sizing == "deadline_days":
        primary = st.workloads[0][0]
        target = q("meets_deadline", job_refs[primary]["wall_d"].le(c("deadline_days")), "flag", "A run of the primary workload finishes within the deadline",
                   "cluster")
        feasible = q("feasible", AND(runnable, target), "flag",
                     "Feasible: runs every workload and meets the deadline", "cluster")
    elif sizing == "power_cap_kw":
        target = q("within_power_cap", facility_kw.le(c("power_cap_kw")), "flag",
                   "Facility power within the power cap", "cluster")
        feasible = q("feasible", AND(runnable, target), "flag",
                     "Feasible: runs every workload within the power cap", "cluster")
    else:
        feasible = q("feasible", runnable, "flag", "Feasible: runs every workload", "cluster")

    # --- capex ---------------------------------------------------------------------------------
    fin = lambda key: Ref(f"finance.{key}")
    cx_cards = q("capex_cards", (cards + spares) * c("card_price"), money,
                 "Accelerators, spares included", "horizon")
    cx_servers = q("capex_servers", nodes * c("node_price"), money, "Servers", "horizon")
    cx_network = q("capex_network", cards * c("network_cost_per_card"), money, "Network fabric",
                   "horizon")
    hw = q("hardware_capex", cx_cards + cx_servers + cx_network, money, "Hardware capex",
           "horizon")
    cx_cooling = q("capex_cooling", it_kw * c("cooling_capex_per_kw"), money, "Cooling capex",
                   "horizon")
    cx_install = q("capex_installation", hw * a("installation_fraction"), money, "Installation",
                   "horizon")
    capex = q("capex_total", hw + cx_cooling + cx_install, money, "Total capex", "horizon")

    # --- operations per year -------------------------------------------------------------------
    avail_h = q("available_hours_per_year", HOURS_PER_YEAR * Ref("utilization"), "h/yr",
                "Hours per year the cluster can run jobs", "horizon")
    demand_h = q("demand_hours_per_year", SUM(*busy_terms), "h/yr",
                 "Hours per year the planned runs need", "horizon")
    busy_h = q("busy_hours_per_year", MIN(demand_h, avail_h), "h/yr",
               "Hours per year spent training", "horizon")
    share_done = q("runs_completed_fraction", IF(demand_h.gt(0), busy_h / demand_h, 1),
                   "fraction", "Share of planned runs the cluster completes", "horizon")
    q("tier", tier_formula(feasible, cid in st.barred, share_done), "tier",
      "Ranking tier: 0 delivers every run, 1 fewer runs, 2 barred here, 3 infeasible", "horizon")
    energy_y = q("energy_facility_kwh_per_year",
                 (train_w * busy_h + idle_w * (HOURS_PER_YEAR - busy_h)) * c("pue") / W_PER_KW,
                 "kWh/yr", "Facility energy per year (training and idle)", "horizon")
    elec_y = q("electricity_per_year", energy_y * Ref("facility.electricity_price_per_kwh"),
               money, "Electricity per year", "horizon")
    colo_y = q("colocation_per_year",
               it_kw * Ref("facility.colocation_price_per_kw_month") * MONTHS_PER_YEAR, money,
               "Colocation per year", "horizon")
    support_y = q("support_per_year", hw * a("support_fraction_per_year"), money,
                  "Hardware support per year", "horizon")
    licence_y = q("licences_per_year", cards * c("licence_per_card_year"), money,
                  "Software licences per year", "horizon")
    eng_month = Ref("team.engineer_cost_per_month")
    staff_y = q("operations_staff_per_year",
                cards / 1000 * a("ops_engineers_per_1000_cards") * eng_month * MONTHS_PER_YEAR,
                money, "Operations staff per year", "horizon")
    stack = st.stacks[st.candidates.index(cid)]
    unfamiliar = 1 - Ref(f"team.familiarity.{stack}")
    porting = q("porting_one_time", c("porting_engineer_months") * eng_month * unfamiliar,
                money, "One-time porting effort", "horizon")
    port_maint = q("porting_maintenance_per_year",
                   c("maintenance_engineer_months_per_year") * eng_month * unfamiliar, money,
                   "Porting maintenance per year", "horizon")
    delay = q("lead_time_delay_cost", c("lead_time_weeks") * Ref("cost_of_delay_per_week"),
              money, "Cost of the delivery lead time", "horizon")
    financed = q("financed_amount", capex * fin("financed_fraction"), money,
                 "Capex financed by the loan", "horizon")
    payment = q("loan_payment_per_year",
                -PMT(fin("loan_rate"), fin("loan_term_years"), financed), money,
                "Loan payment per year", "horizon")
    book = q("residual_fraction",
             fin("residual_value_fraction") + (1 - fin("residual_value_fraction"))
             * MAX(0, 1 - st.horizon_years / fin("depreciation_years")),
             "fraction", "Book value at the horizon, share of hardware capex", "horizon")
    residual = q("residual_value", hw * book, money, "Residual value at the horizon", "horizon")

    # --- yearly cash flows ---------------------------------------------------------------------
    flows: list[Ref] = []
    gpu_h_year = SUM(*[Ref(f"workloads.{wid}.runs_per_year") * share_done * r["gpu_h"]
                       for wid, r in job_refs.items()])
    jobs_year = SUM(*[Ref(f"workloads.{wid}.runs_per_year") * share_done
                      for wid in job_refs])
    pflop_h_year = SUM(*[Ref(f"workloads.{wid}.runs_per_year") * share_done * r["flops"]
                         for wid, r in job_refs.items()]) / FLOP_PER_PFLOP_HOUR
    gpu_h_y = q("gpu_hours_per_year", gpu_h_year, "card-h/yr", "Delivered accelerator-hours "
                "per year", "horizon")
    jobs_y = q("runs_per_year", jobs_year, "runs/yr", "Runs completed per year", "horizon")
    pflop_y = q("pflop_hours_per_year", pflop_h_year, "PFLOP-h/yr",
                "Useful compute per year (model FLOPs)", "horizon")
    for t in range(st.horizon_years + 1):
        first, last = t == 0, t == st.horizon_years
        op = (lambda x: 0.0) if first else (lambda x: x)
        parts: dict[str, Expr | float] = {
            "cards": cx_cards if first else 0.0,
            "servers": cx_servers if first else 0.0,
            "network": cx_network if first else 0.0,
            "cooling": cx_cooling if first else 0.0,
            "installation": cx_install if first else 0.0,
            "porting": porting if first else 0.0,
            "lead_time_delay": delay if first else 0.0,
            "electricity": op(elec_y),
            "colocation": op(colo_y),
            "support": op(support_y),
            "licences": op(licence_y),
            "operations_staff": op(staff_y),
            "porting_maintenance": op(port_maint),
            "financing": -financed if first else IF(fin("loan_term_years").ge(t), payment, 0),
            "residual_value": -residual if last else 0.0,
        }
        refs = []
        for comp in COMPONENTS:
            part = parts[comp]
            expr = part if isinstance(part, Expr) else _zero()
            refs.append(q(comp, expr, money, COMPONENT_LABELS[comp], "year", year=t))
        flows.append(q("net", SUM(*refs), money, f"Net cash flow, year {t}", "year", year=t))
        q("cumulative", SUM(*flows), money,
          f"Cumulative net cash flow to year {t} (undiscounted)", "year", year=t)

    rate = fin("discount_rate")
    npv = q("npv_tco", NPV0(rate, flows), money, "NPV of TCO", "horizon")
    total = q("undiscounted_tco", SUM(*flows), money, "Undiscounted TCO", "horizon")
    del total
    horizon = st.horizon_years
    # Below RATE_AS_ZERO, 1 - (1+r)^-H loses every digit to rounding (a subnormal rate gives 0):
    # the factor is H there, to within r*H/2 relative.
    annuity = q("annuity_factor",
                IF(rate.gt(RATE_AS_ZERO), (1 - (1 + rate) ** (-horizon)) / MAX(rate, RATE_AS_ZERO),
                   horizon),
                "years", "Present value of 1 per year for the horizon", "horizon")
    q("equivalent_annual_cost", npv / annuity, money, "Equivalent annual cost", "horizon")
    q("cost_per_gpu_hour", IF(gpu_h_y.gt(0), npv / MAX(annuity * gpu_h_y, 1e-12), 0),
      f"{money}/card-h", "Levelized cost per delivered accelerator-hour", "horizon")
    q("cost_per_pflop_hour", IF(pflop_y.gt(0), npv / MAX(annuity * pflop_y, 1e-12), 0),
      f"{money}/PFLOP-h", "Levelized cost per effective PFLOP-hour", "horizon")
    q("cost_per_run_horizon", IF(jobs_y.gt(0), npv / MAX(annuity * jobs_y, 1e-12), 0),
      money, "Levelized cost per completed run over the horizon", "horizon")
    q("runs_over_horizon", jobs_y * horizon, "runs", "Runs completed over the horizon", "horizon")

    # --- per-job cost lines (primary workload first; one set per workload) ---------------------
    hourly_capacity = avail_h  # cluster hours per year over which fixed costs are spread
    hw_per_hour = q(
        "hardware_cost_per_cluster_hour",
        (hw * (1 - fin("residual_value_fraction")) + cx_cooling + cx_install)
        / (fin("depreciation_years") * hourly_capacity),
        f"{money}/h", "Straight-line depreciation per available cluster-hour", "horizon")
    fac_per_hour = q("facility_cost_per_cluster_hour", colo_y / hourly_capacity, f"{money}/h",
                     "Colocation per available cluster-hour", "horizon")
    ops_per_hour = q("operations_cost_per_cluster_hour",
                     (support_y + licence_y + staff_y + port_maint) / hourly_capacity,
                     f"{money}/h", "Support, licences, staff and port upkeep per cluster-hour",
                     "horizon")
    runs_horizon_all = MAX(jobs_y * horizon, 1)
    for wid, r in job_refs.items():
        def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
            return q(key, expr, unit, label, "job", workload=wid)  # noqa: B023

        lines = {
            "hardware": jq("cost_hardware", hw_per_hour * r["wall_h"], money,
                           "Hardware depreciation share per run"),
            "electricity": jq("cost_electricity",
                              r["e_fac"] * Ref("facility.electricity_price_per_kwh"), money,
                              "Electricity per run"),
            "facility": jq("cost_facility", fac_per_hour * r["wall_h"], money,
                           "Colocation share per run"),
            "operations": jq("cost_operations", ops_per_hour * r["wall_h"], money,
                             "Operations share per run"),
            "porting": jq("cost_porting", porting / runs_horizon_all, money,
                          "One-time porting spread over the horizon's runs"),
        }
        cost = jq("cost_per_job", SUM(*lines.values()), money, "Cost per run")
        jq("cost_per_million_tokens", cost / (Ref(f"workloads.{wid}.tokens") / TOKENS_PER_MILLION),
           money, "Cost per million training tokens")

    # --- renting the same delivered compute from the cloud -------------------------------------
    if cid in st.rent:
        rent_y = q("cloud_rent_per_year", gpu_h_y * c("cloud_price_per_card_hour"), money,
                   "Cloud rental of the same accelerator-hours per year", "horizon")
        rent_flows = [porting] + [rent_y + port_maint for _ in range(horizon)]
        rent_npv = q("cloud_npv", NPV0(rate, rent_flows), money,
                     "NPV of renting the same compute", "horizon")
        del rent_npv
        # Buying costs fixed + e*h, renting costs porting + g*h (h = busy hours per year).
        energy_slope = ((train_w - idle_w) * c("pue") / W_PER_KW
                        * Ref("facility.electricity_price_per_kwh"))
        rent_slope = cards * c("cloud_price_per_card_hour")
        fixed_buy = npv - annuity * energy_slope * busy_h
        fixed_rent = porting + annuity * port_maint
        q("breakeven_utilization",
          (fixed_buy - fixed_rent) / (annuity * MAX(rent_slope - energy_slope, 1e-12)
                                      * HOURS_PER_YEAR),
          "fraction", "Busy share of the year at which buying costs the same as renting",
          "horizon")


def tier_formula(feasible: ExprLike, barred: bool, completed_fraction: ExprLike) -> Expr:
    """The ranking tier: 0 feasible, may be bought and completes every planned run; 1 may be
    bought but completes fewer; 2 feasible but barred (export control, licence); 3 infeasible.
    Every candidate ranks by (tier, NPV of TCO): the engine on floats, Monte Carlo on arrays of
    draws and the workbook as a live formula all read this one quantity."""
    allowed = IF(lift(completed_fraction).ge(COMPLETE_FRACTION), 0.0, 1.0)
    return IF(lift(feasible), 2.0 if barred else allowed, 3.0)


def _zero() -> Expr:
    return Const(0.0)


COMPONENT_LABELS = {
    "cards": "Accelerators", "servers": "Servers", "network": "Network",
    "cooling": "Cooling", "installation": "Installation", "porting": "Porting (one-time)",
    "lead_time_delay": "Lead-time delay", "electricity": "Electricity",
    "colocation": "Colocation", "support": "Support", "licences": "Software licences",
    "operations_staff": "Operations staff", "porting_maintenance": "Porting maintenance",
    "financing": "Financing", "residual_value": "Residual value",
}
