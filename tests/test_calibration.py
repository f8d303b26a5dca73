"""Published training runs the DEFAULT model reproduces within +-25% (issue 2, section 6).

Each case is run with the shipped catalog and no per-test MFU or efficiency override: only the
facts of the published run go in (parameters, tokens, card, card count, precision, and where the
source gives them, batch size and sequence length). docs/methodology.md ("Checks against
published runs") lists the same cases with the model's error.

Where a source does not give the cluster size, the test says which size it assumes and checks
that the result holds over a plausible range.
"""

import pytest

from tco.engine import compute
from tco.scenario import load_scenario_text

TOLERANCE = 0.25


def model_run(catalog, *, params: float, tokens: float, card: str, cards: int,
              precision: str = "bf16", batch_tokens: int | None = None,
              seq_len: int | None = None, mfu: float | None = None,
              active_params: float | None = None) -> dict[str, float]:
    """The primary-job numbers of a one-candidate scenario built from a published run.

    `mfu` is for diagnostics only; no calibration case passes it.
    """
    extra = ""
    if batch_tokens is not None:
        extra += f"    global_batch_tokens: {batch_tokens}\n"
    if seq_len is not None:
        extra += f"    seq_len_tokens: {seq_len}\n"
    if active_params is not None:
        extra += f"    active_params: {active_params!r}\n"
    text = (
        "rent_options: none\n"  # one bought cluster: no generated option renting it
        "workloads:\n"
        f"  - id: run\n    params: {params!r}\n    tokens: {tokens!r}\n"
        f"    precision: {precision}\n{extra}"
        "candidates:\n"
        f"  - id: cand\n    card: {card}\n    cards: {cards}\n"
        + (f"    mfu: {mfu}\n" if mfu is not None else "")
    )
    (cand,) = compute(load_scenario_text(text, "calibration"), catalog).candidates
    assert cand.feasible, cand.reasons
    assert mfu is not None or "mfu" not in text  # default model: catalog MFU, no override
    return cand.jobs["run"]


def within(model: float, published: float, tol: float = TOLERANCE) -> bool:
    return abs(model / published - 1) <= tol


def test_catalog_peaks_feeding_the_calibration_are_dense_datasheet_figures(catalog):
    # NVIDIA A100 datasheet: BF16 312 TFLOPS dense (624 with sparsity).
    assert catalog.card("a100-80gb-sxm").peak("bf16").best == 312
    # NVIDIA H100 SXM5 at 1.83 GHz boost: BF16 989.4 dense, FP8 1,978.9 dense
    # (the sheet's 1,979 / 3,958 are with 2:4 sparsity).
    h100 = catalog.card("h100-sxm")
    assert h100.peak("bf16").best == pytest.approx(989.4)
    assert h100.peak("fp8").best == pytest.approx(1978.9)


# --- Llama 2 70B on A100-80GB ----------------------------------------------------------------
# Touvron et al. 2023, "Llama 2: Open Foundation and Fine-Tuned Chat Models", arXiv 2307.09288,
# Table 1 (2.0T tokens, 4k context, 4M-token global batch) and Table 2 (70B: 1,720,320
# A100-80GB GPU-hours). 6ND = 8.4e23 FLOP: 43.5% of the 312 TFLOPS peak over every GPU-hour.
# The paper does not give the card count (RSC and production clusters, "up to 2000 GPUs" in
# the RoCE comparison): 2,048 is assumed, and 1,024-4,096 is checked.
LLAMA2_70B_GPU_HOURS = 1_720_320


@pytest.mark.parametrize("cards", [1024, 2048, 4096])
def test_llama2_70b_gpu_hours(catalog, cards):
    job = model_run(catalog, params=70e9, tokens=2.0e12, card="a100-80gb-sxm", cards=cards,
                    batch_tokens=4_194_304, seq_len=4096)
    # Model (2,048 cards): about 1.82M GPU-hours, +6%.
    assert within(job["gpu_hours"], LLAMA2_70B_GPU_HOURS), job["gpu_hours"]


