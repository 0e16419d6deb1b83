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

Inside :func:`shared_pool` (the report runs its parts side by side, one thread each),
:func:`process_pool` yields no new pool: every caller's tasks go to one set of worker processes,
served in the order of :func:`lane` priority (the kernels to compile first), then round robin
over the callers' lanes in each caller's own order (largest first where it sorts them), so that
both cores stay busy to the end and no part waits behind the whole of another. The workers live
as long as the report: each imports the package and loads a kernel once, not once per pool.
"""

from __future__ import annotations

import heapq
import itertools
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing.connection import wait
from typing import Any, Callable, Iterator

__all__ = ["process_pool", "stop_pool", "shared_pool", "lane", "SharedPool"]

STOP_WAIT = 1.0
"""Seconds to wait for the terminated workers before they are killed."""

MANAGER_WAIT = 10.0
"""Seconds to wait for the pool's manager thread to fail the tasks its workers held."""


@contextmanager
def process_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of ``workers`` processes; stopped at once (queued tasks cancelled, workers
    terminated) if the guarded block raises, shut down normally otherwise. Inside
    :func:`shared_pool`, the shared workers instead (this thread's :func:`lane`); ``workers`` is
    then theirs."""
    shared = _SHARED
    if shared is not None and shared.owner == os.getpid():
        view = _Lane(shared, *getattr(_THREAD, "lane", ("other", 1)))
        try:
            yield view
        except BaseException:
            view.cancel()
            raise
        return
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


_SHARED: "SharedPool | None" = None
_THREAD = threading.local()


class SharedPool:
    """``workers`` processes serving several callers (threads) at once.

    At most ``workers`` tasks are handed to the processes at a time; the others wait here, so
    the next one to start is chosen when a worker frees, by (lane priority, its rank within its
    lane, arrival). The worker processor time of each lane's tasks is summed in :attr:`cpu`."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.owner = os.getpid()
        self.tasks: list[list] = []
        self._pool = ProcessPoolExecutor(max_workers=workers)
        self._lock = threading.RLock()
        self._waiting: list = []
        self._ranks: dict[str, itertools.count] = {}
        self._arrival = itertools.count()
        self._running = 0
        self._stopped = False
        # every worker started now, before the callers' threads exist (a fork copies one thread)
        list(self._pool.map(abs, range(workers)))

    def submit(self, name: str, priority: int, function: Callable, *args: Any) -> Future:
        future: Future = Future()
        with self._lock:
            if self._stopped:
                raise RuntimeError("the shared worker pool was stopped")
            rank = next(self._ranks.setdefault(name, itertools.count()))
            heapq.heappush(self._waiting, (priority, rank, next(self._arrival), future, name,
                                           function, args))
            self._feed()
        return future

    def _feed(self) -> None:
        while self._running < self.workers and self._waiting:
            *_, future, name, function, args = heapq.heappop(self._waiting)
            if not future.set_running_or_notify_cancel():
                continue
            self._running += 1
            entry = [name, None]
            self.tasks.append(entry)
            task = self._pool.submit(_timed, function, args)
            task.add_done_callback(lambda task, f=future, e=entry: self._done(task, f, e))

    def cpu(self) -> dict[str, float]:
        """Lane -> the processor seconds its finished tasks took in the workers."""
        found: dict[str, float] = {}
        for name, seconds in self.tasks:
            found[name] = found.get(name, 0.0) + (seconds or 0.0)
        return found

    def _done(self, task: Future, future: Future, entry: list) -> None:
        with self._lock:
            self._running -= 1
            try:
                result, cpu = task.result()
            except BaseException as error:
                future.set_exception(error)
            else:
                entry[1] = cpu
                future.set_result(result)
            if not self._stopped:
                self._feed()

    def stop(self, wait_for_workers: bool = True) -> None:
        """Cancel the waiting tasks; shut the workers down (``wait_for_workers``) or end them now."""
        with self._lock:
            self._stopped = True
            waiting, self._waiting = self._waiting, []
        for *_, future, _name, _function, _args in waiting:
            future.cancel()
        if wait_for_workers:
            self._pool.shutdown(wait=True)
        else:
            stop_pool(self._pool)


def _timed(function: Callable, args: tuple) -> tuple[Any, float]:
    """``function(*args)`` in a worker, with the processor seconds it took there."""
    start = time.process_time()
    result = function(*args)
    return result, time.process_time() - start


class _Lane:
    """One caller's view of the shared pool: ``submit`` and ``map`` as an executor's."""

    def __init__(self, shared: SharedPool, name: str, priority: int) -> None:
        self.shared, self.name, self.priority = shared, name, priority
        self._futures: list[Future] = []

    def submit(self, function: Callable, *args: Any) -> Future:
        future = self.shared.submit(self.name, self.priority, function, *args)
        self._futures.append(future)
        return future

    def map(self, function: Callable, *iterables) -> Iterator:
        futures = [self.submit(function, *args) for args in zip(*iterables)]
        return (future.result() for future in futures)

    def cancel(self) -> None:
        for future in self._futures:
            future.cancel()


@contextmanager
def lane(name: str, priority: int = 1) -> Iterator[None]:
    """The tasks this thread hands to :func:`process_pool` go to the shared pool's lane ``name``
    (lower ``priority`` first; equal priorities take turns)."""
    before = getattr(_THREAD, "lane", None)
    _THREAD.lane = (name, priority)
    try:
        yield
    finally:
        _THREAD.lane = before


@contextmanager
def shared_pool(workers: int) -> Iterator[SharedPool]:
    """One :class:`SharedPool` of ``workers`` processes behind every :func:`process_pool` of
    this process while the block runs; stopped at once if the block raises."""
    global _SHARED
    if _SHARED is not None:
        raise RuntimeError("a shared worker pool is already active")
    shared = SharedPool(workers)
    _SHARED = shared
    try:
        yield shared
    except BaseException:
        _SHARED = None
        shared.stop(wait_for_workers=False)
        raise
    _SHARED = None
    shared.stop()
