"""Power of the audit: how close its bound comes to the truth, and how fast it runs.

Usage: python benchmarks/audit_power.py [--seeds 5] [--samples 20000] [--skip-algorithms]

Part 1, the Laplace mechanism at eps = 1 (X + Lap(1), X = 1 vs 0): the mean over ``--seeds``
audits of the 95% lower bound at N = 1e4, 1e5 and 1e6 test runs per side (selection sample N/5
per side), next to the reference figures of the audit recipes (oracle-optimal event,
Clopper-Pearson, alpha split over both bounds: 0.939, 0.981, 0.994) and their ratio.

Part 2, every registered algorithm and variant at eps = 1 with ``--samples`` test runs per side
(the default audit): the bound divided by the claimed epsilon and the runs per second (all runs
of the audit, selection and test, divided by its wall-clock time).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpbandits.audit import Pair, Stream, audit_algorithm, event_audit
from dpbandits.audit.toys import LaplaceMechanism
from dpbandits.reference import ALGORITHMS, get

REFERENCE = {10_000: 0.939, 100_000: 0.981, 1_000_000: 0.994}


def laplace_table(seeds: int) -> None:
    mechanism = LaplaceMechanism(1.0)
    pair = Pair(Stream(np.array([1.0])), Stream(np.array([0.0])), 1, "X = 1 vs 0")
    print("| N per side | mean bound | reference | ratio | seconds per audit |")
    print("|---|---|---|---|---|")
    for n, reference in REFERENCE.items():
        start = time.perf_counter()
        bounds = [event_audit(mechanism, [pair], n_selection=max(2000, n // 5), n_test=n,
                              alpha=0.05, seed=s).epsilon_lower_bound for s in range(seeds)]
        seconds = (time.perf_counter() - start) / seeds
        mean = float(np.mean(bounds))
        print(f"| {n:,} | {mean:.3f} | {reference:.3f} | {mean / reference:.3f} | {seconds:.2f} |",
              flush=True)


def algorithm_table(samples: int) -> None:
    print("\n| algorithm | claim | bound | bound / claim | verdict | runs per second |")
    print("|---|---|---|---|---|---|")
    for name in ALGORITHMS:
        for variant in get(name).variants:
            start = time.perf_counter()
            r = audit_algorithm(name, epsilon=1.0, variant=variant.name, samples=samples, seed=0)
            seconds = time.perf_counter() - start
            runs = 2 * (r.n_test + r.n_selection * r.counts["candidate_pairs"])
            claim = "-" if r.claimed_epsilon is None else f"{r.claimed_epsilon:.3g}"
            ratio = "-" if r.closeness is None else f"{r.closeness:.3f}"
            print(f"| {r.mechanism} | {claim} | {r.best_bound:.3f} | {ratio} | {r.verdict} | "
                  f"{runs / seconds:,.0f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="audits averaged per N (default 5)")
    parser.add_argument("--samples", type=int, default=20_000, help="test runs per side, part 2")
    parser.add_argument("--skip-algorithms", action="store_true", help="only part 1")
    args = parser.parse_args()
    laplace_table(args.seeds)
    if not args.skip_algorithms:
        algorithm_table(args.samples)


if __name__ == "__main__":
    main()
