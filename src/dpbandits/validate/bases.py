"""The comparisons of a matroid semi-bandit candidate: L base arms, a basis of them per round.

:class:`Bases` is the problem of Chandak, Hu & Hegde (Sec. 2): its tables carry the free row 0
the matroid algorithms observe before round 1, every basis a candidate plays is checked against
the matroid and sorted (its order within a round is post-processing), and its comparisons are
those of :mod:`dpbandits.validate.arms` with base arms for arms and super arms for actions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import DPBanditsError
from . import stats as st
from .arms import checkpoints_for, rounds_for

__all__ = ["Bases", "DEFAULT_MATROID_SETTING"]

DEFAULT_MATROID_SETTING = "chandak-synthetic"
"""The environment of a semi-bandit ALGO when neither a setting nor means are given: Chandak, Hu
& Hegde (2023), Sec. 5.1, Table 2 (a linear matroid of rank 3 over L = 7 base arms)."""


class Bases:
    """A matroid semi-bandit problem (Chandak, Hu & Hegde, Sec. 2): L base arms, a matroid of
    rank k; an action is a super arm, a basis of k base arms, and a run's output a (T, k) array,
    whose rows are sorted here (the order within a basis is post-processing, not behaviour).
    Tables carry the free row 0 that the matroid algorithms observe before round 1."""

    def __init__(self, environment: Any) -> None:
        self.source = environment
        self.matroid = environment.matroid
        self.K = environment.L
        self.k = environment.rank
        self.means = np.asarray(environment.means, dtype=float)

    @classmethod
    def build(cls, setting: str | None, means: Any, params: dict[str, Any]) -> "Bases":
        """The environment of a semi-bandit ALGO: a named matroid setting (default
        :data:`DEFAULT_MATROID_SETTING`), whose matroid goes into ``params``, or Bernoulli
        ``means`` of the base arms with ``params["matroid"]`` (default: ALGO's own,
        a uniform matroid of rank 1). ``params`` is updated in place."""
        from ..reference import Bernoulli
        from ..reference.matroid import MatroidEnvironment, Uniform, matroid_setting

        if means is not None:
            arms = Bernoulli(np.asarray(means, dtype=float))
            params.setdefault("matroid", Uniform(arms.K, 1))      # the policies' own default
            return cls(MatroidEnvironment(params["matroid"], arms))
        environment = matroid_setting(setting or DEFAULT_MATROID_SETTING)
        given = params.get("matroid")
        if given is not None and repr(given) != repr(environment.matroid):
            raise DPBanditsError(f"the setting {setting or DEFAULT_MATROID_SETTING} has its own "
                                 f"matroid; to use another, give means and params['matroid']")
        params["matroid"] = environment.matroid
        return cls(environment)

    def table(self, T: int, rng: np.random.Generator) -> Any:
        """Rows 0..T of the environment: row 0 as ``X0``, rounds 1..T as the table."""
        from ..reference.environments import Table

        X = self.source.table(T + 1, rng)
        return Table(X[1:], means=self.means, X0=X[0])

    def one_run(self, output: Any) -> np.ndarray:
        return np.asarray(output)

    def checked(self, actions: Any, n: int, T: int, who: str) -> np.ndarray:
        """The bases of shape (n, T, k), each sorted; every row must be a basis of the matroid."""
        array = np.asarray(actions)
        if array.shape != (n, T, self.k):
            raise DPBanditsError(f"{who}: expected super arms of shape ({n}, {T}, {self.k}), "
                                 f"got {array.shape}")
        if array.size and (array.dtype.kind not in "iu" or array.min() < 0 or array.max() >= self.K):
            raise DPBanditsError(f"{who}: super arms must hold integer base arms in 0..{self.K - 1}")
        bases = np.sort(array.astype(np.int64), axis=2)
        for basis in np.unique(bases.reshape(-1, self.k), axis=0):
            if np.any(np.diff(basis) == 0) or not self.matroid.is_basis(basis.tolist()):
                raise DPBanditsError(f"{who}: the super arm {basis.tolist()} is not a basis of "
                                     f"{self.matroid!r}")
        return bases

    def regret(self, bases: np.ndarray) -> np.ndarray:
        """Each round's pseudo-regret f(A*, w_bar) - f(A_t, w_bar) (Sec. 2), shape (n, T)."""
        return self.source.optimal_value - self.means[bases].sum(axis=2)

    def inclusion(self, bases: np.ndarray) -> np.ndarray:
        """(n, T, L) booleans: was base arm e in round t's super arm."""
        n, T, _ = bases.shape
        held = np.zeros((n, T, self.K), dtype=bool)
        np.put_along_axis(held, bases, True, axis=2)
        return held

    def pulls(self, bases: np.ndarray, points: np.ndarray) -> np.ndarray:
        """Rounds in 1..t whose super arm held each base arm, for each t in ``points``
        (increasing), shape (n, len(points), L): each stretch of rounds between two points
        counted once, as :func:`~dpbandits.validate.arms.pulls_at` counts arms."""
        counts, total, before = [], 0, 0
        for t in points:
            total = total + self.inclusion(bases[:, before:int(t)]).sum(axis=1, dtype=np.int32)
            counts.append(total)
            before = int(t)
        return np.stack(counts, axis=1)

    def masks(self, bases: np.ndarray) -> np.ndarray:
        """Each super arm as the bit mask sum of 2^e (float, exact up to 52 base arms)."""
        if self.K > 52:
            return np.full(bases.shape[:-1], np.nan)
        return np.left_shift(1, bases).sum(axis=-1).astype(float)

    def compare(self, sample: str, cand: np.ndarray, ref: np.ndarray,
                rng: np.random.Generator) -> list[dict[str, Any]]:
        """Pulls of every base arm and regret at :func:`checkpoints_for` (L, T) (Mann-Whitney U),
        the super arm of the rounds :func:`rounds_for` (L, T) (homogeneity of the super arms'
        distributions), as :func:`~dpbandits.validate.arms.compare_arms` does for arms."""
        T = cand.shape[1]
        checkpoints = np.asarray(checkpoints_for(T, self.K))
        pulls_c, pulls_r = self.pulls(cand, checkpoints), self.pulls(ref, checkpoints)
        regret_c = np.cumsum(self.regret(cand), axis=1)
        regret_r = np.cumsum(self.regret(ref), axis=1)
        rows: list[dict[str, Any]] = []
        for i, t in enumerate(checkpoints):
            for e in range(self.K):
                x, y = pulls_c[:, i, e], pulls_r[:, i, e]
                rows.append(dict(sample=sample, quantity=f"pulls of base arm {e}", t=int(t),
                                 horizon=T, outcome=st.mann_whitney(x, y), x=x, y=y,
                                 candidate=float(x.mean()), reference=float(y.mean())))
        for t in rounds_for(T, self.K):
            x, y = cand[:, t - 1], ref[:, t - 1]
            _, codes = np.unique(np.concatenate([x, y]), axis=0, return_inverse=True)
            codes = codes.ravel()
            rows.append(dict(sample=sample, quantity="super arm", t=t, horizon=T,
                             outcome=st.homogeneity(codes[:len(x)], codes[len(x):],
                                                    int(codes.max()) + 1, rng),
                             x=None, y=None, n_total=len(x) + len(y),
                             candidate=_modal(self.masks(x)), reference=_modal(self.masks(y))))
        for t in checkpoints:
            x, y = regret_c[:, t - 1], regret_r[:, t - 1]
            rows.append(dict(sample=sample, quantity="regret", t=int(t), horizon=T,
                             outcome=st.mann_whitney(x, y), x=x, y=y,
                             candidate=float(x.mean()), reference=float(y.mean())))
        return rows

    def bound_values(self) -> dict[str, Any]:
        """The paper's K (the rank) and L; the per-arm gaps Delta_{e,min} of Chandak, Hu &
        Hegde's Theorem 2 are not computed, so bounds that need them are listed as not used."""
        return {"K": float(self.k), "L": float(self.K)}


def _modal(masks: np.ndarray) -> float:
    """The most frequent super arm's bit mask (the smallest among equals); NaN when not shown."""
    if np.isnan(masks).any():
        return float("nan")
    values, counts = np.unique(masks, return_counts=True)
    return float(values[counts.argmax()])
