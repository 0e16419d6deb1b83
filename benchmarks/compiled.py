"""The compiled backend against the reference, in the same run: single-run speed, many short
runs, the cold and the warm start, and ``dpbandits run`` start to finish.

Usage: python benchmarks/compiled.py [--horizon T] [--algorithms A B ...] [--skip-cold]

1. One run, K = 10 Bernoulli arms (means 0.95, 0.85, ..., 0.05; matroid algorithms on the
   synthetic dataset of Chandak et al., Table 2: 7 base arms, rank 3), T = ``--horizon``
   (default 1e7) on the compiled backend, warm cache; the reference backend beside it on the
   same setting at T = 20,000 (its cost per round does not depend on T), and the target of
   the compiled engine's specification for that algorithm.
2. Many short runs: R = 1e4, T = 2000 on both backends.
3. Cold and warm start: a fresh process compiles the kernel into an empty cache folder
   (NUMBA_CACHE_DIR), then a second fresh process loads it; each time is the first
   ``simulate`` call of the process (T = 64), after the imports.
4. ``dpbandits run anytime-lazy-ucb`` with 20 runs of T = 1e6, K = 10, start to finish.

Figures are wall clock on whatever machine runs this, printed as Markdown tables. They are
measurements, never assertions.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from dpbandits.compiled import KERNELS
from dpbandits.reference import Bernoulli, get, simulate, spec
from dpbandits.reference.matroid.data import matroid_setting

MEANS = np.round(np.linspace(0.95, 0.05, 10), 3)
TARGETS = {  # rounds per second, one run, K = 10 (matroids: the synthetic dataset)
    **dict.fromkeys(["ucb1", "dp-ucb-bound", "dp-ucb", "dp-ucb-int", "private-ucb", "dp-se",
                     "anytime-lazy-ucb", "hybrid-ucb"], 1e7),
    "adap-klucb": 3e6,
    **dict.fromkeys(["ftl", "hedge", "naive-ftnl", "rnm-ftnl", "rnm-ftnl-bq"], 2.5e6),
    **dict.fromkeys(["thompson", "lazy-dp-ts"], 7e5),
    **dict.fromkeys(["omm", "cts", "dpucb-mat", "dpts-mat"], 1e6),
}


def problem(name: str, T: int):
    params = {}
    if get(name).feedback == "semi":
        source = matroid_setting("chandak-synthetic")
        params["matroid"] = source.matroid
    else:
        source = Bernoulli(MEANS)
    factory = spec(name, source.K, epsilon=1.0 if get(name).private else None, T=T, **params)
    return factory, source


def rate(name: str, T: int, runs: int, backend: str) -> float:
    factory, source = problem(name, T)
    simulate(factory, source, min(T, 64), runs=1, seed=0, backend=backend)   # load the kernel
    start = time.perf_counter()
    simulate(factory, source, T, runs=runs, seed=0, backend=backend)
    return runs * T / (time.perf_counter() - start)


def first_call_seconds(name: str, cache: str) -> float:
    """Seconds of the first compiled simulate call in a fresh process using ``cache``."""
    code = (f"import sys, time; sys.path.insert(0, {os.path.dirname(__file__)!r});"
            "from compiled import problem; from dpbandits.reference import simulate;"
            f"f, s = problem({name!r}, 64); t = time.perf_counter();"
            "simulate(f, s, 64, runs=1, seed=0, backend='compiled');"
            "print(time.perf_counter() - t)")
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=float, default=1e7, help="T of the single-run figures")
    parser.add_argument("--algorithms", nargs="+", default=list(KERNELS))
    parser.add_argument("--skip-cold", action="store_true", help="skip the cold/warm start table")
    args = parser.parse_args()
    T = int(args.horizon)
    names = [n for n in args.algorithms if n in KERNELS]

    print(f"## One run, K = 10 (matroids: L = 7, rank 3); compiled at T = {T:.0e}, reference at "
          "T = 2e4\n")
    print("| algorithm | compiled rounds/s | reference rounds/s | speed-up | target | met |")
    print("|---|---:|---:|---:|---:|---|")
    for name in names:
        fast, slow = rate(name, T, 1, "compiled"), rate(name, 20_000, 1, "reference")
        target = TARGETS.get(name, float("nan"))
        print(f"| {name} | {fast:,.0f} | {slow:,.0f} | {fast / slow:,.0f}x | {target:.1e} | "
              f"{'yes' if fast >= target else 'no'} |", flush=True)

    print("\n## Many short runs: R = 1e4, T = 2000 (run-rounds per second)\n")
    print("| algorithm | compiled | reference | ratio |")
    print("|---|---:|---:|---:|")
    for name in names:
        fast, slow = rate(name, 2000, 10_000, "compiled"), rate(name, 2000, 10_000, "reference")
        print(f"| {name} | {fast:,.0f} | {slow:,.0f} | {fast / slow:.1f}x |", flush=True)

    if not args.skip_cold:
        print("\n## First call of a fresh process: cold (empty cache) and warm (seconds)\n")
        print("| algorithm | cold | warm |")
        print("|---|---:|---:|")
        for name in names:
            with tempfile.TemporaryDirectory() as cache:
                cold = first_call_seconds(name, cache)
                warm = first_call_seconds(name, cache)
            print(f"| {name} | {cold:.2f} | {warm:.2f} |", flush=True)

    print("\n## dpbandits run: anytime-lazy-ucb, 20 runs, T = 1e6, K = 10, start to finish\n")
    with tempfile.TemporaryDirectory() as out:
        command = ["dpbandits", "run", "anytime-lazy-ucb", "--means", *map(str, MEANS),
                   "--epsilon", "1", "--horizon", "1000000", "--runs", "20", "--no-progress",
                   "--out", out]
        for backend in ("compiled", "reference"):
            start = time.perf_counter()
            subprocess.run(command + ["--backend", backend], check=True, capture_output=True)
            print(f"- {backend}: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
