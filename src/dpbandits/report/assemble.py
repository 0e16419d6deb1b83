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
    finished: list[Part] = []
    if client is None and workers > 1 and backend != "reference":
        _compile_kernels(workers, say)
    for i, name in enumerate(parts):
        cached, problem = load_part(out / "parts" / f"{name}.json", name, parameters)
        if problem:
            print(f"dpbandits: warning: the cached part {name!r} is damaged ({problem}); "
                  "computing it again", file=sys.stderr)
        if cached is not None:
            say(f"[{i + 1}/{len(parts)}] {name}: reused from an earlier run")
            finished.append(cached)
            continue
        say(f"[{i + 1}/{len(parts)}] {name} ...")
        start = time.perf_counter()
        part = BUILDERS[name](out, BUDGETS[budget], seed, client, say, workers, backend)
        part.seconds = round(time.perf_counter() - start, 1)
        part.parameters = parameters
        write_atomically(out / "parts" / f"{name}.json", json.dumps(part.to_dict(), indent=1))
        say(f"[{i + 1}/{len(parts)}] {name}: done in {part.seconds:.0f} s")
        finished.append(part)
    text = index(finished, parameters, figures(finished, out))
    write_atomically(out / "index.md", text)
    write_atomically(out / "index.html", html_page(text, out))
    return out / "index.md"


def _compile_kernels(workers: int, say: Callable[[str], None]) -> None:
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
    with process_pool(min(workers, len(cold))) as pool:
        list(pool.map(warm_up, [[name] for name in cold]))
