"""Independent single-run implementations used to validate the library's validator.

Written from the papers' pseudocode, not from the library's code, as a third party would:
plain Python, one run, the act/observe protocol (``act(t)`` returns an arm; ``observe(t, arm,
feedback)`` receives the pulled arm's reward, or the whole reward row for full information).
Each factory takes the run's ``numpy.random.Generator``.

Faithful: :class:`PlainUCB1` (Auer et al. 2002), :class:`PlainLazyUCB` (Anytime-Lazy-UCB, Hu,
Huang & Mehta 2021, Algorithm 1) and :class:`PlainFTNL` (Hu et al., Algorithm 4, with the
corrected Lap(2/eps) noise). Planted deviations, each a classic bug:
:class:`RadiusUCB1` (confidence radius sqrt(ln t / n) instead of sqrt(2 ln t / n)),
:class:`WrongArmUCB1` (the reward credited to the next arm), :class:`LateLazyUCB` (every
array of Anytime-Lazy-UCB released one pull late), :class:`ReusedNoiseLazyUCB` (one noise draw
per arm reused at every release), :class:`OffByOneFTNL` (epochs end one round late) and
:class:`ReusedNoiseFTNL` (one noise vector drawn once and reused at every epoch). The reused-noise
bugs are not private, since the noise no longer hides the sums' changes.

Functions of the whole table (``fn(table, rng) -> actions``, for ``--callable``):
:func:`follow_the_leader` (FTL) and its planted look-ahead :func:`peeking_leader`.
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


class PlainLazyUCB:
    """Anytime-Lazy-UCB for one run, written from the paper's description.

    Arm j's n-th pull (n = 1, 2, ...) belongs to block b = floor(log2 n), which holds pulls
    2^b .. 2^(b+1) - 1. When a block is complete its sum, plus one Lap(1/eps) draw, divided by its
    size 2^b, becomes the arm's estimate, and the earlier blocks are forgotten. Rounds 1..K pull
    arms 0..K-1 (block 0, released at once); afterwards the arm with the largest
    estimate + sqrt(3 ln t / size) + 3 ln t / (eps size) is pulled (lowest arm on ties).
    """

    def __init__(self, rng: np.random.Generator, K: int = K_ARMS, epsilon: float = EPSILON) -> None:
        self.rng, self.K, self.epsilon = rng, K, epsilon
        self.pulls = [0] * K                 # n: every pull of the arm so far
        self.block_sum = [0.0] * K           # sum of the incomplete block
        self.estimate = [0.0] * K            # the last released noisy block mean
        self.size = [1] * K                  # size of the block behind ``estimate``

    def block_complete(self, n: int) -> bool:
        """After the n-th pull, a block is complete when n + 1 is a power of two."""
        return (n + 1) & n == 0

    def act(self, t: int) -> int:
        if t <= self.K:
            return t - 1
        log_t = math.log(t)
        scores = [self.estimate[j] + math.sqrt(3 * log_t / self.size[j])
                  + 3 * log_t / (self.epsilon * self.size[j]) for j in range(self.K)]
        return int(np.argmax(scores))

    def observe(self, t: int, arm: int, reward: float) -> None:
        self.pulls[arm] += 1
        self.block_sum[arm] += reward
        n = self.pulls[arm]
        if self.block_complete(n):
            size = (n + 1) // 2
            self.estimate[arm] = (self.block_sum[arm] + self.release_noise()) / size
            self.size[arm] = size
            self.block_sum[arm] = 0.0

    def release_noise(self) -> float:
        """The Lap(1/eps) draw added to a complete block's sum."""
        return float(self.rng.laplace(0.0, 1.0 / self.epsilon))


class LateLazyUCB(PlainLazyUCB):
    """Planted deviation: a block is released one pull late (after pulls 2, 4, 8, ...), so each
    estimate also holds the first pull of the next block, divided by the block's size."""

    def block_complete(self, n: int) -> bool:
        return n >= 2 and n & (n - 1) == 0

    def observe(self, t: int, arm: int, reward: float) -> None:
        self.pulls[arm] += 1
        self.block_sum[arm] += reward
        n = self.pulls[arm]
        if n == 1 or self.block_complete(n):
            size = max(1, n // 2)
            self.estimate[arm] = (self.block_sum[arm] + self.release_noise()) / size
            self.size[arm] = size
            self.block_sum[arm] = 0.0


class ReusedNoiseLazyUCB(PlainLazyUCB):
    """Planted deviation: one Laplace draw per arm, made once and reused at every release.

    Consecutive estimates of an arm then share their noise, so their difference reveals the
    difference of two block sums exactly: not epsilon-DP for any epsilon. Its pull counts are
    those of a faithful implementation up to effects too small for the behavioural tests; the
    privacy audit is what catches it."""

    def __init__(self, rng: np.random.Generator, K: int = K_ARMS, epsilon: float = EPSILON) -> None:
        super().__init__(rng, K, epsilon)
        self.fixed = rng.laplace(0.0, 1.0 / epsilon, K)
        self.arm = 0

    def observe(self, t: int, arm: int, reward: float) -> None:
        self.arm = arm
        super().observe(t, arm, reward)

    def release_noise(self) -> float:
        return float(self.fixed[self.arm])


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


def follow_the_leader(table: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """FTL as a function of the whole (T, K) table: round 1 plays arm 0, round t the arm with the
    largest reward sum over rounds 1..t-1 (lowest arm on ties). Deterministic: ``rng`` is unused."""
    totals = np.cumsum(table, axis=0)
    actions = np.zeros(table.shape[0], dtype=np.int64)
    actions[1:] = np.argmax(totals[:-1], axis=1)
    return actions


def peeking_leader(table: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Planted deviation: the leader of round t is computed with round t's own rewards (the
    sum over rounds 1..t), a look-ahead a function of the whole table can commit silently."""
    totals = np.cumsum(table, axis=0)
    return np.argmax(totals, axis=1).astype(np.int64)
