"""Work spread over forked processes: the analyses' array programs (Monte Carlo) and the
sizing of many candidates (tco/sizing.py).

The compiled evaluator (tco/analysis/fast.py) makes thousands of numpy calls on arrays of a
few thousand numbers per block of draws. Each call releases Python's lock for its loop and
takes it back after, so two threads running it hand the lock to each other at every call:
on two cores, two threads were no faster than one (and used twice the CPU). Two processes
are twice as fast. Where this platform can fork a process that has loaded numpy (Linux;
not macOS, whose system libraries may not survive a fork), `fork_map` runs a function over
items in forked children that share this process's memory as it was when they were forked;
what they compute goes into arrays made by `shared_array` before the fork (memory mapped
shared), and what they return (small: counts) comes back pickled through a pipe.

An error in a child is raised here (the exception itself when it can be pickled, else its
traceback as a RuntimeError); every child is stopped and waited for, whatever happens.
"""

from __future__ import annotations

import gc
import mmap
import os
import pickle
import select
import signal
import struct
import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")
_LENGTH = struct.Struct("<Q")  # the length of each pickled message, before it


def can_fork() -> bool:
    """True where work may be spread over forked processes (module docstring), and this
    process runs no other thread: a child forked while another thread holds a lock would
    wait for it forever (a server computing in a thread keeps to threads)."""
    return (hasattr(os, "fork") and sys.platform.startswith("linux")
            and threading.active_count() == 1)


def shared_array(shape: tuple[int, ...], fill: float | None = None,
                 dtype: Any = float) -> np.ndarray:
    """A new array in memory shared with the processes forked after it is made."""
    count = int(np.prod(shape))
    buffer = mmap.mmap(-1, max(1, count * np.dtype(dtype).itemsize))  # anonymous, shared
    out = np.frombuffer(buffer, dtype=dtype, count=count).reshape(shape)
    if fill is not None:
        out.fill(fill)
    return out


def fork_map(fn: Callable[[Any], T], items: Iterable[Any], workers: int) -> Iterator[T]:
    """fn(item) for every item, in `workers` forked children (the i-th item in child
    i % workers), each result as soon as it is back: in no particular order."""
    items = list(items)
    children: dict[int, int] = {}  # read end of its pipe -> pid
    try:
        for w in range(min(workers, len(items))):
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: never returns
                os.close(read)
                _child(fn, items[w::workers], write)
            os.close(write)
            children[read] = pid
        got = 0
        for result in _results(children):
            got += 1
            yield result
        if got < len(items):
            raise RuntimeError("a worker process stopped before it gave back all its results")
    finally:
        for read, pid in children.items():
            _stop(pid)
            os.close(read)


def _child(fn: Callable[[Any], Any], items: list[Any], write: int) -> None:
    """Run fn on each item, send each result (or the error) up the pipe, and exit."""
    gc.disable()  # the collector's walks would copy every page of the parent's objects
    status = 0
    try:
        for item in items:
            _send(write, ("ok", fn(item)))
    except BaseException as exc:  # noqa: BLE001 (every failure goes to the parent)
        status = 1
        try:
            _send(write, ("error", exc))
        except Exception:  # noqa: BLE001 (an exception that cannot be pickled)
            _send(write, ("error", RuntimeError(traceback.format_exc())))
    finally:
        os._exit(status)


def _send(write: int, message: tuple[str, Any]) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_LENGTH.pack(len(data)) + data)
    while view:
        view = view[os.write(write, view):]


def _results(children: dict[int, int]) -> Iterator[Any]:
    """Each child's results as they come, until every child has closed its pipe."""
    open_ends = set(children)
    while open_ends:
        ready, _w, _x = select.select(list(open_ends), [], [])
        for read in ready:
            head = _read(read, _LENGTH.size)
            if not head:
                open_ends.discard(read)
                continue
            kind, value = pickle.loads(_read(read, _LENGTH.unpack(head)[0]))
            if kind == "error":
                raise value
            yield value


def _read(fd: int, size: int) -> bytes:
    """`size` bytes from the pipe `fd`, or b"" at its end."""
    parts, left = [], size
    while left:
        chunk = os.read(fd, left)
        if not chunk:
            if left < size:
                raise RuntimeError("a worker process stopped in the middle of a result")
            return b""
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _stop(pid: int) -> None:
    """Wait for child `pid`, ending it first if it is still running."""
    try:
        done, _status = os.waitpid(pid, os.WNOHANG)
        if done == 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    except ChildProcessError:
        pass
