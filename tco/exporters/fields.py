"""The one table of output keys: what each key of `tco compare` and `tco job` JSON (and each
column of `tco compare --format csv`) holds, read from which quantity, in which unit.

`tco.exporters.data` builds every candidate and job object from `FIELDS`, and
`tco.exporters.schema` writes the published JSON Schema from it, so a key has one name, one
quantity and one unit wherever it appears. docs/json.md explains the table to users.

Scope says where a field sits and what it reads:

- `candidate`: who the candidate is and its verdict, read from the `CandidateResult` (dotted
  attribute path). In `compare` JSON's `candidates[]` and at the top of `tco job` JSON.
- `primary`: one figure of the candidate's primary (first) workload, a model quantity of
  `CandidateResult.jobs[primary]`. The headline keys of `compare` JSON's `candidates[]`; each is
  also a `workload` field (same quantity) under the name the `workload` row gives.
- `horizon`: a cluster or horizon quantity, `CandidateResult.values`. `compare` only.
- `workload`: one workload's per-run figure, `CandidateResult.jobs[workload]`. In `compare`
  JSON's `candidates[].jobs.<workload>` and at the top of `tco job` JSON (its one workload), under
  the same key in both. A key that is also a `candidate` key (`feasible`) is the candidate's
  in `tco job`.
- `workloads`, `yearly`: the per-workload map and the yearly cash flows. `compare` only.

When says when a field holds a value; otherwise it is null (an empty list for `yearly`):

- `always`: every candidate.
- `priced`: the model computed numbers for the candidate (false when it cannot run the
  workload's precision at all). The figures a reason quotes (compute, memory) hold whatever the
  verdict.
- `quantified`: priced and feasible (`CandidateResult.quantified`): no time or cost of an option
  that does not fit or makes no progress.
- `cloud`: quantified, and the catalog has a cloud price for the card.
- `shortfall`: quantified, and its shortfall can be priced (a cloud price for the card, or
  a rent of the same peak compute on another card usable in the region).
- `one_run`: quantified, and the option carries one workload, a training one (a plan-level
  figure per run means nothing when runs of different workloads would be counted alike).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import (
    COMPONENT_LABELS,
    COMPONENTS,
    JOB_COMPONENTS,
    YEAR_SHARES,
    YEAR_TAX,
    YEAR_TOTALS,
)

SCOPES = ("candidate", "primary", "horizon", "workload", "workloads", "yearly")
WHEN = ("always", "priced", "quantified", "cloud", "shortfall", "lease", "one_run")
# number | integer | boolean | string | strings (a list of text) | cost (the per-run cost lines)
# | workloads (workload id -> workload fields) | yearly (a list of yearly cash-flow rows)
# | interval ({p10, p90}: the quantities <quantity>_p10 and <quantity>_p90)
KINDS = ("number", "integer", "boolean", "string", "strings", "cost", "workloads", "yearly",
         "interval")
MONEY = "{currency}"  # a unit in the output's own currency (its `currency` key)


@dataclass(frozen=True)
class Field:
    key: str  # the JSON key (and CSV column)
    quantity: str  # what it reads: a model quantity, or an attribute path of the candidate
    scope: str  # see the module docstring
    unit: str  # unit of the number; MONEY is the output's currency; "" for text and flags
    description: str
    kind: str = "number"
    when: str = "quantified"
    csv: bool = False  # a column of `tco compare --format csv`
    # a `workload` field: of a training workload (train), a serving one (serve) or both
    applies: str = "train"
    # its heading in the report's and the workbook's tables (a key of templates/strings.yaml,
    # English and Chinese); "" for a field no table shows
    label: str = ""

    def __post_init__(self) -> None:
        assert self.scope in SCOPES and self.when in WHEN and self.kind in KINDS, self
        assert self.applies in ("train", "serve", "both"), self

    @property
    def nullable(self) -> bool:
        return self.when != "always" and self.kind not in ("strings", "yearly")

    @property
    def form(self) -> str:
        """How every output writes it, read from its unit (never chosen per output): money
        (an amount), price (an amount per unit: per card-hour, per year), days, count, share,
        or number. The report's and the live page's kinds (REPORT_FORMS) and the workbook's
        number formats (WORKBOOK_FORMS) follow it."""
        if self.unit == MONEY:
            return "money"
        if self.unit.startswith(MONEY + "/"):
            return "price"
        return {"days": "days", "fraction": "share", "card-h": "count", "cards": "count",
                "kWh": "count", "kg CO2e": "count"}.get(self.unit, "number")

    def quantity_of(self, cid: str, workload: str) -> str:
        """The model quantity it reads for option `cid` (`workload`: the run's, for a
        primary or workload field)."""
        if self.scope in ("primary", "workload"):
            return f"{cid}.{workload}.{self.quantity}"
        return f"{cid}.{self.quantity}"


# the report's and the live page's kinds (View.fmt, report_live.js FORMATS) of each form
REPORT_FORMS = {"money": "money", "price": "money", "days": "days", "count": "num0",
                "share": "pct", "number": "num2"}
# the workbook's number formats (xlsx.summary) of each form
WORKBOOK_FORMS = {"money": "amount", "price": "price", "days": "days", "count": "count",
                  "share": "share", "number": "count"}


_C, _P, _H, _W = "candidate", "primary", "horizon", "workload"

FIELDS: tuple[Field, ...] = (
    # --- who the candidate is, and the verdict --------------------------------------------------
    Field("id", "id", _C, "", "Candidate id, as in the scenario", "string", "always", True),
    Field("name", "info.name", _C, "", "Candidate name (the scenario's, else the card's)",
          "string", "always", True),
    Field("card", "info.card", _C, "", "Accelerator id in the catalog", "string", "always",
          True),
    Field("platform", "info.platform", _C, "", "Server platform id in the catalog", "string",
          "always"),
    Field("stack", "info.stack", _C, "", "Software stack id in the catalog", "string",
          "always"),
    Field("acquire", "info.acquire", _C, "", "How the capacity is got: buy (bought outright or "
          "with a loan), lease (the hardware leased), rent, or hybrid (buy, and rent what the "
          "cluster cannot do in time)",
          "string", "always", True),
    Field("cards", "inputs.cards", _C, "cards", "Accelerators in the cluster (after sizing)",
          "integer", "always", True),
    Field("carries", "carries", _C, "", "The workloads (ids) it carries: every workload of the "
          "plan unless the scenario assigns it some (`candidates[].workloads`); an option "
          "carrying only some is part of a portfolio", "strings", "always"),
    Field("feasible", "feasible", _C, "", "Whether it can run every workload: priced, fits in "
          "memory, makes progress between interruptions", "boolean", "always", True),
    Field("reasons", "reasons", _C, "", "Why it is infeasible; empty when feasible", "strings",
          "always", True),
    Field("notes", "notes", _C, "", "Notes on a result that holds (sizing, runs the cluster "
          "cannot complete); never the reasons or the risk flags again", "strings", "always",
          True),
    Field("flags", "info.flags", _C, "", "Risk flags (software stack, supply, export control, "
          "licence)", "strings", "always", True),
    Field("blocking", "info.blocking", _C, "", "The flags that bar buying it here (export "
          "control, licence); a blocked candidate is never recommended", "strings", "always",
          True),
    # --- headline figures: the primary workload, one run --------------------------------------
    Field("gpu_hours_per_job", "gpu_hours", _P, "card-h",
          "Accelerator-hours of one run of the primary workload", csv=True),
    Field("wall_days_per_job", "wall_days", _P, "days",
          "Wall-clock days of one run of the primary workload", csv=True, label="col_time"),
    Field("cost_per_job", "cost_per_job", _P, MONEY, "Cost of one run of the primary workload, "
          "fixed costs spread over every available cluster-hour (a fully used cluster)",
          csv=True, label="col_cost_per_job"),
    Field("cost_per_job_breakdown", "cost_per_job", _P, MONEY,
          "`cost_per_job` by cost line (`total` is `cost_per_job`)", "cost"),
    Field("cost_per_million_tokens", "cost_per_million_tokens", _P, f"{MONEY}/1e6 tokens",
          "Cost of one run of the primary workload per million training tokens"),
    Field("energy_kwh_per_job", "energy_facility_kwh", _P, "kWh",
          "Facility energy (IT x PUE) of one run of the primary workload"),
    Field("co2e_kg_per_job", "co2e_kg", _P, "kg CO2e",
          "Emissions of one run of the primary workload"),
    # --- the horizon ---------------------------------------------------------------------------
    Field("cost_per_run_horizon", "cost_per_run_horizon", _H, MONEY, "NPV of TCO over the "
          "discounted runs completed over the horizon (the cluster as actually used), when "
          "the option carries one training workload; each workload's is under `jobs`",
          when="one_run", csv=True),
    Field("npv_tco", "npv_tco", _H, MONEY, "Net present value of the total cost of ownership "
          "over the horizon (year 0 undiscounted)", csv=True, label="col_npv"),
    Field("npv_tco_after_tax", "npv_tco_after_tax", _H, MONEY, "NPV of TCO after income tax: "
          "each deductible cost and the tax depreciation of what it owns lower the tax by the "
          "tax rate in the year deducted, the resale is taxed (equal to `npv_tco` without "
          "finance.tax_rate; methodology §20)"),
    Field("undiscounted_tco", "undiscounted_tco", _H, MONEY,
          "Sum of the yearly net cash flows, undiscounted", csv=True, label="col_undiscounted"),
    Field("equivalent_annual_cost", "equivalent_annual_cost", _H, f"{MONEY}/yr",
          "NPV of TCO as a level annual amount over the horizon"),
    Field("cost_per_gpu_hour", "cost_per_gpu_hour", _H, f"{MONEY}/card-h",
          "Levelized cost per delivered accelerator-hour", csv=True, label="col_gpu_hour"),
    Field("cost_per_pflop_hour", "cost_per_pflop_hour", _H, f"{MONEY}/PFLOP-h",
          "Levelized cost per useful PFLOP-hour (model FLOPs)", csv=True),
    Field("runs_per_year", "runs_per_year", _H, "runs/yr",
          "Runs of every workload completed per year"),
    Field("runs_over_horizon", "runs_over_horizon", _H, "runs",
          "Runs delivered over the horizon (owned and bridged)"),
    Field("plan_shortfall_runs", "plan_shortfall_runs", _H, "runs",
          "Planned runs over the horizon not delivered (before the port is done, or beyond "
          "the capacity)"),
    Field("plan_delivered_fraction", "plan_delivered_fraction", _H, "fraction",
          "Share of the horizon's planned runs delivered by its end (1: the whole plan; the "
          "ranking's first tier)"),
    Field("shortfall_card_hours", "shortfall_card_hours", _H, "card-h", "Accelerator-hours "
          "of the planned runs still waiting at the horizon (0 when the plan is delivered)",
          when="shortfall"),
    Field("shortfall_rent_price", "shortfall_rent_price", _H, f"{MONEY}/card-h", "Rent per "
          "card-hour that closes the shortfall: the card's cloud price, or the same peak "
          "compute on the cheapest rented card usable in the region", when="shortfall"),
    Field("shortfall_rent_cost", "shortfall_rent_cost", _H, MONEY, "Rent of "
          "`shortfall_card_hours` at `shortfall_rent_price` (undiscounted)", when="shortfall"),
    Field("npv_tco_plan_closed", "npv_tco_plan_closed", _H, MONEY, "NPV of delivering the "
          "whole plan: `npv_tco` plus the rent closing the shortfall, paid in the horizon's "
          "last year", when="shortfall"),
    Field("ready_years", "ready_years", _H, "years",
          "Years from the decision to the first useful work (delivery and porting)"),
    Field("team_software_factor", "team_software_factor", _H, "fraction", "Share of the "
          "catalog's vendor-tuned MFU the team reaches on the candidate's stack (1 on CUDA, "
          "for a familiar team, or when the figure is as-deployed)"),
    Field("capex_total", "capex_total", _H, MONEY,
          "Capital expenditure: cards with spares, servers, network, shared storage, cooling, "
          "installation (net of VAT)"),
    Field("capex_storage", "capex_storage", _H, MONEY,
          "Shared storage (datasets, checkpoints), included in capex_total"),
    Field("capex_vat", "capex_vat", _H, MONEY,
          "VAT on the purchase, paid at year 0 (0 without finance.vat_rate)"),
    Field("capex_vat_recovered", "capex_vat_recovered", _H, MONEY,
          "The part of capex_vat credited back as input VAT at the end of year 1"),
    Field("lease_amount", "lease_amount", _H, MONEY, "Equipment the lessor buys (hardware "
          "and shared storage; not in capex_total)", when="lease"),
    Field("lease_payment_per_month", "lease_payment_per_month", _H, MONEY, "Lease payment per "
          "month", when="lease"),
    Field("lease_rate_factor", "lease_rate_factor", _H, "per month", "Lease rate factor: the "
          "monthly payment per unit of equipment cost", when="lease"),
    Field("lease_commencement_months", "lease_commencement_months", _H, "months", "Months "
          "from the decision to the lease's commencement (the delivery)", when="lease"),
    Field("lease_deposit", "lease_deposit", _H, MONEY, "Security deposit, paid at "
          "commencement and refunded at the end of the term", when="lease"),
    Field("lease_buyout_price", "lease_buyout_price", _H, MONEY, "Price paid at the end of "
          "the term to keep the hardware (0 when it is returned)", when="lease"),
    Field("cloud_npv", "cloud_npv", _H, MONEY, "NPV of renting the same delivered "
          "accelerator-hours from the cloud", when="cloud", csv=True),
    Field("breakeven_utilization", "breakeven_utilization", _H, "fraction", "Busy share of the "
          "year above which owning the cluster (buying it or, for a leased option, leasing it) "
          "costs less than renting at the rent actually paid at that use (the tier, or on "
          "demand where that costs less); 0 when owning costs less at any use, above 1 when "
          "it never does", when="cloud",
          csv=True),
    Field("jobs", "jobs", "workloads", "", "Per-run figures of every workload, by workload id "
          "(the `workload` fields)", "workloads", "always"),
    Field("yearly", "yearly", "yearly", MONEY, "Cash flows of years 0..horizon by component; "
          "empty when not quantified", "yearly"),
    # --- one run of one workload (`jobs.<workload>` in compare; the top of `tco job`) ---------
    Field("train_flops", "train_flops", _W, "FLOP", "Training compute of one run ((6 x active "
          "parameters + attention FLOPs per token) x tokens)", when="priced"),
    Field("tensor_parallel", "tensor_parallel", _W, "cards", "Layout: tensor-parallel degree "
          "(chosen by the layout search or pinned)", "integer", "priced", applies="both"),
    Field("pipeline_parallel", "pipeline_parallel", _W, "stages", "Layout: pipeline-parallel "
          "stages", "integer", "priced"),
    Field("virtual_stages", "virtual_stages", _W, "stages", "Layout: virtual pipeline stages "
          "per card (interleaved schedule)", "integer", "priced"),
    Field("context_parallel", "context_parallel", _W, "cards", "Layout: context-parallel "
          "degree", "integer", "priced"),
    Field("expert_parallel", "expert_parallel", _W, "cards", "Layout: expert-parallel degree "
          "(1 for a dense model)", "integer", "priced"),
    Field("activation_recompute", "activation_recompute", _W, "0/1", "Layout: 1 with full "
          "activation recomputation, 0 without", "integer", "priced"),
    Field("parameter_sharding", "parameter_sharding", _W, "0/1", "Layout: 1 with parameters "
          "and gradients sharded over the data-parallel group (ZeRO-3 / FSDP), 0 with the "
          "optimizer state only (ZeRO-1)", "integer", "priced"),
    Field("gradient_sharding", "gradient_sharding", _W, "0/1", "Layout: 1 with the gradients "
          "sharded over the data-parallel group (ZeRO-2), 0 otherwise", "integer", "priced"),
    Field("hybrid_sharding", "hybrid_sharding", _W, "0/1", "Layout: 1 with ZeRO-3 sharding "
          "within a server and replicas across servers (HSDP), 0 otherwise", "integer",
          "priced"),
    Field("data_parallel", "data_parallel", _W, "replicas", "Data-parallel replicas, whole: "
          "cards / (tensor x pipeline x context) rounded down", "integer", "priced"),
    Field("idle_cards", "idle_cards", _W, "cards", "Cards left over by the whole replicas: "
          "paid for, idle", "integer", "priced"),
    Field("micro_batches", "micro_batches", _W, "micro-batches", "Micro-batches (one sequence "
          "each) per replica per step", when="priced"),
    Field("step_seconds", "step_seconds", _W, "s", "Time per training step: compute, pipeline "
          "bubble and exposed communication", when="priced"),
    Field("tokens_per_second", "tokens_per_second", _W, "tokens/s", "Training throughput of "
          "the cluster (goodput not included)", when="priced"),
    Field("scaling_efficiency", "scaling_efficiency", _W, "fraction", "Ideal compute time / "
          "step time", when="priced"),
    Field("memory_needed_gb", "memory_needed_gb", _W, "GB",
          "Memory one card needs (sharded training state and activations)", when="priced", applies="both"),
    Field("memory_usable_gb", "memory_usable_gb", _W, "GB", "Memory usable on one card",
          when="priced", applies="both"),
    Field("mixture_of_experts", "mixture_of_experts", _W, "", "A mixture of experts (fewer "
          "active than total parameters): its times and costs are optimistic (every layer an "
          "expert layer at the dense MFU, perfectly balanced experts; methodology section 16)",
          "boolean", "priced"),
    Field("feasible", "feasible", _W, "", "Whether this workload fits in memory and makes "
          "progress", "boolean", "priced", applies="both"),
    Field("gpu_hours", "gpu_hours", _W, "card-h", "Accelerator-hours of one run", applies="both"),
    Field("gpu_hours_interval", "gpu_hours", _W, "card-h", "80% interval of the accelerator-hours "
          "of one run: the model's own out-of-sample error for runs of its family (P10, P90; "
          "model error only, methodology section 17)", "interval"),
    Field("wall_days", "wall_days", _W, "days", "Wall-clock days of one run", applies="both"),
    Field("wall_days_interval", "wall_days", _W, "days", "80% interval of the wall-clock days "
          "of one run (P10, P90; the model's own out-of-sample error, methodology section 17)",
          "interval"),
    Field("error_family", "error_family", _W, "code", "The family whose out-of-sample errors set "
          "the intervals: 1 dense vendor-tuned step rate (steady_state), 2 dense whole run, "
          "3 small model on a large cluster, 4 mixture of experts", "integer"),
    Field("effective_training_time", "effective_training_time", _W, "fraction", "Share of the "
          "run's wall time spent training after checkpoints, interruptions and restarts "
          "(Young/Daly, methodology section 4)"),
    Field("goodput", "goodput", _W, "fraction", "Share of the run's wall time doing useful "
          "training: the effective training time and a whole run's per-step overhead"),
    Field("checkpoint_interval_hours", "checkpoint_interval_hours", _W, "h", "Checkpoint "
          "interval (the Young/Daly optimum unless the scenario gives one)"),
    Field("checkpoint_seconds", "checkpoint_seconds", _W, "s", "Training time one checkpoint "
          "takes (written at the storage's bandwidth)"),
    Field("effective_mfu", "mfu_effective", _W, "fraction",
          "Effective utilization of the card's peak over the run, lost time included"),
    Field("energy_kwh", "energy_facility_kwh", _W, "kWh", "Facility energy (IT x PUE) of one "
          "run", applies="both"),
    Field("energy_it_kwh", "energy_it_kwh", _W, "kWh", "IT energy of one run", applies="both"),
    Field("co2e_kg", "co2e_kg", _W, "kg CO2e", "Emissions of one run", applies="both"),
    Field("cost", "cost_per_job", _W, MONEY, "Cost of one run by cost line (`total` is their "
          "sum), fixed costs spread over every available cluster-hour", "cost", applies="both"),
    Field("cost_per_million_tokens", "cost_per_million_tokens", _W, f"{MONEY}/1e6 tokens",
          "Cost of one run per million training tokens (a serving workload: per million "
          "tokens served, prompt and output)", applies="both"),
    Field("card_hour_share", "card_hour_share", _W, "fraction", "Share of the option's planned "
          "card-hours a year this workload takes: the share of the NPV it bears",
          applies="both"),
    Field("npv_tco_share", "npv_tco_share", _W, MONEY, "The workload's share of the option's "
          "NPV of TCO (`npv_tco` x `card_hour_share`)", applies="both"),
    Field("cost_per_run_horizon", "cost_per_run_horizon", _W, MONEY, "Levelized cost of one "
          "run over the horizon: `npv_tco_share` over the present value of the runs delivered "
          "(the cluster as actually used)"),
    # --- a serving workload (`kind: serve`; docs/methodology.md §18): its "run" is a year ------
    Field("tokens_per_s_per_card", "tokens_per_s_per_card", _W, "tokens/s", "Output tokens per "
          "second per card at the latency objective (prefill included)", when="priced",
          applies="serve"),
    Field("input_tokens_per_s_per_card", "input_tokens_per_s_per_card", _W, "tokens/s",
          "Prompt tokens per second per card at the same time", when="priced",
          applies="serve"),
    Field("batch_sequences", "batch_sequences", _W, "sequences", "Sequences decoded together "
          "per replica (memory, engine and objective limits)", when="priced", applies="serve"),
    Field("ttft_ms", "ttft_ms", _W, "ms", "Time to first token (mean)", when="priced",
          applies="serve"),
    Field("tpot_ms", "tpot_ms", _W, "ms", "Time per output token (mean)", when="priced",
          applies="serve"),
    Field("tpot_p99_ms", "tpot_p99_ms", _W, "ms", "Time per output token at the 99th "
          "percentile (mean x the engine's tail ratio)", when="priced", applies="serve"),
    Field("tokens_per_s_per_user", "tokens_per_s_per_user", _W, "tokens/s", "Output tokens "
          "per second per user (1000 / the mean time per token)", when="priced",
          applies="serve"),
    Field("serving_precision", "serving_precision", _W, "code", "Precision served at, as its "
          "code (3 BF16, 4 FP16, 5 FP8, 6 INT8, 7 FP4): the workload's, or the one the search "
          "chose among its `precisions`", "integer", "priced", applies="serve"),
    Field("meets_objective", "meets_objective", _W, "", "Whether the latency objective is met "
          "(always, with none: offline)", "boolean", "priced", applies="serve"),
    Field("cards_needed", "cards_needed", _W, "cards", "Cards the peak traffic needs (whole "
          "replicas)", when="priced", applies="serve"),
    Field("average_cards_busy", "average_cards_busy", _W, "cards", "Cards busy serving, on "
          "average over the day", when="priced", applies="serve"),
    Field("kv_cache_bytes_per_token", "kv_cache_bytes_per_token", _W, "B/token", "KV cache "
          "per token (layers x kv heads x head dim x 2 x bytes)", when="priced",
          applies="serve"),
    Field("energy_per_input_token_j", "energy_per_input_token_j", _W, "J", "Facility energy "
          "per prompt token", when="priced", applies="serve"),
    Field("energy_per_output_token_j", "energy_per_output_token_j", _W, "J", "Facility energy "
          "per output token", when="priced", applies="serve"),
    Field("cost_per_million_input_tokens", "cost_per_million_input_tokens", _W,
          f"{MONEY}/1e6 tokens", "Cost per million prompt tokens (the year's serving cost "
          "split by the card-seconds prefill and decode take)", applies="serve"),
    Field("cost_per_million_output_tokens", "cost_per_million_output_tokens", _W,
          f"{MONEY}/1e6 tokens", "Cost per million output tokens", applies="serve"),
    Field("cost_per_million_input_tokens_horizon", "cost_per_million_input_tokens_horizon", _W,
          f"{MONEY}/1e6 tokens", "Levelized cost per million prompt tokens over the horizon: "
          "the prompt part of `npv_tco_share` (split as the year's cost is) over the present "
          "value of the prompt tokens served", applies="serve"),
    Field("cost_per_million_output_tokens_horizon", "cost_per_million_output_tokens_horizon",
          _W, f"{MONEY}/1e6 tokens", "Levelized cost per million output tokens over the "
          "horizon: the output part of `npv_tco_share` over the present value of the output "
          "tokens served", applies="serve"),
    Field("dedicated_cost_per_million_output_tokens",
          "dedicated_cost_per_million_output_tokens", _W, f"{MONEY}/1e6 tokens",
          "Cost per million output tokens on a fleet of its own sized for the peak "
          "(`cards_needed` cards all year, idle off-peak)", applies="serve"),
    Field("dedicated_fleet_cost_per_year", "dedicated_fleet_cost_per_year", _W, MONEY,
          "Cost of a year of serving on a fleet of its own sized for the peak: hardware, "
          "facility, operations and rent scaled by cards at the peak / cards busy on average",
          applies="serve"),
)

# The per-run cost lines of the `cost` object (model quantities cost_<line>; `total` is
# cost_per_job).
COST_LINES: dict[str, str] = {
    "total": "Cost of one run: the sum of the lines below",
    "hardware": "Straight-line depreciation of hardware, cooling and installation over the "
                "run's wall time",
    "electricity": "Facility electricity of the run",
    "facility": "Colocation over the run's wall time",
    "operations": "Support, licences, operations staff and port upkeep over the run's wall time",
    "rental": "Rent of the run's accelerator-hours (rented options; 0 when bought)",
    "porting": "One-time porting effort spread over the horizon's runs",
}
assert tuple(COST_LINES)[1:] == JOB_COMPONENTS, "COST_LINES must follow model.JOB_COMPONENTS"

# One row of `yearly`: the year, each cash-flow component (model.COMPONENTS), then the year's
# totals (model.YEAR_TOTALS: `net` and `cumulative`), then its timeline (model.YEAR_SHARES).
YEARLY_COLUMNS: dict[str, str] = {
    "year": "Year: 0 is the purchase date; operating costs fall at the end of years 1..horizon",
    **{comp: f"{COMPONENT_LABELS[comp]} (costs positive, inflows negative)"
       for comp in COMPONENTS},
    "net": "Net cash flow of the year: the sum of the components",
    "cumulative": "Cumulative net cash flow from year 0 to this year, undiscounted",
    "installed_share": "Share of the year with the owned hardware installed (0..1; 0 when "
                       "rented)",
    "ready_share": "Share of the year with the owned capacity ready for work: installed and "
                   "ported (0..1)",
    "ported_share": "Share of the year with the software port done (0..1)",
    "own_work_share": "Work done on owned capacity in the year, in years of planned runs "
                      "(above 1 while catching up a backlog)",
    "rented_work_share": "Work done on rented capacity in the year, in years of planned runs",
    "work_share": "Work delivered in the year, owned and rented, in years of planned runs",
    "backlog": "Planned runs still waiting at the end of the year, in years of planned runs",
    "tax_deductions": "Income-tax deductions of the year: costs deducted as paid, the tax "
                      "depreciation of what it owns, less the taxable resale at the horizon "
                      "(methodology §20)",
    "income_tax": "Income tax of the year: - tax rate x deductions (negative: saved)",
    "net_after_tax": "Net cash flow of the year after income tax",
}
assert tuple(YEARLY_COLUMNS)[1:] == COMPONENTS + YEAR_TOTALS + YEAR_SHARES + YEAR_TAX, \
    "YEARLY_COLUMNS must follow model.COMPONENTS, YEAR_TOTALS, YEAR_SHARES and YEAR_TAX"


def fields(*scopes: str) -> tuple[Field, ...]:
    return tuple(f for f in FIELDS if f.scope in scopes)


CANDIDATE_FIELDS = fields("candidate", "primary", "horizon", "workloads", "yearly")
ALL_WORKLOAD_FIELDS = fields("workload")
WORKLOAD_FIELDS = tuple(f for f in ALL_WORKLOAD_FIELDS if f.applies != "serve")
SERVE_WORKLOAD_FIELDS = tuple(f for f in ALL_WORKLOAD_FIELDS if f.applies != "train")
_CANDIDATE_KEYS = {f.key for f in fields("candidate")}
# `tco job`: the candidate, then its one workload (`feasible` is the candidate's).
JOB_FIELDS = fields("candidate") + tuple(f for f in WORKLOAD_FIELDS
                                         if f.key not in _CANDIDATE_KEYS)
SERVE_JOB_FIELDS = fields("candidate") + tuple(f for f in SERVE_WORKLOAD_FIELDS
                                               if f.key not in _CANDIDATE_KEYS)


def workload_fields(kind: str, job: bool = False) -> tuple[Field, ...]:
    """The keys of one workload's object (`jobs.<id>`; the `tco job` object with `job`)."""
    if kind == "serve":
        return SERVE_JOB_FIELDS if job else SERVE_WORKLOAD_FIELDS
    return JOB_FIELDS if job else WORKLOAD_FIELDS
# `tco compare --format csv`: the scalar columns in table order, then the text lists (joined by
# "; "), then the currency and the provenance.
CSV_COLUMNS = tuple(f.key for f in CANDIDATE_FIELDS if f.csv and f.kind != "strings")
CSV_TEXT_COLUMNS = tuple(f.key for f in CANDIDATE_FIELDS if f.csv and f.kind == "strings")


def field(key: str, scope: str | None = None) -> Field:
    """The field of `key` (of `scope`, where a key is in two: `feasible`)."""
    return next(f for f in FIELDS if f.key == key and (scope is None or f.scope == scope))


# The figures of the options' comparison, in its column order: the report's comparison table
# (and the live page, which rewrites its cells) and the workbook's Summary read them here.
COMPARISON = ("cost_per_job", "npv_tco", "wall_days_per_job", "cost_per_gpu_hour")
# ... and the workbook Summary's ranking by NPV (tco/exporters/xlsx/summary.py), in its order
SUMMARY_FIGURES = ("npv_tco", "undiscounted_tco", "cost_per_job", "cost_per_gpu_hour",
                   "wall_days_per_job")
