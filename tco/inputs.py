"""What every model input is: its unit, meaning and plausible range.

An input is addressed by a dotted path, the same in the scenario file, on the command line
(`--set`), in the workbook's defined names and in every JSON output:

    facility.electricity_price_per_kwh      candidates.mi300x.card_price
    workloads.llama-70b.tokens              finance.discount_rate

Money is in the scenario's currency. Plausible ranges catch values given in the wrong unit
(a price in cents, a rate of 8 meaning 8%, TFLOPS given in FLOPS); money ranges are in USD and
scale with the exchange rate.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class InputSpec:
    key: str
    unit: str  # "money" is replaced by the scenario's currency
    label: str
    lo: float  # plausible range, inclusive
    hi: float
    hint: str = ""
    money: bool = False
    integer: bool = False
    structural: bool = False  # changes the model's shape: not varied by sensitivity/Monte Carlo
    fraction: bool = False
    draw: str = "triangular"  # how Monte Carlo draws a catalog range (lognormal: low, high as
    # its P10 and P90)

    def out_of_range(self, value: float, lo: float, hi: float, unit: str) -> str:
        """'found 12, outside the plausible range ...; expected ...': says which unit is meant.

        `unit` is `self.unit` with "money" replaced by a currency code."""
        shown = "" if unit == "fraction" else f" {unit}"
        hint = f"; expected {self.hint}" if self.hint else ""
        return (f"found {value:g}, outside the plausible range {lo:g} to {hi:g}{shown} for "
                f"{_lower_first(self.label)}{hint}")


def _lower_first(label: str) -> str:
    """'Electricity price' -> 'electricity price', but 'VAT rate' stays (an abbreviation)."""
    return label if label[1:2].isupper() else label[0].lower() + label[1:]


def _frac(key: str, label: str, lo: float = 0.0, hi: float = 1.0) -> InputSpec:
    return InputSpec(key, "fraction", label, lo, hi,
                     hint="a fraction between 0 and 1 (0.08 means 8%)", fraction=True)


def _money(key: str, unit: str, label: str, lo: float, hi: float, hint: str = "") -> InputSpec:
    return InputSpec(key, unit, label, lo, hi, hint=hint, money=True)


CANDIDATE_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    InputSpec("cards", "cards", "Accelerators in the cluster (excluding spares)", 1, 1e6,
              integer=True),
    _money("card_price", "money/card", "Purchase price per accelerator", 100, 1e6,
           "the price of one card in whole currency units (not cents), not of a server"),
    InputSpec("lead_time_weeks", "weeks", "Delivery lead time", 0, 156),
    InputSpec("peak_tflops_fp64", "TFLOPS", "Dense FP64 peak", 0.01, 2e4,
              "TFLOPS (1e12 FLOP/s), not FLOPS"),
    InputSpec("peak_tflops_fp32", "TFLOPS", "Dense FP32 peak", 0.01, 2e4,
              "TFLOPS (1e12 FLOP/s), not FLOPS"),
    InputSpec("peak_tflops_tf32", "TFLOPS", "Dense TF32 peak", 0.01, 2e4,
              "TFLOPS (1e12 FLOP/s), not FLOPS"),
    InputSpec("peak_tflops_bf16", "TFLOPS", "Dense BF16 peak", 0.01, 2e4,
              "TFLOPS (1e12 FLOP/s), not FLOPS"),
    InputSpec("peak_tflops_fp16", "TFLOPS", "Dense FP16 peak", 0.01, 2e4,
              "TFLOPS (1e12 FLOP/s), not FLOPS"),
    InputSpec("peak_tflops_fp8", "TFLOPS", "Dense FP8 peak", 0.01, 4e4,
              "TFLOPS (1e12 FLOP/s), not FLOPS"),
    InputSpec("peak_tflops_int8", "TFLOPS", "Dense INT8 peak (TOPS)", 0.01, 4e4,
              "TOPS (1e12 operations per second), dense, not with sparsity"),
    InputSpec("peak_tflops_fp4", "TFLOPS", "Dense FP4 peak", 0.01, 8e4,
              "TFLOPS (1e12 FLOP/s), dense, not with sparsity"),
    _frac("mfu", "Model FLOPs utilization on compute, vendor-tuned (before communication and "
          "lost time)", 0.01, 1.0),
    _frac("mfu_fp8", "FP8 model FLOPs utilization of the FP8 peak, vendor-tuned", 0.01, 1.0),
    _frac("stack_efficiency", "Software-stack efficiency relative to CUDA", 0.01, 1.5),
    InputSpec("memory_gb", "GB", "Memory per accelerator", 1, 2048, "GB per card"),
    InputSpec("memory_bandwidth_gb_per_s", "GB/s", "Memory bandwidth per accelerator", 10, 1e5,
              "GB/s (gigabytes per second); 3.35 TB/s is 3350"),
    InputSpec("tdp_w", "W", "Accelerator power (TDP)", 10, 5000, "watts per card"),
    InputSpec("scaleup_bandwidth_bidir_gb_per_s", "GB/s", "Scale-up bandwidth per card "
              "(bidirectional)", 1, 1e5, "GB/s (gigabytes per second), both directions"),
    InputSpec("scaleup_domain_cards", "cards", "Cards in one scale-up domain", 1, 1e5,
              integer=True),
    InputSpec("cards_per_node", "cards", "Accelerators per server (a rack-scale system: per "
              "rack or supernode)", 1, 1024, integer=True),
    _money("node_price", "money/node", "Server price without accelerators", 1000, 5e7),
    InputSpec("node_power_w", "W", "Server power without accelerators", 0, 1e6,
              "watts per server (a rack-scale system: per rack or supernode)"),
    InputSpec("scaleout_bandwidth_gb_per_s", "GB/s", "Scale-out bandwidth per card "
              "(one direction)", 0.01, 1e4, "GB/s (gigabytes per second); 400 Gb/s is 50"),
    _money("network_cost_per_card", "money/card", "Network fabric per card", 0, 1e5),
    InputSpec("card_failure_rate_per_hour", "1/card-h", "Interruptions per card-hour of this "
              "card class", 0, 1e-2),
    InputSpec("pue", "ratio", "Power usage effectiveness", 1.0, 3.0, "a ratio such as 1.3"),
    _money("cooling_capex_per_kw", "money/kW", "Cooling capex per kW of IT load", 0, 1e5),
    InputSpec("porting_engineer_months", "engineer-months", "One-time porting effort", 0, 1e4),
    InputSpec("maintenance_engineer_months_per_year", "engineer-months/yr",
              "Yearly effort keeping the port working", 0, 1e3),
    _money("licence_per_card_year", "money/card/yr", "Software licence per card per year",
           0, 1e5),
    _money("cloud_price_per_card_hour", "money/card-h", "Cloud rental per card-hour", 0.01, 500,
           "per card-hour, not per instance-hour"),
    _money("on_demand_price_per_card_hour", "money/card-h", "On-demand cloud rental per "
           "card-hour (a committed reservation's alternative)", 0.01, 500,
           "per card-hour, not per instance-hour"),
    _frac("rent_reserved_fraction", "Share of the rented cluster's hours paid whether used or "
          "not: a committed reservation's take-or-pay (0 at on-demand and spot prices)"),
    _frac("resale_haircut_fraction", "Used-market value of a card just bought, share of its "
          "new price (the resale curve's first-day haircut)"),
    InputSpec("resale_retention_per_year", "fraction", "Share of its used-market value a card "
              "keeps each year (the resale curve: haircut x retention^age)", 0.05, 1.5,
              hint="a yearly factor such as 0.68", fraction=True),
    InputSpec("card_price_change_per_year", "fraction", "Yearly change of the card's new "
              "price, on the planner's price path (-0.1: 10% cheaper a year)", -0.9, 2.0,
              hint="a yearly change such as -0.08", fraction=True),
    InputSpec("rent_change_per_year", "fraction", "Yearly change of the card's rent, on the "
              "planner's price path (-0.2: 20% cheaper a year)", -0.9, 2.0,
              hint="a yearly change such as -0.2", fraction=True),
    InputSpec("available_in_months", "months", "Months from the decision until the card may "
              "be ordered or rented (a next generation not yet on sale; the planner's)", 0, 120,
              hint="months from the decision, such as 12"),
    _money("shortfall_price_per_card_hour", "money/card-h", "Rent per card-hour of the same "
           "sustained compute on another card, closing a shortfall (a card with no cloud "
           "price)", 0.01, 500, "per card-hour of this card's sustained compute"),
]}

# A candidate sized by the engine has one target instead of a card count: the cluster must meet
# it to be feasible (tco.model), and sizing picks the card count that does.
TARGET_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    InputSpec("deadline_days", "days", "Deadline for one run of the primary workload",
              0.01, 3650, "days of wall-clock time per run"),
    InputSpec("power_cap_kw", "kW", "Facility power cap (IT x PUE)", 0.01, 1e9,
              "kilowatts of facility power (1 MW is 1000)"),
]}

FACILITY_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    _money("electricity_price_per_kwh", "money/kWh", "Electricity tariff", 0.005, 2.0,
           "per kWh (0.12, not 12 cents)"),
    _money("colocation_price_per_kw_month", "money/kW-month",
           "Colocation (space, cooling, power infrastructure) per kW of IT capacity per month",
           0, 2000),
    InputSpec("carbon_kg_per_kwh", "kg CO2e/kWh", "Grid carbon intensity", 0, 2.0),
]}

# What a site may give besides its region's figures (methodology §3, "Sites"): a PUE every
# option there runs at (instead of each option's cooling), and the facility power it can supply.
SITE_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    InputSpec("pue", "ratio", "Power usage effectiveness of the site (every option there)",
              1.0, 3.0, "a ratio such as 1.3"),
    InputSpec("power_budget_kw", "kW", "Facility power the site can supply (IT x PUE)",
              0.01, 1e9, "kilowatts of facility power (1 MW is 1000)"),
]}


def site_path(site: str, key: str) -> str:
    """The input path of a site's `key`: `facility.<key>` for the first site (id ""), as a
    single-site scenario writes it, and `facility.sites.<id>.<key>` for each further one."""
    return f"facility.sites.{site}.{key}" if site else f"facility.{key}"

FINANCE_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    InputSpec("horizon_years", "years", "Horizon", 1, 30, integer=True, structural=True,
              hint="whole years from 1 to 30"),
    _frac("discount_rate", "Discount rate per year", 0.0, 0.99),
    InputSpec("depreciation_years", "years", "Depreciation life", 1, 30),
    _frac("residual_value_fraction", "Salvage value at the end of the depreciation life"),
    _frac("financed_fraction", "Share of capex financed by a loan"),
    _frac("loan_rate", "Loan interest rate per year", 0.0, 0.99),
    InputSpec("loan_term_years", "years", "Loan term", 1, 30, integer=True),
    _frac("vat_rate", "VAT rate on the purchase", 0.0, 0.5),
    InputSpec("prices_include_vat", "flag", "Quoted purchase prices include VAT (1 yes, 0 no)",
              0, 1, integer=True, hint="1 when the quotes are gross (含税), 0 when net"),
    _frac("vat_recoverable_fraction", "Share of the purchase's VAT recovered as input VAT"),
    # VAT on running costs (methodology §7): the facility region's rates unless given
    _frac("vat_rate_electricity", "VAT rate on the electricity bill", 0.0, 0.5),
    _frac("vat_rate_colocation", "VAT rate on colocation (IDC) fees", 0.0, 0.5),
    _frac("vat_rate_cloud", "VAT rate on cloud rent", 0.0, 0.5),
]}
# The finance inputs whose default is the facility region's catalog figure (tco.resolve.terms)
RUNNING_VAT_KEYS = ("vat_rate_electricity", "vat_rate_colocation", "vat_rate_cloud")

# A card's licence revoked mid-horizon (`policy.licence_revoked_from`, methodology §21): input
# `candidates.<id>.licence_revoked_years`, the years from the decision to the revocation.
REVOKED_INPUT = InputSpec("licence_revoked_years", "years", "Years from the decision until the "
                          "card's licence is revoked (no work on it after)", 0, 30)

# A vendor's allocation quota (`policy.supply_limit_cards_per_quarter.<card>`, methodology
# §21): cards of one id a quarter, at most a candidate's most cards (CANDIDATE_INPUTS cards).
QUOTA_INPUT = InputSpec("supply_limit_cards_per_quarter", "cards/quarter", "Cards of one id "
                        "the vendor allocates per quarter", 1, 1e6, integer=True,
                        hint="a whole number of cards a quarter, such as 200")

# A compute voucher (算力券, `vouchers:`, methodology §7 "Compute vouchers"): inputs
# `vouchers.<id>.<key>`, each only when the scenario gives it.
VOUCHER_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    _frac("share", "Share of the rent a compute voucher covers"),
    _money("per_card_hour", "money/card-h", "Amount a compute voucher pays per rented "
           "card-hour", 0, 500, "per card-hour, in the scenario's currency"),
    _money("cap_per_year", "money/yr", "Most a compute voucher pays per year", 0, 1e11,
           "per year, in the scenario's currency"),
]}

# Income tax (methodology §20, "Tax"): the rate on taxable profit and how owned equipment is
# deducted. 0 (the default without `finance.tax_rate` or `finance.tax_jurisdiction`) models no
# tax: the after-tax NPV is then the NPV. Which schedule (`finance.tax_depreciation`) shapes the
# formulas (tco.resolved.Structure); these are its numbers.
TAX_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    _frac("tax_rate", "Income tax rate on taxable profit", 0.0, 0.6),
    InputSpec("tax_life_years", "years", "Tax depreciation life (straight line)", 1, 30),
    _frac("tax_bonus_fraction", "Share of owned equipment's cost deducted in its first tax "
          "year (bonus depreciation); the rest follows the schedule"),
    InputSpec("tax_expensing_threshold_per_unit", "money/server", "Value per unit (one server) "
              "up to which equipment is deducted at once (0: no such rule)", 0, 1e12,
              hint="in whole currency units per server (China: 5,000,000 CNY), 0 for none",
              money=True),
    # China's R&D super-deduction: qualifying R&D costs (instruments' depreciation and rent,
    # their power, the staff) are deducted again by this share (1: 200 % in all)
    _frac("tax_rd_extra_deduction_fraction", "Extra share of qualifying R&D costs deducted "
          "(R&D super-deduction; China 1.0 from 2023)", 0.0, 2.0),
    _frac("tax_rd_share", "Share of the option's deductible costs that are qualifying R&D "
          "(training models: research; serving: not)"),
]}

# Existing stock (`policy.holds_stock.<card>`, methodology §13; tco.resolve.held), by held
# card id: `policy.holds_stock.<card>.cards`, and `.resale_price_per_card` or, for a book
# value (tco.model.held), `.age_years` and `.new_price_per_card`.
HELD_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    InputSpec("cards", "cards", "Cards the buyer holds, in service", 1, 1e6, integer=True),
    InputSpec("resale_price_per_card", "money/card", "What one held card (with its share of "
              "server and fabric) would sell for now", 100, 1e6,
              hint="per card in whole currency units, what the used market pays now",
              money=True),
    # or, instead of a resale price, their age and new price: the model's book value
    InputSpec("age_years", "years", "Held cards' age (years in service)", 0, 30),
    InputSpec("new_price_per_card", "money/card", "What one held card (with its share of "
              "server and fabric) cost new", 100, 1e6,
              hint="per card in whole currency units, the new price", money=True),
]}


def stock_path(card: str, key: str) -> str:
    return f"policy.holds_stock.{card}.{key}"


# Leasing the owned hardware (`acquire: lease`, methodology §7, "Leasing"): resolved only when
# a candidate leases, so other scenarios' inputs are unchanged. The rate, the lessor's residual
# and the deposit default to sourced figures in pricing/assumptions.yaml (`lease_*`); the term
# and the two flags to the scenario's defaults (tco/scenario.py).
LEASE_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    _frac("lease_rate", "Lease's implicit interest rate per year", 0.0, 0.6),
    InputSpec("lease_term_months", "months", "Lease term", 1, 120, integer=True,
              hint="whole months, such as 36"),
    _frac("lease_residual_fraction", "Lessor's residual at the end of the term, share of the "
          "equipment cost (the payments recover the rest)", 0.0, 0.8),
    InputSpec("lease_payments_in_advance", "flag", "Lease payments due at the start of each "
              "month (1) or at its end (0)", 0, 1, integer=True),
    InputSpec("lease_buyout", "flag", "At the end of the term the lessee buys the hardware at "
              "the lessor's residual (1) or returns it (0)", 0, 1, integer=True),
    InputSpec("lease_deposit_months", "months", "Security deposit, in monthly payments "
              "(paid at commencement, refunded at the end of the term)", 0, 12),
    InputSpec("lease_quoted_rate_factor", "per month", "A lessor's quoted lease rate factor "
              "(monthly payment per unit of equipment cost); 0: the payment follows from "
              "lease_rate", 0, 0.2, "a monthly factor such as 0.032 (0: none quoted)"),
]}
# the lease inputs whose defaults are sourced figures in pricing/assumptions.yaml
LEASE_FIGURES = ("lease_rate", "lease_residual_fraction", "lease_deposit_months")

# One phased delivery of an owned option (`candidates[].deliveries`, methodology §6): the
# share of the cluster it brings and its own lead time. Paths:
# candidates.<id>.delivery.<k>.share and .lead_time_weeks, k = 1, 2, ...
DELIVERY_INPUTS: dict[str, InputSpec] = {
    "share": InputSpec("delivery_share", "fraction", "Share of the cluster in this delivery",
                       0.001, 1, "a fraction such as 0.5", fraction=True),
    "lead_time_weeks": InputSpec("delivery_lead_time_weeks", "weeks",
                                 "Lead time of this delivery", 0, 156),
}

WORKLOAD_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    InputSpec("params", "parameters", "Model parameters", 1e6, 1e14, "a count such as 70e9"),
    InputSpec("active_params", "parameters", "Active parameters per token (MoE)", 1e6, 1e14),
    InputSpec("tokens", "tokens", "Training tokens per run", 1e6, 1e15, "a count such as 2e12"),
    InputSpec("runs_per_year", "runs/yr", "Runs per year", 0, 10000),
    InputSpec("global_batch_tokens", "tokens", "Global batch size", 1e3, 1e9),
    InputSpec("seq_len_tokens", "tokens", "Sequence length", 16, 1e7),
    InputSpec("experts_per_token", "experts", "Experts each token is routed to (MoE)", 1, 256),
    InputSpec("experts", "experts", "Routed experts per layer (MoE; 0: inferred from the "
              "parameters)", 0, 4096, "a count such as 256 (DeepSeek-V3)", integer=True),
    # the model's shape where its card states it; 0 (the default): inferred (methodology §4)
    InputSpec("layers", "layers", "Transformer layers (0: inferred from the parameters)",
              0, 1000, integer=True),
    InputSpec("hidden_size", "units", "Model width, the hidden size (0: inferred from the "
              "parameters)", 0, 1e5, "a width such as 8192", integer=True),
    InputSpec("attention_heads", "heads", "Query heads (0: attention as wide as the hidden "
              "size)", 0, 4096, integer=True),
    InputSpec("head_dim", "units", "Width of one attention head (0: hidden size / heads)",
              0, 4096, integer=True),
    InputSpec("qk_head_dim", "units", "Query-key width of one head where it differs from "
              "head_dim (multi-head latent attention: 192; 0: head_dim)", 0, 4096,
              integer=True),
    InputSpec("moe_layers", "layers", "Layers with experts (MoE; 0: every layer)", 0, 1000,
              integer=True),
    InputSpec("steady_state", "flag", "A benchmark's steady step rate (1): no failures, "
              "checkpoints or run-level losses; 0: a whole run", 0, 1, integer=True),
    # the training software's handling of a mixture of experts' all-to-all (methodology §4,
    # expert parallel): its overlap with computation, and node-limited routing
    InputSpec("expert_comm_hidden", "flag", "The training schedule hides the expert-parallel "
              "all-to-all wholly behind computation (1, DualPipe; MoE); 0: "
              "assumptions.comm_overlap_fraction of it", 0, 1, integer=True),
    InputSpec("expert_nodes_per_token", "servers", "Servers a token's experts may span "
              "(node-limited routing, MoE; 0: no limit)", 0, 4096, integer=True),
]}
# defaults of 0 that mean "inferred" or "off", by workload key (the resolver's source note)
WORKLOAD_ZERO_DEFAULTS = {
    "experts": "inferred from the parameters (docs/methodology.md §4, expert GEMMs)",
    "layers": "inferred from the parameters (docs/methodology.md §4, model shape)",
    "hidden_size": "inferred from the parameters (docs/methodology.md §4, model shape)",
    "attention_heads": "attention as wide as the hidden size (docs/methodology.md §4)",
    "head_dim": "hidden size / attention heads (docs/methodology.md §4)",
    "qk_head_dim": "head_dim (docs/methodology.md §4)",
    "moe_layers": "every layer (docs/methodology.md §4, expert GEMMs)",
    "steady_state": "a whole run, lost time included (docs/methodology.md §4)",
    "expert_comm_hidden": "comm_overlap_fraction of the all-to-all hidden "
                          "(docs/methodology.md §4, overlap)",
    "expert_nodes_per_token": "no limit (docs/methodology.md §4, expert parallel)",
}

# A serving workload (`kind: serve`): its traffic, its requests' shape and its latency
# objective; besides `params` and `active_params` of WORKLOAD_INPUTS. Resolved only for serve
# workloads, so a training-only scenario's inputs are unchanged.
SERVE_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    InputSpec("input_tokens_per_day", "tokens/day", "Prompt (input) tokens served per day",
              0, 1e16, "a count such as 2e9"),
    InputSpec("output_tokens_per_day", "tokens/day", "Generated (output) tokens served per "
              "day", 1, 1e16, "a count such as 1e9"),
    InputSpec("peak_to_average", "ratio", "Peak traffic over the daily average (the fleet is "
              "sized for the peak)", 1, 100, "a ratio of 1 or more, e.g. 2.5"),
    InputSpec("prompt_tokens", "tokens", "Prompt tokens per request", 1, 1e7),
    InputSpec("output_tokens", "tokens", "Output tokens per request", 1, 1e6),
    InputSpec("ttft_ms", "ms", "Objective: time to the first token", 1, 1e6,
              "milliseconds, e.g. 2000 for 2 s"),
    InputSpec("tpot_ms", "ms", "Objective: time per output token (0: none, offline)", 0, 1e5,
              "milliseconds per token, e.g. 50 (20 tokens/s per user)"),
    InputSpec("latency_percentile", "percentile", "The percentile the objectives state: 99 "
              "(tail) or 50 (median)", 50, 99, "50 or 99", structural=True),
    InputSpec("speculative_accepted_tokens", "tokens/step", "Speculative decoding: output "
              "tokens each verification step gives a sequence on average (1: none)", 1, 16),
    InputSpec("speculative_draft_tokens", "tokens/step", "Speculative decoding: draft tokens "
              "verified per sequence per step", 0, 16),
    _frac("speculative_draft_cost", "Speculative decoding: the draft's cost per step, a share "
          "of the step's fixed time", 0.0, 2.0),
    InputSpec("layers", "layers", "Transformer layers (0: inferred from the parameters)",
              0, 1000, integer=True),
    InputSpec("kv_heads", "heads", "Key/value heads (0: inferred, grouped-query attention)",
              0, 1024, integer=True),
    InputSpec("head_dim", "units", "Width of one attention head (0: inferred)", 0, 4096,
              integer=True),
]}

# A serving workload's inputs whose defaults are sourced figures in pricing/assumptions.yaml
# (the draft of a workload that declares speculative decoding).
SERVE_DEFAULTS = ("speculative_draft_tokens", "speculative_draft_cost")

# A per-token API option (`api_options:`, methodology §18): its prices, from
# pricing/api.yaml or the scenario (`api_options[].input_price_per_million_tokens`).
API_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    _money("input_price_per_million_tokens", "money/1e6 tokens", "API price per million "
           "prompt (input) tokens", 0.0, 1000, "per million tokens, not per thousand"),
    _money("output_price_per_million_tokens", "money/1e6 tokens", "API price per million "
           "output tokens", 0.0, 1000, "per million tokens, not per thousand"),
]}

# Serving assumptions: resolved only when the scenario serves (pricing/assumptions.yaml).
SERVE_ASSUMPTIONS: dict[str, InputSpec] = {s.key: s for s in [
    InputSpec("prefill_mfu_ratio", "ratio", "Prefill: utilization of the peak over the card's "
              "(vendor-tuned training) MFU", 0.1, 3.0),
    InputSpec("decode_mfu_ratio", "ratio", "Decode compute: utilization of the peak over the "
              "card's (vendor-tuned training) MFU", 0.1, 3.0),
    InputSpec("max_batch_sequences", "sequences", "Largest decode batch a serving engine "
              "runs per replica", 1, 1e5),
    InputSpec("fp4_mfu_ratio", "ratio", "FP4 compute: the share of the FP4 peak reached over "
              "the share of the FP8 peak reached (the card's FP8 MFU)", 0.1, 2.0),
    _frac("fp4_weight_read_ratio", "Decode: FP4 weights are read at this share of the "
          "achievable bandwidth (unpacking the block-scaled format)", 0.05, 1.0),
    InputSpec("allreduce_hop_latency_s", "s", "Latency each further card adds to a small "
              "tensor-parallel all-reduce in decode (per ring step, 2(t−1) steps)", 0, 1e-3),
    InputSpec("ttft_tail_latency_ratio", "ratio", "Time to first token at the 99th percentile "
              "over its mean (queueing behind other prompts)", 1, 20),
]}

# A candidate's serving figures, from its stack's vendor-tuned engine (pricing/stacks.yaml);
# resolved only when the scenario serves. `benchmarks:` the user measured override them.
SERVE_CANDIDATE_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    _frac("serving_bandwidth_efficiency", "Decode: share of the datasheet memory bandwidth "
          "the engine sustains reading weights and KV cache", 0.05, 1.0),
    InputSpec("serving_step_overhead_s", "s", "Decode: the engine's fixed time per step "
              "outside the model's kernels (scheduling, sampling, launch)", 0, 0.1),
    InputSpec("serving_allreduce_latency_s", "s", "Decode: start-up latency of one small "
              "tensor-parallel all-reduce", 0, 1e-3),
    InputSpec("serving_tail_latency_ratio", "ratio", "Time per output token at the 99th "
              "percentile over its mean (the engine's tail)", 1, 10),
    _frac("serving_stock_efficiency", "Share of the vendor-tuned serving rate a stock engine "
          "(public vLLM/SGLang) reaches: a team new to the stack", 0.05, 1.0),
]}
# A serving rate the user measured (`benchmarks:`) at one precision: `measured_serving_
# efficiency_<precision>`, the share of the catalog's vendor-tuned rate measured.
MEASURED_SERVING_SPEC = InputSpec(
    "measured_serving_efficiency", "fraction", "Serving rate you measured, as a share of the "
    "vendor-tuned model's at the same point", 0.01, 5.0)

# The parallel layout of each workload on each candidate: chosen by the engine's search
# (tco.layout) or pinned in the scenario (`candidates[].layout`); inputs of origin "derived".
LAYOUT_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    InputSpec("tp", "cards", "Tensor-parallel degree", 1, 1024, integer=True),
    InputSpec("pp", "stages", "Pipeline-parallel stages", 1, 1024, integer=True),
    InputSpec("vp", "stages", "Virtual pipeline stages per card", 1, 64, integer=True),
    InputSpec("cp", "cards", "Context-parallel degree", 1, 1024, integer=True),
    InputSpec("ep", "cards", "Expert-parallel degree", 1, 4096, integer=True),
    InputSpec("recompute", "flag", "Full activation recomputation (1) or none (0)", 0, 1,
              integer=True),
    InputSpec("zero3", "flag", "Parameters and gradients sharded over the data-parallel group "
              "(1, ZeRO-3 / FSDP) or the optimizer state only (0, ZeRO-1)", 0, 1, integer=True),
    InputSpec("zero2", "flag", "Gradients sharded over the data-parallel group (1, ZeRO-2) "
              "or not (0)", 0, 1, integer=True),
    InputSpec("hsdp", "flag", "With ZeRO-3, sharding within a server and replicas across "
              "servers (1, HSDP) or over the whole data-parallel group (0)", 0, 1, integer=True),
]}

# The serving precision the search chose (a code: its place in catalog.PRECISIONS, bf16 3,
# fp16 4, fp8 5, int8 6, fp4 7), when a serving workload allows several.
PRECISION_LAYOUT_SPEC = InputSpec("precision", "code", "Serving precision chosen (3 BF16, "
                                  "4 FP16, 5 FP8, 6 INT8, 7 FP4)", 3, 7, integer=True)

TEAM_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    _money("engineer_cost_per_month", "money/month", "Loaded engineer cost per month", 100, 1e6),
]}

# Scenario defaults that are money: kept in pricing/assumptions.yaml in USD (with a source) and
# converted to the scenario's currency, never typed into code.
MONEY_DEFAULTS: dict[str, InputSpec] = {
    "engineer_cost_per_month_usd": TEAM_INPUTS["engineer_cost_per_month"],
}

TOP_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    _frac("utilization", "Share of the year the cluster can run jobs", 0.01, 1.0),
    _money("cost_of_delay_per_week", "money/week", "Cost of each week from the order to the first useful work (delivery and porting)", 0, 1e9),
]}

ASSUMPTION_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    InputSpec("flops_per_param_token", "FLOP/param/token", "Training FLOPs per parameter "
              "per token", 1, 20),
    InputSpec("state_bytes_per_param", "bytes", "Training-state bytes per parameter", 1, 64),
    InputSpec("activation_checkpoint_bytes", "bytes", "Checkpointed activation bytes per "
              "token, hidden unit and layer", 0, 100),
    InputSpec("activation_working_bytes", "bytes", "Working activation bytes per token and "
              "hidden unit (one layer)", 0, 1000),
    InputSpec("hidden_per_layer_ratio", "ratio", "Model width / depth", 8, 1024),
    _frac("usable_memory_fraction", "Usable share of device memory", 0.1, 1.0),
    InputSpec("tensor_parallel_max", "cards", "Largest tensor-parallel group", 1, 64,
              integer=True),
    InputSpec("compute_to_published_mfu_ratio", "ratio", "Compute-phase efficiency over the "
              "published (end-to-end, 6·N·D) MFU", 0.5, 2.0),
    InputSpec("attention_flops_coefficient", "FLOP", "Attention FLOPs per token, layer, "
              "hidden unit and context token", 0, 100),
    InputSpec("weight_grad_bytes_per_param", "bytes", "Weight and gradient bytes per "
              "parameter", 0, 64),
    InputSpec("dp_bytes_per_param", "bytes", "Data-parallel bytes moved per parameter and "
              "step (reduce-scatter + all-gather)", 0, 64),
    _frac("kv_hidden_fraction", "Key/value width as a share of the hidden size", 0.001, 1.0),
    _frac("scaleup_bandwidth_efficiency", "Measured share of peak scale-up bandwidth",
          0.05, 1.0),
    _frac("scaleout_bandwidth_efficiency", "Measured share of peak scale-out bandwidth",
          0.05, 1.0),
    InputSpec("network_oversubscription", "ratio", "Scale-out network oversubscription", 1, 64,
              "a ratio of 1 (non-blocking) or more, e.g. 2 for 2:1"),
    _frac("comm_overlap_fraction", "Share of tensor/context/expert-parallel communication "
          "hidden behind compute"),
    _frac("dp_overlap_fraction", "Share of compute time that can hide data-parallel and "
          "pipeline communication"),
    InputSpec("collective_base_latency_s", "s", "Start-up time of one collective", 0, 1e-2),
    InputSpec("scaleup_hop_latency_s", "s", "Latency of one ring step on the scale-up link",
              0, 1e-2),
    InputSpec("scaleout_hop_latency_s", "s", "Latency of one ring step over the network",
              0, 1e-2),
    InputSpec("dp_bucket_min_params", "parameters", "Smallest data-parallel gradient bucket",
              1e5, 1e11),
    InputSpec("dp_bucket_params_per_replica", "parameters", "Gradient bucket parameters per "
              "data-parallel replica", 0, 1e9),
    InputSpec("expert_gemm_tile_rows", "tokens", "Rows of an expert GEMM's tile (MoE)", 1,
              4096),
    InputSpec("experts_per_token", "experts", "Default experts each token is routed to (MoE)",
              1, 256),
    InputSpec("global_batch_tokens", "tokens", "Default global batch", 1e3, 1e9),
    InputSpec("seq_len_tokens", "tokens", "Default sequence length", 16, 1e7),
    _frac("committed_reserved_fraction", "Share of a cluster rented at committed prices paid "
          "for every hour of its term, used or not (take-or-pay)"),
    _frac("spot_overhead_fraction", "Extra card-hours a training job needs on spot capacity "
          "(work lost to preemptions and restarts), per useful card-hour", 0.0, 5.0),
    InputSpec("card_failure_rate_per_hour", "1/card-h", "Interruptions per card-hour", 0, 1e-2),
    _frac("hardware_interruption_fraction", "Share of interruptions that take a server out "
          "until it is replaced"),
    InputSpec("node_replacement_hours", "h", "Time a failed server is out before it is "
              "replaced", 0, 720),
    InputSpec("restart_hours", "h", "Time to restart after an interruption (a spare free)",
              0, 48),
    InputSpec("checkpoint_interval_hours", "h", "Checkpoint interval (0: the optimum, "
              "Young/Daly)", 0, 48),
    InputSpec("checkpoint_write_gb_per_s_per_card", "GB/s/card", "Storage write bandwidth "
              "per card of the cluster", 1e-4, 100, "GB/s per card: 2 TB/s for 24,576 cards "
              "is 0.08"),
    InputSpec("run_step_overhead_s", "s", "Time a whole run's step takes beyond a "
              "benchmark's steady-state step (data loading, logging, evaluations, stalls)",
              0, 100),
    InputSpec("step_hbm_bytes_per_param", "bytes", "Memory bytes a card moves per parameter "
              "it holds, once per step, outside the layers (gradient buffers, casts, the "
              "optimizer)", 0, 1000),
    InputSpec("moe_bytes_per_routed_value", "bytes", "Memory bytes moved per value (the "
              "token's hidden values and the expert's intermediate ones) of each routed copy "
              "of a token and layer with experts, forward and backward (MoE)", 0, 10000),
    InputSpec("fp4_gemm_speedup", "ratio", "FP4 training: parameter GEMMs' speed over FP8's",
              1, 4),
    *[InputSpec(f"model_error_{q}_{f}", "ratio", f"{q.upper()} of the time to train over the "
                f"model's ({f.replace('_', ' ')} runs)", 0.05, 20)
      for f in ("dense_vendor", "dense_team", "small", "moe") for q in ("p10", "p90")],
    *[InputSpec(f"model_error_{f}", "ratio", f"The model's error on time to train, as a "
                f"multiplier ({f.replace('_', ' ')} runs; 1: the point value, drawn by Monte "
                "Carlo between its P10 and P90)", 0.05, 20, draw="lognormal")
      for f in ("dense_vendor", "dense_team", "small", "moe")],
    _frac("hot_spare_fraction", "Spare cards bought", 0, 0.5),
    _frac("training_power_fraction", "Average draw while training, share of rated power"),
    _frac("idle_power_fraction", "Draw while idle, share of rated power"),
    _frac("installation_fraction", "Installation as a share of hardware capex", 0, 0.5),
    _frac("support_fraction_per_year", "Hardware support per year, share of hardware capex",
          0, 0.5),
    InputSpec("ops_engineers_per_1000_cards", "engineers", "Operations staff per 1000 cards",
              0, 100),
    InputSpec("storage_tb_per_card", "TB/card", "Shared storage per accelerator (datasets, "
              "checkpoints; usable TB), instead of the storage sized from the data", 0, 1000,
              hint="terabytes (1e12 bytes) per card"),
    InputSpec("dataset_bytes_per_token", "bytes", "Dataset bytes stored per training token "
              "(the tokenized copy and its text)", 0.1, 1000,
              hint="bytes per token, e.g. 7"),
    InputSpec("checkpoint_bytes_per_param", "bytes", "Checkpoint bytes per parameter (weights "
              "and optimizer state)", 0, 64, hint="bytes per parameter, e.g. 14"),
    InputSpec("checkpoints_kept", "checkpoints", "Checkpoints kept per training workload",
              0, 10_000, hint="a count of checkpoints, e.g. 10"),
    _frac("storage_fill_fraction", "Share of the shared storage the data may fill",
          0.05, 1.0),
    _money("storage_price_per_tb", "money/TB", "Shared storage price per usable TB", 10, 1e4,
           "a price per terabyte of usable capacity, not per GB"),
    InputSpec("porting_team_engineers", "engineers", "Engineers porting to a new stack at "
              "once (sets how long porting takes)", 0.25, 100),
]}
# A money assumption is kept in pricing/assumptions.yaml in USD, as `<key>_usd`.
MONEY_DEFAULTS["storage_price_per_tb_usd"] = ASSUMPTION_INPUTS["storage_price_per_tb"]


# Input.meta's key naming the input a default was taken from, equal to it (a dense model's
# active parameters are its parameters): tco.analysis.common.ties
EQUAL_TO = "equal_to"


@dataclass
class Input:
    """One resolved input: its value in the scenario's currency, and where it came from."""

    path: str
    value: float
    spec: InputSpec
    source: str
    as_of: str = ""
    low: float | None = None  # range for sensitivity and Monte Carlo, when known
    high: float | None = None
    note: str = ""
    origin: str = "catalog"  # catalog | scenario | assumption | derived | default
    unit: str = ""
    meta: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.spec.label
