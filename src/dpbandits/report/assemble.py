"""Assembling the report: run or reuse each part, then write ``index.md`` and ``index.html``."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Callable

from ..errors import DPBanditsError
from ..files import write_atomically
from .figures import figures
from .parts import BUILDERS
from .plan import BUDGETS, PARTS, Part, load_part
from .summary import index
from .webpage import html_page

__all__ = ["report"]

def report(out: str | Path = "dpbandits-report", *, budget: str = "default", seed: int = 0,
           parts: tuple[str, ...] = PARTS, client=None, workers: int = 1,
           progress: Callable[[str], None] | None = None, backend: str = "auto") -> Path:
    """Run (or resume) the report in folder ``out``; returns the path of ``index.md``.

    ``workers`` local processes or a Dask ``client`` only change where simulations run: every
    number is the same (seeded blocks). ``backend`` is the engine's; the report's parameters
    record it."""
    from ..reference.engine import check_backend

    check_backend(backend)
    if budget not in BUDGETS:
        raise DPBanditsError(f"unknown budget {budget!r}; choose one of {', '.join(BUDGETS)}")
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        raise DPBanditsError(f"unknown report part(s) {unknown}; parts are {', '.join(PARTS)}")
    say = progress or (lambda message: None)
    out = Path(out)
    (out / "parts").mkdir(parents=True, exist_ok=True)
    from .. import __version__

    parameters = dict(budget=budget, seed=seed, version=__version__, backend=backend,
                      **BUDGETS[budget])
    parameters = json.loads(json.dumps(parameters))
    finished: dict[str, Part] = {}
    todo = []
    for i, name in enumerate(parts):
        cached, problem = load_part(out / "parts" / f"{name}.json", name, parameters)
        if problem:
            print(f"dpbandits: warning: the cached part {name!r} is damaged ({problem}); "
                  "computing it again", file=sys.stderr)
        if cached is not None:
            say(f"[{i + 1}/{len(parts)}] {name}: reused from an earlier run")
            finished[name] = cached
        else:
            todo.append((i, name))

    def build(i: int, name: str) -> None:
        say(f"[{i + 1}/{len(parts)}] {name} ...")
        start, cpu = time.perf_counter(), time.thread_time()
        part = BUILDERS[name](out, BUDGETS[budget], seed, client, say, workers, backend)
        part.seconds = round(time.perf_counter() - start, 1)
        part.parameters = parameters
        write_atomically(out / "parts" / f"{name}.json", json.dumps(part.to_dict(), indent=1))
        say(f"[{i + 1}/{len(parts)}] {name}: done in {part.seconds:.0f} s")
        finished[name] = part
        timing[name] = dict(wall=part.seconds, cpu=round(time.thread_time() - cpu, 1),
                            thread=round(time.thread_time() - cpu, 1))

    timing: dict = {}
    start, main = time.perf_counter(), time.process_time()
    if client is None and workers > 1 and len(todo) > 1:
        _side_by_side(todo, build, workers, backend, say, timing)
    else:
        if client is None and workers > 1 and backend != "reference":
            _compile_kernels(workers, say)
        for i, name in todo:
            build(i, name)
    timing["total"] = dict(wall=round(time.perf_counter() - start, 1),
                           main=round(time.process_time() - main, 1))
    write_atomically(out / "timing.json", json.dumps(timing, indent=1))
    finished = [finished[name] for name in parts]
    text = index(finished, parameters, figures(finished, out))
    write_atomically(out / "index.md", text)
    write_atomically(out / "index.html", html_page(text, out))
    return out / "index.md"


def _compile_kernels(workers: int, say: Callable[[str], None], shared=None) -> None:
    """Compile the kernels not yet in the disk cache, each once, side by side on ``workers``
    processes, before the parts start. Otherwise each part's workers compile a kernel the first
    time they meet it, both workers at once when they meet it together (a kernel compiles in 3
    to 11 s); from the cache a worker loads it in under a second. Nothing of the results
    changes: a kernel compiled earlier is the same kernel."""
    from ..compiled import cold_kernels, warm_up
    from ..pools import process_pool

    cold = cold_kernels()
    if not cold:
        return
    say(f"compiling {len(cold)} kernels on {workers} processes (cached on disk afterwards)")
    if shared is not None:          # first in the shared pool's order; nobody waits here
        for name in cold:
            shared.submit("kernels", PRIORITY["kernels"], warm_up, [name])
        return
    with process_pool(min(workers, len(cold))) as pool:
        list(pool.map(warm_up, [[name] for name in cold]))


PRIORITY = {"kernels": 0, "bounds": 1, "audit": 1, "reproduce": 1}
"""The shared pool's order of service: kernels compile first; the parts take turns."""


def _side_by_side(todo: list[tuple[int, str]], build: Callable[[int, str], None], workers: int,
                  backend: str, say: Callable[[str], None], timing: dict) -> None:
    """Build the parts of ``todo`` at the same time, each in a thread of this process, their
    tasks on one :func:`~dpbandits.pools.shared_pool` of ``workers`` processes taking turns
    (each part's tasks in its own order, largest first). The cold kernels compile first on the
    same workers, while the parts start. A part's ``timing`` is its wall time, its thread's
    processor time and its tasks' processor time in the workers ("cpu")."""
    import threading

    from ..pools import lane, shared_pool

    errors: list[BaseException] = []

    def run(i: int, name: str) -> None:
        try:
            with lane(name, PRIORITY.get(name, 1)):
                build(i, name)
        except BaseException as error:          # re-raised in the calling thread
            errors.append(error)

    with shared_pool(workers) as shared:
        if backend != "reference":
            _compile_kernels(workers, say, shared)
        threads = [threading.Thread(target=run, args=job, name=job[1], daemon=True)
                   for job in todo]
        for thread in threads:
            thread.start()
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)
            if errors:
                raise errors[0]
        for name, cpu in shared.cpu().items():
            entry = timing.setdefault(name, {})
            entry["cpu"] = round(entry.get("cpu", 0.0) + cpu, 1)
        timing["tasks"] = [[name, round(cpu or 0.0, 2)] for name, cpu in shared.tasks]
