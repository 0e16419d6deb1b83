"""A planted Anytime-Lazy-UCB that does not forget: at each block's end it releases the sum of
the arm's whole history (not the block's) with a fresh Lap(1/eps) draw, so a reward enters every
later release of its arm and the releases compose (about 2 eps at the audit's horizon, where an
arm's early rewards are in two or three releases). Written for one run, as a third party would,
from :class:`PlainLazyUCB` (examples/validate/implementations.py); only the released statistic
differs. It lives in the tests: the audit must catch it (tests/audit/test_no_forget.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "validate"))

from implementations import PlainLazyUCB  # noqa: E402


class NoForgetLazyUCB(PlainLazyUCB):
    """Releases (every reward of the arm so far + Lap(1/eps)) / pulls at each block's end."""

    def __init__(self, rng, K: int = 5, epsilon: float = 1.0) -> None:
        super().__init__(rng, K, epsilon)
        self.history_sum = [0.0] * K

    def observe(self, t: int, arm: int, reward: float) -> None:
        self.pulls[arm] += 1
        self.history_sum[arm] += reward
        n = self.pulls[arm]
        if self.block_complete(n):
            self.estimate[arm] = (self.history_sum[arm] + self.release_noise()) / n
            self.size[arm] = (n + 1) // 2
