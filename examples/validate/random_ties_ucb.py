"""UCB1 as a widely used simulator writes it: the unpulled arms in random order, ties at random.

The index is UCB1's, s_a / n_a + sqrt(2 ln t / n_a), and the class is a plain one, ``RandomTiesUCB(K,
rng)``. Against dpbandits' ``ucb1`` (arms 0..K-1 first, ties to the lowest arm) it differs only
in tie breaking and the order of the first pulls: ``dpbandits validate`` reports "conforms in
outcome, differs in path", and conforms with ``--param initial_order=random --param
tie_break=random``.
"""

from __future__ import annotations

import math

import numpy as np


class RandomTiesUCB:
    def __init__(self, K: int, rng: np.random.Generator) -> None:
        self.K, self.rng = K, rng
        self.sums = [0.0] * K
        self.pulls = [0] * K

    def act(self, t: int) -> int:
        unpulled = [a for a in range(self.K) if self.pulls[a] == 0]
        if unpulled:
            return int(self.rng.choice(unpulled))
        index = [s / n + math.sqrt(2 * math.log(t) / n) for s, n in zip(self.sums, self.pulls)]
        best = max(index)
        tied = [a for a in range(self.K) if index[a] == best]
        return tied[0] if len(tied) == 1 else int(self.rng.choice(tied))

    def observe(self, t: int, arm: int, reward: float) -> None:
        self.sums[arm] += reward
        self.pulls[arm] += 1
