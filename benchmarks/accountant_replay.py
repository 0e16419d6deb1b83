"""What the alignment replay (:mod:`dpbandits.accountant.replay`) adds to a size-T proof: its
CPU seconds beside the size-T mode's whole CPU seconds (the baseline, which includes the
replay), at each size, in the same run.

Usage: python benchmarks/accountant_replay.py [--sizes T ...] [--arms K] [--algorithm NAME]

Prints one Markdown row per size: the algorithm, K, T, the replay's findings (0 on the
reference), its CPU seconds, the size-T mode's CPU seconds and status, and the load average.
"""

from __future__ import annotations

import argparse
import os
import time

from dpbandits.accountant import traced_upper
from dpbandits.accountant.replay import replay


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 10_000])
    parser.add_argument("--arms", type=int, default=2)
    parser.add_argument("--algorithm", default="anytime-lazy-ucb")
    args = parser.parse_args()
    print("| algorithm | K | T | replay findings | replay CPU s | size-T mode CPU s | status "
          "| load average |")
    print("|---|---:|---:|---:|---:|---:|---|---|")
    for T in args.sizes:
        started = time.process_time()
        found = replay(args.algorithm, epsilon=1.0, variant=None, K=args.arms, T=T, bound=1.0)
        alone = time.process_time() - started
        started = time.process_time()
        bound = traced_upper(args.algorithm, epsilon=1.0, K=args.arms, T=T)
        whole = time.process_time() - started
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"| {args.algorithm} | {args.arms} | {T} | {len(found)} | {alone:.2f} | "
              f"{whole:.2f} | {bound.status.split(' (')[0]} | {load} |")


if __name__ == "__main__":
    main()
