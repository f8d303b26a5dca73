"""Methodology §5 (storage): the shared storage an owned cluster buys, sized from the data.

Storage holds the plan's data, not the cards': each training workload's dataset (the tokens
of a run at `dataset_bytes_per_token`: the tokenized copy training reads and the text it was
made from) and its checkpoints (`checkpoints_kept` of them, each the parameters at
`checkpoint_bytes_per_param`: weights and optimizer state), and each serving workload's
weights at its precision; the whole kept at `storage_fill_fraction` of the capacity (a file
system past it slows every job). So every option that carries the same workloads buys the
same storage, whatever its card. A scenario that sets `assumptions.storage_tb_per_card` keeps
the older rule, that many terabytes per card (`per_card`).
"""

from __future__ import annotations

from ..expr import SUM, Expr, Ref
from .base import Builder, a, w
from .cluster import Cluster
from .units import BYTES_PER_TB


def storage_tb(b: Builder, workloads: list[tuple[str, str]], cl: Cluster, per_card: bool
               ) -> Ref:
    """The usable terabytes of shared storage: from the data of `workloads` ((id, kind) of
    the workloads the option carries), or `cards` x `storage_tb_per_card` (`per_card`)."""
    if per_card:
        return b.q("storage_tb", cl.cards * a("storage_tb_per_card"), "TB",
                   "Shared storage capacity (usable): the scenario's terabytes per card",
                   "horizon")
    data: list[Expr] = []
    for wid, kind in workloads:
        if kind == "serve":  # the served weights, at the workload's precision (§18)
            data.append(b.jq(wid, "storage_data_tb", Ref(f"{b.cid}.{wid}.weight_bytes")
                             / BYTES_PER_TB, "TB", "Shared storage for the served weights"))
            continue
        dataset = b.jq(wid, "dataset_tb",
                       w(wid, "tokens") * a("dataset_bytes_per_token") / BYTES_PER_TB, "TB",
                       "Dataset stored: a run's tokens x bytes stored per token")
        checkpoints = b.jq(wid, "checkpoint_tb",
                           w(wid, "params") * a("checkpoint_bytes_per_param")
                           * a("checkpoints_kept") / BYTES_PER_TB, "TB",
                           "Checkpoints kept: parameters x bytes per parameter (weights and "
                           "optimizer state) x checkpoints kept")
        data.append(b.jq(wid, "storage_data_tb", dataset + checkpoints, "TB",
                         "Shared storage for the workload's dataset and checkpoints"))
    return b.q("storage_tb", SUM(*data) / a("storage_fill_fraction"), "TB",
               "Shared storage capacity (usable): the workloads' data at the fill fraction",
               "horizon")
