"""Independent single-run implementations used to validate the library's validator.

Written from the papers' pseudocode, not from the library's code, as a third party would:
plain Python, one run, the act/observe protocol (``act(t)`` returns an arm; ``observe(t, arm,
feedback)`` receives the pulled arm's reward, or the whole reward row for full information).
Each factory takes the run's ``numpy.random.Generator``.

Faithful: :class:`PlainUCB1` (Auer et al. 2002) and :class:`PlainFTNL` (Hu et al., Algorithm 4,
with the corrected Lap(2/eps) noise). Planted deviations, each a classic bug:
:class:`RadiusUCB1` (confidence radius sqrt(ln t / n) instead of sqrt(2 ln t / n)),
:class:`WrongArmUCB1` (the reward credited to the next arm), :class:`OffByOneFTNL` (epochs end
one round late) and :class:`ReusedNoiseFTNL` (one noise vector drawn once and reused at every
epoch: not private, since the noise no longer hides the sums' changes).
"""

from __future__ import annotations

import math

import numpy as np

K_ARMS = 5
EPSILON = 1.0


class PlainUCB1:
    """UCB1: pull each arm once, then argmax of mean + sqrt(2 ln t / n), lowest arm on ties."""

    radius = 2.0

    def __init__(self, rng: np.random.Generator, K: int = K_ARMS) -> None:
        self.sums = [0.0] * K
        self.pulls = [0] * K

    def act(self, t: int) -> int:
        for arm, count in enumerate(self.pulls):
            if count == 0:
                return arm
        best, best_index = 0, -math.inf
        for arm, (s, n) in enumerate(zip(self.sums, self.pulls)):
            index = s / n + math.sqrt(self.radius * math.log(t) / n)
            if index > best_index:
                best, best_index = arm, index
        return best

    def credit(self, arm: int) -> int:
        return arm

    def observe(self, t: int, arm: int, reward: float) -> None:
        target = self.credit(arm)
        self.sums[target] += reward
        self.pulls[arm] += 1


class RadiusUCB1(PlainUCB1):
    """Planted deviation: the confidence radius has the wrong constant."""

    radius = 1.0


class WrongArmUCB1(PlainUCB1):
    """Planted deviation: the reward is added to the next arm's sum."""

    def credit(self, arm: int) -> int:
        return (arm + 1) % len(self.sums)


class PlainFTNL:
    """FTNL with Lap(2/eps): epoch 0 is round 1 (action 0); epoch s covers rounds 2^s..2^(s+1)-1
    and plays the report-noisy-max of the previous epoch's reward sums."""

    def __init__(self, rng: np.random.Generator, K: int = K_ARMS, epsilon: float = EPSILON) -> None:
        self.rng, self.K, self.scale = rng, K, 2.0 / epsilon
        self.leader = 0
        self.sums = np.zeros(K)

    def noise(self) -> np.ndarray:
        return self.rng.laplace(0.0, self.scale, self.K)

    def epoch_ends(self, t: int) -> bool:
        return (t + 1) & t == 0

    def act(self, t: int) -> int:
        return self.leader

    def observe(self, t: int, arm: int, row: np.ndarray) -> None:
        self.sums += row
        if self.epoch_ends(t):
            self.leader = int(np.argmax(self.sums + self.noise()))
            self.sums[:] = 0.0


class OffByOneFTNL(PlainFTNL):
    """Planted deviation: each epoch ends one round late."""

    def epoch_ends(self, t: int) -> bool:
        return t >= 2 and (t & (t - 1)) == 0


class ReusedNoiseFTNL(PlainFTNL):
    """Planted deviation: one noise vector, drawn once, reused at every epoch."""

    def __init__(self, rng: np.random.Generator, K: int = K_ARMS, epsilon: float = EPSILON) -> None:
        super().__init__(rng, K, epsilon)
        self.fixed = rng.laplace(0.0, self.scale, K)

    def noise(self) -> np.ndarray:
        return self.fixed
