"""How long the small commands take start to finish, beside a baseline package, in one run.

Usage: python benchmarks/start_time.py [--baseline-src DIR] [--repeats K]

Each command runs in a process of its own on this package (the ``src`` beside this script) and,
with ``--baseline-src DIR`` (``git archive COMMIT src | tar -x -C DIR``, then ``--baseline-src
DIR/src``), on the older package right after it, so that both are measured under the same load.
Before the timed repeats every command runs once untimed on each package, so the kernels are
compiled and cached and ``list``'s kept bounds are written: the figures are those of a machine
where the package has run before (the first ``run`` of a kernel compiles it, 3 to 11 s; the first
``list`` after a change of the package traces, about 6 s of CPU). It prints the best and median
wall and CPU seconds (user + system of the child) of each command, the load average before and
after, and the seconds numba takes to load a cached kernel in a fresh process (its import, then
its first call), as a Markdown table. The outputs of ``list`` must be identical.

The commands: a short compiled run (the PNG is drawn only with ``--plot`` on this package; the
baseline drew it always), ``dpbandits list``, and the README's audit example.

Targets: ``run`` at most 0.8 s wall, ``list`` at most 3 s, ``audit`` unchanged or faster.

Measured with ``python benchmarks/start_time.py --baseline-src OLD/src --repeats 3``, OLD the
package at 2ac6ab0 (before these changes), on the shared 2-core machine at a load average of
7.5 (others' work running; the CPU seconds are the steadier figure); outputs of list identical:

| command | package | wall s (best) | wall s (median) | CPU s (best) | CPU s (median) |
|---|---|---|---|---|---|
| run (T = 10, 20 runs, compiled) | this package | 1.53 | 2.17 | 0.92 | 1.00 |
| run (T = 10, 20 runs, compiled) | baseline | 2.57 | 3.58 | 1.63 | 1.71 |
| list | this package | 1.22 | 1.66 | 0.66 | 0.75 |
| list | baseline | 12.95 | 16.90 | 7.69 | 8.52 |
| audit ftnl --variant paper --epsilon 1 | this package | 4.11 | 5.59 | 2.32 | 2.40 |
| audit ftnl --variant paper --epsilon 1 | baseline | 4.66 | 5.10 | 2.38 | 2.38 |

numba's import took 0.59 s and its first call of the cached kernel 0.90 s in a fresh process at
that load (0.14 s and 0.39 s on a quiet machine): the short ``run`` is numba's load plus Python's
start with the package (0.23 s quiet). On a quiet machine (load 0.4 to 1.9) the short ``run`` took
0.95 to 1.04 s wall against 1.62 to 1.67 s before: above the 0.8 s target by numba's load, which
includes SciPy's linear algebra (0.2 to 0.3 s, numba's check for a BLAS).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from baseline import add_baseline
from baseline import sources as baseline_sources

COMMANDS = {
    "run (T = 10, 20 runs, compiled)": ["run", "anytime-lazy-ucb", "--backend", "compiled",
                                        "--horizon", "10", "--runs", "20", "--means", "0.6", "0.4",
                                        "--epsilon", "1", "--no-progress"],
    "list": ["list"],
    "audit ftnl --variant paper --epsilon 1": ["audit", "ftnl", "--variant", "paper",
                                                "--epsilon", "1", "--no-progress"],
}

NUMBA_LOAD = """
import time
start = time.perf_counter()
import numba
imported = time.perf_counter()
from dpbandits.reference import Bernoulli, simulate, spec
factory = spec("anytime-lazy-ucb", 2, epsilon=1.0, T=10)
begun = time.perf_counter()
simulate(factory, Bernoulli([0.6, 0.4]), 10, runs=20, seed=0, backend="compiled")
print(imported - start, time.perf_counter() - begun)
"""


def timed(src: Path, argv: list[str], out: str) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, standard output) of one command on ``src``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c",
                           "import sys; from dpbandits.cli import main; sys.exit(main())", *argv],
                          env={**os.environ, "PYTHONPATH": str(src)}, capture_output=True,
                          text=True, cwd=out)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(argv)} on {src}: exit status {done.returncode}: {done.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def numba_load(src: Path) -> tuple[float, float]:
    """(numba's import, its first call of a cached kernel) in seconds, in a fresh process."""
    done = subprocess.run([sys.executable, "-c", NUMBA_LOAD], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(src)}, check=True)
    first, second = done.stdout.split()
    return float(first), float(second)


def parsed(doc: str) -> tuple[argparse.Namespace, dict[str, Path]]:
    """The options ``--baseline-src DIR`` and ``--repeats K`` of a benchmark whose usage is
    ``doc``, and the packages to measure (this one, and the baseline when given)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    add_baseline(parser)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    return args, baseline_sources(parser, args.baseline_src)


def measured(sources: dict[str, Path], commands: dict[str, list[str]], repeats: int,
             out: str) -> tuple[dict, dict[str, str]]:
    """(command, package) -> its (wall, CPU) seconds in each of ``repeats`` rounds, each round
    running every command on every package in turn (so that both see the same load); and
    package -> the output of ``list`` (stops when it changes between repeats)."""
    figures: dict = {(c, s): [] for c in commands for s in sources}
    listed: dict[str, str] = {}
    for _ in range(repeats):
        for command, argv in commands.items():
            for name, src in sources.items():
                wall, cpu, text = timed(src, argv, out)
                figures[command, name].append((wall, cpu))
                if argv == ["list"]:
                    listed.setdefault(name, text)
                    if text != listed[name]:
                        sys.exit(f"{name}: the output of dpbandits list changed between repeats")
    return figures, listed


def print_table(figures: dict) -> None:
    """The best and median wall and CPU seconds of each command and package, in Markdown."""
    print("| command | package | wall s (best) | wall s (median) | CPU s (best) | CPU s (median) |")
    print("|---|---|---|---|---|---|")
    for (command, name), rows in figures.items():
        walls, cpus = [w for w, _ in rows], [c for _, c in rows]
        print(f"| {command} | {name} | {min(walls):.2f} | {statistics.median(walls):.2f} | "
              f"{min(cpus):.2f} | {statistics.median(cpus):.2f} |")


def main() -> None:
    args, sources = parsed(__doc__)
    with tempfile.TemporaryDirectory() as out:
        for src in sources.values():                   # compile, cache, keep: untimed
            for argv in COMMANDS.values():
                timed(src, argv, out)
        load_before = os.getloadavg()[0]
        figures, listed = measured(sources, COMMANDS, args.repeats, out)
        loads = {name: numba_load(src) for name, src in sources.items()}
        load_after = os.getloadavg()[0]
    same = "identical" if len(set(listed.values())) == 1 else "DIFFERENT"
    print(f"{args.repeats} repeat(s) each, load average {load_before:.1f} before, "
          f"{load_after:.1f} after; outputs of list {same}\n")
    print_table(figures)
    print()
    for name, (imported, loaded) in loads.items():
        print(f"numba ({name}): import {imported:.2f} s, first call of the cached "
              f"anytime-lazy-ucb kernel {loaded:.2f} s")
    if same != "identical":
        sys.exit("the outputs of dpbandits list differ between this package and the baseline")

if __name__ == "__main__":
    main()
