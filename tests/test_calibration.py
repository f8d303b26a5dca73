"""Published training runs against the DEFAULT model (issue 12; docs/methodology.md §17).

Each case is run with the shipped catalog and no per-test MFU or efficiency override: only the
facts of the published run go in (parameters, tokens, card, card count, precision, batch and
sequence length, and for a vendor's own benchmark the vendor's familiarity with its stack).

The cases are split in two sets, and the split is part of the record:

* IN-SAMPLE: the runs whose figures set the catalog's typical MFUs or the model's one free
  parameter, `compute_to_published_mfu_ratio` (fitted so that the in-sample median error is
  near zero). They check the rest of the model (layout, communication, goodput), not the MFU.
* OUT-OF-SAMPLE: runs no catalog figure or parameter was set from. Their median and worst
  errors are the model's stated accuracy.

An error is model time / published time − 1: positive means the model is slower (pessimistic).
Throughput cases (tokens/s per card, MLPerf logs and vendor tables) compare the step rate;
GPU-hour cases compare whole runs, lost time included.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

import pytest

from tco.engine import compute
from tco.scenario import load_scenario_text

CASE_TOLERANCE = 0.30  # no run beyond ±30% (issue 12)
# Issue 12's target for the held-out median is 12%. After the input audit of methodology §17
# (MLPerf v3.0 GPT-3 measured like every other MLPerf case, Llama 2 70B's parameter count,
# BLOOM's published layout and network): out-of-sample median 11.5%, worst -16.4% (Intel
# Llama 3.1 70B on 64 Gaudi 2), signed median -3.7%; in-sample median |error| 5.0%, worst
# -10.1% (Llama 2 70B on 2,048 A100), signed median -0.7% (ratio 1.19, not refitted). Before
# the audit: 12.7% / -18.4% and 4.4% / -8.9%. Not adopted (methodology §17): a per-release
# H100 FP8 MFU (median 13.0%), a GEMM-shape factor (worst +23.6%), four terms for losses that
# grow with the card count and causal attention.
OUT_OF_SAMPLE_MEDIAN = 0.12


def model_run(catalog, *, params: float, tokens: float, card: str, cards: int,
              precision: str = "bf16", batch_tokens: int | None = None,
              seq_len: int | None = None, mfu: float | None = None,
              active_params: float | None = None, familiar: bool = False,
              layout: dict[str, int] | None = None,
              scaleout_gb_per_s: float | None = None) -> dict[str, float]:
    """The primary-job numbers of a one-candidate scenario built from a published run.

    `familiar`: the run is the vendor's own, so the team knows the stack (familiarity 1).
    `mfu` is for diagnostics only; no calibration case passes it. `scaleout_gb_per_s`: the
    run's network per card, one way, where the source gives one other than the platform's."""
    extra = ""
    if batch_tokens is not None:
        extra += f"    global_batch_tokens: {batch_tokens}\n"
    if seq_len is not None:
        extra += f"    seq_len_tokens: {seq_len}\n"
    if active_params is not None:
        extra += f"    active_params: {active_params!r}\n"
    stack = catalog.card(card).stack
    text = (
        "rent_options: none\n"  # one bought cluster: no generated option renting it
        "workloads:\n"
        f"  - id: run\n    params: {params!r}\n    tokens: {tokens!r}\n"
        f"    precision: {precision}\n{extra}"
        "candidates:\n"
        f"  - id: cand\n    card: {card}\n    cards: {cards}\n"
        + (f"    mfu: {mfu}\n" if mfu is not None else "")
        + (f"    scaleout_bandwidth_gb_per_s: {scaleout_gb_per_s}\n"
           if scaleout_gb_per_s is not None else "")
        + (f"    layout: {{run: {layout}}}\n".replace("'", "") if layout else "")
        + (f"team: {{familiarity: {{{stack}: 1}}}}\n" if familiar else "")
    )
    (cand,) = compute(load_scenario_text(text, "calibration"), catalog).candidates
    assert cand.feasible, cand.reasons
    return cand.jobs["run"]


@dataclass(frozen=True)
class Case:
    name: str
    sample: str  # in | out
    published: float
    metric: str  # tokens_per_card_s | gpu_hours | wall_seconds
    run: dict = field(default_factory=dict)
    source: str = ""

    def error(self, job: dict[str, float]) -> float:
        """Model time / published time − 1."""
        if self.metric == "tokens_per_card_s":
            return self.published / (job["tokens_per_second"] / self.run["cards"]) - 1
        if self.metric == "wall_seconds":
            return job["wall_hours"] * 3600 / self.published - 1
        return job[self.metric] / self.published - 1


def _run(**kw) -> dict:
    """The facts of a published run, as model_run takes them."""
    return kw


def _gpt3(cards: int, card: str, batch: int, **kw) -> dict:
    return _run(params=175e9, tokens=1.2e9, card=card, cards=cards, precision="fp8",
                batch_tokens=batch * 2048, seq_len=2048, **kw)


def _l405(cards: int, card: str, batch: int) -> dict:
    return _run(params=405e9, tokens=1e10, card=card, cards=cards, precision="fp8",
                batch_tokens=batch * 8192, seq_len=8192)


BLOOM = _run(params=176e9, tokens=366e9, card="a100-80gb-sxm", cards=384,
             batch_tokens=2048 * 2048, seq_len=2048,
             layout={"tp": 4, "pp": 12, "vp": 1, "recompute": 1}, scaleout_gb_per_s=6.25)

MLPERF = "mlcommons/training_results_{}, result logs (tokens trained / (run time − eval time)," \
    " median of runs)"
# the 25.09 rows are at fa0315a; 00b7660 (25.11) no longer lists them
NEMO = "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md, {} (commit {})"
NEMO_AT = {"25.09": "fa0315a, 2025-10", "25.11": "00b7660, 2025-12"}
INTEL = "intel.com model-performance-gaudi2-training (SynapseAI 1.18)"

CASES: tuple[Case, ...] = (
    # --- in-sample: the catalog's typical MFUs and compute_to_published_mfu_ratio ----------
    # Llama 2 70B: arXiv 2307.09288 Tables 1-2, 1,720,320 A100 GPU-hours for 2.0T tokens, 4k
    # context, 4M batch; the card count is not published: 2,048 assumed.
    Case("Llama 2 70B, 2,048 A100 (assumed)", "in", 1_720_320, "gpu_hours",
         _run(params=68.98e9, tokens=2.0e12, card="a100-80gb-sxm", cards=2048,
              batch_tokens=4_194_304, seq_len=4096), "arXiv 2307.09288"),
    # LLaMA-65B: arXiv 2302.13971 s.2.4 and Table 15: 1,022,362 GPU-hours on 2,048 A100.
    Case("LLaMA-65B, 2,048 A100", "in", 1_022_362, "gpu_hours",
         _run(params=65.2e9, tokens=1.4e12, card="a100-80gb-sxm", cards=2048,
              batch_tokens=4_194_304, seq_len=2048), "arXiv 2302.13971"),
    # Llama 3.1 405B: model card 30.84M H100 GPU-hours; arXiv 2407.21783: 15.6T tokens, 8k
    # context, 16M batch, 16,384 GPUs.
    Case("Llama 3.1 405B, 16,384 H100", "in", 30.84e6, "gpu_hours",
         _run(params=405e9, tokens=15.6e12, card="h100-sxm", cards=16384,
              batch_tokens=16_777_216, seq_len=8192), "arXiv 2407.21783; model card"),
    Case("NeMo 25.09 Llama 3 70B FP8, 64 H100", "in", 1619, "tokens_per_card_s",
         _run(params=70.6e9, tokens=1e10, card="h100-sxm", cards=64, precision="fp8",
              batch_tokens=128 * 8192, seq_len=8192), NEMO.format("25.09", NEMO_AT["25.09"])),
    Case("NeMo 25.11 Llama 3 8B FP8, 8 H100", "in", 14451, "tokens_per_card_s",
         _run(params=8.03e9, tokens=1e10, card="h100-sxm", cards=8, precision="fp8",
              batch_tokens=128 * 8192, seq_len=8192), NEMO.format("25.11", NEMO_AT["25.11"])),
    Case("NeMo 25.09 Llama 3.1 405B FP8, 1,024 H100", "in", 302, "tokens_per_card_s",
         (_l405(1024, "h100-sxm", 512)), NEMO.format("25.09", NEMO_AT["25.09"])),
    Case("NeMo 25.11 Llama 3 8B FP8, 8 B200", "in", 30624, "tokens_per_card_s",
         _run(params=8.03e9, tokens=1e10, card="b200", cards=8, precision="fp8",
              batch_tokens=128 * 8192, seq_len=8192), NEMO.format("25.11", NEMO_AT["25.11"])),
    Case("NeMo 25.09 Llama 3.1 405B FP8, 128 B200", "in", 664, "tokens_per_card_s",
         (_l405(128, "b200", 64)), NEMO.format("25.09", NEMO_AT["25.09"])),
    Case("MLPerf v5.0 Llama 3.1 405B FP8, 512 H200 (Nebius)", "in", 366.9, "tokens_per_card_s",
         (_l405(512, "h200-sxm", 1152)), MLPERF.format("v5.0")),
    Case("Intel Llama 2 70B FP8, 64 Gaudi 2", "in", 848, "tokens_per_card_s",
         _run(params=68.98e9, tokens=1e10, card="gaudi2", cards=64, precision="fp8",
              batch_tokens=1024 * 4096, seq_len=4096, familiar=True), INTEL),
    # --- out-of-sample ----------------------------------------------------------------------
    # MLPerf v3.0 GPT-3 (NeMo 23.05, FP8): mlcommons/training_results_v3.0 NVIDIA
    # dgxh100_n64_nemo / dgxh100_n96_nemo, result_0-2, the same measure as every other MLPerf
    # case: 1,207,959,552 tokens (1,258,291,200 in two of the 768-card runs) / (run_stop −
    # run_start − the 24-25 evaluations, 365 s and 246 s), median of the three runs. The
    # train_epoch_timing these cases used until this review (3,856.4 s and 2,580.6 s) counts the
    # evaluations, and the model's whole-run wall time counts its checkpoint and failure losses.
    Case("MLPerf v3.0 GPT-3 FP8, 512 H100", "out", 675.9, "tokens_per_card_s",
         _gpt3(512, "h100-sxm", 2048), MLPERF.format("v3.0")),
    Case("MLPerf v3.0 GPT-3 FP8, 768 H100", "out", 673.4, "tokens_per_card_s",
         _gpt3(768, "h100-sxm", 3072), MLPERF.format("v3.0")),
    Case("MLPerf v4.1 GPT-3 FP8, 256 H100", "out", 889.6, "tokens_per_card_s",
         _gpt3(256, "h100-sxm", 2048), MLPERF.format("v4.1")),
    Case("MLPerf v4.1 GPT-3 FP8, 512 H100", "out", 858.1, "tokens_per_card_s",
         _gpt3(512, "h100-sxm", 2048), MLPERF.format("v4.1")),
    Case("MLPerf v4.1 GPT-3 FP8, 3,072 H100 (Oracle)", "out", 636.0, "tokens_per_card_s",
         _gpt3(3072, "h100-sxm", 3072), MLPERF.format("v4.1")),
    Case("MLPerf v3.1 GPT-3 FP8, 10,752 H100 (NVIDIA Eos)", "out", 533.7, "tokens_per_card_s",
         _gpt3(10752, "h100-sxm", 2688), MLPERF.format("v3.1")),
    Case("MLPerf v4.0 GPT-3 FP8, 11,616 H100", "out", 554.1, "tokens_per_card_s",
         _gpt3(11616, "h100-sxm", 2904), MLPERF.format("v4.0")),
    Case("MLPerf v5.0 Llama 3.1 405B FP8, 512 H100", "out", 334.0, "tokens_per_card_s",
         _l405(512, "h100-sxm", 1152), MLPERF.format("v5.0")),
    Case("MLPerf v5.0 Llama 3.1 405B FP8, 2,048 H100", "out", 321.8, "tokens_per_card_s",
         _l405(2048, "h100-sxm", 1152), MLPERF.format("v5.0")),
    Case("MLPerf v5.0 Llama 3.1 405B FP8, 8,192 H100", "out", 292.0, "tokens_per_card_s",
         _l405(8192, "h100-sxm", 1536), MLPERF.format("v5.0")),
    Case("MLPerf v4.1 GPT-3 FP8, 64 B200 (preview)", "out", 1807.5, "tokens_per_card_s",
         _gpt3(64, "b200", 2048), MLPERF.format("v4.1")),
    Case("MLPerf v3.1 GPT-3 FP8, 256 Gaudi 2", "out", 398.2, "tokens_per_card_s",
         _gpt3(256, "gaudi2", 2048, familiar=True), MLPERF.format("v3.1")),
    Case("MLPerf v4.0 GPT-3 FP8, 1,024 Gaudi 2", "out", 344.4, "tokens_per_card_s",
         _gpt3(1024, "gaudi2", 2048, familiar=True), MLPERF.format("v4.0")),
    Case("Intel Llama 3.1 70B FP8, 64 Gaudi 2", "out", 682, "tokens_per_card_s",
         _run(params=70.6e9, tokens=1e10, card="gaudi2", cards=64, precision="fp8",
              batch_tokens=128 * 8192, seq_len=8192, familiar=True), INTEL),
    # DeepSeek-V3, arXiv 2412.19437: 671B total / 37B active, 14.8T tokens, 2,048 H800, FP8,
    # batch 15,360 x 4,096; Table 1: 2,664K GPU-hours. A former documented miss (-33%): the
    # expert-parallel all-to-all and the FP8 MFU explain it.
    # BLOOM-176B, arXiv 2211.05100; GENCI: 384 A100-80GB, 1,082,990 GPU-hours; 366B tokens;
    # bigscience tr11-176B-ml.slurm: TP 4, PP 12, batch 2,048 x 2,048,
    # --checkpoint-activations, DeepSpeed's pipeline engine (no virtual stages): pinned, the run's
    # software offered neither interleaving nor selective recomputation, so the search's layout
    # was not open to it. Network: 4 x 100 Gb/s Omni-Path per 8-card node (arXiv 2211.05100,
    # hardware), 6.25 GB/s per card. A former documented miss (-25.5%): full recomputation and
    # the 12-stage bubble explain most of it.
    Case("BLOOM-176B, 384 A100 (published layout)", "out", 1_082_990, "gpu_hours", BLOOM,
         "arXiv 2211.05100; bigscience tr11-176B-ml.slurm"),
    Case("DeepSeek-V3 MoE FP8, 2,048 H800", "out", 2_664_000, "gpu_hours",
         _run(params=671e9, tokens=14.8e12, card="h800-sxm", cards=2048, precision="fp8",
              batch_tokens=15_360 * 4096, seq_len=4096, active_params=37e9),
         "arXiv 2412.19437"),
)



def errors(catalog) -> dict[str, float]:
    return {c.name: c.error(model_run(catalog, **c.run)) for c in CASES}


@pytest.fixture(scope="module")
def case_errors(catalog) -> dict[str, float]:
    return errors(catalog)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_published_run_within_tolerance(case, case_errors):
    assert abs(case_errors[case.name]) <= CASE_TOLERANCE, case_errors[case.name]


def test_out_of_sample_median_error(case_errors):
    out = [abs(case_errors[c.name]) for c in CASES if c.sample == "out"]
    assert len(out) >= 10
    assert statistics.median(out) <= OUT_OF_SAMPLE_MEDIAN, statistics.median(out)


def test_in_sample_is_centred(case_errors):
    """The free parameter is set so that the in-sample errors centre near zero."""
    ins = [case_errors[c.name] for c in CASES if c.sample == "in"]
    assert abs(statistics.median(ins)) <= 0.05, ins


def test_catalog_peaks_feeding_the_calibration_are_dense_datasheet_figures(catalog):
    # NVIDIA A100 datasheet: BF16 312 TFLOPS dense (624 with sparsity).
    assert catalog.card("a100-80gb-sxm").peak("bf16").best == 312
    # NVIDIA H100 SXM5 at 1.83 GHz boost: BF16 989.4 dense, FP8 1,978.9 dense.
    h100 = catalog.card("h100-sxm")
    assert h100.peak("bf16").best == pytest.approx(989.4)
    assert h100.peak("fp8").best == pytest.approx(1978.9)


def test_mlperf_v30_rate_is_tokens_over_training_time():
    """MLPerf v3.0 GPT-3, mlcommons/training_results_v3.0 NVIDIA dgxh100_n64_nemo and
    dgxh100_n96_nemo, result_0-2: tokens trained / (run_stop − run_start − the evaluations),
    per card, median of the three runs; the same measure as every other MLPerf case."""
    def rate(tokens, run_s, eval_s, cards):
        return tokens / (run_s - eval_s) / cards

    n64 = [rate(1_207_959_552, 3857.305, 365.276, 512),   # 675.62
           rate(1_207_959_552, 3855.826, 367.810, 512),   # 676.40
           rate(1_207_959_552, 3855.264, 364.504, 512)]   # 675.87
    n96 = [rate(1_207_959_552, 2581.928, 246.320, 768),   # 673.43
           rate(1_258_291_200, 2689.907, 256.390, 768),   # 673.26
           rate(1_258_291_200, 2688.945, 256.142, 768)]   # 673.46
    published = {c.name: c.published for c in CASES}
    assert statistics.median(n64) == pytest.approx(published["MLPerf v3.0 GPT-3 FP8, 512 H100"],
                                                   abs=0.05)
    assert statistics.median(n96) == pytest.approx(published["MLPerf v3.0 GPT-3 FP8, 768 H100"],
                                                   abs=0.05)
    # train_epoch_timing (3,856.4 s), the figure these cases used before, counts the 24
    # evaluations (365 s): 611.8 tokens/s per card, 9.5% below the training rate
    assert 1_207_959_552 / 3856.42 / 512 == pytest.approx(611.8, abs=0.05)


def test_mlperf_slice_is_not_a_full_run():
    # MLPerf GPT-3 trains 1.21e9 tokens from a checkpoint, about 0.4% of GPT-3's 300B.
    assert 1_207_959_552 / 300e9 == pytest.approx(0.004, rel=0.01)


def test_layout_pins_are_kept(catalog):
    """A pinned degree is the user's; the rest is searched (BLOOM's TP 4 and PP 12)."""
    job = model_run(catalog, **{**BLOOM, "layout": {"tp": 4, "pp": 12}})
    assert (job["tensor_parallel"], job["pipeline_parallel"]) == (4, 12)
