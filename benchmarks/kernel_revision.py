"""Kernels before and after a change, side by side in one process: throughput and bit-identity.

Usage: python benchmarks/kernel_revision.py --before REV [--algorithms A B ...]
       [--horizon T] [--short-runs R] [--repeats N]

For every algorithm whose kernel module differs between the git revision ``--before`` and the
working tree (or the algorithms named), the kernel module as it was at ``REV`` is loaded beside
the current one (from ``git show REV:src/dpbandits/compiled/MODULE.py``, as a module of the
``dpbandits.compiled`` package, so it calls today's shared helpers: the files of the package
that differ between the two, other than the kernels measured, are listed first, and a figure
then measures more than the kernel). Each is warmed up (compiled or loaded from the cache), then
they are timed in alternation, ``--repeats`` times each, on the setting of
``benchmarks/compiled.py`` (K = 10 Bernoulli arms, means 0.95 .. 0.05; the matroid algorithms
on the synthetic dataset of Chandak et al., Table 2), epsilon = 1, seed 0:

1. one run of T = ``--horizon`` rounds (default 2e6);
2. ``--short-runs`` runs (default 2000) of T = 2000 rounds, where epochs end often.

A table gives, for each setting, the best and the median rounds per second of each version,
the ratios after / before of the bests and of the medians (below 1 is slower), and whether the
two versions' results are identical (every run's regret at every checkpoint and its pull counts;
in the short runs also every action). Rates are per second of this process's CPU time
(``time.process_time``: one core, the kernels are single-threaded), not wall clock, so that other
processes on a shared machine move them less; they are measurements, never assertions.

Measured when the lazy-epoch release became one shared piece (``--before dceade0``, 9 repeats,
the 2-core machine under a load average of about 7 to 11): every kernel that calls it identical
to its former self, the ratio of the medians after / before between 0.978 (DPTS-MAT, one run)
and 1.046 (DPUCB-MAT, short runs), of the bests between 0.969 and 1.028; OMM and CTS, whose
module changed but whose code did not, moved by as much (bests 0.957 and 0.963, medians 0.986
and 1.004), which is the spread of the measurement.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import dpbandits.compiled as compiled
from dpbandits.compiled import KERNELS
from dpbandits.reference import simulate

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compiled import problem  # noqa: E402  (the setting of benchmarks/compiled.py)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "src/dpbandits/compiled"


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", ROOT, *args], check=True, capture_output=True,
                          text=True).stdout


def changed_modules(rev: str) -> set[str]:
    """Modules of the compiled package that differ between ``rev`` and the working tree."""
    names = git("diff", "--name-only", rev, "--", PACKAGE).split()
    untracked = git("ls-files", "--others", "--exclude-standard", "--", PACKAGE).split()
    return {os.path.basename(n)[:-3] for n in names + untracked if n.endswith(".py")}


def module_at(rev: str, module: str, folder: str):
    """Kernel module ``module`` as it was at ``rev``, imported as ``dpbandits.compiled._at_rev_*``."""
    path = os.path.join(folder, f"_at_rev_{module}.py")
    with open(path, "w") as handle:
        handle.write(git("show", f"{rev}:{PACKAGE}/{module}.py"))
    name = f"dpbandits.compiled._at_rev_{module}"
    spec = importlib.util.spec_from_file_location(name, path)
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded
    spec.loader.exec_module(loaded)
    return loaded


@contextlib.contextmanager
def kernel(module):
    """Make the compiled backend run ``module`` (None: the current kernels)."""
    current = compiled.kernel_module
    if module is not None:
        compiled.kernel_module = lambda name: module
    try:
        yield
    finally:
        compiled.kernel_module = current


def play(module, name: str, T: int, runs: int, record: bool):
    factory, source = problem(name, T)
    with kernel(module):
        start = time.process_time()
        result = simulate(factory, source, T, runs=runs, seed=0, backend="compiled",
                          record_actions=record)
        return result, runs * T / (time.process_time() - start)


def same(a, b) -> bool:
    fields = ("pseudo_regret", "realised_regret", "pulls", "actions")
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in fields
               if getattr(a, f) is not None or getattr(b, f) is not None)


def compare(name: str, before, T: int, runs: int, repeats: int, record: bool) -> str:
    play(before, name, min(T, 64), 1, False)        # compile or load both versions
    play(None, name, min(T, 64), 1, False)
    rates: dict[str, list[float]] = {"before": [], "after": []}
    results = {}
    for rep in range(repeats):
        order = ("before", "after") if rep % 2 == 0 else ("after", "before")
        for version in order:
            result, rate = play(before if version == "before" else None, name, T, runs, record)
            rates[version].append(rate)
            results[version] = result
    best = {v: max(r) for v, r in rates.items()}
    median = {v: statistics.median(r) for v, r in rates.items()}
    identical = "yes" if same(results["before"], results["after"]) else "NO"
    return (f"| {name} | {best['before']:,.0f} | {best['after']:,.0f} | "
            f"{best['after'] / best['before']:.3f} | {median['before']:,.0f} | "
            f"{median['after']:,.0f} | {median['after'] / median['before']:.3f} | {identical} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the git revision of the 'before' kernels")
    parser.add_argument("--algorithms", nargs="+", help="default: every algorithm whose kernel "
                        "module changed since --before")
    parser.add_argument("--horizon", type=float, default=2e6, help="T of the single run")
    parser.add_argument("--short-runs", type=int, default=2_000, help="runs of T = 2000")
    parser.add_argument("--repeats", type=int, default=9, help="timed calls of each version")
    args = parser.parse_args()
    changed = changed_modules(args.before)
    names = args.algorithms or [n for n, m in KERNELS.items() if m in changed]
    measured = {KERNELS[n] for n in names}
    print(f"Kernels at {args.before} (before) against the working tree (after), one process.\n")
    print("Files of the compiled package that differ, other than the kernels measured: "
          + (", ".join(sorted(changed - measured)) or "none") + "\n")
    header = ("| algorithm | best before | best after | after / before | median before | "
              "median after | after / before | identical |\n|---|---:|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as folder:
        before = {m: module_at(args.before, m, folder) for m in sorted(measured)}
        T = int(args.horizon)
        print(f"## One run, T = {T:.0e} (rounds per second)\n\n{header}")
        for name in names:
            print(compare(name, before[KERNELS[name]], T, 1, args.repeats, False), flush=True)
        print(f"\n## {args.short_runs} runs of T = 2000 (run-rounds per second)\n\n{header}")
        for name in names:
            print(compare(name, before[KERNELS[name]], 2000, args.short_runs, args.repeats, True),
                  flush=True)


if __name__ == "__main__":
    main()
