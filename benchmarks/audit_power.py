"""Power of the audit: how close its bound comes to the truth, and how fast it runs.

Usage: python benchmarks/audit_power.py [--seeds 5] [--samples 20000] [--skip-algorithms]

Part 1, the Laplace mechanism at eps = 1 (X + Lap(1), X = 1 vs 0): the mean over ``--seeds``
audits of the 95% lower bound at N = 1e4, 1e5 and 1e6 test runs per side (selection sample N/5
per side), next to the reference figures of the audit recipes (oracle-optimal event,
Clopper-Pearson, alpha split over both bounds: 0.939, 0.981, 0.994) and their ratio.

Part 2, every registered algorithm and variant at eps = 1 with ``--samples`` test runs per side
(the default audit): the bound divided by the claimed epsilon and the runs per second (all runs
of the audit, selection and test, divided by its wall-clock time).

Part 3 (``--action-level [N]``), what the actions of the hybrid-counter UCBs' printed variants
can reveal: for every designed pair (dpbandits.audit.design) the loss of whole action sequences
on N runs per side, half choosing and half measuring (estimate and the 95% (upper, delta)
bound), the loss of the released statistics, and the test runs a refutation would need; per
algorithm the most revealing pair (dpbandits.audit.design.most_revealing) is written to
docs/data/action-level-loss.json (the docs pages quote it).
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


def algorithm_table(samples: int, names: list[str] | None = None) -> None:
    from dpbandits.reference import make

    print("\n| algorithm | claim | proven eps | exact eps of the pair | bound | bound / claim | "
          "test runs per side | seconds | verdict | runs per second |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in names or ALGORITHMS:
        for variant in get(name).variants:
            start = time.perf_counter()
            r = audit_algorithm(name, epsilon=1.0, variant=variant.name, samples=samples, seed=0)
            seconds = time.perf_counter() - start
            runs = 2 * (r.n_test + r.n_selection * r.counts["candidate_pairs"])
            claim = "-" if r.claimed_epsilon is None else f"{r.claimed_epsilon:.3g}"
            ratio = "-" if r.closeness is None else f"{r.closeness:.3f}"
            proven = make(name, K=r.pair["K"], epsilon=1.0, rng=0, variant=variant.name,
                          T=r.pair["T"]).claim.proven
            proven = "-" if proven is None else f"{proven.epsilon:.3g}"
            exact = "-" if r.exact_epsilon is None else f"{r.exact_epsilon:.3f}"
            print(f"| {r.mechanism} | {claim} | {proven} | {exact} | {r.best_bound:.3f} | {ratio} | "
                  f"{r.n_test:,} | {seconds:.1f} | {r.verdict} | {runs / seconds:,.0f} |", flush=True)


ACTION_LEVEL = ("dp-ucb", "dp-ucb-bound", "hybrid-ucb")
ACTION_LEVEL_FILE = "docs/data/action-level-loss.json"


def action_level_table(n: int) -> None:
    import json
    from pathlib import Path

    from dpbandits.audit.design import action_level_loss, designed_pairs, most_revealing
    from dpbandits.files import write_atomically

    print("\n| algorithm | pair | T | released loss | sequences' loss (estimate) | 95% upper bound "
          "| test runs a refutation needs |")
    print("|---|---|---|---|---|---|---|")
    chosen = {}
    for name in ACTION_LEVEL:
        results = []
        for pair in designed_pairs(name, 2, 1.0, "paper"):
            r = action_level_loss(name, pair, epsilon=1.0, variant="paper", n=n, seed=0)
            need = "none" if r.samples_needed is None else f"{r.samples_needed:,}"
            print(f"| {r.mechanism} | {r.pair} | {r.T} | {r.released_loss:g} | {r.estimate:.3f} | "
                  f"{r.upper_bound:.3f} | {need} |", flush=True)
            results.append(r)
        chosen[name] = most_revealing(results).to_dict()
    write_atomically(Path(ACTION_LEVEL_FILE), json.dumps(chosen, indent=1) + "\n")
    print(f"wrote {ACTION_LEVEL_FILE}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="audits averaged per N (default 5)")
    parser.add_argument("--samples", type=int, default=20_000, help="test runs per side, part 2")
    parser.add_argument("--skip-algorithms", action="store_true", help="only part 1")
    parser.add_argument("--only", action="append", default=None, metavar="ALGO",
                        help="part 2 for these algorithms only (repeatable; skips part 1)")
    parser.add_argument("--action-level", type=int, nargs="?", const=1_000_000, default=None,
                        metavar="N", help="only part 3, N runs per side (default 1000000)")
    args = parser.parse_args()
    if args.action_level is not None:
        action_level_table(args.action_level)
        return
    if args.only:
        algorithm_table(args.samples, args.only)
        return
    laplace_table(args.seeds)
    if not args.skip_algorithms:
        algorithm_table(args.samples)


if __name__ == "__main__":
    main()