# --- LLaMA-65B on A100-80GB ------------------------------------------------------------------
# Touvron et al. 2023, "LLaMA: Open and Efficient Foundation Language Models", arXiv 2302.13971,
# section 2.4: "When training a 65B-parameter model, our code processes around 380
# tokens/sec/GPU on 2048 A100 GPU with 80GB of RAM ... 1.4T tokens takes approximately 21
# days"; Table 15: 1,022,362 GPU-hours for LLaMA-65B. Table 2: 65.2B parameters, 1.4T tokens,
# 4M-token batch; context 2,048. 380 tok/s/GPU is 47.6% MFU (6 x 65.2e9 x 380 / 312e12).
LLAMA65_GPU_HOURS = 1_022_362
LLAMA65_DAYS = 21


def test_llama_65b_gpu_hours_and_days(catalog):
    job = model_run(catalog, params=65.2e9, tokens=1.4e12, card="a100-80gb-sxm", cards=2048,
                    batch_tokens=4_194_304, seq_len=2048)
    # Model: about 1.19M GPU-hours and 24.2 days, +16% (Meta's run was more efficient than
    # the catalog's typical A100 MFU of 0.45).
    assert within(job["gpu_hours"], LLAMA65_GPU_HOURS), job["gpu_hours"]
    assert within(job["wall_days"], LLAMA65_DAYS), job["wall_days"]


# --- Llama 3.1 405B on H100 ------------------------------------------------------------------
# Llama 3.1 model card (github.com/meta-llama/llama-models, models/llama3_1/MODEL_CARD.md):
# 405B trained with 30.84M H100-80GB GPU-hours. Llama Team 2024, "The Llama 3 Herd of Models",
# arXiv 2407.21783, sec. 3: 15.6T tokens, 3.8e25 FLOP, up to 16K H100 GPUs, 8K context for the
# main stage, global batch raised to 16M tokens (P. Balaji, SC'24, via
# glennklockwood.com/garden/llama-3.1: 16,384 GPUs, 16M tokens/batch, 380-430 TFLOPS/GPU).
# 6ND = 3.79e25 FLOP: 34.6% of the 989.4 TFLOPS peak over every GPU-hour.
LLAMA31_405B_GPU_HOURS = 30.84e6


def test_llama31_405b_gpu_hours(catalog):
    job = model_run(catalog, params=405e9, tokens=15.6e12, card="h100-sxm", cards=16384,
                    batch_tokens=16_777_216, seq_len=8192)
    # Model: about 32.4M GPU-hours, +5%.
    assert within(job["gpu_hours"], LLAMA31_405B_GPU_HOURS), job["gpu_hours"]


# --- MLPerf Training v3.0 GPT-3 175B on H100 (NVIDIA, FP8) -----------------------------------
# The benchmark resumes a GPT-3 175B checkpoint and trains to log perplexity 2.69: about 0.4%
# of a full 300B-token run, so it is modelled with the tokens actually trained, not 300B.
# mlcommons/training_results_v3.0, NVIDIA/results/dgxh100_n64_nemo/gpt3/result_0.txt (64 nodes
# x 8 = 512 H100) and .../dgxh100_n96_nemo/gpt3/result_0.txt (768 H100): both stop at
# train_samples = 1,207,959,552 tokens; train_epoch_timing 3,856.4 s and 2,580.6 s (training
# loop including the evaluations). Configs: NVIDIA/benchmarks/gpt3/implementations/pytorch/
# config_DGXH100_96x8x128x4x8_mbs1.sh sources config_fp8.sh (FP8, Transformer Engine); global
# batch 2,048 (512 GPUs) and 3,072 (768 GPUs) sequences of 2,048 tokens.
MLPERF_GPT3_TOKENS = 1_207_959_552


@pytest.mark.parametrize("cards, batch_sequences, seconds", [
    (512, 2048, 3856.4),
    (768, 3072, 2580.6),
])
def test_mlperf_v30_gpt3_time_to_train(catalog, cards, batch_sequences, seconds):
    job = model_run(catalog, params=175e9, tokens=MLPERF_GPT3_TOKENS, card="h100-sxm",
                    cards=cards, precision="fp8", batch_tokens=batch_sequences * 2048,
                    seq_len=2048)
    # Model: about 3,590 s and 2,400 s, -7%.
    assert within(job["wall_hours"] * 3600, seconds), job["wall_hours"] * 3600
    # The same run scaled to GPT-3's 300B tokens would be wrong by a factor of ~250.
    assert MLPERF_GPT3_TOKENS / 300e9 == pytest.approx(0.004, rel=0.01)


