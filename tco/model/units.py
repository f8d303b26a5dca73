"""Named constants of the model: unit conversions and thresholds (never assumptions, which are
inputs with a source)."""

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
WEEKS_PER_YEAR = 365.25 / 7.0
# Bytes per weight and per KV-cache element at a workload's precision (true constants of the
# number formats).
BYTES_PER_VALUE = {"fp64": 8.0, "fp32": 4.0, "tf32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0,
                   "int8": 1.0, "fp4": 0.5}
# A serving precision chosen by search is the input `...layout.<workload>.precision`: its
# place in this order (catalog.PRECISIONS): bf16 3, fp16 4, fp8 5, int8 6, fp4 7.
PRECISION_CODES = {p: float(i) for i, p in enumerate(BYTES_PER_VALUE)}
BYTES_PER_TB = 1e12  # storage is sized and priced in decimal terabytes
