"""The comparisons of a bandit or full-information candidate: K arms, one arm per round.

:class:`Arms` is the problem (the environment's tables, the pseudo-regret, the pull counts) and
:func:`compare_arms` the raw two-sample comparisons of one sample, before the correction
(:mod:`dpbandits.validate.correction`): the pull count of every arm and the pseudo-regret at
:func:`checkpoints_for` (Mann-Whitney U), the action at :func:`rounds_for` (homogeneity). See
:mod:`dpbandits.validate.stats` for each test's guarantee.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import DPBanditsError
from . import stats as st
from .defaults import DEFAULT_SETTING

__all__ = ["Arms", "compare_arms", "checked_actions", "checkpoints_for", "rounds_for", "pulls_at"]


def checkpoints_for(T: int, K: int) -> list[int]:
    """Rounds at which pull counts and regret are compared: 2K (just after the first pulls of
    every arm), T/8, T/4, T/2 and T (those below 1 or above T dropped)."""
    return sorted({t for t in (2 * K, T // 8, T // 4, T // 2, T) if 1 <= t <= T})


def rounds_for(T: int, K: int) -> list[int]:
    """Rounds whose action is compared: 1, 2, K, K + 1, K + 2 (initial exploration and the
    first decisions), T/2 and T."""
    return sorted({t for t in (1, 2, K, K + 1, K + 2, T // 2, T) if 1 <= t <= T})


def checked_actions(actions: Any, n: int, T: int, K: int, who: str) -> np.ndarray:
    """``who``'s actions as int64 after checking their shape (n, T) and range 0..K-1 (what a
    candidate returns is input, checked as it arrives)."""
    array = np.asarray(actions)
    if array.shape != (n, T):
        raise DPBanditsError(f"{who}: expected actions of shape ({n}, {T}), got {array.shape}")
    if array.size and (array.min() < 0 or array.max() >= K):
        raise DPBanditsError(f"{who}: actions outside 0..{K - 1}")
    return array.astype(np.int64)


def pulls_at(actions: np.ndarray, points: Any, K: int) -> np.ndarray:
    """Pulls of every arm in rounds 1..t for each t in ``points`` (increasing), shape (n,
    len(points), K): each stretch of rounds between two points counted once per arm, never a
    running count of every round of every arm (at T = 260 000 and 200 runs: 0.3 s against
    14 s and 2 GB)."""
    n = actions.shape[0]
    counts = np.zeros((n, len(points), K), dtype=np.int64)
    total, before = np.zeros((n, K), dtype=np.int64), 0
    for i, t in enumerate(points):
        stretch = actions[:, before:t]
        total = total + np.stack([np.count_nonzero(stretch == a, axis=1) for a in range(K)],
                                 axis=1)
        counts[:, i] = total
        before = t
    return counts


def compare_arms(sample: str, cand: np.ndarray, ref: np.ndarray, gaps: np.ndarray, K: int,
                 rng: np.random.Generator) -> list[dict[str, Any]]:
    """The raw comparisons of one sample (before the correction)."""
    T = cand.shape[1]
    rows: list[dict[str, Any]] = []
    points = checkpoints_for(T, K)
    pulls_c, pulls_r = pulls_at(cand, points, K), pulls_at(ref, points, K)
    regret_c, regret_r = np.cumsum(gaps[cand], axis=1), np.cumsum(gaps[ref], axis=1)
    for i, t in enumerate(points):
        for a in range(K):
            x, y = pulls_c[:, i, a], pulls_r[:, i, a]
            rows.append(dict(sample=sample, quantity=f"pulls of arm {a}", t=t, horizon=T,
                             outcome=st.mann_whitney(x, y), x=x, y=y,
                             candidate=float(x.mean()), reference=float(y.mean())))
    for t in rounds_for(T, K):
        x, y = cand[:, t - 1], ref[:, t - 1]
        rows.append(dict(sample=sample, quantity="action", t=t, horizon=T,
                         outcome=st.homogeneity(x, y, K, rng), x=None, y=None,
                         n_total=x.size + y.size,
                         candidate=float(np.bincount(x, minlength=K).argmax()),
                         reference=float(np.bincount(y, minlength=K).argmax())))
    for t in checkpoints_for(T, K):
        x, y = regret_c[:, t - 1], regret_r[:, t - 1]
        rows.append(dict(sample=sample, quantity="regret", t=t, horizon=T, outcome=st.mann_whitney(x, y),
                         x=x, y=y, candidate=float(x.mean()), reference=float(y.mean())))
    return rows


class Arms:
    """A bandit or full-information problem: K arms with Bernoulli (or a setting's) rewards;
    an action is one arm, a run's output an (T,) array of arms."""

    def __init__(self, source: Any) -> None:
        self.source = source
        self.K = source.K
        self.means = np.asarray(source.means, dtype=float)
        self.gaps = np.asarray(source.gaps, dtype=float)

    @classmethod
    def build(cls, setting: str | None, means: Any) -> "Arms":
        from ..reference import Bernoulli, get_setting

        return cls(Bernoulli(np.asarray(means, dtype=float)) if means is not None else
                   get_setting(setting or DEFAULT_SETTING).environment())

    def table(self, T: int, rng: np.random.Generator) -> Any:
        from ..reference.environments import Table

        return Table(self.source.table(T, rng), means=self.source.means)

    def one_run(self, output: Any) -> np.ndarray:
        return np.asarray(output).reshape(1, -1)

    def checked(self, actions: Any, n: int, T: int, who: str) -> np.ndarray:
        return checked_actions(actions, n, T, self.K, who)

    def regret(self, actions: np.ndarray) -> np.ndarray:
        """Each round's pseudo-regret mu* - mu_{a_t}, shape (n, T)."""
        return self.gaps[actions]

    def pulls(self, actions: np.ndarray, points: np.ndarray) -> np.ndarray:
        """Pulls of every arm in rounds 1..t for each t in ``points``, shape (n, len(points), K)."""
        return pulls_at(actions, [int(t) for t in points], self.K)

    def compare(self, sample: str, cand: np.ndarray, ref: np.ndarray,
                rng: np.random.Generator) -> list[dict[str, Any]]:
        return compare_arms(sample, cand, ref, self.gaps, self.K, rng)

    def bound_values(self) -> dict[str, Any]:
        positive = self.gaps[self.gaps > 0]
        values: dict[str, Any] = {"K": float(self.K), "gaps": self.gaps}
        if positive.size:
            values["Delta_min"] = float(positive.min())
            values["Delta_max"] = float(positive.max())
        return values

