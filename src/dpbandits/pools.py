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

from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Iterator

__all__ = ["process_pool", "stop_pool"]

STOP_WAIT = 1.0
"""Seconds to wait for each terminated worker before it is killed."""


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
    """Cancel ``pool``'s queued tasks and end its worker processes now."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(STOP_WAIT)
        if process.is_alive():
            process.kill()
            process.join(STOP_WAIT)
