"""The report's shared worker pool (:func:`dpbandits.pools.shared_pool`).

Kinds: exact (the order in which waiting tasks start: lane priority, then the lanes in turn,
each in its own order; results and processor seconds returned to their callers), smoke (a
failure inside the block cancels the waiting tasks and ends the workers).
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import CancelledError

import pytest

from dpbandits.pools import lane, process_pool, shared_pool


def _wait_for(path: str) -> str:
    """Hold a worker until ``path`` exists (the test decides when, not a clock)."""
    while not os.path.exists(path):
        time.sleep(0.01)
    return "held"


def _pid(_: int) -> int:
    return os.getpid()


@pytest.mark.exact
def test_waiting_tasks_start_by_priority_then_lanes_in_turn(tmp_path):
    gate = str(tmp_path / "go")
    with shared_pool(1) as shared:
        first = shared.submit("first", 1, _wait_for, gate)
        futures = [shared.submit("a", 1, abs, -1), shared.submit("a", 1, abs, -2),
                   shared.submit("a", 1, abs, -3), shared.submit("b", 1, abs, -4),
                   shared.submit("b", 1, abs, -5), shared.submit("kernels", 0, abs, -6)]
        open(gate, "w").close()
        assert first.result() == "held"
        assert [f.result() for f in futures] == [1, 2, 3, 4, 5, 6]
        assert [name for name, _ in shared.tasks] == ["first", "kernels", "a", "b", "a", "b",
                                                      "a"]
        assert all(seconds is not None and seconds >= 0 for _, seconds in shared.tasks)
        assert set(shared.cpu()) == {"first", "kernels", "a", "b"}


@pytest.mark.exact
def test_process_pool_inside_hands_each_threads_tasks_to_its_lane():
    found = {}

    def part(name: str) -> None:
        with lane(name):
            with process_pool(2) as pool:
                found[name] = list(pool.map(_pid, range(4)))

    with shared_pool(2) as shared:
        threads = [threading.Thread(target=part, args=(name,)) for name in ("audit", "reproduce")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        workers = {pid for pids in found.values() for pid in pids}
        assert os.getpid() not in workers and len(workers) <= 2   # the same two processes
        assert sorted(name for name, _ in shared.tasks) == ["audit"] * 4 + ["reproduce"] * 4
    with process_pool(2) as pool:                                 # outside: a pool of its own
        assert not workers & set(pool.map(_pid, range(4)))


@pytest.mark.smoke
def test_a_failure_inside_cancels_the_waiting_tasks(tmp_path):
    gate = str(tmp_path / "never")
    with pytest.raises(KeyError):
        with shared_pool(1) as shared:
            held = shared.submit("a", 1, _wait_for, gate)
            waiting = shared.submit("a", 1, abs, -1)
            raise KeyError("stop")
    assert waiting.cancelled()
    with pytest.raises(Exception):
        held.result(timeout=30)
    with pytest.raises(CancelledError):
        waiting.result()
