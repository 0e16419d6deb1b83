#!/usr/bin/env python3
"""DP-SE (Sajed & Sheffet, ICML 2019) for one run, speaking the dpbandits "table" protocol.

Written from the description on docs/algorithms/dp-se.md, as a third party would, with the
Python standard library only. Epoch e = 1, 2, ... pulls every active arm R_e times in
round-robin order (increasing arm index), with

    R_e = ceil(max(32 ln(8 |S| e^2 / beta) / Delta_e^2, 8 ln(4 |S| e^2 / beta) / (eps Delta_e))),

Delta_e = 2^-e and beta = 1 / T; then releases each active arm's epoch mean plus
Laplace(1 / (eps R_e)) noise and keeps the arms whose release is within
2 (h_e + c_e) of the best, h_e = sqrt(ln(8 |S| e^2 / beta) / (2 R_e)),
c_e = ln(4 |S| e^2 / beta) / (R_e eps). Once one arm is left it is pulled until T.

``--bug exact-first`` plants a deviation in the first elimination only: epoch 1 compares the
exact means (the noise is drawn but left out of the comparison), a slip that looks harmless
because every later epoch is right. Its actions after round K R_1 are then a deterministic
function of the first epoch's rewards: not epsilon-DP for any epsilon.

Usage:  python3 dp_se.py [--epsilon E] [--bug exact-first]
"""

import argparse
import math
import random
import sys


def laplace(rng, scale):
    """Laplace(0, scale): the difference of two independent Exp(1) draws, scaled."""
    return scale * (rng.expovariate(1.0) - rng.expovariate(1.0))


def dp_se(rows, epsilon, rng, exact_first=False):
    """The actions of one run of DP-SE on a list of T reward rows."""
    T, K = len(rows), len(rows[0])
    beta = 1.0 / T
    active = list(range(K))
    actions = []
    e = 0
    while len(actions) < T:
        if len(active) == 1:
            actions.extend([active[0]] * (T - len(actions)))
            break
        e += 1
        n = len(active)
        delta = 2.0 ** -e
        R = math.ceil(max(32 * math.log(8 * n * e * e / beta) / delta ** 2,
                          8 * math.log(4 * n * e * e / beta) / (epsilon * delta)))
        sums = {a: 0.0 for a in active}
        for i in range(n * R):
            if len(actions) == T:
                return actions            # an epoch cut short by the horizon releases nothing
            arm = active[i % n]
            sums[arm] += rows[len(actions)][arm]
            actions.append(arm)
        released = {}
        for a in active:
            noise = laplace(rng, 1.0 / (epsilon * R))
            released[a] = sums[a] / R + (0.0 if exact_first and e == 1 else noise)
        h = math.sqrt(math.log(8 * n * e * e / beta) / (2 * R))
        c = math.log(4 * n * e * e / beta) / (R * epsilon)
        best = max(released.values())
        active = [a for a in active if best - released[a] <= 2 * (h + c)]
    return actions


def fail(message):
    sys.stderr.write(f"dp_se: {message}\n")
    sys.exit(2)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilon", type=float, default=1.0, help="privacy parameter (default 1)")
    parser.add_argument("--bug", choices=("none", "exact-first"), default="none",
                        help="plant a deviation (default none)")
    args = parser.parse_args()
    if not args.epsilon > 0:
        fail("--epsilon must be > 0")
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
        actions = dp_se(rows, args.epsilon, random.Random(seed), args.bug == "exact-first")
        sys.stdout.write(" ".join(map(str, actions)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
