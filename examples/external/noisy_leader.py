#!/usr/bin/env python3
"""Follow the noisy leader over whole reward rows, speaking the dpbandits "table" protocol.

In round t the program plays

    a_t = argmax_a ( S_{t-1}[a] + Z_t[a] ),   S_{t-1} = X[1] + ... + X[t-1],   Z_t[a] ~ Laplace(b),

with fresh noise in every round (ties, which have probability 0 when b > 0, go to the lowest
arm). It needs only the Python standard library.

Privacy. Two tables that differ in one row s (any change of that reward vector) give sums
S_{t-1} that differ by at most 1 in every coordinate for t > s and not at all for t <= s. A
report-noisy-max with Laplace(b) noise is (2/b)-DP for such a change, and the rounds use
independent noise, so the whole action sequence is (2 (T - 1) / b)-DP. ``--epsilon E`` (the
default, E = 1) sets b = 2 (T - 1) / E from the horizon T of each run; ``--scale B`` fixes b = B
instead, and a small B (or 0: follow the leader without noise) makes the program deliberately
non-private, which is what an audit should then detect.

Usage:  python3 noisy_leader.py [--epsilon E | --scale B]
"""

import argparse
import random
import sys


def laplace(rng, scale):
    """Laplace(0, scale): the difference of two independent Exp(1) draws, scaled."""
    return scale * (rng.expovariate(1.0) - rng.expovariate(1.0))


def noisy_leader(rows, scale, rng):
    """The actions of one run on a list of T reward rows."""
    K = len(rows[0])
    totals = [0.0] * K
    actions = []
    for row in rows:
        noisy = [totals[a] + laplace(rng, scale) for a in range(K)]
        actions.append(max(range(K), key=noisy.__getitem__))   # first maximum on ties
        totals = [total + x for total, x in zip(totals, row)]
    return actions


def fail(message):
    sys.stderr.write(f"noisy_leader: {message}\n")
    sys.exit(2)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    noise = parser.add_mutually_exclusive_group()
    noise.add_argument("--epsilon", type=float, default=1.0,
                       help="privacy of the whole action sequence; sets b = 2 (T - 1) / epsilon")
    noise.add_argument("--scale", type=float, default=None,
                       help="fixed Laplace scale b >= 0 (small values are not private)")
    args = parser.parse_args()
    if args.scale is None and not args.epsilon > 0:
        fail("--epsilon must be > 0")
    if args.scale is not None and not args.scale >= 0:
        fail("--scale must be >= 0")

    hello = sys.stdin.readline().split()
    if hello[:3] != ["dpbandits", "1", "table"]:
        fail(f"expected 'dpbandits 1 table ...', got {' '.join(hello)!r}")
    for line in sys.stdin:
        words = line.split()
        if words == ["quit"]:
            return
        if len(words) != 4 or words[0] != "run":
            fail(f"expected 'run K T SEED' or 'quit', got {line.strip()!r}")
        K, T, seed = int(words[1]), int(words[2]), int(words[3])
        rows = [[float(x) for x in sys.stdin.readline().split()] for _ in range(T)]
        if any(len(row) != K for row in rows):
            fail(f"expected {T} rows of {K} rewards")
        scale = args.scale if args.scale is not None else 2 * (T - 1) / args.epsilon
        actions = noisy_leader(rows, scale, random.Random(seed))   # all randomness from SEED
        sys.stdout.write(" ".join(map(str, actions)) + "\n")
        sys.stdout.flush()                                          # the harness waits for it


if __name__ == "__main__":
    main()
