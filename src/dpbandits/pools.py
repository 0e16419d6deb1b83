"""Local worker processes that stop when the work stops.

``concurrent.futures.ProcessPoolExecutor`` used as a context manager waits, on the way out, for
every task already handed to its workers, even when the way out is an interrupt: Ctrl-C during a
sweep with two workers went on for the length of the queued tasks (85 to 114 s measured on the
papers' cells). :func:`process_pool` gives the same pool, but when the block it guards ends with
an exception (``KeyboardInterrupt`` included) it cancels the queued tasks and terminates the
workers before the exception goes on, so that an interrupted command returns within about a
second plus the time a worker needs to reach its next Python instruction (a compiled kernel
returns to Python between bounded chunks of rounds: :data:`dpbandits.compiled.CHUNK_RUN_ROUNDS`).
Finished results are the caller's: whatever it has written stays written.
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing.connection import wait
from typing import Iterator

__all__ = ["process_pool", "stop_pool"]

STOP_WAIT = 1.0
"""Seconds to wait for the terminated workers before they are killed."""

MANAGER_WAIT = 10.0
"""Seconds to wait for the pool's manager thread to fail the tasks its workers held."""


@contextmanager
def process_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of ``workers`` processes; stopped at once (queued tasks cancelled, workers
    terminated) if the guarded block raises, shut down normally otherwise."""
    pool = ProcessPoolExecutor(max_workers=workers)
    try:
        yield pool
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel ``pool``'s queued tasks and end its worker processes now.

    A worker counts as ended when its sentinel is ready (the process has exited), which does not
    depend on which thread reaps it: the pool's own manager thread reaps the workers it finds
    dead at the same time, and ``Process.is_alive`` can read a worker reaped by that thread as
    alive for a moment. When this returns, every worker has exited and the manager thread has
    failed the tasks that were already handed to a worker (``BrokenProcessPool``)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    running = _not_ended(processes, STOP_WAIT)
    for process in running:
        process.kill()
    _not_ended(running, STOP_WAIT)
    if manager is not None:
        manager.join(MANAGER_WAIT)


def _not_ended(processes: list, timeout: float) -> list:
    """The processes of ``processes`` that have not exited within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    running = list(processes)
    while running:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        ready = set(wait([p.sentinel for p in running], remaining))
        running = [p for p in running if p.sentinel not in ready]
    return running