# --- BLOOM-176B on A100-80GB: a documented miss ----------------------------------------------
# BigScience, arXiv 2211.05100; GENCI news "BLOOM ... awarded best HPC collaboration": 384
# A100-80GB (48 Jean Zay nodes), 3.5 months, 1,082,990 GPU-hours, 156 TFLOP/s per GPU. Training
# script github.com/bigscience-workshop/bigscience train/tr11-176B-ml/tr11-176B-ml.slurm: TP 4,
# PP 12, global batch 2,048 x 2,048 tokens, --checkpoint-activations. Tokens: 366B.
# 6ND = 3.87e23 FLOP: 31.8% of peak over every GPU-hour. The 156 TFLOP/s is counted with the
# Megatron formula (Narayanan et al. 2021, eq. 3) that includes activation recomputation
# (factor 4 instead of 3) and attention/logit FLOPs, i.e. about 156 x 3/4 / 1.04 = 113 TFLOP/s,
# 36% MFU while running; the rest of the gap is wall-clock lost to restarts and batch ramp-up.
# The default A100 MFU (0.45, from Meta's LLaMA/Llama 2 runs) overestimates this run.
BLOOM_GPU_HOURS = 1_082_990


@pytest.mark.xfail(strict=True, reason=(
    "the default model gives ~807k GPU-hours, 25.5% below BLOOM's 1,082,990: BLOOM ran at "
    "~36% MFU (156 TFLOP/s counts recomputation) with ~12% of wall time lost, while the "
    "catalog's typical A100 MFU is 0.45 (LLaMA-65B 47.6%, Llama 2 70B 43.5% over all hours). "
    "Not tuned away: see docs/methodology.md, 'Checks against published runs'"))
def test_bloom_176b_gpu_hours(catalog):
    job = model_run(catalog, params=176e9, tokens=366e9, card="a100-80gb-sxm", cards=384,
                    batch_tokens=2048 * 2048, seq_len=2048)
    assert within(job["gpu_hours"], BLOOM_GPU_HOURS), job["gpu_hours"]


def test_bloom_miss_is_within_the_catalog_mfu_range(catalog):
    """The miss is one of efficiency, not of arithmetic: at the low end of the catalog's A100
    MFU range (0.36, which is BLOOM's own MFU) the model lands within 10% of the published
    GPU-hours. Diagnostic only; the calibration above uses the default MFU."""
    low = catalog.card("a100-80gb-sxm").mfu.low
    assert low == 0.36
    job = model_run(catalog, params=176e9, tokens=366e9, card="a100-80gb-sxm", cards=384,
                    batch_tokens=2048 * 2048, seq_len=2048, mfu=low)
    assert within(job["gpu_hours"], BLOOM_GPU_HOURS, 0.10), job["gpu_hours"]


# --- DeepSeek-V3 on H800 (out of sample: an FP8 mixture-of-experts run) ---------------------
# DeepSeek-AI 2024, "DeepSeek-V3 Technical Report", arXiv 2412.19437: 671B total / 37B
# activated parameters, 14.8T tokens, 2,048 H800, FP8 mixed precision, batch ramped to 15,360
# sequences of 4,096 tokens; Table 1: 2,664K H800 GPU-hours for pre-training.
DEEPSEEK_V3_GPU_HOURS = 2_664_000


@pytest.mark.xfail(strict=True, reason=(
    "the default model gives ~1.79M GPU-hours, 33% below DeepSeek-V3's 2.664M: it has no "
    "expert-parallel all-to-all traffic, and it applies the card's BF16-derived MFU to the FP8 "
    "peak (published FP8 MFUs are lower: Llama 4 ~20% of FP8 peak). See docs/methodology.md, "
    "'What is simplified or not modelled'"))
def test_deepseek_v3_moe_fp8_gpu_hours(catalog):
    job = model_run(catalog, params=671e9, tokens=14.8e12, card="h800-sxm", cards=2048,
                    precision="fp8", batch_tokens=15_360 * 4096, seq_len=4096,
                    active_params=37e9)
    assert within(job["gpu_hours"], DEEPSEEK_V3_GPU_HOURS), job["gpu_hours"]
