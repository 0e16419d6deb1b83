"""Throughput of every registered algorithm: run-rounds per second at K = 5 (matroids: L = 7).

Usage: python benchmarks/throughput.py [--budget RUN_ROUNDS] [--algorithms A B ...]

For each algorithm and R in {1, 1e3, 1e4, 1e5} it simulates R runs for T rounds, with T chosen
so that R * T is about the budget (at least 200 rounds, so that the initial phase does not
dominate), on the Bernoulli setting hu-journal-setting1 (means 0.75, 0.625, 0.5, 0.375, 0.25),
in one process; full-information algorithms draw whole reward rows, bandit ones one reward;
matroid (semi-bandit) algorithms run on the synthetic dataset of Chandak et al. (Table 2: 7 base
arms, rank 3), so their K is 7. It prints a Markdown table. Figures are measured, single-threaded, wall clock.
"""

from __future__ import annotations

import argparse
import time

from dpbandits.reference import ALGORITHMS, get, get_setting, simulate, spec
from dpbandits.reference.matroid.data import matroid_setting

RUNS = (1, 1_000, 10_000, 100_000)


def measure(name: str, runs: int, budget: int) -> tuple[int, float]:
    params = {}
    if get(name).feedback == "semi":
        source = matroid_setting("chandak-synthetic")
        params["matroid"] = source.matroid
    else:
        source = get_setting("hu-journal-setting1").environment()
    T = max(200, budget // runs)
    factory = spec(name, source.K, epsilon=1.0 if get(name).private else None, T=T, **params)
    start = time.perf_counter()
    simulate(factory, source, T, runs=runs, seed=0)
    return T, runs * T / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=4_000_000, help="run-rounds per measurement")
    parser.add_argument("--algorithms", nargs="+", default=None,
                        help="default: every registered algorithm")
    args = parser.parse_args()
    names = args.algorithms or list(ALGORITHMS)
    print("| algorithm | " + " | ".join(f"R = {r:g}" for r in RUNS) + " |")
    print("|---|" + "---|" * len(RUNS))
    for name in names:
        cells = []
        for runs in RUNS:
            T, rate = measure(name, runs, args.budget if runs > 1 else args.budget // 40)
            cells.append(f"{rate:,.0f} (T={T})")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print("\nrun-rounds per second, K = 5, epsilon = 1, one process")


if __name__ == "__main__":
    main()
