"""Every experiment of the papers at the paper's size: each experiment's time and the total.

    python benchmarks/reproduce_full.py [--workers 2] [--out DIR]

Runs ``dpbandits.reproduce.reproduce_many`` on every experiment at size ``full`` (the paper's
horizon, repetitions and epsilon grid) and prints, per experiment, the simulation time of the
cells it computed (a cell shared with an earlier experiment is counted there) and the wall-clock
total, beside the target: at most 20 minutes on 2 cores. Rerunning with the same ``--out`` reuses
finished cells (the resume path), so measure with a fresh folder.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

from dpbandits.reproduce import EXPERIMENTS, reproduce_many

TARGET_SECONDS = 20 * 60


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=None, help="output folder (default: a fresh temporary one)")
    args = parser.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="dpbandits-full-")
    start = time.perf_counter()
    results = reproduce_many(list(EXPERIMENTS), out, size="full", workers=args.workers,
                             progress=lambda m: print(m, file=sys.stderr, flush=True))
    total = time.perf_counter() - start
    print(f"{'experiment':24} {'cells (s)':>10}  verdicts")
    for r in results:
        counts = {}
        for c in r.claims:
            counts[c.verdict] = counts.get(c.verdict, 0) + 1
        print(f"{r.experiment:24} {r.seconds:10.1f}  " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    print(f"total wall-clock: {total:.0f} s with {args.workers} workers "
          f"(target: at most {TARGET_SECONDS} s on 2 cores); output in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
