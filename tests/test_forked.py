"""Monte Carlo's worker processes (tco/forked.py): every result comes back, the shared
arrays carry what the children wrote, a child's error is raised here, and Monte Carlo gives
the same numbers in processes as in threads."""

import os

import numpy as np
import pytest

import tco.analysis.montecarlo as mc_module
from tco import forked
from tco.analysis.montecarlo import CHUNK, montecarlo
from tco.errors import TcoError

pytestmark = pytest.mark.skipif(not forked.can_fork(), reason="no fork on this platform")


def test_every_item_once_and_shared_arrays_carry_the_childrens_writes():
    out = forked.shared_array((10,), fill=-1.0)

    def square(i):
        out[i] = i * i
        return i, os.getpid()

    got = list(forked.fork_map(square, range(10), 3))
    assert sorted(i for i, _pid in got) == list(range(10))
    assert {pid for _i, pid in got} - {os.getpid()}  # done in other processes
    assert len({pid for _i, pid in got}) == 3
    np.testing.assert_array_equal(out, np.arange(10.0) ** 2)


def test_an_error_in_a_child_is_raised_here():
    def fail(i):
        if i == 3:
            raise TcoError("item three")
        return i

    with pytest.raises(TcoError, match="item three"):
        list(forked.fork_map(fail, range(6), 2))


def test_a_child_that_dies_without_a_word_is_reported():
    def die(i):
        if i == 1:
            os._exit(3)
        return i

    with pytest.raises(RuntimeError, match="stopped before"):
        list(forked.fork_map(die, range(4), 2))


def test_processes_give_the_numbers_threads_give(example, monkeypatch):
    draws = 2 * CHUNK + 700  # three chunks: two processes
    assert mc_module.Workers(3).processes
    in_processes = montecarlo(example, draws=draws, seed=5)
    monkeypatch.setattr(forked, "can_fork", lambda: False)
    assert not mc_module.Workers(3).processes
    in_threads = montecarlo(example, draws=draws, seed=5)
    assert in_processes.percentiles == in_threads.percentiles
    assert in_processes.prob_cheapest == in_threads.prob_cheapest
    assert in_processes.short_share == in_threads.short_share
    assert in_processes.plan.npv_tco == in_threads.plan.npv_tco
    assert in_processes.plan.cheaper_share == in_threads.plan.cheaper_share
    np.testing.assert_array_equal(in_processes.plan.samples, in_threads.plan.samples)
    for cid, x in in_threads.samples.items():
        np.testing.assert_array_equal(in_processes.samples[cid], x)


def test_a_process_running_other_threads_keeps_to_threads():
    import threading

    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not forked.can_fork()
    finally:
        stop.set()
        other.join()
    assert forked.can_fork()
