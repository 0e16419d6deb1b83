"""DP-SE (Sajed & Sheffet, ICML 2019) as a plain Python class, as a third party would write it.

``DPSE(K, T, epsilon, rng)`` follows docs/algorithms/dp-se.md: epoch e = 1, 2, ... pulls every
active arm R_e times in round-robin order, with

    R_e = ceil(max(32 ln(8 |S| e^2 / beta) / Delta_e^2, 8 ln(4 |S| e^2 / beta) / (eps Delta_e))),

Delta_e = 2^-e, beta = 1 / T; it then releases each active arm's epoch mean plus
Laplace(1 / (eps R_e)) and keeps the arms within 2 (h_e + c_e) of the best release. Nothing
about dpbandits is imported: the class has the act/observe methods and nothing else.

:class:`ExactFirstDPSE` plants a privacy bug in the first elimination only: epoch 1 compares the
exact means (its noise is drawn and left out). Every later epoch is right, the regret is fine,
and the algorithm is not epsilon-DP for any epsilon.
"""

from __future__ import annotations

import math

import numpy as np


class DPSE:
    """DP-SE for one run: ``act(t)`` returns the arm of round t, ``observe`` takes its reward."""

    def __init__(self, K: int, T: int, epsilon: float, rng: np.random.Generator) -> None:
        self.K, self.T, self.epsilon, self.rng = K, T, epsilon, rng
        self.beta = 1.0 / T
        self.active = list(range(K))
        self.e = 0
        self._start_epoch()

    def _start_epoch(self) -> None:
        self.e += 1
        n, e = len(self.active), self.e
        delta = 2.0 ** -e
        self.R = math.ceil(max(32 * math.log(8 * n * e * e / self.beta) / delta ** 2,
                               8 * math.log(4 * n * e * e / self.beta) / (self.epsilon * delta)))
        self.pulls = 0
        self.sums = {a: 0.0 for a in self.active}

    def act(self, t: int) -> int:
        return self.active[self.pulls % len(self.active)]

    def observe(self, t: int, arm: int, reward: float) -> None:
        if len(self.active) == 1:
            return
        self.sums[arm] += reward
        self.pulls += 1
        if self.pulls == len(self.active) * self.R:
            self._eliminate()

    def noise(self) -> float:
        return float(self.rng.laplace(0.0, 1.0 / (self.epsilon * self.R)))

    def _eliminate(self) -> None:
        n, e, R = len(self.active), self.e, self.R
        released = {a: self.sums[a] / R + self.noise() for a in self.active}
        h = math.sqrt(math.log(8 * n * e * e / self.beta) / (2 * R))
        c = math.log(4 * n * e * e / self.beta) / (R * self.epsilon)
        best = max(released.values())
        self.active = [a for a in self.active if best - released[a] <= 2 * (h + c)]
        if len(self.active) > 1:
            self._start_epoch()


class ExactFirstDPSE(DPSE):
    """Planted privacy bug: the first elimination reads the exact epoch means."""

    def noise(self) -> float:
        drawn = super().noise()
        return 0.0 if self.e == 1 else drawn
